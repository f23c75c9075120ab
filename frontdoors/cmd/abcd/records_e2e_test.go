package main

// The development record end to end: the built binary in a temporary git repository after
// `abcd ahoy install --yes`, every exit code checked, every --json output decoded strictly, and every
// refusal leaving the whole tree byte for byte as it was.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/icmd"

	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	recorduc "github.com/abcd-dev/abcd/ports/record"
	"github.com/abcd-dev/abcd/ports/setup"
)

const (
	recE2EPressRelease = "Today anyone can start abcd in under 50 ms."
	recE2ECriteria     = "- ac-1: Given a cold machine, when I run abcd, then it answers within 50 ms.\n" +
		"- ac-2: Given a warm machine, when I run abcd --json, then it answers within 10 ms."
	recE2ESteps = "1. Make config loading lazy.\n2. Build the binary static."
)

// recInstalled is a sandbox git repository after `abcd ahoy install --yes`.
func recInstalled(t *testing.T) sandbox {
	t.Helper()
	s := newSandbox(t, true)
	s.run(t, "ahoy", "install", "--yes").Assert(t, icmd.Success)
	return s
}

// recJSON runs abcd with --json, asserts the exit code and an empty stderr, and decodes the one
// document on stdout into v.
func recJSON(t *testing.T, s sandbox, exit int, v any, args ...string) *icmd.Result {
	t.Helper()
	res := s.run(t, append(args, "--json")...)
	res.Assert(t, icmd.Expected{ExitCode: exit})
	assert.Check(t, is.Equal(res.Stderr(), ""), "abcd %s", strings.Join(args, " "))
	decodeOne(t, res.Stdout(), v)
	return res
}

// recRefusal runs a command that must be refused with exit code exit and returns its document.
func recRefusal(t *testing.T, s sandbox, exit int, args ...string) refusal.Document {
	t.Helper()
	var doc refusal.Document
	recJSON(t, s, exit, &doc, args...)
	assert.Check(t, is.Equal(doc.ExitCode, exit))
	assert.Check(t, doc.What != "" && doc.Why != "" && doc.Remedy != "", "%+v", doc)
	return doc
}

// recEditSection replaces the body of one ## section of a record file on disk, as a person would.
func recEditSection(t *testing.T, s sandbox, rel, heading, text string) {
	t.Helper()
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	assert.NilError(t, err)
	str := string(data)
	h := "\n## " + heading + "\n"
	i := strings.Index(str, h)
	assert.Assert(t, i >= 0, "no ## %s in %s", heading, rel)
	rest := str[i+len(h):]
	tail := ""
	if j := strings.Index(rest, "\n## "); j >= 0 {
		tail = rest[j:]
	}
	assert.NilError(t, os.WriteFile(p, []byte(str[:i]+h+"\n"+text+"\n"+tail), 0o644))
}

func recRead(t *testing.T, s sandbox, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
	assert.NilError(t, err)
	return data
}

func recExists(s sandbox, rel string) bool {
	_, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(rel)))
	return err == nil
}

// TestRecordStoryEndToEnd: an intent from draft to shipped, an issue captured and closed, a decision
// superseding another, and lint clean at the end.
func TestRecordStoryEndToEnd(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s := recInstalled(t)

	var created recorduc.RecordCreated
	recJSON(t, s, 0, &created, "intent", "new", "Faster cold start")
	in := created.Record
	assert.Check(t, is.Equal(in.Family, "intents"))
	assert.Check(t, is.Equal(in.Lifecycle, "drafts"))
	assert.Check(t, is.Equal(in.Title, "Faster cold start"))
	assert.Check(t, is.Equal(in.Path, ".abcd/development/intents/drafts/"+in.ID+"-faster-cold-start.md"))
	fam, ok := record.FamilyOfID(in.ID)
	assert.Check(t, ok && fam == record.Intents, in.ID)
	it, err := record.ParseIntent(in.Path, recRead(t, s, in.Path))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.ID, in.ID))
	assert.Check(t, is.Equal(it.Front.Created, in.Date))

	var ready recorduc.IntentReadyResult
	recJSON(t, s, 1, &ready, "intent", "ready", in.ID) // not ready: the gate exits 1
	assert.Check(t, !ready.Ready)
	assert.Check(t, is.Len(ready.Checks, 4))

	recEditSection(t, s, in.Path, "Press Release", recE2EPressRelease)
	recEditSection(t, s, in.Path, "Acceptance Criteria", recE2ECriteria)
	var shown recorduc.IntentShowResult
	recJSON(t, s, 0, &shown, "intent", "show", "cold")
	assert.Check(t, is.DeepEqual(shown.Criteria, []recorduc.CriterionView{
		{ID: "ac-1", Text: "Given a cold machine, when I run abcd, then it answers within 50 ms."},
		{ID: "ac-2", Text: "Given a warm machine, when I run abcd --json, then it answers within 10 ms."}}))

	var plan recorduc.IntentPlanResult
	recJSON(t, s, 0, &plan, "intent", "plan", in.ID)
	assert.Check(t, is.Equal(plan.From, in.Path))
	assert.Check(t, is.Equal(plan.To, ".abcd/development/intents/planned/"+filepath.Base(in.Path)))
	assert.Check(t, !recExists(s, in.Path), "the draft is still in drafts/")
	it, err = record.ParseIntent(plan.To, recRead(t, s, plan.To))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.Lifecycle, "planned"))
	spec := plan.Spec
	assert.Check(t, is.Equal(spec.Implements, in.ID))
	assert.Check(t, strings.HasPrefix(spec.Path, ".abcd/development/specs/open/"+spec.ID+"-"), spec.Path)

	recEditSection(t, s, spec.Path, "Steps", recE2ESteps)
	var specShow recorduc.SpecShowResult
	recJSON(t, s, 0, &specShow, "spec", "show", spec.ID)
	assert.Check(t, is.DeepEqual(specShow.Steps, []recorduc.StepView{{N: 1, Text: "Make config loading lazy."}, {N: 2, Text: "Build the binary static."}}))

	recJSON(t, s, 0, &ready, "intent", "ready", "faster-cold")
	assert.Check(t, ready.Ready, "%+v", ready.Checks)
	names := []string{}
	for _, c := range ready.Checks {
		names = append(names, c.Name)
		assert.Check(t, c.OK, "%+v", c)
	}
	assert.Check(t, is.DeepEqual(names, []string{"press_release", "acceptance_criteria", "open_questions", "linked_spec"}))

	var moved recorduc.MoveResult
	recJSON(t, s, 0, &moved, "spec", "close", spec.ID)
	assert.Check(t, is.Equal(moved.To, ".abcd/development/specs/closed/"+filepath.Base(spec.Path)))
	assert.Check(t, is.Equal(moved.Record.Lifecycle, "closed"))

	recJSON(t, s, 0, &moved, "intent", "ship", in.ID)
	assert.Check(t, is.Equal(moved.To, ".abcd/development/intents/shipped/"+filepath.Base(in.Path)))
	it, err = record.ParseIntent(moved.To, recRead(t, s, moved.To))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(it.Front.Lifecycle, "shipped"))

	var issue recorduc.RecordCreated
	recJSON(t, s, 0, &issue, "capture", "The spinner hides errors", "--severity", "major", "--related", in.ID, "--related", spec.ID)
	assert.Check(t, is.Equal(issue.Record.Severity, "major"))
	assert.Check(t, is.Equal(issue.Record.Lifecycle, "open"))
	iss, err := record.ParseIssue(issue.Record.Path, recRead(t, s, issue.Record.Path))
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(iss.Front.Related, []string{in.ID, spec.ID}))

	recJSON(t, s, 0, &moved, "issue", "close", issue.Record.ID, "--why", "Errors now print above the spinner.")
	assert.Check(t, is.Equal(moved.To, ".abcd/work/issues/closed/"+filepath.Base(issue.Record.Path)))
	iss, err = record.ParseIssue(moved.To, recRead(t, s, moved.To))
	assert.NilError(t, err)
	res, ok := record.FindSection(iss.Sections, "Resolution")
	assert.Check(t, ok)
	assert.Check(t, is.Contains(res.Body, "Errors now print above the spinner."))

	var first, second recorduc.RecordCreated
	recJSON(t, s, 0, &first, "decision", "new", "Use flock for the record lock")
	recJSON(t, s, 0, &second, "decision", "new", "Use the kernel's locks", "--supersedes", "flock")
	var dshow recorduc.RecordShowResult
	recJSON(t, s, 0, &dshow, "decision", "show", second.Record.ID)
	assert.Check(t, is.DeepEqual(dshow.Related, []string{first.Record.ID}))

	var lint recorduc.LintResult
	recJSON(t, s, 0, &lint, "lint")
	assert.Check(t, is.Equal(lint.Errors, 0), "%+v", lint.Findings)
	assert.Check(t, is.Equal(lint.Checked, 5))
	s.run(t, "lint").Assert(t, icmd.Success)

	var list recorduc.RecordListResult
	recJSON(t, s, 0, &list, "intent", "list", "--lifecycle", "shipped")
	assert.Check(t, is.Len(list.Records, 1))
	assert.Check(t, is.Len(list.Problems, 0))

	var st setup.StatusResult
	recJSON(t, s, 0, &st, "status")
	assert.Check(t, is.Equal(st.Record.Total, 5))
	for _, f := range st.Record.Folders {
		want := map[string]int{"intents/shipped": 1, "specs/closed": 1, "issues/closed": 1, "decisions/": 2}[string(f.Family)+"/"+f.Lifecycle]
		assert.Check(t, is.Equal(f.Count, want), "%s %s", f.Family, f.Lifecycle)
	}
}

// recBadWorld is an installed repository with two drafts sharing the slug fragment "faster", a
// planned intent with an open spec, and an open issue.
type recBadWorld struct {
	s                      sandbox
	draft, draft2, planned string
	draftPath, openSpec    string
	issue                  string
}

func newRecBadWorld(t *testing.T) recBadWorld {
	t.Helper()
	w := recBadWorld{s: recInstalled(t)}
	var c recorduc.RecordCreated
	recJSON(t, w.s, 0, &c, "intent", "new", "Faster cold start")
	w.draft, w.draftPath = c.Record.ID, c.Record.Path
	recJSON(t, w.s, 0, &c, "intent", "new", "Faster warm start")
	w.draft2 = c.Record.ID
	recJSON(t, w.s, 0, &c, "intent", "new", "Planned thing")
	w.planned = c.Record.ID
	var p recorduc.IntentPlanResult
	recJSON(t, w.s, 0, &p, "intent", "plan", w.planned)
	w.openSpec = p.Spec.ID
	recJSON(t, w.s, 0, &c, "capture", "The status line flickers")
	w.issue = c.Record.ID
	return w
}

// TestRecordBadInputChangesNothing: bad input is refused with exit 2 and the remedy, and the whole
// repository and home folder stay byte for byte as they were.
func TestRecordBadInputChangesNothing(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	w := newRecBadWorld(t)
	cases := []struct {
		name string
		args []string
		code string
		has  []string // in the remedy
	}{
		{"unknown flag", []string{"intent", "new", "--bogus", "Title"}, "usage", nil},
		{"unknown flag on a ref verb", []string{"intent", "plan", "--force", w.draft}, "usage", nil},
		{"no title", []string{"intent", "new"}, "usage", nil},
		{"two titles", []string{"intent", "new", "One", "Two"}, "usage", nil},
		{"empty title", []string{"intent", "new", ""}, "title_empty", nil},
		{"blank title", []string{"intent", "new", "   "}, "title_empty", nil},
		{"title with a control character", []string{"intent", "new", "bell\a"}, "title_invalid", nil},
		{"over-long title", []string{"intent", "new", strings.Repeat("t", 201)}, "title_too_long", nil},
		{"empty decision title", []string{"decision", "new", ""}, "title_empty", nil},
		{"ambiguous ref", []string{"intent", "plan", "faster"}, "ref_unresolved", []string{w.draft, w.draft2}},
		{"ambiguous id prefix", []string{"intent", "ship", w.draft[:8]}, "ref_unresolved", []string{w.draft, w.draft2, w.planned}},
		{"unknown ref", []string{"intent", "plan", "no-such-thing"}, "ref_unresolved", nil},
		{"unknown full id", []string{"spec", "close", "spc-2001010000000000"}, "ref_unresolved", nil},
		{"path ref", []string{"intent", "plan", "../../etc/passwd"}, "", nil},
		{"plan a planned intent", []string{"intent", "plan", w.planned}, "transition_refused", nil},
		{"ship a draft", []string{"intent", "ship", w.draft}, "transition_refused", nil},
		{"ship with an open spec", []string{"intent", "ship", w.planned}, "spec_open", []string{"abcd spec close " + w.openSpec}},
		{"spec new without --intent", []string{"spec", "new", "A spec"}, "input_missing", nil},
		{"spec new for an unknown intent", []string{"spec", "new", "--intent", "nothing-like-it", "A spec"}, "ref_unresolved", nil},
		{"capture with a bad severity", []string{"capture", "x", "--severity", "urgent"}, "severity_unknown", nil},
		{"capture with an unknown related", []string{"capture", "x", "--related", "nothing-like-it"}, "ref_unresolved", nil},
		{"issue close without --why", []string{"issue", "close", w.issue}, "input_missing", nil},
		{"decision superseding nothing", []string{"decision", "new", "Ruling", "--supersedes", "nothing-like-it"}, "ref_unresolved", nil},
		{"unknown lifecycle", []string{"intent", "list", "--lifecycle", "open"}, "lifecycle_unknown", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := w.s.snapshot(t)
			doc := recRefusal(t, w.s, 2, c.args...)
			assert.Check(t, is.Equal(doc.Kind, refusal.Refused))
			if c.code != "" {
				assert.Check(t, is.Equal(string(doc.Code), c.code), "%+v", doc)
			}
			for _, s := range c.has {
				assert.Check(t, is.Contains(doc.Remedy, s))
			}
			assert.Check(t, is.DeepEqual(w.s.snapshot(t), before))

			// Text mode refuses the same way: exit 2, nothing on stdout, the remedy on stderr.
			res := w.s.run(t, c.args...)
			res.Assert(t, icmd.Expected{ExitCode: 2})
			assert.Check(t, is.Equal(res.Stdout(), ""))
			assert.Check(t, is.Contains(res.Stderr(), "remedy"))
			assert.Check(t, is.DeepEqual(w.s.snapshot(t), before))
		})
	}

	t.Run("a record edited into invalid front matter", func(t *testing.T) {
		p := filepath.Join(w.s.root, filepath.FromSlash(w.draftPath))
		data, err := os.ReadFile(p)
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(p, []byte(strings.Replace(string(data), "\nkind: standalone\n", "\nkind: epic\nowner: ada\n", 1)), 0o644))
		before := w.s.snapshot(t)

		doc := recRefusal(t, w.s, 2, "intent", "plan", w.draft)
		assert.Check(t, is.Equal(doc.Code, refusal.CodeRecordMalformed), "%+v", doc)
		assert.Check(t, is.Contains(doc.What, w.draftPath))
		assert.Check(t, is.DeepEqual(w.s.snapshot(t), before))

		doc = recRefusal(t, w.s, 2, "intent", "plan", "cold")
		assert.Check(t, is.Equal(doc.Code, refusal.CodeRecordMalformed), "%+v", doc)
		assert.Check(t, is.DeepEqual(w.s.snapshot(t), before))

		// The listing reports it beside the others, and lint names it: neither writes.
		var list recorduc.RecordListResult
		recJSON(t, w.s, 0, &list, "intent", "list")
		assert.Check(t, is.Len(list.Records, 2))
		assert.Check(t, is.Len(list.Problems, 1))
		if len(list.Problems) == 1 {
			assert.Check(t, is.Equal(list.Problems[0].Path, w.draftPath))
		}
		var lint recorduc.LintResult
		recJSON(t, w.s, 1, &lint, "lint")
		assert.Check(t, lint.Errors >= 1)
		found := false
		for _, f := range lint.Findings {
			found = found || (f.Code == "malformed" && f.File == w.draftPath)
		}
		assert.Check(t, found, "%+v", lint.Findings)
		assert.Check(t, is.DeepEqual(w.s.snapshot(t), before))
	})
}

// TestRecordRefusalInAFreshRepositoryWritesNothing: the very first record command after ahoy install
// (or in a fresh clone, where the git-ignored .abcd/.work.local/ does not exist) is refused without
// writing anything either: not even the lock file.
func TestRecordRefusalInAFreshRepositoryWritesNothing(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	for _, args := range [][]string{
		{"intent", "plan", "no-such-thing"},
		{"capture", "x", "--related", "no-such-thing"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			s := recInstalled(t)
			before := s.snapshot(t)
			recRefusal(t, s, 2, args...)
			assert.Check(t, is.DeepEqual(s.snapshot(t), before))
		})
	}
}

// TestRecordHeldLockIsContention: while another process holds the record lock, a writer exits 3
// with kind contention and writes nothing; once it is released the same command succeeds.
func TestRecordHeldLockIsContention(t *testing.T) {
	t.Parallel() // its own sandbox: a repository and a home of its own
	s := recInstalled(t)
	// A short lock bound (lock.wait_ms) keeps the writers' wait short; the bound's own default is
	// held by the lock's tests.
	assert.NilError(t, os.WriteFile(filepath.Join(s.root, ".abcd", "config.json"),
		fmt.Appendf(nil, "{\"schema_version\": 1, \"setup_version\": %d, \"lock\": {\"wait_ms\": 100}}\n", setup.SetupVersion), 0o644))
	var c recorduc.RecordCreated
	recJSON(t, s, 0, &c, "intent", "new", "Faster cold start")

	// The record lock is an flock on the .abcd folder itself, so taking it creates nothing.
	release := holdFolderLock(t, filepath.Join(s.root, ".abcd"))

	before := s.snapshot(t)
	// Each writer waits out the lock's bound before it gives up, so they wait side by side.
	t.Run("writers", func(t *testing.T) {
		for _, args := range [][]string{
			{"intent", "new", "Blocked"},
			{"intent", "plan", c.Record.ID},
			{"capture", "blocked"},
			{"decision", "new", "Blocked"},
		} {
			t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
				t.Parallel()
				doc := recRefusal(t, s, 3, args...)
				assert.Check(t, is.Equal(doc.Kind, refusal.Contention), "%+v", doc)
				assert.Check(t, is.Equal(doc.Code, refusal.CodeRecordLocked), "%+v", doc)
			})
		}
	})
	assert.Check(t, is.DeepEqual(s.snapshot(t), before), "a writer wrote under a held lock")
	// Readers are not blocked.
	var list recorduc.RecordListResult
	recJSON(t, s, 0, &list, "intent", "list")
	assert.Check(t, is.Len(list.Records, 1))

	release()
	recJSON(t, s, 0, &c, "intent", "new", "Blocked")
	assert.Check(t, is.Equal(c.Record.Title, "Blocked"))
}
