package record

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/abcd-dev/abcd/domain/internal/lines"
)

// Section is one "## Heading" section of a record's body. Body is the text between its heading and
// the next (or the end of the file), with line endings as \n and leading and trailing blank lines
// removed. Line is the heading's line. Headings are matched case-insensitively; a "## " line inside a
// fenced code block (``` or ~~~) is text, not a heading.
type Section struct {
	Heading string
	Body    string
	Line    int
}

// Criterion is one Acceptance Criteria item: "- ac-1: Given …, when …, then …". Text is what follows
// "ac-1:", with indented continuation lines joined by single spaces.
type Criterion struct {
	ID, Text string
	Line     int
}

// Question is one Open Questions item: "- [ ] text" unresolved, "- [x] text" resolved.
type Question struct {
	Text     string
	Resolved bool
	Line     int
}

// Step is one Steps item: "1. text", numbered 1..n in order. A step that builds on earlier ones
// names them first: "3. (after 1, 2) text"; After holds their numbers, in the order written.
type Step struct {
	N     int
	Text  string
	After []int
	Line  int
}

// rawSection is a section with its content lines.
type rawSection struct {
	Section
	lines []lines.Line // the lines after the heading, up to the next heading
}

// FindSection returns the section whose heading matches (case-insensitively).
func FindSection(sections []Section, heading string) (Section, bool) {
	for _, s := range sections {
		if strings.EqualFold(s.Heading, heading) {
			return s, true
		}
	}
	return Section{}, false
}

// fenceState tracks fenced code blocks.
type fenceState struct {
	char byte
	n    int
}

// step updates the state with one line and reports whether the line is inside (or opens or closes) a
// fence.
func (f *fenceState) step(line string) bool {
	t := line
	for i := 0; i < 3 && strings.HasPrefix(t, " "); i++ {
		t = t[1:]
	}
	run := func(c byte) int {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		return n
	}
	if f.n > 0 {
		if n := run(f.char); n >= f.n && strings.TrimSpace(t[n:]) == "" {
			f.n = 0
		}
		return true
	}
	for _, c := range []byte{'`', '~'} {
		if n := run(c); n >= 3 && (c == '~' || strings.IndexByte(t[n:], '`') < 0) {
			f.char, f.n = c, n
			return true
		}
	}
	return false
}

// headingOf reports whether a line outside a fence is a "## " heading, and its text.
func headingOf(line string) (string, bool) {
	if line == "##" || strings.HasPrefix(line, "## ") {
		return strings.TrimSpace(line[2:]), true
	}
	return "", false
}

// parseBody splits the body (data from offset off, whose first line is number n+1) into sections,
// refusing invalid text and duplicate or empty headings. Text before the first heading is ignored.
func parseBody(file string, data []byte, off, n int) ([]rawSection, *ParseError) {
	it := lines.Reader{Data: data, Pos: off, N: n}
	var secs []rawSection
	var fs fenceState
	for {
		l, ok := it.Next()
		if !ok {
			break
		}
		if p, r, bad := lines.Unreadable(l.Text); bad {
			return nil, newParseError(file, l.N, p, r)
		}
		if fs.step(l.Text) {
			if len(secs) > 0 {
				secs[len(secs)-1].lines = append(secs[len(secs)-1].lines, l)
			}
			continue
		}
		if h, ok := headingOf(l.Text); ok {
			if h == "" {
				return nil, newParseError(file, l.N, "empty ## heading", "name the section, or remove the line")
			}
			for _, s := range secs {
				if strings.EqualFold(s.Heading, h) {
					return nil, newParseError(file, l.N, fmt.Sprintf("section ## %s appears twice (first on line %d)", h, s.Line), "merge the two into one section")
				}
			}
			secs = append(secs, rawSection{Section: Section{Heading: h, Line: l.N}})
			continue
		}
		if len(secs) > 0 {
			secs[len(secs)-1].lines = append(secs[len(secs)-1].lines, l)
		}
	}
	for i := range secs {
		secs[i].Body = joinBody(secs[i].lines)
	}
	return secs, nil
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// joinBody joins lines with \n, without leading or trailing blank lines.
func joinBody(lines []lines.Line) string {
	i, j := 0, len(lines)
	for i < j && isBlank(lines[i].Text) {
		i++
	}
	for j > i && isBlank(lines[j-1].Text) {
		j--
	}
	var b strings.Builder
	for k := i; k < j; k++ {
		if k > i {
			b.WriteByte('\n')
		}
		b.WriteString(lines[k].Text)
	}
	return b.String()
}

func sectionsOf(raw []rawSection) []Section {
	out := make([]Section, len(raw))
	for i, r := range raw {
		out[i] = r.Section
	}
	return out
}

func findRaw(raw []rawSection, heading string) *rawSection {
	for i := range raw {
		if strings.EqualFold(raw[i].Heading, heading) {
			return &raw[i]
		}
	}
	return nil
}

// isComment reports whether a line is a single-line HTML comment, such as a <!-- fill: … --> placeholder.
func isComment(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->") && len(t) >= len("<!---->")
}

const none = "None."

// item is one list item of a section: its first line's text (after the marker the caller matched)
// and its indented continuation lines.
type item struct {
	line int
	text []string
}

func (it item) joined() string { return strings.Join(it.text, " ") }

// collectItems reads a list section: every non-blank line is an item (start reports it and its text),
// an indented continuation of the item before it, an HTML comment, or the single line "None." when
// there are no items. Anything else is refused with the remedy given.
func collectItems(file string, s *rawSection, start func(string) (string, bool), what, remedy string) ([]item, *ParseError) {
	var items []item
	noneLine := 0
	for _, l := range s.lines {
		switch {
		case isBlank(l.Text), isComment(l.Text):
			continue
		case strings.TrimSpace(l.Text) == none && l.Text[0] != ' ' && l.Text[0] != '\t':
			noneLine = l.N
		default:
			if text, ok := start(l.Text); ok {
				items = append(items, item{line: l.N, text: []string{text}})
			} else if (l.Text[0] == ' ' || l.Text[0] == '\t') && len(items) > 0 {
				items[len(items)-1].text = append(items[len(items)-1].text, strings.TrimSpace(l.Text))
			} else {
				return nil, newParseError(file, l.N, fmt.Sprintf("a line under ## %s that is not %s", s.Heading, what), remedy)
			}
		}
		if noneLine > 0 && len(items) > 0 {
			return nil, newParseError(file, max(noneLine, items[len(items)-1].line), fmt.Sprintf("## %s holds both None. and items", s.Heading), "remove the None. line")
		}
	}
	return items, nil
}

const criterionForm = "- ac-1: Given <context>, when <action>, then <outcome>"

func parseCriteria(file string, s *rawSection) ([]Criterion, *ParseError) {
	remedy := "write each criterion on its own line as " + criterionForm + " (indent a continuation line)"
	items, pe := collectItems(file, s, func(l string) (string, bool) {
		t, ok := strings.CutPrefix(l, "- ")
		return strings.TrimSpace(t), ok
	}, "a criterion", remedy)
	if pe != nil {
		return nil, pe
	}
	out := make([]Criterion, 0, len(items))
	for _, it := range items {
		id, text, ok := strings.Cut(it.text[0], ":")
		if !ok || !isCriterionID(id) {
			return nil, newParseError(file, it.line, "an acceptance criterion without an id such as ac-1", remedy)
		}
		it.text[0] = strings.TrimSpace(text)
		c := Criterion{ID: id, Text: strings.TrimSpace(it.joined()), Line: it.line}
		for _, prev := range out {
			if prev.ID == id {
				return nil, newParseError(file, it.line, fmt.Sprintf("criterion id %s is used twice (first on line %d)", id, prev.Line), "give each criterion its own id")
			}
		}
		if !givenWhenThen(c.Text) {
			return nil, newParseError(file, it.line, fmt.Sprintf("criterion %s does not read Given …, when …, then …", id), fmt.Sprintf("rewrite it as - %s: Given <context>, when <action>, then <outcome>", id))
		}
		out = append(out, c)
	}
	return out, nil
}

func isCriterionID(id string) bool {
	d, ok := strings.CutPrefix(id, "ac-")
	if !ok || d == "" {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// givenWhenThen reports whether text holds the words Given, When and Then in that order.
func givenWhenThen(text string) bool {
	want := [...]string{"given", "when", "then"}
	k := 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.EqualFold(w, want[k]) {
			if k++; k == len(want) {
				return true
			}
		}
	}
	return false
}

func parseQuestions(file string, s *rawSection) ([]Question, *ParseError) {
	remedy := "write each question as - [ ] question, and mark it - [x] when it is resolved (or write None.)"
	items, pe := collectItems(file, s, func(l string) (string, bool) {
		t, ok := strings.CutPrefix(l, "- ")
		return t, ok
	}, "a question", remedy)
	if pe != nil {
		return nil, pe
	}
	out := make([]Question, 0, len(items))
	for _, it := range items {
		var q Question
		head := it.text[0]
		switch {
		case strings.HasPrefix(head, "[ ] "), head == "[ ]":
			head = head[3:]
		case strings.HasPrefix(head, "[x] "), strings.HasPrefix(head, "[X] "), head == "[x]", head == "[X]":
			head, q.Resolved = head[3:], true
		default:
			return nil, newParseError(file, it.line, "an open question without a [ ] or [x] box", remedy)
		}
		it.text[0] = strings.TrimSpace(head)
		q.Text, q.Line = strings.TrimSpace(it.joined()), it.line
		if q.Text == "" {
			return nil, newParseError(file, it.line, "an open question with no text", "write the question after the box, or remove the line")
		}
		out = append(out, q)
	}
	return out, nil
}

func parseSteps(file string, s *rawSection) ([]Step, *ParseError) {
	remedy := "write the steps as a numbered list, 1. text, 2. text, … (indent a continuation line)"
	items, pe := collectItems(file, s, func(l string) (string, bool) {
		i := 0
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i == 0 || i > 6 || !strings.HasPrefix(l[i:], ". ") && l[i:] != "." {
			return "", false
		}
		return l, true
	}, "a numbered step", remedy)
	if pe != nil {
		return nil, pe
	}
	out := make([]Step, 0, len(items))
	for k, it := range items {
		num, text, _ := strings.Cut(it.text[0], ".")
		n, _ := strconv.Atoi(num)
		if num != strconv.Itoa(k+1) {
			return nil, newParseError(file, it.line, fmt.Sprintf("step numbered %s where %d is expected", num, k+1), "number the steps 1, 2, 3, … in order")
		}
		it.text[0] = strings.TrimSpace(text)
		st := Step{N: n, Text: strings.TrimSpace(it.joined()), Line: it.line}
		after, rest, pe := stepAfter(file, it.line, st.Text)
		if pe != nil {
			return nil, pe
		}
		st.After, st.Text = after, rest
		if st.Text == "" {
			return nil, newParseError(file, it.line, fmt.Sprintf("step %d has no text", n), "say what the step does, or remove it")
		}
		out = append(out, st)
	}
	return out, nil
}

// stepAfter reads a step's "(after 1, 2)" prefix: the numbers it builds on, and the text after it.
// A step without the prefix builds on nothing.
func stepAfter(file string, line int, text string) ([]int, string, *ParseError) {
	rest, ok := strings.CutPrefix(text, "(after ")
	if !ok {
		return nil, text, nil
	}
	list, rest, closed := strings.Cut(rest, ")")
	remedy := "write the steps it builds on first, as (after 1, 2), then what the step does"
	if !closed {
		return nil, "", newParseError(file, line, "the step's (after …) is not closed", remedy)
	}
	var after []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || len(f) > 6 {
			return nil, "", newParseError(file, line, fmt.Sprintf("(after %s) names %q, which is not a step number", list, f), remedy)
		}
		if slices.Contains(after, n) {
			return nil, "", newParseError(file, line, fmt.Sprintf("(after %s) names step %d twice", list, n), remedy)
		}
		after = append(after, n)
	}
	return after, strings.TrimSpace(rest), nil
}

// StepOrderProblem says what is wrong with the steps' dependencies: a step building on itself, on a
// step that does not exist, or a cycle (naming the steps in it); "" when they can be built in order.
// line is the first offending step's line.
func StepOrderProblem(steps []Step) (problem string, line int) {
	byN := map[int]Step{}
	for _, st := range steps {
		byN[st.N] = st
	}
	for _, st := range steps {
		for _, d := range st.After {
			switch _, ok := byN[d]; {
			case d == st.N:
				return fmt.Sprintf("step %d builds on itself", st.N), st.Line
			case !ok:
				return fmt.Sprintf("step %d builds on step %d, which does not exist", st.N, d), st.Line
			}
		}
	}
	// Depth-first search for a cycle: 1 while a step is on the path, 2 once all it builds on is done.
	state := map[int]int{}
	var path []int
	var visit func(n int) []int
	visit = func(n int) []int {
		state[n] = 1
		path = append(path, n)
		for _, d := range byN[n].After {
			switch state[d] {
			case 1:
				i := slices.Index(path, d)
				return append(slices.Clone(path[i:]), d)
			case 0:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
		return nil
	}
	for _, st := range steps {
		if state[st.N] == 0 {
			if cycle := visit(st.N); cycle != nil {
				words := make([]string, len(cycle))
				for i, n := range cycle {
					words[i] = strconv.Itoa(n)
				}
				return "the steps build on each other in a cycle: " + strings.Join(words, " after "), byN[cycle[0]].Line
			}
		}
	}
	return "", 0
}

// CriteriaLines is the run's criteria (their ids, kept from its start), each verbatim as the intent
// holds it now ("ac-1: Given ..."), in the run's order: the ids an auditor's return is checked
// against. An id the intent no longer holds says so; a run that kept no ids takes the intent's.
func CriteriaLines(ids []string, now []Criterion) []string {
	var out []string
	if len(ids) == 0 {
		for _, cr := range now {
			out = append(out, cr.ID+": "+cr.Text)
		}
		return out
	}
	for _, id := range ids {
		line := id + ": (the intent file no longer holds this criterion; it was there when the run started)"
		for _, cr := range now {
			if cr.ID == id {
				line = cr.ID + ": " + cr.Text
			}
		}
		out = append(out, line)
	}
	return out
}
