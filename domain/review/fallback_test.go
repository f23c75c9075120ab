package review

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFallbackReasons(t *testing.T) {
	want := map[FallbackReason]string{
		Absent:      "no server is configured for this route",
		Unreachable: "the route's server refused the connection or closed it before answering",
		Timeout:     "the route did not answer within its time bound",
		Refused:     "the route's server answered with an error",
		Unparsable:  "the route's answer was not in its protocol's shape",
		Invalid:     "the route's return held no verdict abcd can record, or was larger than a return may be",
		Failed:      "abcd could not compose the request for this route",
		Interrupted: "the step was interrupted while the route worked",
	}
	if len(FallbackReasons()) != len(want) {
		t.Fatalf("%d reasons, want %d", len(FallbackReasons()), len(want))
	}
	for _, r := range FallbackReasons() {
		if !r.Valid() {
			t.Errorf("%s is not valid", r)
		}
		if got := r.Sentence(); got != want[r] {
			t.Errorf("%s: %q, want %q", r, got, want[r])
		}
	}
	for _, r := range []FallbackReason{"", "Absent", "rate-limited"} {
		if r.Valid() {
			t.Errorf("%q is valid", r)
		}
	}
	if got := FallbackReason("rate-limited").Sentence(); got != `the route did not return (reason "rate-limited")` {
		t.Error(got)
	}
}

func goodFallback() FallbackReceipt {
	return FallbackReceipt{
		At: "2026-10-12T09:30:00Z", Run: "run-1", Lane: "lane-1", Round: 0, Role: Ruthless,
		Asked: "rp", Reason: Unreachable, Detail: "connection refused by the RepoPrompt server", Ran: RanHost,
	}
}

func TestFallbackReceiptCheck(t *testing.T) {
	if err := goodFallback().Check(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(goodFallback())
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"at":"2026-10-12T09:30:00Z","run":"run-1","lane":"lane-1","round":0,"role":"ruthless-reviewer","asked":"rp","reason":"unreachable","detail":"connection refused by the RepoPrompt server","ran":"host"}` {
		t.Fatal(string(b))
	}
	for _, tc := range []struct {
		name string
		edit func(f *FallbackReceipt)
		want []string
	}{
		{"not UTC", func(f *FallbackReceipt) { f.At = "2026-10-12T09:30:00+02:00" }, []string{`"at" "2026-10-12T09:30:00+02:00" is not an RFC 3339 UTC time`}},
		{"not a time", func(f *FallbackReceipt) { f.At = "yesterday" }, []string{`"at" "yesterday"`}},
		{"every field", func(f *FallbackReceipt) {
			*f = FallbackReceipt{Round: -1, Role: "boss", Reason: "slow", Detail: "see http://127.0.0.1:1234/mcp\n" + strings.Repeat("d", 500), Ran: "rp"}
		}, []string{`"at" ""`, `"run" is empty`, `"lane" is empty`, `"round" is -1`, `"role" "boss"`, `"asked" is empty`, `"reason" "slow"`,
			`"detail" is 530 characters, more than 512`, `"detail" holds a URL`, `"detail" has a control character`, `"ran" is "rp": a fallback runs on "host"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := goodFallback()
			tc.edit(&f)
			wantProblems(t, f.Check(), tc.want...)
		})
	}
}
