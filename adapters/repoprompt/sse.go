package repoprompt

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// event is one server-sent event as the event-stream format dispatches it.
type event struct {
	typ  string // "" is the default, message
	data string
}

// sseReader reads an event stream (text/event-stream) as the HTML standard's parser does: lines end
// with CRLF, LF or CR; a line starting with a colon is a comment; data lines join with LF; id sets
// the last event id (one with a NUL is ignored); retry sets the reconnection time (digits only); a
// blank line dispatches; an event the stream ends inside is dropped. It reads from a bounded reader,
// so no line can be longer than what the caller allows the whole stream.
type sseReader struct {
	r        *bufio.Reader
	idBuf    string // the last event id buffer: it becomes lastID when an event is dispatched
	lastID   string
	retry    time.Duration
	hasRetry bool
	started  bool
	pending  []string // lines split out of a physical line by lone CRs, not yet handled
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 32<<10)} }

// line returns the next line without its end, or io.EOF once the stream ends (a last line with no
// end is still a line).
func (s *sseReader) line() (string, error) {
	if len(s.pending) > 0 {
		l := s.pending[0]
		s.pending = s.pending[1:]
		return l, nil
	}
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (len(buf) == 0 || !errors.Is(err, io.EOF)) {
			return "", err
		}
		break
	}
	if !s.started {
		s.started = true
		buf = bytes.TrimPrefix(buf, []byte("\uFEFF"))
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	buf = bytes.TrimSuffix(buf, []byte("\r"))
	if bytes.IndexByte(buf, '\r') < 0 {
		return string(buf), nil
	}
	parts := strings.Split(string(buf), "\r")
	s.pending = parts[1:]
	return parts[0], nil
}

// next returns the next dispatched event, or the error that ended the stream (io.EOF at its end).
func (s *sseReader) next() (event, error) {
	var data strings.Builder
	var typ string
	hasData := false
	for {
		l, err := s.line()
		if err != nil {
			return event{}, err
		}
		if l == "" {
			s.lastID = s.idBuf
			if !hasData {
				typ = ""
				continue
			}
			return event{typ: typ, data: strings.TrimSuffix(data.String(), "\n")}, nil
		}
		if l[0] == ':' {
			continue
		}
		field, value, found := strings.Cut(l, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			typ = value
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				s.idBuf = value
			}
		case "retry":
			if n, err := strconv.ParseUint(value, 10, 32); err == nil && value != "" && strings.Trim(value, "0123456789") == "" {
				s.retry, s.hasRetry = time.Duration(n)*time.Millisecond, true
			}
		}
	}
}
