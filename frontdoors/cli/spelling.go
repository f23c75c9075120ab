package cli

import (
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// spelling spells a refusal's door-neutral parts as this command line does: an invocation as the
// command to run with its arguments and flags, a field as its flag, the thing refused as the
// command (and flag) it came through. It reads the spellings the commands recorded when they were
// built, so a remedy names exactly what the person can type.
type spelling struct {
	root  *cobra.Command
	once  sync.Once
	verbs map[string]verbSpelling
}

type verbSpelling struct {
	path  string
	args  []string          // positional fields, in order
	flags map[string]string // field -> flag name
}

func newSpelling(root *cobra.Command) *spelling { return &spelling{root: root} }

func (sp *spelling) load() {
	sp.verbs = map[string]verbSpelling{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if v, ok := c.Annotations[annotationVerb]; ok {
			vs := verbSpelling{path: c.CommandPath(), flags: map[string]string{}}
			if a := c.Annotations[annotationArgs]; a != "" {
				vs.args = strings.Split(a, ",")
			}
			if f := c.Annotations[annotationFlags]; f != "" {
				for _, pair := range strings.Split(f, ",") {
					name, flag, _ := strings.Cut(pair, "=")
					vs.flags[name] = flag
				}
			}
			sp.verbs[v] = vs
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(sp.root)
}

func (sp *spelling) verb(name string) (verbSpelling, bool) {
	sp.once.Do(sp.load)
	vs, ok := sp.verbs[name]
	return vs, ok
}

// Run is "run `abcd intent ready itd-1`": positional fields in their order, then flags in the
// invocation's order; a placeholder as <hint>.
func (sp *spelling) Run(inv refusal.Invocation) string {
	vs, ok := sp.verb(inv.Verb)
	if !ok {
		return refusal.Plain.Run(inv)
	}
	words := []string{vs.path}
	given := map[string]refusal.Arg{}
	for _, a := range inv.Args {
		given[a.Name] = a
	}
	for _, name := range vs.args {
		if a, ok := given[name]; ok {
			words = append(words, argWord(a, a.Value))
		}
	}
	for _, a := range inv.Args {
		if isPositional(vs, a.Name) {
			continue
		}
		flag := flagOf(vs, a.Name)
		switch v := a.Value.(type) {
		case bool:
			if v {
				words = append(words, "--"+flag)
			} else {
				words = append(words, "--"+flag+"=false")
			}
		case []string:
			for _, item := range v {
				words = append(words, "--"+flag, argWord(a, item))
			}
		default:
			words = append(words, "--"+flag, argWord(a, v))
		}
	}
	return "run `" + strings.Join(words, " ") + "`"
}

// Field is the flag that carries the field, or the positional argument's name in capitals.
func (sp *spelling) Field(verb, name string) string {
	vs, ok := sp.verb(verb)
	if !ok {
		return refusal.Plain.Field(verb, name)
	}
	if isPositional(vs, name) {
		return strings.ToUpper(name)
	}
	return "--" + flagOf(vs, name)
}

// Subject is the command, with the flag when the refusal is about one.
func (sp *spelling) Subject(verb, name string) string {
	vs, ok := sp.verb(verb)
	if !ok {
		return refusal.Plain.Subject(verb, name)
	}
	if name == "" || isPositional(vs, name) {
		return vs.path
	}
	return vs.path + " --" + flagOf(vs, name)
}

func isPositional(vs verbSpelling, name string) bool {
	for _, a := range vs.args {
		if a == name {
			return true
		}
	}
	return false
}

func flagOf(vs verbSpelling, name string) string {
	if f, ok := vs.flags[name]; ok {
		return f
	}
	return strings.ReplaceAll(name, "_", "-")
}

// argWord writes one argument so a shell reads it back as written: bare when it is plain, else in
// single quotes. A placeholder is written as <hint>, for the person to fill in.
func argWord(a refusal.Arg, v any) string {
	s := fmt.Sprint(v)
	if a.Placeholder {
		return "<" + s + ">"
	}
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@=+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
