package loop_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The Validator port's fault table: a route that answers is recorded as the route's; every way it
// does not return leaves the review on the host with a fallback receipt naming why.
func TestReviewsTakeTheValidatorRouteOrFallBack(t *testing.T) {
	passing := func(req ports.ReviewRequest) ports.ReviewOutcome {
		word := map[string]string{loop.RoleRuthless: "SHIP", loop.RoleSecurity: "APPROVE"}[req.Role]
		return ports.ReviewOutcome{Return: []byte("## Verdict\n\n" + word + "\n\nNothing to fix.\n")}
	}
	for _, c := range []struct {
		name      string
		validator *fake.Validator
		reason    string // "" when the route answered
	}{
		{"the route answers", &fake.Validator{Name: "rp", Answer: passing}, ""},
		{"the route refuses", &fake.Validator{Name: "rp", Outcome: ports.ReviewOutcome{FallbackReason: "refused", FallbackDetail: "the server said no"}}, "refused"},
		{"the route times out", &fake.Validator{Name: "rp", Outcome: ports.ReviewOutcome{FallbackReason: "timeout", FallbackDetail: "30 minutes passed"}}, "timeout"},
		{"the route fails", &fake.Validator{Name: "rp", Err: errors.New("connection reset")}, "failed"},
		{"the answer has no verdict", &fake.Validator{Name: "rp", Outcome: ports.ReviewOutcome{Return: []byte("I liked it.")}}, "invalid"},
		{"no adapter in this build", nil, "failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v ports.Validator
			if c.validator != nil {
				v = c.validator
			}
			w := apptest.NewLoopWorld(t, v)
			res := w.Receipt(t)
			story := w.Record(t)
			reviewers := map[string]bool{}
			for _, aw := range res.Run.Awaits {
				if aw.Role == loop.RoleRuthless || aw.Role == loop.RoleSecurity {
					reviewers[aw.Role] = true
				}
			}
			if c.reason == "" {
				// Both reviews came back over rp: recorded as the route's, nothing left for the host.
				assert.Check(t, is.Len(story.Verdicts, 2))
				for _, vd := range story.Verdicts {
					assert.Check(t, is.Equal(vd.Route, "rp"))
					assert.Check(t, is.Equal(vd.Ran, "rp"))
				}
				assert.Check(t, is.Len(story.Fallbacks, 0))
				assert.Check(t, is.Len(reviewers, 0))
				assert.Check(t, is.Len(c.validator.Requests, 2))
				return
			}
			// Every review the route did not return is on the host, with a receipt saying why.
			assert.Check(t, is.Len(story.Verdicts, 0))
			assert.Check(t, is.DeepEqual(reviewers, map[string]bool{loop.RoleRuthless: true, loop.RoleSecurity: true}))
			assert.Assert(t, is.Len(story.Fallbacks, 2))
			for _, f := range story.Fallbacks {
				assert.Check(t, is.Equal(f.Reason, c.reason))
				assert.Check(t, is.Equal(f.Asked, "rp"))
				assert.Check(t, is.Equal(f.Ran, "host"))
				assert.Check(t, !containsAny(f.Detail, "127.0.0.1", "8765"), "a fallback never quotes the address: %s", f.Detail)
			}
			// No line says the route still takes a review it gave up: not the step's next lines, not
			// an await's, not implement status's; each await's routing says the fallback and why.
			st := apptest.RecRun[loopuc.ImplementStatusResult](t, w.A, "implement_status", map[string]any{"run": w.Run})
			var lines []string
			for _, n := range res.Next {
				lines = append(lines, n.String())
			}
			for _, aw := range append(res.Run.Awaits, st.Runs[0].Awaits...) {
				lines = append(lines, aw.Next.String())
				if aw.Role == loop.RoleImplementer {
					continue
				}
				assert.Check(t, is.Contains(aw.Routing.Fallback, "rp did not take the step ("+c.reason+": "), aw.ID)
				assert.Check(t, is.Contains(aw.Next.String(), "rp did not take this review"), aw.ID)
			}
			for _, line := range lines {
				assert.Check(t, !strings.Contains(line, "is taking"), line)
			}
			// Nothing stands at a return path the host's agent writes to.
			for _, aw := range res.Run.Awaits {
				_, written := w.Rs.Files[aw.Return]
				assert.Check(t, !written, "%s holds the route's answer", aw.Return)
			}
		})
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		for i := 0; i+len(sub) <= len(s); i++ {
			if s[i:i+len(sub)] == sub {
				return true
			}
		}
	}
	return false
}
