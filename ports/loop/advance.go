package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// advance opens every await the loop needs now, with the route flags given (nil: the ones the run
// keeps). A route that answers at once records verdicts that can make more awaits due (the next
// round, the auditor), so it opens until nothing new is planned. Each pass opens or records at least
// one await and a run has finitely many, so this ends; the bound guards against a bug.
func (st *step) advance(ctx context.Context, routes map[string]oracle.FlagRoute) ([]string, error) {
	s := &st.state
	if routes == nil && len(s.Routes) > 0 {
		kept := make([]oracle.RouteText, len(s.Routes))
		for i, r := range s.Routes {
			kept[i] = oracle.RouteText(r)
		}
		var err error
		if routes, err = st.Routes(ctx, entryVerb(s.Kind), kept); err != nil {
			return nil, err
		}
	}
	var did []string
	if !s.Finished() {
		restored, err := st.restoreWorktrees(ctx)
		if err != nil {
			return nil, err
		}
		did = append(did, restored...)
	}
	byHand, err := st.mergedByHand(ctx)
	if err != nil {
		return nil, err
	}
	did = append(did, byHand...)
	for pass := 0; pass < 64; pass++ {
		acts := loop.Due(*s)
		for _, act := range acts {
			line, err := st.act(ctx, act)
			if err != nil {
				return nil, err
			}
			did = append(did, line)
		}
		more, err := st.deliver(ctx)
		if err != nil {
			return nil, err
		}
		did = append(did, more...)
		checks, err := st.queueChecks(ctx)
		if err != nil {
			return nil, err
		}
		did = append(did, checks...)
		plans := loop.Pending(*s)
		if len(plans) == 0 && len(acts) == 0 {
			break
		}
		if len(plans) > 0 {
			more, err := st.open(ctx, plans, routes)
			if err != nil {
				return nil, err
			}
			did = append(did, more...)
		}
	}
	if s.Finished() {
		did = append(did, st.clearWorktrees(ctx)...)
	}
	return did, nil
}

// deliver writes a line in the spec's Progress section for each step lane that is done and each
// integration that passed, once: what the lane did, its branch and its commits. The spec is written
// with the state that marks the lanes delivered, as one change; a line already there is not written
// again.
func (st *step) deliver(ctx context.Context) ([]string, error) {
	s := &st.state
	if s.Kind != loop.KindSpec || s.Spec == "" {
		return nil, nil
	}
	var lines []string
	var lanes []int
	for i, ln := range s.Lanes {
		if ln.Stage == loop.StageDone && !ln.Delivered {
			lines = append(lines, loop.ProgressLine(*s, ln))
			lanes = append(lanes, i)
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	l, err := st.Record.Resolve(ctx, record.Specs, st.verb, "", record.Ref(s.Spec))
	if err != nil {
		return nil, err
	}
	st.editRecord(record.Specs, s.Spec, func(p string, data []byte) ([]byte, error) {
		var add []string
		for _, line := range lines {
			if !strings.Contains(string(data), line) {
				add = append(add, line)
			}
		}
		if len(add) == 0 {
			return data, nil
		}
		updated, err := record.AppendToSection(data, record.SectionProgress, strings.Join(add, "\n"))
		if err != nil {
			return nil, core.RecordMalformed(p, err.Error())
		}
		return updated, nil
	})
	var did []string
	for _, i := range lanes {
		s.Lanes[i].Delivered = true
		s.Changes++
		did = append(did, fmt.Sprintf("%s: delivered; its line is in the Progress of %s", s.Lanes[i].ID, l.File.Path))
	}
	return did, nil
}

// entryVerb is the verb a run of this kind was started by: the one whose dispatches its kept route
// flags are checked against, and the one its refusals name.
func entryVerb(k loop.Kind) string {
	switch k {
	case loop.KindReview:
		return "review"
	case loop.KindAudit:
		return "intent_audit"
	}
	return "implement_step"
}
