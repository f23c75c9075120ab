// The steps a runner was taking when its implement run was interrupted: handed to it again.

package loop

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/review"
)

// resume hands back to their runner the steps a runner was taking when it was interrupted (Ctrl-C,
// or a process that ended): each is the route's again, with its request written anew. An
// implementer's step is handed back only while its worktree is as the lane left it (nothing
// uncommitted, the lane's branch checked out): otherwise someone may be working there, and the step
// stays the host's.
func (st *step) resume(ctx context.Context) ([]string, error) {
	s := &st.state
	var did []string
	var cfg *stepConfig
	for i := range s.Lanes {
		for k := 0; k < len(s.Lanes[i].Awaits); k++ {
			aw := s.Lanes[i].Awaits[k]
			if aw.Routing.FellBack != string(review.Interrupted) || aw.Routing.Route == "host" {
				continue
			}
			if cfg == nil {
				c, err := st.readStepConfig(ctx)
				if err != nil {
					return nil, err
				}
				cfg = &c
			}
			if _, ok := cfg.runners.Runner(aw.Routing.Route); !ok {
				continue // not a runner's (rp, a provider): those go on as the host's
			}
			lane := s.Lanes[i]
			if aw.Role == loop.RoleImplementer && lane.Worktree != "" {
				// A kill while abcd's git worked in the lane (staging, committing, putting it back:
				// right after a commit, git is still finishing it) ends that git too, and what it held
				// locked stays locked: git would refuse every commit there, the runner's or the host's.
				cleared, err := st.Git.ClearStaleLocks(ctx, lane.Worktree, lane.Branch)
				if err != nil {
					return nil, err
				}
				if len(cleared) > 0 {
					did = append(did, fmt.Sprintf("%s: removed %s, left in its worktree by a git the kill ended", lane.ID, strings.Join(cleared, ", ")))
				}
			}
			if aw.Role == loop.RoleImplementer {
				if why := st.dirty(ctx, lane); why != "" {
					did = append(did, fmt.Sprintf("%s: the implementer's step stays the host's: %s", lane.ID, why))
					continue
				}
			}
			brief, err := st.Runs.Read(ctx, aw.Brief, 4<<20)
			if err != nil {
				return nil, err
			}
			route, err := st.resumedRoute(*cfg, lane, aw)
			if err != nil {
				return nil, err
			}
			// The route's again, for this process: the worker that took it before is gone, and this
			// one's is recorded when the state is saved (claimJobs).
			s.Lanes[i].Awaits[k].Routing.FellBack = ""
			s.Lanes[i].Awaits[k].Routing.Worker = loop.Worker{}
			s.Lanes[i].Awaits[k].Answered = loop.Answer{}
			job, f, err := st.runnerJob(ctx, *cfg, lane, s.Lanes[i].Awaits[k], string(brief), route, aw.Routing.Route)
			if err != nil {
				return nil, err
			}
			if f != nil {
				did = append(did, st.fallBackRunner(s.Lanes[i].Awaits[k], lane.ID, aw.Routing.Route, f, nil))
				continue
			}
			st.jobs = append(st.jobs, job)
			s.Changes++
			if aw.Role == loop.RoleImplementer {
				if _, sha, err := st.committedWork(ctx, path.Dir(aw.Brief), aw.ID, lane.Branch); err != nil {
					return nil, err
				} else if sha != "" {
					did = append(did, fmt.Sprintf("%s: the implementer's step (round %d) was interrupted after abcd committed runner %s's work as %s: that commit is the step's, and the definition of done runs on it",
						lane.ID, aw.Round, aw.Routing.Route, loop.Short(sha)))
					continue
				}
			}
			did = append(did, fmt.Sprintf("%s: the %s's %s (round %d), interrupted before, goes to runner %s again", lane.ID, aw.Role, aw.Kind, aw.Round, aw.Routing.Route))
		}
	}
	return did, nil
}

// resumedRoute is the route an interrupted await asked for, as its routing recorded it.
func (st *step) resumedRoute(cfg stepConfig, lane loop.Lane, aw loop.Await) (oracle.Route, error) {
	if aw.Role == loop.RoleImplementer {
		return oracle.Route{Agent: aw.Role, Row: oracle.Row{Tier: oracle.HostDecides, FanOut: 1},
			Connection: oracle.Connection{Name: aw.Routing.Route, Runner: true}}, nil
	}
	route, err := st.routeOf(aw.Role, cfg.routing, cfg.conns, nil, oracle.Tier(lane.Tiers[aw.Role]))
	if err != nil {
		return oracle.Route{}, err
	}
	route.Connection = oracle.Connection{Name: aw.Routing.Route, Runner: true}
	if t := oracle.Tier(aw.Routing.Tier); t.Valid() {
		route.Row.Tier = t
	}
	return route, nil
}

// dirty says why a lane's worktree is not as the lane left it ("" when it is).
func (st *step) dirty(ctx context.Context, lane loop.Lane) string {
	if lane.Worktree == "" {
		return "the lane has no worktree"
	}
	snap, err := st.Git.Snapshot(ctx, lane.Worktree)
	if err != nil {
		return "its worktree cannot be read: " + refusalWhy(err)
	}
	if snap.HeadRef != "refs/heads/"+lane.Branch {
		return "its worktree has " + refOrDetached(snap.HeadRef) + " checked out, not " + lane.Branch
	}
	entries, err := st.Git.Entries(ctx, lane.Worktree, 20)
	if err != nil {
		return "its worktree cannot be read: " + refusalWhy(err)
	}
	if len(entries) > 0 {
		return fmt.Sprintf("its worktree holds uncommitted changes (%s first): someone may be working there; take the step, or clear them with git -C %s stash -u and run again",
			entries[0].Path, st.abs(lane.Worktree))
	}
	return ""
}
