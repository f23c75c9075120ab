// Package finish takes a finished run whose audit passed where the team works (build.finish, or
// implement run's --finish): as its integration branch (branch, the default), the branch it started
// from fast-forwarded to it (merge), or the branch pushed and a pull request opened with the person's
// own gh and its login (pr), whose body is the run's story as markdown.
package finish

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/secret"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/loop/story"
)

const verb = "implement_run"

// MaxBody is the most of the story a pull request's body holds: GitHub takes 65,536 characters, and
// the rest of the story stays a command away.
const MaxBody = 60000

// Finisher is the loop's Finisher.
type Finisher struct{}

var _ loopuc.Finisher = Finisher{}

// target is where a pr finish goes: the remote's name and the repository its address names.
type target struct {
	remote string
	repo   loop.ForgeRepo
}

// Ready refuses, before the run is driven, a finish that could not be made: for pr, a remote that
// names no repository on a forge, no gh, or a gh not logged in there. A run already taken where it
// finishes, or one that will end as its branch, needs nothing.
func (Finisher) Ready(ctx context.Context, a *loopuc.Deps, in *loopuc.ImplementRunInput, run string) error {
	how, stack, err := howOf(ctx, a, in)
	if err != nil || how != loop.FinishPR {
		return err
	}
	var s loop.State
	if run != "" {
		if s, err = a.LoadRun(ctx, run); err != nil {
			return err
		}
		if s.Kind != loop.KindSpec || s.Finish != nil || s.Finished() && !passed(s) {
			return nil
		}
	}
	t, err := targetOf(ctx, a, stack, s)
	if err != nil {
		return err
	}
	return checkForge(ctx, a, t, s)
}

// Finish takes the finished run where it finishes, once: records it in the run, and says it in res.
// A finish that cannot be made is refused with its cause, and the run stays its branch, which the
// refusal says how to take by hand.
func (Finisher) Finish(ctx context.Context, a *loopuc.Deps, in *loopuc.ImplementRunInput, res *loopuc.ImplementRunResult) error {
	how, stack, err := howOf(ctx, a, in)
	if err != nil {
		return err
	}
	s, err := a.LoadRun(context.WithoutCancel(ctx), res.Run.Run)
	if err != nil {
		return err
	}
	if s.Finish != nil {
		res.Next = append(res.Next, hint.Say(said(*s.Finish)))
		return nil
	}
	if how == loop.FinishBranch || s.Kind != loop.KindSpec || !passed(s) {
		return nil
	}
	branch, head, err := integrationOf(ctx, a, s)
	if err != nil {
		return err
	}
	into, err := intoOf(ctx, a, s)
	if err != nil {
		return err
	}
	var f loop.Finished
	if how == loop.FinishMerge {
		f, err = fastForward(ctx, a, s, branch, head, into)
	} else {
		f, err = pullRequest(ctx, a, stack, s, branch, head, into)
	}
	if err != nil {
		return err
	}
	f.At = a.Clock.Now().UTC().Format("2006-01-02T15:04:05Z")
	view, err := a.RecordFinish(context.WithoutCancel(ctx), s.Run, f)
	if err != nil {
		return err
	}
	res.Run = view
	res.Did = append(res.Did, said(f))
	res.Next = append(res.Next, hint.Say(said(f)))
	return nil
}

// said is a recorded finish in words.
func said(f loop.Finished) string {
	if f.As == loop.FinishMerge {
		return fmt.Sprintf("the run finished: %s was fast-forwarded to the integration's head %s", f.Branch, loop.Short(f.Head))
	}
	return fmt.Sprintf("the run finished as a pull request: %s (%s pushed to %s at %s)", f.URL, f.Branch, f.Remote, loop.Short(f.Head))
}

// howOf is the way the run finishes: the flag, else build.finish.
func howOf(ctx context.Context, a *loopuc.Deps, in *loopuc.ImplementRunInput) (loop.Finish, *config.Stack, error) {
	_, stack, err := a.LoadConfig(ctx)
	if err != nil {
		return "", nil, err
	}
	if in.Finish != "" {
		return in.Finish, stack, nil
	}
	configured, err := config.Get[string](stack, "build.finish")
	if err != nil {
		return "", nil, core.ConfigRefusal(err)
	}
	return loop.Finish(configured.V), stack, nil
}

// passed says every lane of the run was delivered and its integration passed its audit.
func passed(s loop.State) bool {
	if !s.Finished() || len(s.Lanes) == 0 {
		return false
	}
	for _, l := range s.Lanes {
		if l.Stage != loop.StageDone {
			return false
		}
	}
	return true
}

// integrationOf is the run's integration branch and its head as git has it now.
func integrationOf(ctx context.Context, a *loopuc.Deps, s loop.State) (string, string, error) {
	for _, l := range s.Lanes {
		if l.Integration {
			head, err := a.Git.Resolve(ctx, "refs/heads/"+l.Branch)
			return l.Branch, head, err
		}
	}
	return "", "", fmt.Errorf("run %s finished with no integration lane", s.Run)
}

// intoOf is the branch the run finishes into: the branch it started from when it named one, else the
// repository's default branch.
func intoOf(ctx context.Context, a *loopuc.Deps, s loop.State) (string, error) {
	if s.BaseRef != "" && !strings.HasPrefix(s.BaseRef, "refs/") {
		_, err := a.Git.Resolve(ctx, "refs/heads/"+s.BaseRef)
		if err == nil {
			return s.BaseRef, nil
		}
		if _, ok := refusal.As(err); !ok {
			return "", err
		}
	}
	def, err := a.Git.DefaultBranch(ctx)
	if err != nil {
		return "", err
	}
	if def == "" {
		return "", refusal.New(refusal.CodeBaseUnknown, "", "the run has no branch to finish into: it started from no branch, and the repository has no default branch",
			"merge or push the run's integration branch yourself").On(verb, "finish")
	}
	return def, nil
}

// byHand is the next line of a finish that could not be made: the run ends as its branch.
func byHand(branch, how string) string {
	return fmt.Sprintf("the run ends as its branch %s; %s", branch, how)
}

// fastForward moves into to the integration's head, only as a fast-forward.
func fastForward(ctx context.Context, a *loopuc.Deps, s loop.State, branch, head, into string) (loop.Finished, error) {
	from, err := a.Git.Resolve(ctx, "refs/heads/"+into)
	if err != nil {
		return loop.Finished{}, err
	}
	hand := byHand(branch, fmt.Sprintf("merge it yourself: on %s, run `git merge %s`", into, branch))
	holds, err := a.Git.IsAncestor(ctx, from, head)
	if err != nil {
		return loop.Finished{}, err
	}
	if !holds {
		return loop.Finished{}, refusal.New(refusal.CodeFinishNotFastForward, into,
			fmt.Sprintf("moved since run %s started: it is at %s, which the integration's head %s does not hold, so it cannot be fast-forwarded (abcd makes no merge commit and never forces)", s.Run, loop.Short(from), loop.Short(head)),
			hand).On(verb, "finish")
	}
	if from != head {
		if err := a.Remote.FastForward(ctx, into, from, head); err != nil {
			if !errors.Is(err, ports.ErrNotFastForward) {
				return loop.Finished{}, err
			}
			return loop.Finished{}, refusal.New(refusal.CodeFinishNotFastForward, into,
				"could not be fast-forwarded to the integration's head "+loop.Short(head)+": "+scrubbed(a.Scrubber(ctx), err), hand).On(verb, "finish")
		}
	}
	return loop.Finished{As: loop.FinishMerge, Branch: into, Head: head}, nil
}

// targetOf is the remote build.remote names and the repository its address names on a forge.
func targetOf(ctx context.Context, a *loopuc.Deps, stack *config.Stack, s loop.State) (target, error) {
	name, err := config.Get[string](stack, "build.remote")
	if err != nil {
		return target{}, core.ConfigRefusal(err)
	}
	addr, ok, err := a.Remote.RemoteURL(ctx, name.V)
	if err != nil {
		return target{}, err
	}
	if !ok {
		return target{}, refusal.New(refusal.CodeFinishRemoteUnknown, name.V, "is no remote of this repository, so the run's branch has nowhere to be pushed for a pull request",
			"add it (`git remote add "+name.V+" <address>`), set build.remote to the remote to push to, or give --finish branch", after(s)).On(verb, "finish")
	}
	repo, ok := loop.ParseRemote(addr)
	if !ok {
		return target{}, refusal.New(refusal.CodeFinishRemoteUnknown, name.V, "has an address that names no repository on a forge (https://host/owner/name, or git@host:owner/name), so gh could open no pull request on it",
			"set build.remote to a remote on GitHub, or give --finish branch", after(s)).On(verb, "finish")
	}
	return target{remote: name.V, repo: repo}, nil
}

// after is what a refusal of a finished run adds: how to push its branch by hand.
func after(s loop.State) string {
	if !s.Finished() {
		return ""
	}
	for _, l := range s.Lanes {
		if l.Integration {
			return "; " + byHand(l.Branch, "push it yourself (`git push <remote> "+l.Branch+"`) and open the pull request")
		}
	}
	return ""
}

// checkForge refuses a gh that is missing or not logged in to the repository's host.
func checkForge(ctx context.Context, a *loopuc.Deps, t target, s loop.State) error {
	if a.Forge == nil {
		return refusal.New(refusal.CodeFinishGHMissing, "gh", "cannot be run by this abcd", "give --finish branch", after(s)).On(verb, "finish")
	}
	err := a.Forge.Check(ctx, t.repo.Host)
	switch {
	case errors.Is(err, ports.ErrForgeMissing):
		return refusal.New(refusal.CodeFinishGHMissing, "gh", "is not installed (no gh on PATH), and a run that finishes as a pull request opens it with your gh",
			"install the GitHub CLI (https://cli.github.com) and log in (`gh auth login --hostname "+t.repo.Host+"`), or give --finish branch", after(s)).On(verb, "finish")
	case errors.Is(err, ports.ErrForgeLoggedOut):
		return refusal.New(refusal.CodeFinishGHLoggedOut, "gh", "is not logged in to "+t.repo.Host+": "+scrubbed(a.Scrubber(ctx), err),
			"log in (`gh auth login --hostname "+t.repo.Host+"`), or give --finish branch", after(s)).On(verb, "finish")
	}
	return err
}

// pullRequest pushes the integration branch to the remote (never forced) and opens a pull request
// from it into into, its body the run's story.
func pullRequest(ctx context.Context, a *loopuc.Deps, stack *config.Stack, s loop.State, branch, head, into string) (loop.Finished, error) {
	t, err := targetOf(ctx, a, stack, s)
	if err != nil {
		return loop.Finished{}, err
	}
	if err := checkForge(ctx, a, t, s); err != nil {
		return loop.Finished{}, err
	}
	sc := a.Scrubber(ctx)
	if err := a.Remote.Push(ctx, t.remote, branch); err != nil {
		if !errors.Is(err, ports.ErrPushRefused) {
			return loop.Finished{}, err
		}
		return loop.Finished{}, refusal.New(refusal.CodeFinishPushRefused, t.remote, "refused the push of "+branch+": "+scrubbed(sc, err),
			byHand(branch, "fix what the remote said, and push it yourself (`git push "+t.remote+" "+branch+"`), or run the same command again")).On(verb, "finish")
	}
	told, err := story.ImplementRecord(ctx, a, &story.RecordInput{Run: loop.RunID(s.Run), Markdown: true})
	if err != nil {
		return loop.Finished{}, err
	}
	title, err := titleOf(ctx, a, s)
	if err != nil {
		return loop.Finished{}, err
	}
	out, err := a.Forge.OpenPR(ctx, ports.PullRequest{Repo: t.repo.String(), Head: branch, Base: into, Title: title, Body: body(told.Markdown, s.Run)})
	url := loop.PRURL(sc.Scrub(out))
	if err == nil && url == "" {
		err = fmt.Errorf("%w: it printed no pull request's address: %s", ports.ErrForgeFailed, text.Clip(strings.TrimSpace(out)))
	}
	if err != nil {
		if !errors.Is(err, ports.ErrForgeFailed) && !errors.Is(err, ports.ErrForgeMissing) {
			return loop.Finished{}, err
		}
		return loop.Finished{}, refusal.New(refusal.CodeFinishPRFailed, t.repo.String(), branch+" was pushed to "+t.remote+", but gh opened no pull request: "+scrubbed(sc, err),
			byHand(branch, "open the pull request yourself (`gh pr create --repo "+t.repo.String()+" --head "+branch+" --base "+into+"`), or run the same command again")).On(verb, "finish")
	}
	return loop.Finished{As: loop.FinishPR, Branch: branch, Head: head, Remote: t.remote, URL: url}, nil
}

// titleOf is the pull request's title: the spec's own.
func titleOf(ctx context.Context, a *loopuc.Deps, s loop.State) (string, error) {
	_, spec, err := a.Record.Spec(ctx, verb, "spec", record.Ref(s.Spec))
	if err != nil {
		return "", err
	}
	if t := strings.TrimSpace(spec.Front.Title); t != "" {
		return t, nil
	}
	return s.Spec, nil
}

// body is the story, cut to what a pull request holds, saying where the rest is.
func body(story, run string) string {
	if len(story) <= MaxBody {
		return story
	}
	cut := MaxBody
	for cut > 0 && !utf8.RuneStart(story[cut]) {
		cut--
	}
	return story[:cut] + "\n\n…the story goes on: `abcd implement record --run " + run + " --markdown`\n"
}

// scrubbed is an error's words with every credential abcd holds taken out, on one line.
func scrubbed(sc *secret.Scrubber, err error) string {
	return strings.Join(strings.Fields(sc.Scrub(err.Error())), " ")
}
