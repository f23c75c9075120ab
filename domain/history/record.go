package history

// Record is what the store keeps of one captured transcript, beside its redacted bytes and messages.
// Every text in it has been through the redactor.
type Record struct {
	Key       string  `json:"key"`
	Harness   Harness `json:"harness"`
	Session   string  `json:"session"`
	Agent     string  `json:"agent"`
	AgentType string  `json:"agent_type"`
	Parent    string  `json:"parent"`
	Cwd       string  `json:"cwd"`
	Title     string  `json:"title"`
	Model     string  `json:"model"`
	Started   string  `json:"started"`
	Ended     string  `json:"ended"`
	Captured  string  `json:"captured"`
	Source    string  `json:"source"`
	// Bytes is the transcript's size as the harness wrote it; Digest its SHA-256, so the same
	// transcript again is known; Stored is the size kept (redacted).
	Bytes      int     `json:"bytes"`
	Stored     int     `json:"stored"`
	Digest     string  `json:"digest"`
	Messages   int     `json:"messages"`
	Redactions Counts  `json:"redactions"`
	Lineage    Lineage `json:"lineage"`
}

// Outcome is what capturing a transcript did.
type Outcome string

const (
	Stored     Outcome = "stored"     // new
	Superseded Outcome = "superseded" // a longer transcript of the same session and agent replaced the kept one
	Unchanged  Outcome = "unchanged"  // the same bytes were kept already
	KeptLonger Outcome = "kept-longer"
	Refused    Outcome = "refused"
)

// Decide is what a capture does with a transcript of digest and size when the store keeps old (ok
// false: nothing kept): the same bytes are no change; a longer transcript supersedes; a shorter or
// equally long different one leaves the longer kept.
func Decide(old Record, ok bool, digest string, size int) Outcome {
	switch {
	case !ok:
		return Stored
	case old.Digest == digest:
		return Unchanged
	case size > old.Bytes:
		return Superseded
	default:
		return KeptLonger
	}
}
