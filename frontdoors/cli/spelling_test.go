package cli

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/app"
)

// shellWords splits a command line the way a POSIX shell splits plain and single-quoted words.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestEveryInvocationSpellsACommandThatParsesBack: for every verb, an invocation naming every input
// field is spelled as a command line that, read back by the same command tree, reaches the same
// verb with the same values. A remedy therefore never names a command or flag the person cannot
// type.
func TestEveryInvocationSpellsACommandThatParsesBack(t *testing.T) {
	root := NewRoot(newApp(factsInitialized), &IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	sp := newSpelling(root)
	for _, v := range app.Table() {
		typ := v.InputType()
		var args []refusal.Arg
		want := map[string]any{}
		for i := 0; i < typ.NumField(); i++ {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			var val any
			switch typ.Field(i).Type.Kind() {
			case reflect.Bool:
				val = true
			case reflect.Slice:
				val = []string{"one two", "it's"}
			case reflect.Int:
				val = 42
			default:
				val = "a value with 'quotes' and spaces"
			}
			args = append(args, refusal.With(name, val))
			want[name] = val
		}
		line := sp.Run(refusal.Run(v.Name, args...))
		assert.Assert(t, strings.HasPrefix(line, "run `abcd ") && strings.HasSuffix(line, "`"), "%s: %s", v.Name, line)
		words := shellWords(strings.TrimSuffix(strings.TrimPrefix(line, "run `"), "`"))
		cmd, rest, err := root.Find(words[1:])
		assert.NilError(t, err, "%s: %s", v.Name, line)
		assert.Check(t, is.Equal(cmd.Annotations[annotationVerb], v.Name), "%s: %s reaches %s", v.Name, line, cmd.CommandPath())
		assert.NilError(t, cmd.ParseFlags(rest), "%s: %s", v.Name, line)
		got := map[string]any{}
		positional := strings.Split(cmd.Annotations[annotationArgs], ",")
		for i, a := range cmd.Flags().Args() {
			got[positional[i]] = a
		}
		for _, pair := range strings.Split(cmd.Annotations[annotationFlags], ",") {
			field, flag, ok := strings.Cut(pair, "=")
			if !ok || !cmd.Flags().Changed(flag) {
				continue
			}
			switch want[field].(type) {
			case bool:
				got[field], _ = cmd.Flags().GetBool(flag)
			case []string:
				got[field], _ = cmd.Flags().GetStringArray(flag)
			case int:
				got[field], _ = cmd.Flags().GetInt(flag)
			default:
				got[field], _ = cmd.Flags().GetString(flag)
			}
		}
		assert.Check(t, is.DeepEqual(got, want), "%s: %s", v.Name, line)
	}
}

func TestSpellingOfFieldsAndSubjects(t *testing.T) {
	root := NewRoot(newApp(factsInitialized), &IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	sp := newSpelling(root)
	assert.Check(t, is.Equal(sp.Field("review", "base"), "--base"))
	assert.Check(t, is.Equal(sp.Field("implement_step", "routes"), "--route"))
	assert.Check(t, is.Equal(sp.Field("intent_show", "ref"), "REF"))
	assert.Check(t, is.Equal(sp.Subject("capture", "source"), "abcd capture --source"))
	assert.Check(t, is.Equal(sp.Subject("intent_show", "ref"), "abcd intent show"))
	assert.Check(t, is.Equal(sp.Subject("status", ""), "abcd status"))
	assert.Check(t, is.Equal(sp.Run(refusal.Run("ahoy_install", refusal.With("yes", true))), "run `abcd ahoy install --yes`"))
	assert.Check(t, is.Equal(sp.Run(refusal.Run("implement_start", refusal.Hole("spec", "spec"))), "run `abcd implement start <spec>`"))
	// A verb no command runs falls back to the door-neutral spelling rather than inventing one.
	assert.Check(t, is.Equal(sp.Run(refusal.Run("no_such_verb")), "run no_such_verb"))
}
