package shell

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/abcd-dev/abcd/domain/guard"
)

// The home and working folder the guard reads $HOME, ~ and $PWD as in these tests (fixtureCtx).
const (
	fixtureHome = "/home/dev"
	fixtureCwd  = "/home/dev/proj"
)

// corpusFiles are the guard's corpora of command lines, in testdata.
var corpusFiles = []string{"corpus.jsonl", "attacks.jsonl", "ordinary.jsonl", "heldout.jsonl", "third.jsonl", "fourth.jsonl", "fifth.jsonl", "sixth.jsonl"}

// expansionLines hold every form of expansion the walker reads, beyond those the corpora happen
// to hold.
var expansionLines = []string{
	`x=abcdef; echo ${x:1:3} ${x: -2} ${x:2} ${x#a*c} ${x##*c} ${x%e*} ${x%%c*} ${x/b/B} ${x//[ce]/_} ${x/#a/A} ${x^^} ${x^} ${x,,}`,
	`echo {1..5} {a..e} {1..10..3} {5..1} x{a,b{c,d}}y`,
	`echo "a\\b\$c\"d\e" 'e\f' $'g\th\x41\u00e9\101' a\ b \~ "~" ~/x`,
	`IFS=:; p=a:b::c; echo $p "$p" ${p}x`,
	`set -- a 'b c'; echo "$@" $* $1 "$2"`,
	`a=(x 'y z'); echo "${a[@]}" ${a[1]} ${a[@]} $a`,
	`u=; echo ${u:-d} ${u-e} ${v:-f} ${u:+g} ${w+h} "${u}" $u`,
	`echo $(echo a b) "$(printf '%s-' c d)" $(echo ~)`,
	`y=b; declare -n r=y; echo $r ${!r}`,
	// read otherwise, listed in knownDifferences
	`echo {,a}`,
	`echo $'\cA'`,
	`set -- a 'b c'; echo "$*"`,
	`a=(x 'y z'); echo "${a[*]}"`,
}

// knownDifferences are the lines (of the corpora and expansionLines) holding a word whose value the
// walker knows and reads otherwise than mvdan.cc/sh/v3/expand, each with what bash makes of it. Any
// other difference fails TestWordsAsExpandReadsThem, and so does a line here that no longer differs.
var knownDifferences = map[string]string{
	// An empty brace alternative is no word: bash runs rm -rf /; expand keeps an empty field.
	"rm -rf {/,}": "bash agrees with the walker",
	"echo {,a}":   "bash agrees with the walker",
	// $'\cA' is the control character; expand leaves it as written.
	`echo $'\cA'`: "bash agrees with the walker",
	// "$*" and "${a[*]}" are one word, the elements joined: the walker reads each element as a
	// word of its own, as it reads "$@".
	`set -- a 'b c'; echo "$*"`:   "bash agrees with expand",
	`a=(x 'y z'); echo "${a[*]}"`: "bash agrees with expand",
	// Operations on a $HOME or $PWD the line did not set: the walker reads the whole folder (a
	// hole named HOME or PWD), bash and expand apply the operation.
	"rm -rf ${HOME:0:5}":    "bash agrees with expand",
	"rm -rf ${HOME:0:1}":    "bash agrees with expand",
	"rm -rf ${HOME%/*}":     "bash agrees with expand",
	`rm -rf -- "${PWD%/*}"`: "bash agrees with expand",
	"rm -rf ${PWD%/*}":      "bash agrees with expand",
	"rm -rf ${PWD%%/proj}":  "bash agrees with expand",
	// bash's ~ is what the line set HOME to; the walker's ~ stays the person's home.
	"HOME=/; rm -rf ~": "bash agrees with expand",
}

// wordComparison counts how the two readers read the corpora's words.
type wordComparison struct {
	words, agree int
	// tildeHome: a ~ the walker reads as home where expand leaves it literal (a ~ that came out of
	// an expansion, which bash leaves literal too, or out of brace expansion, which bash expands).
	tildeHome int
	// differ counts the words of knownDifferences' lines read otherwise, listed by line; unexpected
	// are the differences not listed.
	differ     int
	listed     map[string]int
	unexpected []string
	// unknownEmpty and unknownFails: a word whose value the walker cannot know (a variable the
	// line did not set, a command's output) that expand reads as empty, or cannot read at all.
	unknownEmpty, unknownFails int
}

// TestWordsAsExpandReadsThem is the differential test behind the decision recorded in
// docs/architecture.md ("adapters/shell: reading commands as bash does"): every argument word of
// every line of the guard's corpora and rule fixtures is read by the walker and by
// mvdan.cc/sh/v3/expand, both given what the line set before the statement (variables, $IFS) and
// the same command output. Where the walker knows a word's value, expand must read the same
// words, but for knownDifferences and a ~ read as home. Where the walker cannot know a value,
// expand has no way to say so: it reads the unknown as empty, or fails the whole word.
func TestWordsAsExpandReadsThem(t *testing.T) {
	var corpora, fixtures []string
	for _, file := range corpusFiles {
		for _, c := range loadCorpusFile(t, file) {
			corpora = append(corpora, c.Line)
		}
	}
	rules, err := guard.Builtin()
	assert.NilError(t, err)
	for _, r := range rules.Rules {
		fixtures = append(append(fixtures, r.Bad...), r.Good...)
	}
	listed := map[string]int{}
	known := 0
	for _, group := range []struct {
		name  string
		lines []string
	}{{"the corpora", corpora}, {"the rules' fixtures", fixtures}, {"expansionLines", expansionLines}} {
		cmp := wordComparison{listed: listed}
		for _, line := range group.lines {
			cmp.line(t, line)
		}
		t.Logf("%s: %s", group.name, cmp.String(len(group.lines)))
		assert.Check(t, len(cmp.unexpected) == 0, "%s: words read otherwise than expand reads them:\n%s", group.name, strings.Join(cmp.unexpected, "\n"))
		known += cmp.known()
	}
	for line := range knownDifferences {
		assert.Check(t, listed[line] > 0, "%s is read alike now: take it off knownDifferences", line)
	}
	assert.Check(t, known >= 15_000, "only %d words compared", known)
}

// known is how many words the walker knows the value of.
func (cmp *wordComparison) known() int {
	return cmp.agree + cmp.tildeHome + cmp.differ + len(cmp.unexpected)
}

func (cmp *wordComparison) String(lines int) string {
	return fmt.Sprintf("%d lines, %d words; %d known to the walker, of which expand reads %d alike, %d with a ~ left literal, %d otherwise (listed), %d otherwise (not listed); %d unknown to the walker, which expand reads as empty %d times and cannot read %d times",
		lines, cmp.words, cmp.known(), cmp.agree, cmp.tildeHome, cmp.differ, len(cmp.unexpected), cmp.unknownEmpty+cmp.unknownFails, cmp.unknownEmpty, cmp.unknownFails)
}

// line compares the words of one line, statement by statement: each statement's words are read in
// the state the statements before it leave (the variables they set), then the statement is walked
// to update that state.
func (cmp *wordComparison) line(t *testing.T, line string) {
	t.Helper()
	// two parses: the walker splits a word's braces in place
	mine, err := parse(line)
	if err != nil {
		return
	}
	theirs, err := parse(line)
	assert.NilError(t, err)
	sc := scope{st: newState(), src: line}
	for i, st := range mine.Stmts {
		a, b := argWords(st), argWords(theirs.Stmts[i])
		for j := range a {
			cmp.word(line, a[j], b[j], sc)
		}
		(&walker{}).stmt(st, sc)
	}
}

func (cmp *wordComparison) word(line string, mine, theirs *syntax.Word, sc scope) {
	cmp.words++
	// the source first: reading splits the word's braces, after which it has no position
	src := line[mine.Pos().Offset():mine.End().Offset()]
	ours, known := fixtureValues((&walker{}).quiet().fields(mine, sc), true)
	got, err := expand.Fields(expandConfig(sc), theirs)
	switch {
	case !known && err == nil:
		cmp.unknownEmpty++
	case !known:
		cmp.unknownFails++
	case err == nil && slices.Equal(ours, got):
		cmp.agree++
	case err == nil && slices.Equal(ours, tildeAsHome(got)):
		cmp.tildeHome++
	case knownDifferences[line] != "" && err == nil:
		cmp.differ++
		cmp.listed[line]++
	default:
		cmp.unexpected = append(cmp.unexpected, line+": "+src+": the walker reads "+strings.Join(ours, " ")+", expand "+strings.Join(got, " ")+errorText(err))
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

// argWords are the argument words of every simple command in a statement, in order.
func argWords(n syntax.Node) []*syntax.Word {
	var out []*syntax.Word
	syntax.Walk(n, func(x syntax.Node) bool {
		if ce, ok := x.(*syntax.CallExpr); ok {
			out = append(out, ce.Args...)
		}
		return true
	})
	return out
}

// fixtureValues are words as text, holes for $HOME and $PWD read as the fixture's folders (the
// guard reads them so) and, with tilde, a leading unquoted ~ as home; ok is false when a word holds
// any other unknown part.
func fixtureValues(ws []guard.Word, tilde bool) ([]string, bool) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		var b strings.Builder
		for i, p := range w.Parts {
			switch {
			case p.Hole && p.Var == "HOME":
				b.WriteString(fixtureHome)
			case p.Hole && p.Var == "PWD":
				b.WriteString(fixtureCwd)
			case p.Hole:
				return nil, false
			case tilde && i == 0 && !p.Quoted && (p.Text == "~" || strings.HasPrefix(p.Text, "~/")):
				b.WriteString(fixtureHome + p.Text[1:])
			default:
				b.WriteString(p.Text)
			}
		}
		out = append(out, b.String())
	}
	return out, true
}

func tildeAsHome(fields []string) []string {
	out := slices.Clone(fields)
	for i, f := range out {
		if f == "~" || strings.HasPrefix(f, "~/") {
			out[i] = fixtureHome + f[1:]
		}
	}
	return out
}

var errUnknownOutput = errors.New("output not known")

// expandConfig gives expand what the walker knows in sc: the variables, and the output of a
// command substitution when it can tell it. Globbing is off, as the guard reads patterns unexpanded.
func expandConfig(sc scope) *expand.Config {
	return &expand.Config{
		Env:     expandEnv{st: sc.st, assigned: map[string]expand.Variable{}},
		ExtGlob: true,
		CmdSubst: func(wr io.Writer, cs *syntax.CmdSubst) error {
			out := (&walker{}).quiet().output(cs.Stmts, sc.sub())
			if !out.hasWord() {
				return errUnknownOutput
			}
			text, ok := fixtureValues([]guard.Word{out.word}, false)
			if !ok {
				return errUnknownOutput
			}
			_, err := io.WriteString(wr, text[0])
			return err
		},
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errUnknownOutput },
	}
}

// expandEnv is a line's state as expand's environment: a variable whose value holds an unknown part
// is unset (expand has no unknown); $HOME, $PWD and $IFS the line did not set are the fixture's and
// bash's own. assigned takes ${X:=...}'s assignments for the word being read.
type expandEnv struct {
	st       *state
	assigned map[string]expand.Variable
}

func (e expandEnv) Get(name string) expand.Variable {
	if v, ok := e.assigned[name]; ok {
		return v
	}
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		// ~user: the walker keeps it literal, and expand would ask the system
		return expand.Variable{Set: true, Kind: expand.String, Str: "~" + user}
	}
	if _, set := e.st.vars[name]; !set {
		switch name {
		case "IFS":
			return expand.Variable{Set: true, Kind: expand.String, Str: " \t\n"}
		case "HOME":
			return expand.Variable{Set: true, Kind: expand.String, Str: fixtureHome}
		case "PWD":
			return expand.Variable{Set: true, Kind: expand.String, Str: fixtureCwd}
		}
	}
	v, ok := e.st.lookup(name)
	if !ok {
		return expand.Variable{}
	}
	values, ok := fixtureValues(v.Words, false)
	switch {
	case !ok:
		return expand.Variable{}
	case v.Array || len(values) != 1:
		return expand.Variable{Set: true, Kind: expand.Indexed, List: values}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: values[0]}
}

func (e expandEnv) Each(func(string, expand.Variable) bool) {}

func (e expandEnv) Set(name string, v expand.Variable) error {
	e.assigned[name] = v
	return nil
}
