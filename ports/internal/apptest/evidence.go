package apptest

import (
	"testing"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/ports/fake"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
)

func (w *laneWorld) WithDoD(d *fake.DoD) *laneWorld { w.A.DoD = d; return w }

// Audit has the auditor's return written for the integration, every criterion at word.
func (w *laneWorld) Audit(t *testing.T, word string) loopuc.StepResult {
	t.Helper()
	aw := w.Await(t, loop.IntegrationLane, loop.RoleAuditor)
	intent := w.Status(t).Intent
	w.Rs.Files[aw.Return] = []byte(`{"schema_version":1,"intent":"` + intent + `","verdicts":[{"criterion":"ac-1","verdict":"` + word +
		`","evidence":"the start-up test","concerns":"` + map[bool]string{true: "", false: "it is slow"}[word == "MET"] + `"}],"summary":"Read."}`)
	return w.Receipt(t, aw.Return)
}
