package fake

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/runner"
)

// Git is an in-memory history: commits with their parents, branches, and HEAD.
type Git struct {
	Parents  map[string]string // commit → parent ("" for a root)
	Branches map[string]string // branch → commit
	Head     string            // the checked-out branch
	DiffText string
	AtHead   map[string][]byte // file path → its content at HEAD
	// Second is a merge commit's second parent.
	Second map[string]string
	// Worktrees maps a worktree's folder to the branch checked out there.
	Worktrees map[string]string
	// Conflicts names the files a merge of a commit conflicts on; a merge of any other commit
	// succeeds with a merge commit.
	Conflicts map[string][]string
	// Default is what DefaultBranch answers.
	Default string
	// LockedRefs are branches whose ref a killed git left locked: creating or deleting them fails.
	LockedRefs map[string]bool
	// Config is the repository's own git config; Tracked the paths the index holds, which StageMove
	// moves (and records in Staged); ChangedPaths is what Changed answers. IndexLocked is a stale
	// index.lock a killed git left: StageMove fails while it stands, ClearStaleIndexLock removes it
	// (and counts it in IndexLocksCleared).
	Config            map[string]string
	Tracked           map[string]bool
	Staged            [][2]string
	IndexLocked       bool
	IndexLocksCleared int
	ChangedPaths      []string
	Conflicted        []string // what Unmerged answers
	// Origins says, for path + "\x00" + text, the commit that introduced the text; Trees the paths
	// each commit's tree holds.
	Origins map[string]string
	Trees   map[string][]string
	// Index holds the versions of each unmerged path (Conflicted), by stage; Settled records what
	// Settle marked resolved.
	Index   map[string][4][]byte
	Settled []string
	// TopDir is the main worktree's folder, for WorktreeDirs.
	TopDir string
	// Dirty is what each worktree changed since its branch's head, by worktree folder (Entries and
	// Uncommitted; CommitAll commits it).
	Dirty map[string][]runner.Entry
	// Messages are the commits' messages (CommitAll records them), for ReadCommit.
	Messages map[string]string
	// Changes are what WorkChange answers for each worktree folder (its diff; "" when unset), until
	// CommitAll or Restore; WorkChanges counts its calls.
	Changes     map[string]string
	WorkChanges int
	merges      int
}

// Snapshot is the worktree's branch and every branch, with fixed digests.
func (g *Git) Snapshot(_ context.Context, dir string) (runner.Snapshot, error) {
	branch, ok := g.Worktrees[dir]
	if !ok {
		return runner.Snapshot{}, refusal.New(refusal.CodePathInvalid, dir, "is not a worktree", "add it first")
	}
	s := runner.Snapshot{HeadRef: "refs/heads/" + branch, Head: g.Branches[branch], Refs: map[string]string{}, Config: "config", Hooks: "hooks", Info: "info"}
	for b, c := range g.Branches {
		s.Refs["refs/heads/"+b] = c
	}
	return s, nil
}

// Entries is what Dirty says the worktree changed.
func (g *Git) Entries(_ context.Context, dir string, max int) ([]runner.Entry, error) {
	e := g.Dirty[dir]
	if len(e) > max+1 {
		e = e[:max+1]
	}
	return slices.Clone(e), nil
}

// WorkChange is what Changes holds for the worktree, cut at max.
func (g *Git) WorkChange(_ context.Context, dir, _ string, max int) (runner.Change, error) {
	g.WorkChanges++
	d := g.Changes[dir]
	if len(d) > max {
		return runner.Change{Diff: d[:max], Truncated: true}, nil
	}
	return runner.Change{Diff: d}, nil
}

// CommitAll commits what Dirty says the worktree changed, on its branch.
func (g *Git) CommitAll(_ context.Context, dir, message string) (string, error) {
	branch, ok := g.Worktrees[dir]
	if !ok || len(g.Dirty[dir]) == 0 {
		return "", refusal.New(refusal.CodeCommitFailed, dir, "has nothing to commit", "change something")
	}
	g.merges++
	sha := fmt.Sprintf("%040x", 0xc00000+g.merges)
	g.Commit(branch, sha)
	delete(g.Dirty, dir)
	delete(g.Changes, dir)
	if g.Messages == nil {
		g.Messages = map[string]string{}
	}
	g.Messages[sha] = message
	return sha, nil
}

// ReadCommit is a commit's parents (Parents, Second) and message (Messages).
func (g *Git) ReadCommit(ctx context.Context, rev string) ([]string, string, error) {
	sha, err := g.Resolve(ctx, rev)
	if err != nil {
		return nil, "", err
	}
	var parents []string
	if p := g.Parents[sha]; p != "" {
		parents = append(parents, p)
	}
	if p := g.Second[sha]; p != "" {
		parents = append(parents, p)
	}
	return parents, g.Messages[sha], nil
}

// Restore moves the worktree's branch back to commit and forgets what it changed.
func (g *Git) Restore(_ context.Context, dir, branch, commit string) error {
	g.Worktrees[dir], g.Branches[branch] = branch, commit
	delete(g.Dirty, dir)
	delete(g.Changes, dir)
	return nil
}

// NewGit is a history of one root commit on main, checked out.
func NewGit(root string) *Git {
	return &Git{Parents: map[string]string{root: ""}, Branches: map[string]string{"main": root}, Head: "main", DiffText: "diff --git a/x b/x\n+change\n"}
}

// Commit adds a commit on top of a branch and moves the branch.
func (g *Git) Commit(branch, sha string) {
	g.Parents[sha] = g.Branches[branch]
	g.Branches[branch] = sha
}

func (g *Git) Resolve(_ context.Context, ref string) (string, error) {
	if ref == "HEAD" {
		ref = g.Head
	}
	if sha, ok := g.Branches[ref]; ok {
		return sha, nil
	}
	if _, ok := g.Parents[ref]; ok {
		return ref, nil
	}
	return "", refusal.New(refusal.CodeRefUnknown, "git ref", ref+" names no commit", "give a ref that exists")
}

func (g *Git) CurrentBranch(context.Context) (string, error) { return g.Head, nil }

func (g *Git) CreateBranch(_ context.Context, name, commit string) error {
	if g.LockedRefs[name] {
		return refusal.New(refusal.CodeBranchExists, name, "cannot be created: its ref is locked", "remove the lock")
	}
	if _, ok := g.Branches[name]; ok {
		return refusal.New(refusal.CodeBranchExists, name, "exists", "start a new run")
	}
	g.Branches[name] = commit
	return nil
}

func (g *Git) IsAncestor(_ context.Context, commit, head string) (bool, error) {
	seen := map[string]bool{}
	todo := []string{head}
	for len(todo) > 0 {
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if c == "" || seen[c] {
			continue
		}
		seen[c] = true
		if c == commit {
			return true, nil
		}
		if _, ok := g.Parents[c]; !ok {
			continue
		}
		todo = append(todo, g.Parents[c], g.Second[c])
	}
	return false, nil
}

func (g *Git) AddWorktree(_ context.Context, dir, branch string) error {
	if g.Worktrees == nil {
		g.Worktrees = map[string]string{}
	}
	if b, ok := g.Worktrees[dir]; ok && b == branch {
		return nil
	} else if ok {
		return refusal.New(refusal.CodeWorktreeFailed, dir, "is a worktree of "+b, "remove it")
	}
	if _, ok := g.Branches[branch]; !ok {
		return refusal.New(refusal.CodeWorktreeFailed, dir, "branch "+branch+" does not exist", "create it first")
	}
	for d, b := range g.Worktrees {
		if b == branch {
			return refusal.New(refusal.CodeWorktreeFailed, dir, branch+" is checked out at "+d, "remove that worktree")
		}
	}
	g.Worktrees[dir] = branch
	return nil
}

// CheckedOut is the branch of the worktree added at each dir.
func (g *Git) CheckedOut(_ context.Context, dirs []string) (map[string]string, error) {
	out := make(map[string]string, len(dirs))
	for _, d := range dirs {
		out[d] = g.Worktrees[d]
	}
	return out, nil
}

func (g *Git) RemoveWorktree(_ context.Context, dir string) error {
	delete(g.Worktrees, dir)
	return nil
}

// Merge makes a merge commit of commit onto the worktree's branch, unless Conflicts names it.
func (g *Git) Merge(_ context.Context, dir, commit, _ string) ([]string, error) {
	branch, ok := g.Worktrees[dir]
	if !ok {
		return nil, refusal.New(refusal.CodeMergeFailed, dir, "is not a worktree", "add it first")
	}
	if files, conflict := g.Conflicts[commit]; conflict {
		return files, nil
	}
	if ok, _ := g.IsAncestor(context.Background(), commit, g.Branches[branch]); ok {
		return nil, nil // already merged: git says "Already up to date"
	}
	g.merges++
	sha := fmt.Sprintf("%040x", 0xfe0000+g.merges)
	if g.Second == nil {
		g.Second = map[string]string{}
	}
	g.Parents[sha], g.Second[sha] = g.Branches[branch], commit
	g.Branches[branch] = sha
	return nil, nil
}

// ClearRefLock clears the lock LockedRefs names, as a killed git would have left it.
func (g *Git) ClearRefLock(_ context.Context, name string) error {
	delete(g.LockedRefs, name)
	return nil
}

// ClearStaleLocks clears the lock LockedRefs names on branch, as a killed git would have left it
// (the fake keeps no index or HEAD of its own to lock).
func (g *Git) ClearStaleLocks(_ context.Context, _, branch string) ([]string, error) {
	if !g.LockedRefs[branch] {
		return nil, nil
	}
	delete(g.LockedRefs, branch)
	return []string{"refs/heads/" + branch + ".lock"}, nil
}

func (g *Git) BranchesUnder(_ context.Context, prefix string, max int) ([]string, error) {
	var out []string
	for b := range g.Branches {
		if strings.HasPrefix(b, prefix+"/") {
			out = append(out, b)
		}
	}
	if len(out) > max {
		return nil, fmt.Errorf("more than %d branches under %s", max, prefix)
	}
	slices.Sort(out)
	return out, nil
}

func (g *Git) DeleteBranch(_ context.Context, name string) error {
	delete(g.Branches, name)
	return nil
}

func (g *Git) DefaultBranch(context.Context) (string, error) {
	if g.Default != "" {
		return g.Default, nil
	}
	if _, ok := g.Branches["main"]; ok {
		return "main", nil
	}
	return "", nil
}

func (g *Git) ConfigValue(_ context.Context, key string) (string, bool, error) {
	v, ok := g.Config[key]
	return v, ok, nil
}

func (g *Git) SetConfig(_ context.Context, key, value string) error {
	if g.Config == nil {
		g.Config = map[string]string{}
	}
	g.Config[key] = value
	return nil
}

func (g *Git) UnsetConfig(_ context.Context, key string) error {
	delete(g.Config, key)
	return nil
}

func (g *Git) StageMove(_ context.Context, from, to string) (bool, error) {
	if !g.Tracked[from] {
		return false, nil
	}
	if g.IndexLocked {
		return false, fmt.Errorf("git exited 128: fatal: Unable to create '.git/index.lock': File exists")
	}
	delete(g.Tracked, from)
	if to != "" {
		g.Tracked[to] = true
	}
	g.Staged = append(g.Staged, [2]string{from, to})
	return true, nil
}

func (g *Git) ClearStaleIndexLock(context.Context) (bool, error) {
	if !g.IndexLocked {
		return false, nil
	}
	g.IndexLocked = false
	g.IndexLocksCleared++
	return true, nil
}

func (g *Git) Changed(context.Context, string, string, bool) ([]string, error) {
	return append([]string(nil), g.ChangedPaths...), nil
}

func (g *Git) Uncommitted(_ context.Context, dir string, max int) ([]string, bool, error) {
	var paths []string
	for _, e := range g.Dirty[dir] {
		paths = append(paths, e.Path)
	}
	if len(paths) > max {
		return append([]string(nil), paths[:max]...), true, nil
	}
	return append([]string(nil), paths...), false, nil
}

func (g *Git) Unmerged(context.Context, string) ([]string, error) {
	return append([]string(nil), g.Conflicted...), nil
}

func (g *Git) Introduced(_ context.Context, p, text string) (string, bool, error) {
	c, ok := g.Origins[p+"\x00"+text]
	return c, ok, nil
}

func (g *Git) PathsAt(_ context.Context, commit, _ string) ([]string, error) {
	return append([]string(nil), g.Trees[commit]...), nil
}

func (g *Git) Stages(_ context.Context, p string, _ int) ([4][]byte, error) { return g.Index[p], nil }

func (g *Git) Settle(_ context.Context, p string) error {
	g.Conflicted = slices.DeleteFunc(g.Conflicted, func(c string) bool { return c == p })
	g.Settled = append(g.Settled, p)
	return nil
}

func (g *Git) Diff(_ context.Context, _, _ string, max int) ([]byte, bool, error) {
	d := []byte(g.DiffText)
	if len(d) > max {
		return d[:max], true, nil
	}
	return d, false, nil
}

// RootCommit is the least commit with no parent, "" when there is none.
func (g *Git) RootCommit(context.Context) (string, error) {
	root := ""
	for c, p := range g.Parents {
		if p == "" && (root == "" || c < root) {
			root = c
		}
	}
	return root, nil
}

// WorktreeDirs are TopDir (the main worktree, when set) and the folders of the worktrees added.
func (g *Git) WorktreeDirs(context.Context) ([]string, error) {
	var out []string
	if g.TopDir != "" {
		out = append(out, g.TopDir)
	}
	for dir := range g.Worktrees {
		out = append(out, dir)
	}
	sort.Strings(out[min(1, len(out)):])
	return out, nil
}

// Committed serves a file from AtHead.
func (g *Git) Committed(_ context.Context, p string, max int) ([]byte, bool, error) {
	data, ok := g.AtHead[p]
	if !ok {
		return nil, false, nil
	}
	if len(data) > max {
		return nil, false, refusal.New(refusal.CodeConfigFile, p, fmt.Sprintf("is larger than %d bytes at HEAD", max), "shorten it") // as the git adapter says it
	}
	return data, true, nil
}
