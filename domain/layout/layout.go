// Package layout names where abcd keeps its git-ignored local state inside a repository: the one
// place the .abcd/.work.local layout is spelled. Paths are relative to the repository's root, with
// forward slashes; an adapter turns them into the machine's paths.
package layout

const (
	// Root is abcd's folder at the repository's root: the record, the configuration, local state.
	Root = ".abcd"
	// LocalName is the folder inside Root that .abcd/.gitignore keeps out of git: runs, the
	// journal, the staging folder. Nothing under it is ever committed.
	LocalName = ".work.local"
	// Local is LocalName from the repository's root.
	Local = Root + "/" + LocalName
	// Runs holds one folder per build-loop run (state.json, the lanes' briefs and returns).
	Runs = Local + "/run"
	// Journal is the record's write-ahead journal: a change that touches more than one file.
	Journal = Local + "/journal.json"
	// StagingName is the folder inside Local holding writers' temps before they are renamed into
	// the record, out of git's sight; Staging is it from the repository's root.
	StagingName = "tmp"
	Staging     = Local + "/" + StagingName
	// Ignore is the .abcd/.gitignore line that keeps Local out of git.
	Ignore = "/" + LocalName + "/"
	// Lanes holds the lanes' worktrees, one folder per run, beside Root rather than inside it: a
	// harness's sandbox that cannot open a folder again inside a denied one (Claude Code's on Linux)
	// then denies Root whole and leaves the worktrees writable. Its name starts with Root's so it sorts
	// beside it and says whose it is. abcd makes it 0700 holding LanesIgnore, a .gitignore that keeps
	// it and all it holds out of git without touching the person's own ignore files.
	Lanes = ".abcd-lanes"
	// LanesIgnore is the .gitignore abcd writes in Lanes, and its content.
	LanesIgnore     = Lanes + "/.gitignore"
	LanesIgnoreText = "# abcd's lanes' worktrees: never committed.\n*\n"
)

// LanesDir is one run's folder of worktrees.
func LanesDir(run string) string { return Lanes + "/" + run }

// RunDir is one run's folder.
func RunDir(run string) string { return Runs + "/" + run }
