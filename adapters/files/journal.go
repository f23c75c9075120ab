package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// The journal holds at most one change: every change that touches several files is made under the
// record lock, so one finishes before the next begins. It lives in abcd's git-ignored machine folder.
const (
	journalRel = layout.Journal
	// journalVersion is the journal's format; a journal of another version is refused, not guessed at.
	// Version 2 added a change's moves and the mark that its files are made; a version 1 journal (an
	// older abcd's, which has neither) is still read and finished.
	journalVersion = 2
	// maxJournalBytes bounds the journal: a run's state (4 MiB) and the records and returns a step
	// writes beside it, base64-encoded.
	maxJournalBytes = 12 << 20
)

// Journal implements ports.Journal in the repository containing Dir.
type Journal struct {
	Dir string
}

// journalFile is the journal's form on disk. Data is base64 (encoding/json's form for bytes), so a
// return of any bytes is carried whole. Made says every file of the change is made and only its
// moves wait to be staged in git's index: the next writer then writes none of them again (an edit
// made since a kill is kept), and only stages the moves.
type journalFile struct {
	Version int           `json:"version"`
	Verb    string        `json:"verb"`
	Record  string        `json:"record"`
	Files   []journalItem `json:"files"`
	Moves   []journalMove `json:"moves,omitempty"`
	Made    bool          `json:"made,omitempty"`
}

type journalItem struct {
	Path   string `json:"path"`
	Data   []byte `json:"data,omitempty"`
	Remove bool   `json:"remove,omitempty"`
}

type journalMove struct {
	From string `json:"from"`
	To   string `json:"to,omitempty"`
}

// journalEntry is a journal as read: its change, whether its files are made, and its version.
type journalEntry struct {
	change  ports.Change
	made    bool
	version int
}

// encodeJournal is the journal's bytes for e, checking every path first.
func encodeJournal(e journalEntry) ([]byte, error) {
	c := e.change
	j := journalFile{Version: e.version, Verb: c.Verb, Record: c.Record, Files: make([]journalItem, len(c.Files)), Made: e.made}
	for i, f := range c.Files {
		j.Files[i] = journalItem{Path: f.Path, Data: f.Data, Remove: f.Remove}
	}
	for _, m := range c.Moves {
		j.Moves = append(j.Moves, journalMove(m))
	}
	if err := j.check(); err != nil {
		return nil, err
	}
	data, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// decodeJournal reads a journal strictly: bounded, one object of known keys, nothing trailing, a
// version this abcd reads, every path one abcd writes, and exactly the bytes abcd would have written
// for it (so a journal edited by hand is refused rather than half carried out).
func decodeJournal(data []byte) (journalEntry, error) {
	if len(data) > maxJournalBytes {
		return journalEntry{}, fmt.Errorf("it is larger than %d bytes", maxJournalBytes)
	}
	if err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: maxJournalBytes, MaxDepth: 8}); err != nil {
		return journalEntry{}, errors.New(strictjson.Describe(err))
	}
	var j journalFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return journalEntry{}, err
	}
	if j.Version != 1 && j.Version != journalVersion {
		return journalEntry{}, fmt.Errorf("it declares version %d; this abcd reads versions 1 and %d", j.Version, journalVersion)
	}
	if err := j.check(); err != nil {
		return journalEntry{}, err
	}
	e := journalEntry{version: j.Version, made: j.Made, change: ports.Change{Verb: j.Verb, Record: j.Record, Files: make([]ports.FileChange, len(j.Files))}}
	for i, f := range j.Files {
		e.change.Files[i] = ports.FileChange{Path: f.Path, Data: f.Data, Remove: f.Remove}
	}
	for _, m := range j.Moves {
		e.change.Moves = append(e.change.Moves, ports.Move(m))
	}
	again, err := encodeJournal(e)
	if err != nil || !bytes.Equal(again, data) {
		return journalEntry{}, errors.New("it is not in the form abcd writes")
	}
	return e, nil
}

// changeable reports whether p is a file a change may write: a record file (a file directly in one of
// the record's lifecycle folders) or a file under the run folder. Never .abcd's own files (its
// .gitignore, its configuration), the staging folder or the journal.
func changeable(p string) bool {
	if strings.HasPrefix(p, runRoot+"/") {
		return true
	}
	for _, f := range record.Folders() {
		if name, ok := strings.CutPrefix(p, f.Dir+"/"); ok && name != "" && !strings.Contains(name, "/") {
			return true
		}
	}
	return false
}

// check refuses a change abcd would never make: a path that is not a record file or a run's file, a
// file named twice, a removal carrying data, or words that are not one line.
func (j journalFile) check() error {
	if len(j.Files) == 0 {
		return errors.New("it changes no file")
	}
	for _, s := range []string{j.Verb, j.Record} {
		if p := text.LineProblem(s); p != "" || len(s) > 200 {
			return fmt.Errorf("%q is not a short line of text", text.Clip(s))
		}
	}
	seen := map[string]bool{}
	for _, f := range j.Files {
		if err := recordPath(f.Path); err != nil {
			return err
		}
		if !changeable(f.Path) {
			return fmt.Errorf("%s is not a record file or a run's file, the only files a change writes", f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("%s is named twice", f.Path)
		}
		seen[f.Path] = true
		if f.Remove && f.Data != nil {
			return fmt.Errorf("%s is both removed and written", f.Path)
		}
	}
	return j.checkMoves()
}

// checkMoves refuses moves abcd would never stage: any in a version 1 journal, which had none; a
// move whose old path the change does not remove or whose new path it does not write, or that is
// not a record file; an old path moved twice; and files marked made with no move left to stage
// (such a change's journal is removed once its files are made).
func (j journalFile) checkMoves() error {
	if j.Version == 1 && (j.Moves != nil || j.Made) {
		return errors.New("a version 1 journal holds no moves")
	}
	if j.Made && len(j.Moves) == 0 {
		return errors.New("its files are marked made with no move left to stage")
	}
	removed, written := map[string]bool{}, map[string]bool{}
	for _, f := range j.Files {
		if f.Remove {
			removed[f.Path] = true
		} else {
			written[f.Path] = true
		}
	}
	from := map[string]bool{}
	for _, m := range j.Moves {
		if !removed[m.From] || strings.HasPrefix(m.From, runRoot+"/") {
			return fmt.Errorf("the move from %q is not of a record file the change removes", text.Clip(m.From))
		}
		if m.To != "" && (!written[m.To] || strings.HasPrefix(m.To, runRoot+"/")) {
			return fmt.Errorf("the move to %q is not to a record file the change writes", text.Clip(m.To))
		}
		if from[m.From] {
			return fmt.Errorf("%s is moved twice", m.From)
		}
		from[m.From] = true
	}
	return nil
}

// Commit writes the change to the journal and carries it out. The journal is removed then, or, for a
// change with moves, marked made and left for Settle.
func (j Journal) Commit(ctx context.Context, c ports.Change) error {
	if err := ctx.Err(); err != nil {
		return err // the caller's end came before the change began: nothing of it is made
	}
	data, err := encodeJournal(journalEntry{change: c, version: journalVersion})
	if err != nil {
		return fmt.Errorf("a change to several files was refused: %w", err)
	}
	size := len(data)
	if len(c.Moves) > 0 {
		size += len(`,"made":true`) // the journal marked made, which must be read again too
	}
	if size > maxJournalBytes {
		return refusal.New(refusal.CodeChangeTooLarge, c.Record, fmt.Sprintf("the change would take %d bytes, past the journal's %d-byte bound", size, maxJournalBytes),
			"shorten what is being recorded and run the command again; nothing was written")
	}
	dir, err := j.folder(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	if _, err := stagedWrite(j.Dir, journalRel, dir, "journal.json", data, 0o600, true); err != nil {
		return err
	}
	return j.carryOut(dir, journalEntry{change: c, version: journalVersion})
}

// Pending reports whether a journal stands.
func (j Journal) Pending(context.Context) (bool, error) {
	repo, err := openRepo(j.Dir)
	if err != nil {
		return false, err
	}
	defer repo.Close()
	st, err := repo.lstat(journalRel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A folder on the way that is not one is the next writer's to refuse, in its own words.
		return false, nil
	}
	return st != nil, nil
}

// Finish carries out the change a killed writer left in the journal (nothing again when its files
// are marked made) and returns it; one with moves stays until Settle. It sweeps the dead writers'
// temps from the staging folder too, so a command that writes nothing after a kill (refused, or
// finding its change made) still leaves none behind; Sweep does that alone.
func (j Journal) Finish(context.Context) (ports.Change, error) {
	dir, err := j.folder(false)
	if errors.Is(err, fs.ErrNotExist) {
		return ports.Change{}, nil // no machine folder yet, so no journal
	}
	if err != nil {
		return ports.Change{}, err
	}
	defer dir.Close()
	sweep(dir)
	st, err := dir.noLink("journal.json")
	if err != nil || st == nil {
		return ports.Change{}, err
	}
	e, err := readJournal(dir)
	if err != nil {
		return ports.Change{}, err
	}
	if e.made {
		return e.change, nil // only its moves are left, for the caller to stage and settle
	}
	if err := j.carryOut(dir, e); err != nil {
		// Every writer finishes the journal first, so one that cannot is named, or nothing writes.
		return ports.Change{}, refusal.New(refusal.CodeJournalStuck, journalRel, "holds a change a killed abcd left, which cannot be finished: "+errText(err),
			"fix what stops it (the path it names), then run the command again; or finish the change by hand and delete "+journalRel)
	}
	return e.change, nil
}

// readJournal reads the journal standing in dir strictly; one abcd cannot read is refused, naming
// the remedy.
func readJournal(dir *folder) (journalEntry, error) {
	data, _, fault, err := dir.readRegular("journal.json", maxJournalBytes, false)
	var e journalEntry
	switch fault {
	case faultNone:
		e, err = decodeJournal(data)
	case faultTooLarge:
		err = fmt.Errorf("it is larger than %d bytes", maxJournalBytes)
	case faultNotRegular, faultLink:
		err = errors.New("it is not a regular file")
	default:
		if err == nil {
			err = errors.New("it changed while it was being read")
		}
	}
	if err != nil {
		return journalEntry{}, refusal.New(refusal.CodeJournalInvalid, journalRel, "holds a change abcd cannot finish: "+errText(err),
			"check the record with `abcd lint` and `git status`, finish the interrupted change by hand, then delete "+journalRel)
	}
	return e, nil
}

// Settle removes the journal of a change whose files are made and whose moves are staged. A journal
// whose files are not marked made is refused: removing it would lose a change.
func (j Journal) Settle(context.Context) error {
	dir, err := j.folder(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	st, err := dir.noLink("journal.json")
	if err != nil || st == nil {
		return err
	}
	e, err := readJournal(dir)
	if err != nil {
		return err
	}
	if !e.made {
		return fmt.Errorf("%s holds a change whose files are not made yet: it cannot be settled", journalRel)
	}
	return j.removeJournal(dir)
}

// Sweep removes the dead writers' temps from the staging folder.
func (j Journal) Sweep(context.Context) error {
	dir, err := j.folder(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	sweep(dir)
	return nil
}

// sweep removes the dead writers' temps from the staging folder inside dir (.abcd/.work.local).
func sweep(dir *folder) {
	if stage, _, err := dir.walk(layout.StagingName, 0); err == nil {
		stage.cleanTemps()
		stage.Close()
	}
}

// folder opens the journal's folder (.abcd/.work.local; with mkdir, made 0700 when missing).
func (j Journal) folder(mkdir bool) (*folder, error) {
	return openPrivate(j.Dir, layout.Local, mkdir)
}

// carryOut makes every file of the change what it says, then removes the journal, or, for a change
// with moves, marks it made (in one atomic write) for Settle to remove once they are staged. Each
// step stands whether or not it ran before, so a change carried out again after a kill ends the same.
func (j Journal) carryOut(dir *folder, e journalEntry) error {
	for _, f := range e.change.Files {
		if err := j.apply(f); err != nil {
			return err
		}
	}
	if len(e.change.Moves) == 0 {
		return j.removeJournal(dir)
	}
	data, err := encodeJournal(journalEntry{change: e.change, made: true, version: journalVersion})
	if err != nil {
		return err
	}
	_, err = stagedWrite(j.Dir, journalRel, dir, "journal.json", data, 0o600, true)
	return err
}

// removeJournal removes the journal from dir, for good.
func (j Journal) removeJournal(dir *folder) error {
	if err := dir.root.Remove("journal.json"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return dir.fault("journal.json", err)
	}
	dir.sync()
	return nil
}

// apply makes one file what the change says: a run file 0600 in folders 0700 (a run's files are the
// person's alone), a record file 0644 in folders 0755.
func (j Journal) apply(f ports.FileChange) error {
	var (
		dir  *folder
		name string
		err  error
	)
	run := strings.HasPrefix(f.Path, runRoot+"/")
	switch {
	case run:
		dir, name, err = Runs{Dir: j.Dir}.parent(f.Path, !f.Remove)
	default:
		dir, name, err = Records{Dir: j.Dir}.parent(f.Path, !f.Remove)
	}
	if f.Remove && errors.Is(err, fs.ErrNotExist) {
		return nil // its folder is gone, and the file with it
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if _, err := dir.noLink(name); err != nil {
		return err
	}
	if f.Remove {
		if err := dir.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return dir.fault(name, err)
		}
		dir.sync()
		return nil
	}
	perm := fs.FileMode(0o644)
	if run {
		perm = 0o600
	}
	_, err = stagedWrite(j.Dir, f.Path, dir, name, f.Data, perm, true)
	return err
}
