package record

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// RecordSummary is one record as a listing shows it.
type RecordSummary struct {
	ID         string `json:"id"`
	Family     string `json:"family"`
	Title      string `json:"title"`
	Lifecycle  string `json:"lifecycle"`
	Path       string `json:"path"`
	Severity   string `json:"severity,omitempty"`
	Implements string `json:"implements,omitempty"`
	Date       string `json:"date"`
}

// RecordProblem is a file a listing could not read, reported beside the others.
type RecordProblem struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

// SectionView is one section of a record.
type SectionView struct {
	Heading string `json:"heading"`
	Body    string `json:"body"`
	Written bool   `json:"written"`
}

// Loaded is one record file of a family, parsed as far as a listing needs.
type Loaded struct {
	Summary RecordSummary
	slug    string
	File    ports.RecordFile
	header  any
	Err     error
}

// List loads every record of a family (front matter only, bounded reads), optionally of one
// lifecycle. A file that cannot be read or parsed is kept with its error.
func (a *Deps) List(ctx context.Context, fam record.Family, lifecycle string) ([]Loaded, error) {
	return a.listRead(ctx, fam, lifecycle, record.HeaderReadBytes)
}

// ListWhole is list with each file read whole (bounded by the record maximum; a file over it
// carries its error), for a caller that parses the files it lists: one read of each file, not two.
func (a *Deps) ListWhole(ctx context.Context, fam record.Family, lifecycle string) ([]Loaded, error) {
	return a.listRead(ctx, fam, lifecycle, 0)
}

// listRead is list with each file read to at most limit bytes (0: whole).
func (a *Deps) listRead(ctx context.Context, fam record.Family, lifecycle string, limit int) ([]Loaded, error) {
	var out []Loaded
	for _, folder := range record.Folders() {
		if folder.Family != fam || (lifecycle != "" && folder.Lifecycle != lifecycle) {
			continue
		}
		files, err := a.Records.List(ctx, folder.Dir, folder.Prefix, limit)
		if err != nil {
			return nil, err
		}
		at := len(out)
		out = append(out, make([]Loaded, len(files))...)
		core.InParallel(len(files), func(i int) {
			f := files[i]
			l := Loaded{File: f, slug: slugOf(f.Path), Summary: RecordSummary{Family: string(fam), Lifecycle: folder.Lifecycle, Path: f.Path}}
			if f.Err != nil {
				l.Err = f.Err
			} else {
				l.header, _, l.Err = record.ParseHeader(fam, f.Path, f.Data)
			}
			if l.Err == nil {
				fillSummary(&l.Summary, l.header)
			}
			out[at+i] = l
		})
	}
	return out, nil
}

func fillSummary(s *RecordSummary, header any) {
	switch h := header.(type) {
	case record.IntentFrontMatter:
		s.ID, s.Title, s.Severity, s.Date = h.ID, h.Title, h.Severity, h.Created
	case record.SpecFrontMatter:
		s.ID, s.Title, s.Implements, s.Date = h.ID, h.Title, h.Implements, h.Created
	case record.IssueFrontMatter:
		s.ID, s.Title, s.Severity, s.Date = h.ID, h.Title, h.Severity, h.Created
	case record.DecisionFrontMatter:
		s.ID, s.Title, s.Date = h.ID, h.Title, h.Date
	}
}

// SlugOf is the slug part of <prefix>-<id>-<slug>.md.
func slugOf(p string) string {
	name := strings.TrimSuffix(path.Base(p), ".md")
	// What follows the second dash, found without splitting (a listing takes the slug of each file).
	_, rest, ok := strings.Cut(name, "-")
	if !ok {
		return ""
	}
	_, slug, ok := strings.Cut(rest, "-")
	if !ok {
		return ""
	}
	return slug
}

func summaries(ls []Loaded) ([]RecordSummary, []RecordProblem) {
	sums, probs := make([]RecordSummary, 0, len(ls)), []RecordProblem{}
	for _, l := range ls {
		if l.Err != nil {
			probs = append(probs, RecordProblem{Path: l.File.Path, Problem: recordProblem(l.Err)})
			continue
		}
		sums = append(sums, l.Summary)
	}
	return sums, probs
}

// Resolve finds one record of a family by full id, unique id prefix or unique slug fragment; a
// refusal names the verb's field the ref came from.
func (a *Deps) Resolve(ctx context.Context, fam record.Family, verb, field string, ref record.Ref) (Loaded, error) {
	ls, err := a.List(ctx, fam, "")
	if err != nil {
		return Loaded{}, err
	}
	refs := make([]record.Candidate, 0, len(ls))
	byFile := map[string]Loaded{}
	for _, l := range ls {
		id := l.Summary.ID
		if l.Err != nil {
			id = idFromName(l.File.Path)
		}
		refs = append(refs, record.Candidate{ID: id, Slug: l.slug, File: l.File.Path})
		byFile[l.File.Path] = l
	}
	r, err := record.ResolveRef(string(ref), refs)
	if err != nil {
		return Loaded{}, refRefusal(err, fam).On(verb, field)
	}
	l := byFile[r.File]
	if l.Err != nil {
		if re, ok := refusal.As(l.File.Err); ok && re.Code == refusal.CodeRecordSymlink {
			return Loaded{}, re // a link is refused as a link, not as malformed front matter
		}
		return Loaded{}, core.RecordMalformed(l.File.Path, core.ProblemText(l.Err))
	}
	return l, nil
}

// refRefusal turns ResolveRef's error into a refusal: not a ref, no match (with the family's
// listing verb), or several matches (with the candidates).
func refRefusal(err error, fam record.Family) *refusal.Error {
	var re *record.RefError
	if !errors.As(err, &re) {
		return &refusal.Error{Kind: refusal.Fault, Code: refusal.CodeFault, Why: err.Error()}
	}
	switch {
	case re.Reason != "":
		return refusal.New(refusal.CodeRefInvalid, "", err.Error(), fmt.Sprintf("give a %s id, a unique prefix of one, or a slug fragment", singular(fam)))
	case len(re.Candidates) > 1:
		return refusal.New(refusal.CodeRefUnresolved, "", err.Error(), "give more of the id; candidates: "+candidateList(re.Candidates))
	}
	return refusal.New(refusal.CodeRefUnresolved, "", err.Error(), refusal.Run(singular(fam)+"_list"), " to see the ids and slugs")
}

func candidateList(c []record.Candidate) string {
	parts := make([]string, 0, len(c))
	for _, r := range c {
		parts = append(parts, r.ID+" ("+r.Slug+")")
	}
	return strings.Join(parts, ", ")
}

func idFromName(p string) string {
	name := strings.TrimSuffix(path.Base(p), ".md")
	parts := strings.SplitN(name, "-", 3)
	if len(parts) < 2 {
		return name
	}
	return parts[0] + "-" + parts[1]
}

func singular(f record.Family) string { return strings.TrimSuffix(string(f), "s") }

// ReadFull reads one record whole (bounded) for show and for changes.
func (a *Deps) ReadFull(ctx context.Context, p string) ([]byte, error) { return a.Records.Read(ctx, p) }

// newRecord creates a record file under a fresh id, retrying with new random digits if the id is
// taken (two processes in the same second).
func (a *Deps) newRecord(ctx context.Context, fam record.Family, lifecycle string, render func(id string) (slug string, data []byte)) (string, string, error) {
	for try := 0; try < 16; try++ {
		id, p, data, err := a.freshRecord(ctx, fam, lifecycle, render)
		if err != nil {
			return "", "", err
		}
		created, err := a.Records.Create(ctx, p, data)
		if err != nil {
			return "", "", err
		}
		if created {
			return id, p, nil
		}
	}
	return "", "", idContention(fam)
}

// freshRecord renders a new record under an id no record of its family carries, without writing it.
func (a *Deps) freshRecord(ctx context.Context, fam record.Family, lifecycle string, render func(id string) (slug string, data []byte)) (id, p string, data []byte, err error) {
	folder, ok := record.FolderOf(fam, lifecycle)
	if !ok {
		return "", "", nil, fmt.Errorf("no folder for %s %s", fam, lifecycle)
	}
	existing, err := a.List(ctx, fam, "")
	if err != nil {
		return "", "", nil, err
	}
	taken := map[string]bool{}
	for _, l := range existing {
		taken[idFromName(l.File.Path)] = true
	}
	for try := 0; try < 16; try++ {
		id := record.NewID(fam, a.Clock.Now(), a.Random.Uint32())
		if taken[id] {
			continue
		}
		slug, data := render(id)
		return id, folder.Dir + "/" + record.FileName(id, slug), data, nil
	}
	return "", "", nil, idContention(fam)
}

func idContention(fam record.Family) error {
	return refusal.Busy(refusal.CodeIDContention, "", "no free id after 16 tries", "run it again").On(singular(fam)+"_new", "")
}

// move changes a record's lifecycle: the transition must be allowed; the file is written into the
// new folder with its front matter's lifecycle updated and removed from the old one, and the move
// staged in git's index, as one change.
func (a *Deps) move(ctx context.Context, rec *RecordLock, fam record.Family, l Loaded, to string, edit func([]byte) ([]byte, error)) (string, error) {
	dst, data, err := a.moved(ctx, fam, l, to, edit)
	if err != nil {
		return "", err
	}
	moves := []ports.Move{{From: l.File.Path, To: dst}}
	if err := a.CommitMoves(ctx, rec, l.Summary.ID, moves, Write(dst, data), remove(l.File.Path)); err != nil {
		return "", err
	}
	return dst, nil
}

// moved is a move's destination and the record's content there, refusing a transition the record
// does not allow or a destination already taken.
func (a *Deps) moved(ctx context.Context, fam record.Family, l Loaded, to string, edit func([]byte) ([]byte, error)) (string, []byte, error) {
	if err := record.CanMove(fam, l.Summary.Lifecycle, to); err != nil {
		return "", nil, transitionRefused(l.Summary.ID, l.Summary.Lifecycle, to, err)
	}
	data, err := a.ReadFull(ctx, l.File.Path)
	if err != nil {
		return "", nil, err
	}
	data, err = record.SetLifecycle(data, to)
	if err != nil {
		return "", nil, core.RecordMalformed(l.File.Path, err.Error())
	}
	if edit != nil {
		if data, err = edit(data); err != nil {
			var pe *record.ParseError
			if errors.As(err, &pe) {
				return "", nil, refusal.New(refusal.CodeEditRefused, l.File.Path, err.Error(), "change the text so the record stays well-formed")
			}
			return "", nil, err
		}
	}
	folder, _ := record.FolderOf(fam, to)
	dst := folder.Dir + "/" + path.Base(l.File.Path)
	if _, err := a.Records.Read(ctx, dst); err == nil {
		return "", nil, refusal.New(refusal.CodeRecordExists, dst, "already exists", "lint the record: two files carry the same name")
	} else if r, ok := refusal.As(err); !ok || r.Code != refusal.CodeRecordMissing {
		return "", nil, err
	}
	return dst, data, nil
}

// movedBefore is the result of a move a killed run of this same command left and taking the lock
// finished: the record stands where the move put it, so the command run again reports the move
// rather than refusing a transition to where the record already is.
func (rec *RecordLock) movedBefore(l Loaded) (from string, ok bool) {
	c, ok := rec.finishedFor(l.Summary.ID)
	if !ok {
		return "", false
	}
	for _, f := range c.Files {
		if f.Remove {
			from = f.Path
		}
	}
	return from, from != ""
}

// transitionRefused refuses a lifecycle move the record does not allow. One to where the record
// already is (a command run again after it was done) says so, and that there is nothing to do.
func transitionRefused(id, from, to string, err error) error {
	if from == to {
		return refusal.New(refusal.CodeTransitionRefused, id, "is "+to+" already", "nothing to do: the record stands where the command would move it")
	}
	return refusal.New(refusal.CodeTransitionRefused, id, err.Error(), "see the lifecycle in docs/record.md")
}

func sections(ss []record.Section) []SectionView {
	out := make([]SectionView, 0, len(ss))
	for _, s := range ss {
		out = append(out, SectionView{Heading: s.Heading, Body: s.Body, Written: record.Written(s)})
	}
	return out
}

// lifecycleOf checks a listing's lifecycle against the family's folders.
func lifecycleOf(fam record.Family, verb string, lc record.Lifecycle) error {
	if lc == "" || slices.Contains(record.Lifecycles(fam), string(lc)) {
		return nil
	}
	return refusal.New(refusal.CodeLifecycleUnknown, "", fmt.Sprintf("%q is not a lifecycle of %s", text.Clip(string(lc)), fam),
		"use one of "+strings.Join(record.Lifecycles(fam), ", ")).On(verb, "lifecycle")
}

// recordProblem says what is wrong with one file without repeating its path, which the problem
// already carries.
func recordProblem(err error) string {
	var pe *record.ParseError
	if errors.As(err, &pe) {
		if pe.Line > 0 {
			return fmt.Sprintf("line %d: %s", pe.Line, pe.Msg)
		}
		return pe.Msg
	}
	if r, ok := refusal.As(err); ok {
		return r.Why + " (" + r.Remedy.String() + ")"
	}
	return err.Error()
}
