// Package fake holds in-memory implementations of every port, for tests.
package fake

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/ports"
)

// Inspector returns fixed facts, or Err.
type Inspector struct {
	Facts ports.RepoFacts
	Err   error
}

func (i Inspector) Inspect(context.Context) (ports.RepoFacts, error) { return i.Facts, i.Err }

// Schemas serves schemas from memory.
type Schemas struct {
	Idx   contract.Index
	Files map[string][]byte
	Err   error
}

func (s Schemas) Index() (contract.Index, error) { return s.Idx, s.Err }

func (s Schemas) Schema(name string) ([]byte, bool, error) {
	if s.Err != nil {
		return nil, false, s.Err
	}
	data, ok := s.Files[name]
	return data, ok, nil
}

// Config serves fixed configuration files, or Err.
type Config struct {
	Files ports.ConfigFiles
	Err   error
}

func (c Config) ReadConfig(context.Context) (ports.ConfigFiles, error) { return c.Files, c.Err }

// Rules serves fixed rules files, or Err.
type Rules struct {
	Files ports.RuleFiles
	Err   error
	Kept  map[string][]byte
}

func (r Rules) ReadRules(context.Context) (ports.RuleFiles, error) { return r.Files, r.Err }

// ReadCompiled and WriteCompiled keep compiled rules in Kept, when it is not nil.
func (r Rules) ReadCompiled(_ context.Context, key string) ([]byte, bool) {
	if r.Kept == nil {
		return nil, false
	}
	data, ok := r.Kept[key]
	return data, ok
}

func (r Rules) WriteCompiled(_ context.Context, key string, data []byte) error {
	if r.Kept != nil {
		r.Kept[key] = data
	}
	return nil
}

// Roster serves a fixed roster, or Err.
type Roster struct {
	R   roster.Roster
	Err error
}

func (r Roster) Roster() (roster.Roster, error) { return r.R, r.Err }

// Diag records every warning.
type Diag struct{ Warnings []string }

func (d *Diag) Warn(msg string) { d.Warnings = append(d.Warnings, msg) }

// Setup is an in-memory repository and machine folder. Paths are slash-separated; Dirs and Files are
// relative to the root, Machine holds machine files by name.
type Setup struct {
	RootDir string
	NotGit  bool
	Dirs    map[string]bool
	Files   map[string][]byte
	Machine map[string][]byte
	Home    string
	Err     error
	// Faults are errors Exists and MachineExists give for one name (a folder abcd may not read).
	Faults map[string]error
	// Waited is the wait the last UpdateMachineFile was given.
	Waited time.Duration
}

// NewSetup is an empty git repository at root with an empty machine folder at home.
func NewSetup(root, home string) *Setup {
	return &Setup{RootDir: root, Home: home, Dirs: map[string]bool{}, Files: map[string][]byte{}, Machine: map[string][]byte{}}
}

func (s *Setup) Root() (string, bool) { return s.RootDir, !s.NotGit }

func (s *Setup) MkdirAll(rel string) (bool, error) {
	if s.Err != nil {
		return false, s.Err
	}
	if s.Dirs[rel] {
		return false, nil
	}
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		s.Dirs[p] = true
	}
	return true, nil
}

func (s *Setup) CreateFile(rel string, data []byte) (bool, error) {
	if s.Err != nil {
		return false, s.Err
	}
	if _, ok := s.Files[rel]; ok {
		return false, nil
	}
	s.Files[rel] = append([]byte(nil), data...)
	return true, nil
}

func (s *Setup) Exists(rel string) (bool, error) {
	if err := s.Faults[rel]; err != nil {
		return false, err
	}
	_, file := s.Files[rel]
	return file || s.Dirs[rel] || rel == "." || rel == "", s.Err
}

func (s *Setup) RemoveEmptyDir(rel string) (bool, error) {
	if !s.Dirs[rel] {
		return false, s.Err
	}
	for p := range s.Dirs {
		if strings.HasPrefix(p, rel+"/") {
			return false, nil
		}
	}
	for p := range s.Files {
		if strings.HasPrefix(p, rel+"/") {
			return false, nil
		}
	}
	delete(s.Dirs, rel)
	return true, s.Err
}

func (s *Setup) RemoveFileIf(rel string, data []byte) (bool, error) {
	got, ok := s.Files[rel]
	if !ok || !bytes.Equal(got, data) {
		return false, s.Err
	}
	delete(s.Files, rel)
	return true, s.Err
}

func (s *Setup) ReadFile(rel string) ([]byte, bool, error) {
	data, ok := s.Files[rel]
	return append([]byte(nil), data...), ok, s.Err
}

func (s *Setup) ReplaceFile(rel string, data []byte) error {
	if s.Err != nil {
		return s.Err
	}
	s.Files[rel] = append([]byte(nil), data...)
	return nil
}

func (s *Setup) MachinePath(name string) string { return path.Join(s.Home, name) }

func (s *Setup) ReadMachineFile(name string) ([]byte, bool, error) {
	data, ok := s.Machine[name]
	return append([]byte(nil), data...), ok, s.Err
}

func (s *Setup) MachineExists(name string) (bool, error) {
	if err := s.Faults[name]; err != nil {
		return false, err
	}
	_, ok := s.Machine[name]
	return ok, s.Err
}

func (s *Setup) CreateMachineFile(name string, data []byte) (bool, error) {
	if s.Err != nil {
		return false, s.Err
	}
	if _, ok := s.Machine[name]; ok {
		return false, nil
	}
	s.Machine[name] = append([]byte(nil), data...)
	return true, nil
}

// UpdateMachineFile updates a machine file in memory, as the real one does under its lock.
func (s *Setup) UpdateMachineFile(_ context.Context, name string, wait time.Duration, update func([]byte, bool) ([]byte, error)) error {
	s.Waited = wait
	if s.Err != nil {
		return s.Err
	}
	old, present := s.Machine[name]
	data, err := update(append([]byte(nil), old...), present)
	if err != nil || data == nil {
		return err
	}
	s.Machine[name] = append([]byte(nil), data...)
	return nil
}

// Prompter answers from a script and records every question. With TTY false it is not interactive.
type Prompter struct {
	TTY       bool
	Answers   []bool
	Questions []string
	Shown     []string
}

func (p *Prompter) Interactive() bool { return p.TTY }
func (p *Prompter) Show(text string)  { p.Shown = append(p.Shown, text) }

func (p *Prompter) Confirm(_ context.Context, q string) (bool, error) {
	p.Questions = append(p.Questions, q)
	if len(p.Answers) == 0 {
		return false, nil
	}
	a := p.Answers[0]
	p.Answers = p.Answers[1:]
	return a, nil
}

// Records is an in-memory record store keyed by path.
type Records struct {
	Init  bool
	Files map[string][]byte
	// Locked is true while a lock is held; set it to make Lock report contention.
	Locked bool
	// Waited is the wait the last Lock was given; Temps is what StrayTemps lists, MergeTempFiles
	// what MergeTemps lists.
	Waited         time.Duration
	Temps          []ports.StrayTemp
	MergeTempFiles []ports.StrayTemp
	// Missing is what InstallMissing lists: the files an interrupted install did not write.
	Missing []string
}

// NewRecords is an initialized, empty record.
func NewRecords() *Records { return &Records{Init: true, Files: map[string][]byte{}} }

func (r *Records) Initialized() bool { return r.Init }

// InstallMissing is Missing: the files an interrupted install did not write.
func (r *Records) InstallMissing() ([]string, error) { return r.Missing, nil }

func (r *Records) List(_ context.Context, dir, prefix string, limit int) ([]ports.RecordFile, error) {
	var names []string
	for p := range r.Files {
		if path.Dir(p) == dir && strings.HasPrefix(path.Base(p), prefix+"-") && strings.HasSuffix(p, ".md") {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	out := []ports.RecordFile{}
	for _, p := range names {
		data := r.Files[p]
		if limit > 0 && len(data) > limit {
			data = data[:limit]
		}
		out = append(out, ports.RecordFile{Path: p, Data: append([]byte(nil), data...)})
	}
	return out, nil
}

func (r *Records) Names(ctx context.Context, dir, prefix string) ([]string, error) {
	files, err := r.List(ctx, dir, prefix, 1)
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out, err
}

func (r *Records) Read(_ context.Context, p string) ([]byte, error) {
	data, ok := r.Files[p]
	if !ok {
		return nil, refusal.New("record_missing", p, "does not exist", "list the records")
	}
	return append([]byte(nil), data...), nil
}

func (r *Records) Create(ctx context.Context, p string, data []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if _, ok := r.Files[p]; ok {
		return false, nil
	}
	r.Files[p] = append([]byte(nil), data...)
	return true, nil
}

func (r *Records) Replace(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := r.Files[p]; !ok {
		return refusal.New("record_missing", p, "does not exist", "list the records")
	}
	r.Files[p] = append([]byte(nil), data...)
	return nil
}

func (r *Records) Lock(_ context.Context, wait time.Duration) (func(), error) {
	r.Waited = wait
	if r.Locked {
		return nil, refusal.Busy("record_locked", ".abcd", "another abcd is changing the record", "try again")
	}
	r.Locked = true
	return func() { r.Locked = false }, nil
}

func (r *Records) StrayTemps(context.Context) ([]ports.StrayTemp, error) {
	return append([]ports.StrayTemp{}, r.Temps...), nil
}

func (r *Records) MergeTemps(context.Context) ([]ports.StrayTemp, error) {
	return append([]ports.StrayTemp{}, r.MergeTempFiles...), nil
}

// Clock is a fixed time.
type Clock struct{ T time.Time }

func (c Clock) Now() time.Time { return c.T }

// Random counts up from N, so ids are distinct and predictable.
type Random struct{ N uint32 }

func (r *Random) Uint32() uint32 { r.N++; return r.N }

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
	// moves (and records in Staged); ChangedPaths is what Changed answers.
	Config       map[string]string
	Tracked      map[string]bool
	Staged       [][2]string
	ChangedPaths []string
	Conflicted   []string // what Unmerged answers
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
	Dirty  map[string][]runner.Entry
	merges int
}

// Snapshot is the worktree's branch and every branch, with fixed digests.
func (g *Git) Snapshot(_ context.Context, dir string) (runner.Snapshot, error) {
	branch, ok := g.Worktrees[dir]
	if !ok {
		return runner.Snapshot{}, refusal.New("path_invalid", dir, "is not a worktree", "add it first")
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

// CommitAll commits what Dirty says the worktree changed, on its branch.
func (g *Git) CommitAll(_ context.Context, dir, _ string) (string, error) {
	branch, ok := g.Worktrees[dir]
	if !ok || len(g.Dirty[dir]) == 0 {
		return "", refusal.New("commit_failed", dir, "has nothing to commit", "change something")
	}
	g.merges++
	sha := fmt.Sprintf("%040x", 0xc00000+g.merges)
	g.Commit(branch, sha)
	delete(g.Dirty, dir)
	return sha, nil
}

// Restore moves the worktree's branch back to commit and forgets what it changed.
func (g *Git) Restore(_ context.Context, dir, branch, commit string) error {
	g.Worktrees[dir], g.Branches[branch] = branch, commit
	delete(g.Dirty, dir)
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
	return "", refusal.New("ref_unknown", "git ref", ref+" names no commit", "give a ref that exists")
}

func (g *Git) CurrentBranch(context.Context) (string, error) { return g.Head, nil }

func (g *Git) CreateBranch(_ context.Context, name, commit string) error {
	if g.LockedRefs[name] {
		return refusal.New("branch_exists", name, "cannot be created: its ref is locked", "remove the lock")
	}
	if _, ok := g.Branches[name]; ok {
		return refusal.New("branch_exists", name, "exists", "start a new run")
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
		return refusal.New("worktree_failed", dir, "is a worktree of "+b, "remove it")
	}
	if _, ok := g.Branches[branch]; !ok {
		return refusal.New("worktree_failed", dir, "branch "+branch+" does not exist", "create it first")
	}
	for d, b := range g.Worktrees {
		if b == branch {
			return refusal.New("worktree_failed", dir, branch+" is checked out at "+d, "remove that worktree")
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
		return nil, refusal.New("merge_failed", dir, "is not a worktree", "add it first")
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
	delete(g.Tracked, from)
	if to != "" {
		g.Tracked[to] = true
	}
	g.Staged = append(g.Staged, [2]string{from, to})
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

// Runs is an in-memory run store keyed by path.
type Runs struct {
	Files map[string][]byte
	Dirs  map[string]bool
	// Held names runs whose lock another process holds.
	Held map[string]bool
	// Waited is the wait the last Lock was given.
	Waited time.Duration
	// Workers are the worker locks held, by run and name; a test drops one to play a process killed
	// while a route worked.
	Workers map[string]bool
	workerN int
}

// NewRuns is an empty run store.
func NewRuns() *Runs {
	return &Runs{Files: map[string][]byte{}, Dirs: map[string]bool{}, Held: map[string]bool{}, Workers: map[string]bool{}}
}

// HoldWorker holds a worker lock named after a fixed pid and a counter.
func (r *Runs) HoldWorker(_ context.Context, run string) (int, string, func(), error) {
	if !r.Dirs[run] {
		return 0, "", nil, loop.UnknownRun(run)
	}
	r.workerN++
	name := fmt.Sprintf("4242-%08x", r.workerN)
	if r.Workers == nil {
		r.Workers = map[string]bool{}
	}
	r.Workers[run+"/"+name] = true
	return 4242, name, func() { delete(r.Workers, run+"/"+name) }, nil
}

func (r *Runs) WorkerHeld(_ context.Context, run, name string) (bool, error) {
	return r.Workers[run+"/"+name], nil
}

const runRoot = layout.Runs + "/"

func (r *Runs) Lock(_ context.Context, run string, wait time.Duration) (func(), error) {
	r.Waited = wait
	if !r.Dirs[run] {
		return nil, loop.UnknownRun(run)
	}
	if r.Held[run] {
		return nil, refusal.Busy("run_locked", run, "another abcd holds the run's lock", "try again")
	}
	r.Held[run] = true
	return func() { r.Held[run] = false }, nil
}

func (r *Runs) Runs(context.Context) ([]string, error) {
	out := []string{}
	for run := range r.Dirs {
		if _, ok := r.Files[runRoot+run+"/state.json"]; ok {
			out = append(out, run)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Runs) Create(_ context.Context, run string) (bool, error) {
	if r.Dirs[run] {
		return false, nil
	}
	r.Dirs[run] = true
	return true, nil
}

func (r *Runs) Write(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !strings.HasPrefix(p, runRoot) {
		return refusal.New("run_path_invalid", p, "is not under "+runRoot, "use a run path")
	}
	r.Files[p] = append([]byte(nil), data...)
	return nil
}

func (r *Runs) Read(_ context.Context, p string, max int) ([]byte, error) {
	data, ok := r.Files[p]
	if !ok {
		return nil, refusal.New("return_missing", p, "does not exist yet", "let the agent write it")
	}
	if len(data) > max {
		return nil, refusal.New("return_too_large", p, "is too large", "shorten it")
	}
	return append([]byte(nil), data...), nil
}

func (r *Runs) CheckFile(_ context.Context, dir, p string) string {
	if !strings.HasPrefix(p, dir+"/") || strings.Contains(p, "..") {
		return p + " is not inside " + dir
	}
	if _, ok := r.Files[p]; !ok {
		return p + " does not exist"
	}
	return ""
}

func (r *Runs) RemoveAll(_ context.Context, p string) error {
	for f := range r.Files {
		if strings.HasPrefix(f, p+"/") {
			delete(r.Files, f)
		}
	}
	if run, ok := strings.CutPrefix(p, runRoot); ok && !strings.Contains(run, "/") {
		delete(r.Dirs, run)
	}
	return nil
}

func (r *Runs) Unstarted(context.Context) ([]string, error) {
	out := []string{}
	for run := range r.Dirs {
		if _, ok := r.Files[runRoot+run+"/state.json"]; !ok {
			out = append(out, run)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Runs) Remove(_ context.Context, p string) error {
	delete(r.Files, p)
	if run, ok := strings.CutPrefix(p, runRoot); ok && !strings.Contains(run, "/") {
		delete(r.Dirs, run)
	}
	return nil
}

// Validator answers every review with a fixed outcome, recording the requests.
type Validator struct {
	Name    string
	Outcome ports.ReviewOutcome
	// Answer, when set, answers per request instead of Outcome.
	Answer func(ports.ReviewRequest) ports.ReviewOutcome
	// During, when set, runs while the route "works", before it answers: what another invocation
	// does meanwhile. A non-nil result replaces the answer (an interrupted call, say).
	During   func(context.Context, ports.ReviewRequest) *ports.ReviewOutcome
	Err      error
	mu       sync.Mutex
	Requests []ports.ReviewRequest
}

func (v *Validator) Route() string { return v.Name }

func (v *Validator) Review(ctx context.Context, req ports.ReviewRequest) (ports.ReviewOutcome, error) {
	v.mu.Lock()
	v.Requests = append(v.Requests, req)
	v.mu.Unlock()
	if v.During != nil {
		if out := v.During(ctx, req); out != nil {
			return *out, nil
		}
	}
	if v.Answer != nil {
		return v.Answer(req), v.Err
	}
	return v.Outcome, v.Err
}

// Committed serves a file from AtHead.
func (g *Git) Committed(_ context.Context, p string, max int) ([]byte, bool, error) {
	data, ok := g.AtHead[p]
	if !ok {
		return nil, false, nil
	}
	if len(data) > max {
		return nil, false, refusal.New("config_file", p, fmt.Sprintf("is larger than %d bytes at HEAD", max), "shorten it") // as the git adapter says it
	}
	return data, true, nil
}

// Commands reads command lines with Read, a function a test provides (the real reader lives in
// adapters/shell, which ports may not import); without one, every line runs no command.
type Commands struct {
	Read func(line string) (guard.Line, error)
}

func (c Commands) ReadLine(line string) (guard.Line, error) {
	if c.Read == nil {
		return guard.Line{Commands: []guard.Command{}}, nil
	}
	return c.Read(line)
}

// Providers opens every call as Validator (or a fresh one answering Outcome) and answers Verify
// with Check, recording the calls.
type Providers struct {
	Check     ports.ProviderCheck
	Outcome   ports.ReviewOutcome
	Validator *Validator
	mu        sync.Mutex
	Calls     []ports.ProviderCall
	Verified  []ports.ProviderCall
	OpenErr   error
}

func (p *Providers) Open(call ports.ProviderCall) (ports.Validator, error) {
	p.mu.Lock()
	p.Calls = append(p.Calls, call)
	p.mu.Unlock()
	if p.OpenErr != nil {
		return nil, p.OpenErr
	}
	if p.Validator != nil {
		return p.Validator, nil
	}
	return &Validator{Name: call.Name, Outcome: p.Outcome}, nil
}

func (p *Providers) Verify(_ context.Context, call ports.ProviderCall) (ports.ProviderCheck, error) {
	p.Verified = append(p.Verified, call)
	return p.Check, nil
}

// DoD plays the definition of done: each run is recorded, and Result (nil: exit 0, "ok") says how it
// ended. It stands in for a shell only where the checkout is the fake Git's, which has no folder.
type DoD struct {
	mu     sync.Mutex
	Calls  []DoDCall
	Result func(dir, command string) ports.DoDResult
}

// DoDCall is one run of the definition of done.
type DoDCall struct{ Dir, Command string }

func (d *DoD) Run(ctx context.Context, dir, command string, _ time.Duration) (ports.DoDResult, error) {
	if err := ctx.Err(); err != nil {
		return ports.DoDResult{}, err
	}
	d.mu.Lock()
	d.Calls = append(d.Calls, DoDCall{Dir: dir, Command: command})
	d.mu.Unlock()
	if d.Result != nil {
		res := d.Result(dir, command)
		if err := ctx.Err(); err != nil {
			return ports.DoDResult{}, err // ended while it ran, as the shell's is
		}
		return res, nil
	}
	return ports.DoDResult{ExitCode: 0, Tail: "ok\n", Lines: 1, Duration: 1500 * time.Millisecond}, nil
}

// Ran is how many times the definition of done ran.
func (d *DoD) Ran() []DoDCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]DoDCall(nil), d.Calls...)
}
