package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/strictjson"
)

// AwaitTrailer is the trailer abcd's commit of a runner's step carries, naming the await whose step it
// is: a step resumed after a kill finds its own commit rather than taking the step again.
const AwaitTrailer = "Abcd-Await"

// MaxCommittingBytes bounds the note abcd writes before it commits a step's work.
const MaxCommittingBytes = 256 << 10

// Committing is what abcd writes beside a runner step's files just before it commits the step's work
// (its checks passed): the await, the commit the work is made on, and what the runner reported. With
// the commit's trailer it makes the commit and its record one recoverable act: a kill between them
// leaves a note a resumed step reads to record the commit it finds, the runner's receipt whole.
type Committing struct {
	SchemaVersion int     `json:"schema_version"`
	Await         string  `json:"await"`
	Parent        string  `json:"parent"`
	Receipt       Receipt `json:"receipt"`
	Final         string  `json:"final"`
}

// EncodeCommitting is the note's bytes.
func EncodeCommitting(c Committing) ([]byte, error) {
	c.SchemaVersion = 1
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// DecodeCommitting reads a note strictly: one object, no unknown or repeated key, schema_version 1, an
// await, a parent commit and the runner's receipt named.
func DecodeCommitting(file string, data []byte) (Committing, error) {
	if err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: MaxCommittingBytes, MaxDepth: 16}); err != nil {
		return Committing{}, fmt.Errorf("%s: %s", file, strictjson.Describe(err))
	}
	var c Committing
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Committing{}, fmt.Errorf("%s: %w", file, err)
	}
	switch {
	case c.SchemaVersion != 1:
		return Committing{}, fmt.Errorf("%s declares schema_version %d; this abcd reads version 1", file, c.SchemaVersion)
	case c.Await == "" || !isCommitID(c.Parent):
		return Committing{}, fmt.Errorf("%s names no await or no parent commit", file)
	case c.Receipt.Runner == "" || !c.Receipt.CLI.Valid():
		return Committing{}, fmt.Errorf("%s holds no runner's receipt", file)
	}
	return c, nil
}

// NamesAwait reports whether a commit's message is abcd's commit of await's step: its last paragraph
// (the trailers abcd writes after the agent's words) holds the await trailer naming it. A line of the
// agent's own text never counts: the agent's words come before abcd's trailers.
func NamesAwait(message, await string) bool {
	msg := strings.TrimRight(strings.ReplaceAll(message, "\r\n", "\n"), "\n")
	last := msg
	if i := strings.LastIndex(msg, "\n\n"); i >= 0 {
		last = msg[i+2:]
	}
	for _, line := range strings.Split(last, "\n") {
		if v, ok := strings.CutPrefix(line, AwaitTrailer+": "); ok && v == await {
			return true
		}
	}
	return false
}

// isCommitID is a full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
