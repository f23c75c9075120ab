package loop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// dodTimeout bounds one run of build.dod.
const dodTimeout = 30 * time.Minute

// CheckJob is a run of build.dod a step queued: on lane's head, for round, in its checkout; inside
// fence, with the variables env names, when a runner's work is in the run (nil fence: as the host's
// work is run, unconfined).
type CheckJob struct {
	Lane, head, dir, command string
	round                    int
	fence                    *ports.SandboxPolicy
	env                      []string
}

// Checked is a check job and how the run ended; interrupted when the person ended it (nothing is
// recorded, and the next step runs it again).
type Checked struct {
	CheckJob
	check       loop.Check
	interrupted bool
}

// queueChecks queues build.dod on every head that waits for it, once per step. Without a DoD port
// (a build that runs none) the check is recorded at once as not run, so the validators are opened
// and their briefs say so.
func (st *step) queueChecks(ctx context.Context) ([]string, error) {
	s := &st.state
	var did []string
	due := loop.ChecksDue(*s)
	var fenced *runner.Runner
	if name := runnerWork(*s); name != "" && len(due) > 0 {
		cfg, err := st.readStepConfig(ctx)
		if err != nil {
			return nil, err
		}
		r, ok := cfg.runners.Runner(name)
		if !ok {
			// The runner that did the work is no longer configured: its work is still fenced.
			r = runner.Runner{Name: name}
		}
		fenced = &r
	}
	for _, c := range due {
		l := s.Lanes[c.Lane]
		if st.DoD == nil || l.Worktree == "" {
			why := "this build of abcd runs no definition of done"
			if st.DoD != nil {
				why = "the lane has no checkout to run it in"
			}
			s.RecordCheck(l.ID, loop.Check{Round: c.Round, Head: c.Head, Command: s.DoD, ExitCode: -1, Problem: why})
			did = append(did, fmt.Sprintf("%s: build.dod was not run on %s: %s", l.ID, loop.Short(c.Head), why))
			continue
		}
		if st.queuedCheck(l.ID, c.Round, c.Head) {
			continue
		}
		job := CheckJob{Lane: l.ID, head: c.Head, round: c.Round, dir: st.abs(l.Worktree), command: s.DoD}
		if fenced != nil {
			job.fence, job.env = st.FenceFor(*fenced, ports.SandboxRoleDoD, job.dir), s.DoDEnv
		}
		st.checks = append(st.checks, job)
		did = append(did, fmt.Sprintf("%s: abcd runs build.dod (`%s`) on %s before its %s", l.ID, s.DoD, loop.Short(c.Head), validatorsOf(l)))
	}
	return did, nil
}

// runnerWork is the runner that took an implementer's step of the run ("" when none did): build.dod
// on the run's heads then holds a runner's work, and runs inside the fence, with a runner's
// environment, as it does when abcd proves that runner's step.
func runnerWork(s loop.State) string {
	for _, l := range s.Lanes {
		for _, im := range l.Implementations {
			if im.Answered != nil && im.Answered.Runner != nil {
				return im.Answered.Route
			}
		}
	}
	return ""
}

func (st *step) queuedCheck(lane string, round int, head string) bool {
	for _, j := range st.checks {
		if j.Lane == lane && j.round == round && j.head == head {
			return true
		}
	}
	return false
}

func validatorsOf(l loop.Lane) string {
	if l.Integration {
		return "audit"
	}
	return "review"
}

// runChecks runs each queued check in turn (two builds at once would only slow each other), each
// bounded by dodTimeout and by ctx. Every text the command printed is scrubbed of every credential
// abcd holds before anything else reads it.
func (a *Deps) runChecks(ctx context.Context, jobs []CheckJob) []Checked {
	if len(jobs) == 0 {
		return nil
	}
	sc := a.Scrubber(ctx)
	var out []Checked
	for _, j := range jobs {
		var res ports.DoDResult
		var err error
		if j.fence != nil {
			res, err = a.DoD.RunFenced(ctx, ports.DoDRun{Dir: j.dir, Command: j.command, Timeout: dodTimeout, Env: j.env, Sandbox: j.fence})
			if err == nil && res.Unavailable {
				res.ExitCode, res.Problem = -1, "the sandbox it runs in could not be built: "+res.Problem
			}
		} else {
			res, err = a.DoD.Run(ctx, j.dir, j.command, dodTimeout)
		}
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.Canceled) {
				out = append(out, Checked{CheckJob: j, interrupted: true})
				continue
			}
			res.ExitCode, res.Problem = -1, "abcd could not run it: "+err.Error()
		}
		out = append(out, Checked{CheckJob: j, check: loop.Check{Round: j.round, Head: j.head, Command: j.command, ExitCode: res.ExitCode,
			Tail: sc.Scrub(res.Tail), Lines: res.Lines, Millis: res.Duration.Milliseconds(), Problem: sc.Scrub(res.Problem)}})
	}
	return out
}

// recordChecks records what each check showed while its lane still waits for it, under the run's
// lock.
func (st *step) recordChecks(outs []Checked) []string {
	var did []string
	for _, o := range outs {
		switch {
		case o.interrupted:
			did = append(did, fmt.Sprintf("%s: build.dod on %s was interrupted; the next step runs it again", o.Lane, loop.Short(o.head)))
		case st.state.RecordCheck(o.Lane, o.check):
			did = append(did, fmt.Sprintf("%s: abcd ran build.dod %s", o.Lane, o.check.Sentence()))
		default:
			did = append(did, fmt.Sprintf("%s: build.dod on %s finished after the lane moved on; it is not recorded", o.Lane, loop.Short(o.head)))
		}
	}
	return did
}
