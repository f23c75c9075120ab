// Package ports is the hexagon's edge: the interfaces adapters implement. Use cases live in ports/app
// and are composed only of the domain and these interfaces.
package ports

import (
	"context"
	"errors"
	"time"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/domain/oracle"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/domain/runner"
)

// FileFact says whether one file abcd reads is present, and where.
type FileFact struct {
	Path    string
	Present bool
}

// RepoFacts is what the repository and machine show without being interpreted.
type RepoFacts struct {
	Root           string // the repository root, or the working directory when not in a repository
	Git            bool
	Initialized    bool // .abcd/ exists at the root
	RepoConfig     FileFact
	RepoRouting    FileFact
	MachineConfig  FileFact
	MachineRouting FileFact
	// Records counts record files per folder, keyed by the folder's Dir (see record.Folders).
	Records map[string]int
}

// Inspector reads the facts the status verb reports. It never writes.
type Inspector interface {
	Inspect(ctx context.Context) (RepoFacts, error)
}

// SchemaCatalog serves the published schemas the binary embeds.
type SchemaCatalog interface {
	Index() (contract.Index, error)
	// Schema returns the bytes of the named schema, or ok false when no schema has that name.
	Schema(name string) (data []byte, ok bool, err error)
}

// ConfigFile is one configuration file as found: absent, or its bytes.
type ConfigFile struct {
	Path    string
	Present bool
	Data    []byte
}

// ConfigFiles are the four files of the two configuration families.
type ConfigFiles struct {
	RepoConfig     ConfigFile
	MachineConfig  ConfigFile
	RepoRouting    ConfigFile
	MachineRouting ConfigFile
}

// ConfigSource reads the configuration files through the guarded reader. A file that is present but
// may not be read (a symlink, too large, a machine file another user owns or may write) is an error
// naming it and the fix; an absent file is an absent layer.
type ConfigSource interface {
	ReadConfig(ctx context.Context) (ConfigFiles, error)
}

// RuleFiles are the rules' two files as found: the repository's .abcd/rules.json and the machine's
// $ABCD_HOME/rules.json.
type RuleFiles struct {
	Repository ConfigFile
	Machine    ConfigFile
}

// RulesSource reads the rules' files through the guarded reader, as ConfigSource reads configuration:
// absent is an absent layer; a file that may not be read is an error naming it and the fix. It starts
// no process: the rules hook runs on every prompt.
type RulesSource interface {
	ReadRules(ctx context.Context) (RuleFiles, error)
	// ReadCompiled returns the compiled rules kept for this repository under key (a digest of every
	// input), if any; WriteCompiled keeps them. They are a cache on the machine: what cannot be read
	// is composed again, and a failure to keep them changes no answer.
	ReadCompiled(ctx context.Context, key string) ([]byte, bool)
	WriteCompiled(ctx context.Context, key string, data []byte) error
}

// HistoryEntry is one captured transcript as the store keeps it: its record, its redacted bytes and
// its messages (redacted, for reading and searching).
type HistoryEntry struct {
	Record   history.Record
	Raw      []byte
	Messages []history.Message
}

// HistoryFilter narrows a listing; empty fields do not narrow. Limit 0 is the store's default.
type HistoryFilter struct {
	Run     string
	Session string
	Harness string
	// Since and Until bound when a session started (its capture, for a transcript with no times),
	// both included: RFC 3339 moments in UTC.
	Since string
	Until string
	Limit int
}

// HistoryHit is one message a search found, with the words around the match.
type HistoryHit struct {
	Key     string
	Title   string
	Seq     int
	Role    string
	At      string
	Snippet string
}

// HistoryStore keeps a repository's captured sessions on the machine, under the repository's root
// commit, so every clone and worktree of it shares them; never in the repository. Put replaces what
// is kept under the entry's key; Prune removes the oldest captures until the store is within
// maxBytes, and names them.
//
// Put returns ErrKeptLonger when the store keeps a transcript of the same key at least as long (two
// captures racing leave the longer); Search returns ErrHistoryQuery for a query with no word in it.
type HistoryStore interface {
	Get(ctx context.Context, repo, key string) (history.Record, bool, error)
	Put(ctx context.Context, repo string, e HistoryEntry) error
	List(ctx context.Context, repo string, f HistoryFilter) ([]history.Record, error)
	Show(ctx context.Context, repo, key string) (HistoryEntry, bool, error)
	Search(ctx context.Context, repo, query string, limit int) ([]HistoryHit, error)
	Prune(ctx context.Context, repo string, maxBytes int64) (removed []string, err error)
}

// The history store's answers a use case tells apart.
var (
	ErrKeptLonger   = errors.New("a transcript of this session at least as long is kept")
	ErrHistoryQuery = errors.New("the query holds no word to search for")
)

// TranscriptFile is one session file a harness wrote on this machine.
type TranscriptFile struct {
	Harness history.Harness
	Path    string
	Size    int64
	// Cwd is where the session ran when the file's folder says (Gemini CLI's project root), "" else.
	Cwd string
}

// TranscriptSource reads the harnesses' own session files: Claude Code's projects, Codex's session
// rollouts, Gemini CLI's chats. Read is bounded (history.MaxTranscriptBytes), regular files only,
// no symbolic link, and says where the session ran when the file's folder does (Gemini CLI); Find
// lists the files on this machine of sessions that ran in one of the folders within (or below it).
type TranscriptSource interface {
	Read(ctx context.Context, path string) (data []byte, cwd string, err error)
	Find(ctx context.Context, within []string) ([]TranscriptFile, error)
	// Home is the person's home folder, which redaction writes as ~.
	Home() string
}

// Credentials are the secrets abcd holds or the harnesses use on this machine, read at the moment
// they are needed and never kept: each configured provider's key (its key_env's value, its
// key_file's content) and the harnesses' own API keys from the environment. Redaction looks for each.
type Credentials interface {
	Held(ctx context.Context, providers []ProviderCall) []string
}

// RosterSource serves the agent roster abcd ships (agents/*.md), parsed strictly.
type RosterSource interface {
	Roster() (roster.Roster, error)
}

// Diagnostics carries what a person should see but no result holds: a skipped routing row, a
// fallback announced before a step. The CLI writes it to stderr.
type Diagnostics interface {
	Warn(msg string)
}

// Prompter asks the person a yes/no question. Interactive is false when nobody can answer (stdin
// is not a terminal, or the front door has no person), and then Confirm is never called.
type Prompter interface {
	Interactive() bool
	// Show writes text the person reads before a question (a table), never to stdout.
	Show(text string)
	Confirm(ctx context.Context, question string) (bool, error)
}

// Setup writes what abcd ahoy install adds, relative to the repository root, and the machine files
// under $ABCD_HOME. Every write is atomic and create-only: what exists is never replaced.
type Setup interface {
	// Root is the repository root; git is false outside a git repository.
	Root() (root string, git bool)
	MkdirAll(rel string) (created bool, err error)
	CreateFile(rel string, data []byte) (created bool, err error)
	Exists(rel string) (bool, error)
	// RemoveEmptyDir removes rel only when it is an empty folder.
	RemoveEmptyDir(rel string) (removed bool, err error)
	// Names are the names in the folder rel, sorted: none when nothing, or a file, stands there; a
	// link or a file on the way is refused, and so is a folder holding more than max names.
	Names(rel string, max int) ([]string, error)
	// RemoveFileIf removes rel only when its content is exactly data (what install wrote).
	RemoveFileIf(rel string, data []byte) (removed bool, err error)
	// ReadFile reads rel through the guarded reader (absent: nil, false). ReplaceFile is the one
	// write that replaces a repository file (install's lines in .gitattributes, a file the person
	// shares with abcd): atomic, 0644, never through a link.
	ReadFile(rel string) (data []byte, present bool, err error)
	ReplaceFile(rel string, data []byte) error
	// MachinePath is the path of a machine file; CreateMachineFile writes it 0600 in a 0700 folder.
	MachinePath(name string) string
	// ReadMachineFile reads a machine file through the guarded reader, taking no lock (the guard's
	// hook reads the allowed guard files so): absent is nil, false.
	ReadMachineFile(name string) (data []byte, present bool, err error)
	MachineExists(name string) (bool, error)
	CreateMachineFile(name string, data []byte) (created bool, err error)
	// UpdateMachineFile is the one write that replaces a machine file (ahoy connect and disconnect):
	// under $ABCD_HOME's lock, waiting at most wait (contention after), it reads the file through
	// the guarded reader (absent: nil, false), hands it to update, and writes what update returns
	// atomically, 0600 in a 0700 folder. An error from update writes nothing and is returned; nil
	// data with no error writes nothing.
	UpdateMachineFile(ctx context.Context, name string, wait time.Duration, update func(old []byte, present bool) ([]byte, error)) error
}

// MergeFiles reads and writes the files git hands the record's merge driver, by the paths git gave
// (relative to the folder git runs the driver in): regular files only, never through a link, reads
// bounded; the merge is written in place of ours atomically, keeping its mode.
type MergeFiles interface {
	Read(path string, max int) ([]byte, error)
	Replace(path string, data []byte) error
}

// RecordFile is one record file as a listing or a read found it. Path is relative to the repository
// root, with forward slashes, so results read the same on every machine.
type RecordFile struct {
	Path string
	Data []byte
	// Err is a fault in this file alone (a symlink, too large); a listing reports it beside the others.
	Err error
}

// RecordStore keeps the record's files. Every write is atomic; creating never replaces.
type RecordStore interface {
	// Initialized is false until abcd ahoy install has made .abcd/.
	Initialized() bool
	// InstallMissing lists the files abcd ahoy install writes last that are missing from a record
	// that stands (.abcd/.gitignore, .abcd/config.json): an install a kill interrupted.
	InstallMissing() ([]string, error)
	// List returns the record files (<prefix>-*.md) of one lifecycle folder, sorted by name, each read
	// to at most limit bytes (limit 0: the whole file, bounded by the record maximum).
	List(ctx context.Context, dir, prefix string, limit int) ([]RecordFile, error)
	// Names lists the record files (<prefix>-*.md) of one lifecycle folder, sorted, reading none.
	Names(ctx context.Context, dir, prefix string) ([]string, error)
	// Read returns one record file whole, bounded.
	Read(ctx context.Context, path string) ([]byte, error)
	// Create writes a new file; created is false when the name is taken. A write whose ctx ended
	// before it began is not made (ctx's error), as for Replace, Journal.Commit and RunStore.Write:
	// an MCP call cancelled, or a Ctrl-C, before its write leaves nothing written.
	Create(ctx context.Context, path string, data []byte) (created bool, err error)
	// Replace atomically replaces an existing file's content.
	Replace(ctx context.Context, path string, data []byte) error
	// Lock serialises writers across processes, waiting at most wait for a held lock (0: one try;
	// ctx ends the wait); still held then is contention (exit 3).
	Lock(ctx context.Context, wait time.Duration) (unlock func(), err error)
	// StrayTemps lists the temporary files killed writers left under .abcd/ that no live writer
	// holds and no later writer could clean.
	StrayTemps(ctx context.Context) ([]StrayTemp, error)
	// MergeTemps lists the temporary files killed merge drivers left: in the git folder's abcd-tmp
	// (Ignored: git never sees them; the next merge removes them), and at the top of the work tree
	// (where `git add -A` would commit them: an older abcd's, or one written where the git folder is
	// on another file system).
	MergeTemps(ctx context.Context) ([]StrayTemp, error)
}

// FileChange is one file of a change that touches several: Data replaces the file's content (the
// file and its folders are made when missing), or Remove takes the file away. Path is relative to the
// repository root, under .abcd/: a record file or a run file.
type FileChange struct {
	Path   string
	Data   []byte
	Remove bool
}

// Change is a change to several files of .abcd/ made as one. Verb and Record say what made it (the
// verb, and the record or run it changed), so a run of the same command after a kill can tell that
// the change it asked for was finished for it. Moves are the record moves the change makes, to be
// staged in git's index once its files are made: each move's From is a file the change removes, its
// To one it writes ("" when the record is only removed).
type Change struct {
	Verb   string
	Record string
	Files  []FileChange
	Moves  []Move
}

// Move is a record's move, as Git.StageMove stages it.
type Move struct {
	From, To string
}

// Journal makes a change to several files survive a kill: Commit writes the whole change to the
// journal in one atomic write, carries it out file by file, then removes the journal. A change a
// killed writer left there is carried out by the next Finish, so the next writer completes it (roll
// forward). All are called under the record lock; carrying a change out twice leaves what carrying
// it out once does.
//
// A change with moves is not whole until git's index holds them: Commit and Finish carry its files
// out, mark them made, and leave it in the journal; the caller then stages its moves and calls
// Settle, which removes it. A kill before Settle leaves it for the next Finish, which returns it
// again (its files are not written again once marked made, so an edit made since is kept) for that
// caller to stage and settle.
type Journal interface {
	Commit(ctx context.Context, c Change) error
	// Pending reports whether a change waits in the journal (its files, or only its moves, still to
	// be made). It takes no lock: a writer holding a run's lock asks it before reading that run, and
	// takes the record lock to finish one.
	Pending(ctx context.Context) (bool, error)
	// Finish carries out the change a killed writer left and returns it; the zero Change when the
	// journal is empty. A returned change with moves stays in the journal until Settle.
	Finish(ctx context.Context) (Change, error)
	// Settle removes a change whose files are made and whose moves are staged; none is not an error.
	Settle(ctx context.Context) error
	// Sweep removes the temporary files dead writers left in abcd's staging folder, taking no lock:
	// a command killed mid-write that is run again and finds nothing to write leaves none behind.
	Sweep(ctx context.Context) error
}

// StrayTemp is a temporary file a killed writer left: it holds a whole copy of what was being
// written, never the only one. Path is relative to the repository root, with forward slashes.
type StrayTemp struct {
	Path string
	// Ignored is true where git ignores it (abcd's own temporary folder); false beside a record,
	// where `git add -A` would commit it.
	Ignored bool
}

// Clock is the time, for ids and dates.
type Clock interface{ Now() time.Time }

// Random is randomness, for the random part of ids.
type Random interface{ Uint32() uint32 }

// Git is what the build loop asks of the repository's history. Every call is bounded in time.
type Git interface {
	// Resolve turns a ref into a full commit id; an unknown ref is a refusal naming it.
	Resolve(ctx context.Context, ref string) (string, error)
	// CurrentBranch is the checked-out branch ("" when HEAD is detached).
	CurrentBranch(ctx context.Context) (string, error)
	// CreateBranch creates name at commit; an existing branch is a refusal.
	CreateBranch(ctx context.Context, name, commit string) error
	// IsAncestor reports whether commit is reachable from (an ancestor of, or equal to) head.
	IsAncestor(ctx context.Context, commit, head string) (bool, error)
	// Diff is git's own diff from base to head (no external diff, textconv or colour), at most max
	// bytes; truncated is true when it was cut.
	Diff(ctx context.Context, base, head string, max int) (diff []byte, truncated bool, err error)
	// Committed returns a file as HEAD has it (path relative to the repository root, with forward
	// slashes), at most max bytes: committed is false when HEAD has no such file or there is no HEAD
	// yet; a symbolic link or a larger file is a refusal. The guard reads its committed rules so.
	Committed(ctx context.Context, path string, max int) (data []byte, committed bool, err error)
	// AddWorktree checks branch out in a new worktree at dir (relative to the repository root),
	// making the folders it needs. A dir that is already a worktree of branch is left as it is.
	AddWorktree(ctx context.Context, dir, branch string) error
	// CheckedOut is, for each of dirs, the branch checked out in a whole worktree there ("" when git
	// has none there, or its folder is gone or half removed): one look at git's worktrees for all.
	CheckedOut(ctx context.Context, dirs []string) (map[string]string, error)
	// RemoveWorktree removes the worktree at dir, and what it holds; an absent one is not an error.
	RemoveWorktree(ctx context.Context, dir string) error
	// Merge merges commit into the branch checked out in the worktree at dir, with git's own merge
	// and a merge commit saying message. A conflict is not an error: the merge is aborted, the
	// worktree is as it was, and the conflicting files are returned.
	Merge(ctx context.Context, dir, commit, message string) (conflicts []string, err error)
	// DefaultBranch is the repository's default branch: the remote's HEAD, else init.defaultBranch,
	// else main or master, whichever exists; "" when none of them names a branch here.
	DefaultBranch(ctx context.Context) (string, error)
	// DeleteBranch deletes a branch abcd made, whatever it holds; an absent one is not an error.
	DeleteBranch(ctx context.Context, name string) error
	// BranchesUnder lists the branches whose names start with prefix/ (a run's, abcd/<run>), sorted;
	// more than max is a refusal.
	BranchesUnder(ctx context.Context, prefix string, max int) ([]string, error)
	// ClearRefLock removes the lock file a killed git left on the ref of a branch abcd made, so the
	// branch can be made again; absent is not an error. The caller holds the run's lock.
	ClearRefLock(ctx context.Context, name string) error
	// RootCommit is the repository's first commit (of several roots, the least id), the same in
	// every clone and worktree; "" when there is no commit yet.
	RootCommit(ctx context.Context) (string, error)
	// WorktreeDirs are the absolute folders of the repository's worktrees, the main one first.
	WorktreeDirs(ctx context.Context) ([]string, error)
	// The host commit of an implementer's step on a runner (ports/loop/runnerroute.go). Snapshot is
	// what a step must not change, taken in the worktree at dir (relative to the repository root):
	// its HEAD, every ref, and digests of git's effective configuration, its hooks and its info
	// folder. Entries lists every path git status shows changed in that worktree (tracked, staged or
	// untracked and not ignored), each with what stands at it now (a link's target as written);
	// more than max is a refusal. CommitAll stages everything the worktree changed and commits it on
	// its branch with message, never running the repository's hooks, and returns the commit. Restore
	// puts the worktree back on branch, and the branch and its files at commit, removing what git
	// neither tracks nor ignores.
	Snapshot(ctx context.Context, dir string) (runner.Snapshot, error)
	Entries(ctx context.Context, dir string, max int) ([]runner.Entry, error)
	// WorkChange is what the worktree at dir holds beyond commit base, for abcd to scan before it
	// commits or keeps it: the messages of the commits its HEAD has beyond base, and git's diff from
	// base to the working tree (what git neither tracks nor ignores as added, every file as text, no
	// external diff, textconv or rename), at most max bytes in all (Truncated past them). It writes
	// no object and leaves the worktree's index as it is.
	WorkChange(ctx context.Context, dir, base string, max int) (runner.Change, error)
	CommitAll(ctx context.Context, dir, message string) (string, error)
	// ReadCommit is a commit's parents and message (at most 64 KiB of it): how a step resumed after
	// a kill finds abcd's own commit of its work by its trailer.
	ReadCommit(ctx context.Context, rev string) (parents []string, message string, err error)
	Restore(ctx context.Context, dir, branch, commit string) error
	// ClearStaleLocks removes the locks a git killed part way (with the abcd that started it) left
	// on the worktree at dir (git refuses every commit there while one stands): its index's and
	// HEAD's, and its branch's, each once it has stood unchanged past git's own wait. It returns
	// those it removed.
	ClearStaleLocks(ctx context.Context, dir, branch string) ([]string, error)

	// ConfigValue reads a key of the repository's own git config (git config --local); ok is false
	// when it is unset. SetConfig writes one; UnsetConfig removes one (absent is not an error).
	ConfigValue(ctx context.Context, key string) (value string, ok bool, err error)
	SetConfig(ctx context.Context, key, value string) error
	UnsetConfig(ctx context.Context, key string) error
	// StageMove records a record's move in git's index when git tracks the old path: the old path
	// removed and the new one added as it now stands (to "" for a removal), so the index holds a
	// rename and a branch switch or a stash carries the move whole. An untracked old path stages
	// nothing; moved is true when the index was changed.
	StageMove(ctx context.Context, from, to string) (moved bool, err error)
	// ClearStaleIndexLock removes the index.lock of the repository's checkout once it has stood
	// unchanged past git's own wait: what a git killed with the abcd that started it, part way
	// through staging a move, leaves (git refuses every later add until it is gone). Only a writer
	// finishing a move a killed abcd left calls it: a lock found otherwise may be a person's git,
	// such as a commit -a waiting on its editor. removed says it was removed.
	ClearStaleIndexLock(ctx context.Context) (removed bool, err error)
	// Changed lists the repository-relative paths under dir that differ from rev in the working tree
	// (files git does not track yet and does not ignore count), or with staged, the paths whose
	// staged content differs from HEAD (every staged path before the first commit).
	Changed(ctx context.Context, dir, rev string, staged bool) ([]string, error)
	// Uncommitted lists what git status shows in the worktree at dir (relative to the repository
	// root) that its branch's head does not hold: changed, staged, unmerged or untracked files, not
	// ignored ones, each relative to the worktree, at most max of them; more reports true.
	Uncommitted(ctx context.Context, dir string, max int) (paths []string, more bool, err error)
	// Unmerged lists the repository-relative paths under dir that git's index holds an unresolved
	// merge conflict for.
	Unmerged(ctx context.Context, dir string) ([]string, error)
	// Introduced is the oldest commit whose change to path (followed across renames) added text;
	// found is false when no commit did (the text is not committed yet, or there is no history).
	Introduced(ctx context.Context, path, text string) (commit string, found bool, err error)
	// PathsAt lists the repository-relative paths under dir in a commit's tree.
	PathsAt(ctx context.Context, commit, dir string) ([]string, error)
	// Stages reads the versions git's index holds of an unmerged path: the common ancestor's (1),
	// ours (2) and theirs (3), each at most max bytes; a version absent is nil.
	Stages(ctx context.Context, path string, max int) (stages [4][]byte, err error)
	// Settle marks an unmerged path resolved as the working tree has it: added when the file stands
	// there, removed from the index when it does not.
	Settle(ctx context.Context, path string) error
}

// ErrNoGit is what a Git call answers where git cannot run at all: no git program on PATH, or no
// repository around the folder. A verb that only asks git for more (lint, a move's staging) goes on
// without it; one that needs git says so.
var ErrNoGit = errors.New("git cannot run here")

// RunStore keeps the build loop's runs under .abcd/.work.local/run/, and the folders of the lanes'
// worktrees in .abcd-lanes/ (layout.Lanes): files 0600 in 0700 folders, atomic writes, bounded
// reads. Paths are repository-relative with forward slashes.
type RunStore interface {
	// Lock takes a run's lock, waiting at most wait (0: one try; ctx ends the wait); still held is
	// contention (exit 3). A run that does not exist is loop.UnknownRun's refusal, before anything
	// is made.
	Lock(ctx context.Context, run string, wait time.Duration) (unlock func(), err error)
	// Runs lists the run ids, oldest first.
	Runs(ctx context.Context) ([]string, error)
	// Create makes a new run's folder; false when it exists.
	Create(ctx context.Context, run string) (bool, error)
	// Write atomically writes a file of the run (its state, a brief), making folders as needed.
	Write(ctx context.Context, path string, data []byte) error
	// CreateFile atomically writes a new file of the run, never replacing one: false when the name is
	// taken (a file appearing between a look and the write included). Where the file system has no
	// hard links, the name is created exclusively and filled.
	CreateFile(ctx context.Context, path string, data []byte) (bool, error)
	// Read reads a file under the run folder: regular, not a symbolic link, at most max bytes (a
	// larger file is refused naming the bound).
	Read(ctx context.Context, path string, max int) ([]byte, error)
	// CheckFile says what is wrong with path as a file an agent wrote inside dir ("" when it is a
	// regular file inside dir).
	CheckFile(ctx context.Context, dir, path string) string
	// Remove deletes a run file; an absent one is not an error.
	Remove(ctx context.Context, path string) error
	// RemoveAll deletes a folder under the run folder, or a run's folder of worktrees or a worktree in
	// the lanes' folder (layout.Lanes), and everything in it, links as links (a run a killed start left
	// with no state, a worktree a killed step left half made); an absent one is not an error. The
	// run's folder of worktrees goes with its last worktree.
	RemoveAll(ctx context.Context, path string) error
	// MakeLanes makes the folders the worktree wt is added in when it lies in the lanes' folder (the
	// run's, and the lanes' folder with its .gitignore), 0700 and never through a link, before git
	// makes the worktree; a worktree elsewhere (an earlier abcd's, in the run's folder) needs none.
	MakeLanes(ctx context.Context, wt string) error
	// Unstarted lists the run folders that hold no state: a start killed before it wrote one.
	Unstarted(ctx context.Context) ([]string, error)
	// HoldWorker takes a lock in the run's folder that this process holds while it calls routes for
	// the run's awaits, and that the system lets go when the process ends, however it ends: its pid,
	// the lock's name (recorded on each await a route is working on) and the release.
	HoldWorker(ctx context.Context, run string) (pid int, name string, release func(), err error)
	// WorkerHeld reports whether the process that took the worker lock name still holds it (false:
	// the process is gone, and the lock's leftovers are removed).
	WorkerHeld(ctx context.Context, run, name string) (bool, error)
}

// DoD runs a repository's definition of done (build.dod) in a lane's checkout: the person's own
// command, through the system's shell, with abcd's own environment. The loop runs it on each head
// before that head's validators are opened, so what it showed is evidence in their briefs.
type DoD interface {
	// Run runs command in dir (absolute) until it exits, timeout passes or ctx ends; the command and
	// everything it started are ended with it. A command that cannot start, or does not exit on its
	// own within timeout, is a result with its Problem; an error is ctx's, or a fault of the adapter.
	Run(ctx context.Context, dir, command string, timeout time.Duration) (DoDResult, error)
	// RunFenced runs it as Run does, inside the fence run.Sandbox describes and with a runner's
	// allowlisted environment plus the names run.Env lists (never abcd's whole environment): the
	// definition of done abcd runs on a runner's work. A fence that cannot be built is a result whose
	// Problem names what is missing and whose Unavailable is set; nothing ran.
	RunFenced(ctx context.Context, run DoDRun) (DoDResult, error)
}

// Notifier runs the person's build.notify command: through the system's shell in dir, with abcd's
// environment and event on its stdin, until it exits or timeout passes (then it and everything it
// started are ended, after a short grace); its output is read to its end and only its last lines are
// kept. A command that cannot start or does not exit in time is a result with its Problem; an error is
// ctx's, or a fault of the adapter.
type Notifier interface {
	Notify(ctx context.Context, dir, command string, event []byte, timeout time.Duration) (DoDResult, error)
}

// DoDRun is one run of the definition of done inside the fence.
type DoDRun struct {
	// Dir is the checkout (absolute); Command the run's definition of done, from the configuration the
	// run started with.
	Dir, Command string
	Timeout      time.Duration
	// Env names the variables passed from abcd's environment beside the runner-style allowlist (PATH,
	// HOME, the locale, the git identity): build.dod_env.
	Env []string
	// Sandbox is the fence: Write the checkout, Role SandboxRoleDoD. nil runs unconfined (with the
	// allowlisted environment still).
	Sandbox *SandboxPolicy
}

// DoDResult is how a run of the definition of done ended and its output's last lines.
type DoDResult struct {
	// ExitCode is the command's exit code; -1 when it did not exit on its own.
	ExitCode int
	// Tail is the output's last lines (stdout and stderr as they came), at most TailLines lines and
	// TailBytes bytes; Lines counts every line the command printed.
	Tail     string
	Lines    int
	Duration time.Duration
	// Problem says why the command did not run to its own exit (it could not start, timed out, was
	// ended by a signal); "" when it did.
	Problem string
	// Unavailable is set when the fence asked for could not be built (Problem names what is missing):
	// the command never ran. Sandbox is the fence it ran in; nil when it ran unconfined.
	Unavailable bool
	Sandbox     *runner.Sandbox
}

// Validator routes an agent's step elsewhere than the person's harness: a review to a RepoPrompt
// MCP server (route rp), or any agent's step to an OpenAI-compatible provider (the route is the
// connection's name). The host route is the loop's own default (an await for the harness). A route
// that cannot take the step says why with a fallback reason, and the harness takes it with the same
// brief and return path; Review never leaves a step stranded.
//
// The call runs outside the run's lock, bounded by the adapter's own limits and by ctx: a ctx ended
// by the person (SIGINT, SIGTERM) or by a shorter deadline is the fallback reason interrupted.
type Validator interface {
	// Route is the name a receipt records for this validator (rp, or a connection name).
	Route() string
	// Review sends the request and returns the reviewer's whole return, or a fallback reason. An
	// error is a fault of the adapter itself; the loop records it as the fallback reason failed.
	Review(ctx context.Context, req ReviewRequest) (ReviewOutcome, error)
}

// Connections is what the machine has configured for routing: its providers (provider.Machine, read
// from the configuration stack). Routing only asks, it never dials: a step's route is decided from
// Configured by oracle.Resolve, with each connection's default settings under the row's and the
// flag's.
type Connections interface {
	// Configured is the machine's connections as oracle.Resolve reads them.
	Configured() oracle.Configured
	// Defaults is a connection's default settings (a copy); the harness and unknown names have none.
	Defaults(oracle.Connection) oracle.Settings
}

// ReviewRequest is what a route is handed: everything the agent needs, with nothing to look up.
type ReviewRequest struct {
	Run, Lane, Role string
	Round           int
	// Agent is the agent's definition (its roster text): a provider's system message.
	Agent string
	// Request is the self-contained request (request.md): the agent's definition, the lane's brief
	// and the record it was rendered from, the implementer's reports, and the lane's diff. RepoPrompt
	// receives it as the tool's message argument; a provider as the user message.
	Request []byte
	// Reply is the published schema of the reply the role writes (a review: summary, findings and
	// the verdict word; the auditor: its per-criterion verdicts), for a provider's response_format.
	Reply []byte
	// Tier is the model tier the step asked for; Settings the merged settings for the call (the
	// connection's defaults < the routing row < the --route flag).
	Tier     string
	Settings map[string]string
}

// ReviewOutcome is a route's answer: the return bytes, or the reason it did not return, and what the
// route reported about the call for the step's receipt.
type ReviewOutcome struct {
	// Return is the return in the format the host's agent would have written at the return path (a
	// reviewer's markdown with its ## Verdict, or the auditor's JSON); the loop verifies it the same
	// way.
	Return []byte
	// FallbackReason is one of review.FallbackReasons() when the route did not return; its detail
	// is the adapter's own words, never an address, a key or a server's text verbatim.
	FallbackReason string
	FallbackDetail string
	// What a provider reports: the model asked for and the model that answered, whether the reply's
	// schema was enforced by the server (false: retried without response_format, checked locally),
	// and the token usage when reported. Empty for rp.
	ModelAsked     string
	ModelReported  string
	SchemaEnforced bool
	Usage          TokenUsage
	// CostUSD is what a provider's call cost and CostSource where that figure came from: priced from
	// its block's prices for the model that answered, unmetered (billing: subscription), or unknown
	// (0). Empty for rp and a runner, whose receipt holds its own.
	CostUSD    float64
	CostSource runner.CostSource
	// Runner is a runner's receipt, when a runner took the step (whatever its outcome); nil for
	// every other route. DoD is how the definition of done abcd ran on a runner implementer's commit
	// ended (its output scrubbed), so the loop records it as that head's check and does not run it
	// again; nil otherwise.
	Runner *runner.Receipt
	DoD    *DoDResult
}

// TokenUsage is what a provider reports it spent; zero when it does not say.
type TokenUsage struct {
	Prompt, Completion, Total int
	// Cached is the part of Prompt the provider read from its cache (prompt_tokens_details), where
	// it says.
	Cached int
}

// ---- The guard (issue 16) ----

// CommandReader reads one command line the way the shell will run it, into the guard's neutral
// model: every command of every segment, past wrappers, into the strings it executes. It never runs
// anything. A line it cannot read within its bounds comes back with Refused set (the guard blocks
// it); an error is a fault.
type CommandReader interface {
	ReadLine(line string) (guard.Line, error)
}

// Links resolves a path's symbolic links as the kernel does, for the guard: a write through a link
// is a write to where it lands.
type Links interface {
	// Resolve is abs (an absolute path) with every link on its way followed one name at a time, a
	// link replaced by what it names before a later .. climbs out of it, a link that names nothing
	// yet included; from the first name that does not exist the rest is taken as written.
	Resolve(abs string) string
}

// ---- Providers (issue 12) ----

// Providers opens the OpenAI-compatible providers this machine configures. Opening never dials: the
// first network use is a Validator's Review, or Verify.
type Providers interface {
	// Open returns the provider a call describes as a Validator whose Route is the connection's name.
	// It refuses only a call it could never make (a malformed address); everything that shows at
	// call time is a fallback reason from Review.
	Open(call ProviderCall) (Validator, error)
	// Verify makes one small, bounded call that proves the address, the key and the model answer
	// (abcd ahoy connect), and reports the model that answered or why it could not.
	Verify(ctx context.Context, call ProviderCall) (ProviderCheck, error)
}

// ProviderCall is one call's facts, decided in the domain (provider.Machine.CallFor) before anything
// is dialled.
type ProviderCall struct {
	// Name is the connection's name: the Validator's Route and the receipt's connection.
	Name string
	// BaseURL carries the version path (https://api.openai.com/v1); the adapter appends
	// /chat/completions.
	BaseURL string
	// KeyEnv names the environment variable the key is read from at call time; KeyFile is a file read
	// through the guarded reader at call time (the person's own, 0600). Neither: a keyless server.
	KeyEnv, KeyFile string
	// Model is the model asked for: on the provider's allowlist and not denied.
	Model string
	// Settings are sent with the request, each as its JSON text; only the settings a provider
	// accepts (config.ProviderSettings) ever reach here.
	Settings map[string]string
	// Denied says whether the denylist denies a model and which entry does: an answer that reports
	// a denied model is discarded.
	Denied func(model string) (entry string, denied bool)
}

// ProviderCheck is what Verify found: the model that answered, or the fallback reason (one of
// review.FallbackReasons()) and the adapter's own words for why not.
type ProviderCheck struct {
	ModelReported  string
	FallbackReason string
	Detail         string
}

// ---- The RepoPrompt route (issue 11) ----

// RPDialer builds the RepoPrompt route (adapters/repoprompt) for the MCP server and tool this
// invocation's configuration names (oracle.rp.url, oracle.rp.tool): the core reads the
// configuration per invocation, so the composition root hands it a factory, not a route. An empty
// url is the route with no server, whose every review falls back as absent; an empty tool is the
// default, oracle_send. Nothing is dialled until a review is sent.
type RPDialer interface {
	RP(url, tool string) Validator
}
