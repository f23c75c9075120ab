package record

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/internal/frontmatter"
	"github.com/abcd-dev/abcd/domain/internal/lines"
)

// Rendering is canonical: keys in Keys order, the title and an issue's source always double-quoted
// (JSON escapes for " \ and control characters, every other character as itself), lists as [a, b],
// then each section as a blank line, "## Heading", a blank line and its body. Render writes Front and
// Sections only: Criteria, Questions and Steps are read from the sections' bodies, and Fields, File
// and every Line describe the file parsed. So for a valid record x, Parse(Render(x)) equals x apart
// from those positions (as long as the rendering stays within MaxFileBytes and MaxHeaderBytes).

type frontWriter struct{ b bytes.Buffer }

func (w *frontWriter) bare(k, v string) {
	if !frontmatter.IsBare(v) {
		w.quoted(k, v)
		return
	}
	w.b.WriteString(k + ": " + v + "\n")
}

func (w *frontWriter) quoted(k, v string) { w.b.WriteString(k + ": " + quote(v) + "\n") }

func (w *frontWriter) list(k string, vs []string) {
	w.b.WriteString(k + ": [" + strings.Join(vs, ", ") + "]\n")
}

// quote writes s as a double-quoted string with JSON escapes.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func render(w *frontWriter, sections []Section) []byte {
	w.b.WriteString(fence + "\n")
	for _, s := range sections {
		w.b.WriteString("\n## " + s.Heading + "\n")
		if s.Body != "" {
			w.b.WriteString("\n" + s.Body + "\n")
		}
	}
	return w.b.Bytes()
}

func start() *frontWriter {
	w := &frontWriter{}
	w.b.WriteString(fence + "\n")
	return w
}

// RenderIntent writes an intent file.
func RenderIntent(i Intent) []byte {
	w, f := start(), i.Front
	w.bare("id", f.ID)
	w.bare("type", f.Type)
	w.quoted("title", f.Title)
	w.bare("lifecycle", f.Lifecycle)
	w.bare("kind", f.Kind)
	w.bare("severity", f.Severity)
	w.bare("created", f.Created)
	return render(w, i.Sections)
}

// RenderSpec writes a spec file.
func RenderSpec(s Spec) []byte {
	w, f := start(), s.Front
	w.bare("id", f.ID)
	w.bare("type", f.Type)
	w.quoted("title", f.Title)
	w.bare("lifecycle", f.Lifecycle)
	w.bare("implements", f.Implements)
	w.bare("created", f.Created)
	return render(w, s.Sections)
}

// RenderIssue writes an issue file.
func RenderIssue(i Issue) []byte {
	w, f := start(), i.Front
	w.bare("id", f.ID)
	w.bare("type", f.Type)
	w.quoted("title", f.Title)
	w.bare("lifecycle", f.Lifecycle)
	w.bare("severity", f.Severity)
	w.quoted("source", f.Source)
	w.list("related", f.Related)
	w.bare("created", f.Created)
	return render(w, i.Sections)
}

// RenderDecision writes a decision file.
func RenderDecision(d Decision) []byte {
	w, f := start(), d.Front
	w.bare("id", f.ID)
	w.bare("type", f.Type)
	w.quoted("title", f.Title)
	w.bare("date", f.Date)
	w.list("supersedes", f.Supersedes)
	return render(w, d.Sections)
}

// familyOf finds a record's family from the type line of its front matter, so that the strict header
// parse can run with the right keys.
func familyOf(data []byte) (Family, *ParseError) {
	it := lines.Reader{Data: data}
	if l, ok := it.Next(); !ok || l.Text != fence {
		return "", newParseError("", 1, "the record does not start with ---", "open the front matter with a --- line")
	}
	for {
		l, ok := it.Next()
		if !ok || l.Text == fence || l.Off > MaxHeaderBytes {
			return "", newParseError("", l.N, "the front matter has no type line", "add type: intent, spec, issue or decision")
		}
		if v, ok := strings.CutPrefix(l.Text, "type:"); ok {
			v = strings.Trim(v, " \t\"")
			f, ok := FamilyOfType(v)
			if !ok {
				return "", newParseError("", l.N, fmt.Sprintf("type %q is not a record type", v), "write type: intent, spec, issue or decision")
			}
			return f, nil
		}
	}
}

// parseAny fully parses data as a record of its family and returns its sections.
func parseAny(f Family, data []byte) ([]Section, error) {
	switch f {
	case Intents:
		r, err := ParseIntent("", data)
		return r.Sections, err
	case Specs:
		r, err := ParseSpec("", data)
		return r.Sections, err
	case Issues:
		r, err := ParseIssue("", data)
		return r.Sections, err
	default:
		r, err := ParseDecision("", data)
		return r.Sections, err
	}
}

// SetLifecycle rewrites the lifecycle line of a record's front matter to "lifecycle: <lifecycle>",
// leaving every other byte as it was. The record must parse (its family read from its type line) and
// the lifecycle must be one of the family's; whether the move is allowed is CanMove's to say.
// Refusals are *ParseError with an empty File (the caller knows the file).
func SetLifecycle(data []byte, lifecycle string) ([]byte, error) {
	f, pe := familyOf(data)
	if pe != nil {
		return nil, pe
	}
	if _, err := parseAny(f, data); err != nil {
		return nil, err
	}
	if f == Decisions {
		return nil, newParseError("", 0, "decisions have no lifecycle", "leave the decision where it is")
	}
	if !hasLifecycle(f, lifecycle) {
		return nil, newParseError("", 0, fmt.Sprintf("%q is not %s lifecycle", lifecycle, article(TypeOf(f))), "use one of "+strings.Join(lifecycles[f], ", "))
	}
	h, _ := parseHeader(f, "", data)
	n := h.field("lifecycle").Line
	it := lines.Reader{Data: data}
	for {
		l, _ := it.Next()
		if l.N == n {
			out := make([]byte, 0, len(data)+len(lifecycle))
			out = append(out, data[:l.Off]...)
			out = append(out, "lifecycle: "+lifecycle...)
			return append(out, data[l.Off+len(l.Text):]...), nil
		}
	}
}

// CheckBody refuses text that cannot be a section's body as written: invalid UTF-8, a control
// character, a line that would start a section (## …) outside a fenced block, a fence left open, or
// nothing but white space. Line endings may be \n or \r\n.
func CheckBody(text string) error {
	if p, r, ok := checkBody(text); !ok {
		return fmt.Errorf("%s: %s", p, r)
	}
	return nil
}

func checkBody(text string) (problem, remedy string, ok bool) {
	if strings.TrimSpace(text) == "" {
		return "the text is empty", "write something", false
	}
	if len(text) > MaxFileBytes {
		return fmt.Sprintf("the text is over %d bytes", MaxFileBytes), "shorten it", false
	}
	it := lines.Reader{Data: []byte(text)}
	var fs fenceState
	for {
		l, ok := it.Next()
		if !ok {
			break
		}
		if p, r, bad := lines.Unreadable(l.Text); bad {
			return fmt.Sprintf("line %d of the text holds %s", l.N, p), r, false
		}
		if fs.step(l.Text) {
			continue
		}
		if _, ok := headingOf(l.Text); ok {
			return fmt.Sprintf("line %d of the text starts a section (## …)", l.N), "use ### for a sub-heading", false
		}
	}
	if fs.n > 0 {
		return "the text opens a code fence it never closes", "close it", false
	}
	return "", "", true
}

// normalizeBody turns text into a section body: \n line endings, no leading or trailing blank lines.
func normalizeBody(text string) string {
	it := lines.Reader{Data: []byte(text)}
	var lines []lines.Line
	for {
		l, ok := it.Next()
		if !ok {
			break
		}
		lines = append(lines, l)
	}
	return joinBody(lines)
}

// AppendToSection appends text (checked by CheckBody) to the end of the section whose heading
// matches, after its last non-blank line and a blank line; if the record has no such section it
// adds "## heading" and the text at the end of the file. Every other byte stays as it was; the new
// lines use the file's line ending (that of its first line). The record must parse before and after.
func AppendToSection(data []byte, heading, text string) ([]byte, error) {
	f, pe := familyOf(data)
	if pe != nil {
		return nil, pe
	}
	if _, err := parseAny(f, data); err != nil {
		return nil, err
	}
	heading = strings.TrimSpace(heading)
	if err := checkAppend(heading, text); err != nil {
		return nil, err
	}
	h, _ := parseHeader(f, "", data)
	raw, _ := parseBody("", data, h.size, h.close)
	first, _ := (&lines.Reader{Data: data}).Next()
	eol := first.EOL
	if eol == "" {
		eol = "\n"
	}
	body := strings.ReplaceAll(normalizeBody(text), "\n", eol) + eol
	openFence := unclosedFence(data, h)

	var out []byte
	if s := findRaw(raw, heading); s != nil {
		at, lastEOL := sectionEnd(data, s)
		if openFence >= 0 && at > openFence {
			return nil, newParseError("", s.Line, "## "+heading+" ends inside a code fence that is never closed", "close the fence")
		}
		out = make([]byte, 0, len(data)+len(body)+4)
		out = append(out, data[:at]...)
		if lastEOL == "" {
			out = append(out, eol...)
		}
		out = append(out, eol...)
		out = append(out, body...)
		out = append(out, data[at:]...)
	} else {
		if openFence >= 0 {
			return nil, newParseError("", 0, "the record ends inside a code fence that is never closed", "close the fence")
		}
		out = appendSection(data, heading, body, eol)
	}
	if err := checkAppended(f, out, raw, heading, text); err != nil {
		return nil, err
	}
	return out, nil
}

// checkAppend refuses a heading or text that cannot be appended as written.
func checkAppend(heading, text string) error {
	if p, _, bad := lines.Unreadable(heading); bad || heading == "" || strings.HasPrefix(heading, "#") {
		if !bad {
			p = "empty or starts with #"
		}
		return newParseError("", 0, "the heading is "+p, "name the section in plain words, such as Resolution")
	}
	if p, r, ok := checkBody(text); !ok {
		return newParseError("", 0, p, r)
	}
	return nil
}

// unclosedFence is the offset of the opening line of a code fence the body never closes, or -1: it
// runs to the end of the file, so text inserted after its opening line would land inside the code
// block.
func unclosedFence(data []byte, h header) int {
	openFence := -1
	var fs fenceState
	bit := lines.Reader{Data: data, Pos: h.size, N: h.close}
	for l, ok := bit.Next(); ok; l, ok = bit.Next() {
		wasOpen := fs.n > 0
		fs.step(l.Text)
		if !wasOpen && fs.n > 0 {
			openFence = l.Off
		}
	}
	if fs.n == 0 {
		return -1
	}
	return openFence
}

// sectionEnd is where text appended to s goes: after its last non-blank line (or its heading), with
// that line's ending.
func sectionEnd(data []byte, s *rawSection) (at int, eol string) {
	at = -1
	for _, l := range s.lines {
		if !isBlank(l.Text) {
			at, eol = l.End, l.EOL
		}
	}
	if at < 0 {
		hl := headingLine(data, s.Line)
		at, eol = hl.End, hl.EOL
	}
	return at, eol
}

// appendSection adds "## heading" and body at the end of data, after one blank line.
func appendSection(data []byte, heading, body, eol string) []byte {
	out := append(make([]byte, 0, len(data)+len(heading)+len(body)+8), data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...)
	}
	if !bytes.HasSuffix(out, []byte("\n\n")) && !bytes.HasSuffix(out, []byte("\n\r\n")) {
		out = append(out, eol...)
	}
	out = append(out, "## "+heading+eol+eol...)
	return append(out, body...)
}

// checkAppended refuses a result that does not parse, or whose section does not end with the text
// (a fence the text left open swallowed what followed).
func checkAppended(f Family, out []byte, raw []rawSection, heading, text string) error {
	secs, err := parseAny(f, out)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return newParseError("", pe.Line, "the appended text would make the record invalid ("+pe.Problem+")", pe.Remedy)
		}
		return err
	}
	if s, ok := FindSection(secs, heading); !ok || !strings.HasSuffix(s.Body, normalizeBody(text)) || len(secs) < len(raw) {
		return newParseError("", 0, "## "+heading+" ends inside a code fence that is never closed", "close the fence")
	}
	return nil
}

func headingLine(data []byte, n int) lines.Line {
	it := lines.Reader{Data: data}
	for {
		l, ok := it.Next()
		if !ok || l.N == n {
			return l
		}
	}
}
