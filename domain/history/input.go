package history

import (
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxPathBytes bounds a transcript's path.
const MaxPathBytes = 4096

// TranscriptPath is the absolute path of a session file a harness wrote.
type TranscriptPath string

// UnmarshalText refuses what cannot be a session file's path (history_transcript_invalid).
func (p *TranscriptPath) UnmarshalText(b []byte) error {
	s := string(b)
	switch {
	case len(s) > MaxPathBytes:
		return refusal.New(refusal.CodeHistoryTranscriptInvalid, "", fmt.Sprintf("the path is longer than %d bytes", MaxPathBytes), "give the session file's absolute path")
	case text.LineProblem(s) != "":
		return refusal.New(refusal.CodeHistoryTranscriptInvalid, "", "the path holds "+text.LineProblem(s), "give the session file's absolute path")
	case !path.IsAbs(s):
		return refusal.New(refusal.CodeHistoryTranscriptInvalid, "", fmt.Sprintf("%q is not an absolute path", text.Clip(s)), "give the session file's absolute path")
	}
	*p = TranscriptPath(path.Clean(s))
	return nil
}

// SchemaRule describes a transcript's path to the schema generator.
func (TranscriptPath) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the absolute path of a session file the harness wrote", MinLength: 1, MaxLength: MaxPathBytes,
		Pattern: "^/[^" + text.HiddenClass() + "]*$"}
}

// HarnessName names a harness.
type HarnessName string

// UnmarshalText refuses a harness abcd does not read (history_harness_unknown).
func (h *HarnessName) UnmarshalText(b []byte) error {
	if _, err := ParseHarness(string(b)); err != nil {
		return refusal.New(refusal.CodeHistoryHarnessUnknown, "", err.Error(), "name claude, codex or gemini")
	}
	*h = HarnessName(b)
	return nil
}

// SchemaRule describes a harness's name.
func (HarnessName) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the harness that wrote the session file", Enum: []string{string(Claude), string(Codex), string(Gemini)}}
}

// SessionRef names a captured session: its key (harness:session[:agent]), its session id, or a
// prefix of its session id of at least four characters.
type SessionRef string

// UnmarshalText refuses what cannot name a session (history_session_invalid).
func (r *SessionRef) UnmarshalText(b []byte) error {
	s := string(b)
	ok := len(s) >= 4 && len(s) <= 300
	for _, part := range strings.Split(s, ":") {
		if part != "" && !safeID(part) {
			ok = false
		}
	}
	if !ok {
		return refusal.New(refusal.CodeHistorySessionInvalid, "", fmt.Sprintf("%q is not a session's key, id or id prefix (at least 4 characters)", text.Clip(s)),
			"abcd history list shows each session's key")
	}
	*r = SessionRef(s)
	return nil
}

// SchemaRule describes a session reference.
func (SessionRef) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a captured session's key, session id, or session id prefix", MinLength: 4, MaxLength: 300, Pattern: "^[A-Za-z0-9._:-]+$"}
}

// MaxQueryBytes bounds a search query, in characters.
const MaxQueryBytes = 1024

// SearchQuery is what to look for: words, "quoted phrases", and word* prefixes, all required.
type SearchQuery string

// UnmarshalText refuses an empty, over-long or hidden-character query (history_query_invalid).
func (q *SearchQuery) UnmarshalText(b []byte) error {
	s := string(b)
	switch {
	case strings.TrimSpace(s) == "":
		return refusal.New(refusal.CodeHistoryQueryInvalid, "", "the query is empty", "give the words to look for")
	case !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxQueryBytes:
		return refusal.New(refusal.CodeHistoryQueryInvalid, "", fmt.Sprintf("the query is not text of at most %d characters", MaxQueryBytes), "give the words to look for")
	case text.LineProblem(s) != "":
		return refusal.New(refusal.CodeHistoryQueryInvalid, "", "the query holds "+text.LineProblem(s), "give the words to look for, on one line")
	}
	*q = SearchQuery(s)
	return nil
}

// SchemaRule describes a search query.
func (SearchQuery) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the words to look for: every word required, \"quoted phrases\" as phrases, word* as a prefix", MinLength: 1, MaxLength: MaxQueryBytes}
}

// DateBound bounds a listing by when its sessions started: a day (YYYY-MM-DD, in UTC, as the
// records' times are) or a moment (RFC 3339, with its offset).
type DateBound string

// dayLayout is a day as a DateBound spells it.
const dayLayout = "2006-01-02"

// UnmarshalText refuses what is neither a day nor a moment (history_date_invalid).
func (d *DateBound) UnmarshalText(b []byte) error {
	s := string(b)
	if _, _, ok := parseBound(s); !ok {
		return refusal.New(refusal.CodeHistoryDateInvalid, "", fmt.Sprintf("%q is not a day (YYYY-MM-DD) or a moment (RFC 3339, such as 2026-12-01T09:30:00Z)", text.Clip(s)),
			"give a day such as 2026-12-01, or a moment with its offset")
	}
	*d = DateBound(s)
	return nil
}

// SchemaRule describes a date bound.
func (DateBound) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a day (YYYY-MM-DD, UTC) or a moment (RFC 3339 with its offset)", MinLength: 10, MaxLength: 40,
		Pattern: `^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$`}
}

func parseBound(s string) (time.Time, bool, bool) {
	if len(s) > 40 {
		return time.Time{}, false, false
	}
	if t, err := time.Parse(dayLayout, s); err == nil {
		return t, true, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, true
	}
	return time.Time{}, false, false
}

// Since is the first moment a "since" bound admits: the start of its day, or the moment itself.
func (d DateBound) Since() (time.Time, bool) {
	t, _, ok := parseBound(string(d))
	return t.UTC(), ok && d != ""
}

// Until is the last moment an "until" bound admits: the end of its day (its last nanosecond), or
// the moment itself.
func (d DateBound) Until() (time.Time, bool) {
	t, day, ok := parseBound(string(d))
	if day {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t.UTC(), ok && d != ""
}
