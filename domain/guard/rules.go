package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// Tier is what a rule does when it matches: block the command, or warn and let it run. allow is a
// tier only where a repository lowers a rule to nothing, or for a match that rests on an unknown value.
type Tier string

const (
	Allow Tier = "allow"
	Warn  Tier = "warn"
	Block Tier = "block"
)

func (t Tier) rank() int {
	switch t {
	case Block:
		return 2
	case Warn:
		return 1
	}
	return 0
}

// File is a rules file: the built-in registry abcd embeds, or a repository's .abcd/guard.json, which
// may also switch the guard off, change a built-in rule's tier, or disable one (each of which weakens
// the guard and takes effect only once committed).
type File struct {
	// SchemaVersion is 1.
	SchemaVersion int `json:"schema_version"`
	// Enabled false switches the guard off for the repository.
	Enabled *bool `json:"enabled,omitempty"`
	// Syntax says how commands read their options, for commands the rules name.
	Syntax []Syntax `json:"syntax,omitempty" jsonschema:"maxItems=256"`
	// Rules are added to the registry; an id already in it is refused.
	Rules []Rule `json:"rules,omitempty" jsonschema:"maxItems=512"`
	// Tiers sets a rule's tier by id.
	Tiers map[string]Tier `json:"tiers,omitempty" jsonschema:"maxProperties=512"`
	// Disable removes rules by id.
	Disable []string `json:"disable,omitempty" jsonschema:"maxItems=512"`
}

// Syntax is how one command (or one subcommand, "git push") reads its words.
type Syntax struct {
	// Command is the base name, or the name and its subcommand words ("git push", "gh api").
	Command string `json:"command" jsonschema:"minLength=1,maxLength=64"`
	// Values are the options that take a value in the next word (or joined: -XDELETE, --method=DELETE).
	Values []string `json:"values,omitempty" jsonschema:"maxItems=128"`
	// Long lists every long option, so an abbreviation is read as the one option it can only mean.
	Long []string `json:"long,omitempty" jsonschema:"maxItems=256"`
	// Abbrev accepts unambiguous prefixes of the Long options (getopt_long and git both do).
	Abbrev bool `json:"abbrev,omitempty"`
	// Negate reads --no-X as undoing an earlier --X and the other way round (git's parser).
	Negate bool `json:"negate,omitempty"`
	// Style is how words split into options and operands: getopt (options anywhere until --, the
	// default), subcommand (global options, then a subcommand word), or find (start points, then an
	// expression whose words are matched whole).
	Style string `json:"style,omitempty"`
}

// Rule is one pattern the guard checks every command against.
type Rule struct {
	// ID is stable and unique: what a verdict names and a repository file refers to.
	ID string `json:"id" jsonschema:"pattern=^[a-z][a-z0-9-]*$,maxLength=64"`
	// Tier is what a certain match does.
	Tier Tier `json:"tier"`
	// Unknown is what a match does when it rests on a value that cannot be known (a variable, a
	// command's output); warn when absent.
	Unknown Tier `json:"unknown,omitempty"`
	// Command are the base names it applies to; empty applies to every command.
	Command []string `json:"command,omitempty" jsonschema:"maxItems=32"`
	// Subcommand are the words that must follow the command's global options (push; repo delete); a
	// word may list alternatives with | (commit|merge).
	Subcommand []string `json:"subcommand,omitempty" jsonschema:"maxItems=4"`
	// All must hold; None must not (a dry run, say).
	All  []Cond `json:"all,omitempty" jsonschema:"maxItems=16"`
	None []Cond `json:"none,omitempty" jsonschema:"maxItems=16"`
	// Why is what the agent reads; Safer is the command to run instead.
	Why   string `json:"why" jsonschema:"minLength=1,maxLength=400"`
	Safer string `json:"safer" jsonschema:"minLength=1,maxLength=400"`
	// Bad and Good are the rule's own fixtures: lines it must match and look-alikes it must not.
	Bad  []string `json:"bad" jsonschema:"minItems=1,maxItems=64"`
	Good []string `json:"good" jsonschema:"minItems=1,maxItems=64"`
}

// Cond is one condition of a rule; exactly one of its kinds is set.
type Cond struct {
	// Flag holds when any of these options is present, in any spelling: clustered (-rf), joined
	// (--force=x), abbreviated where the command's syntax allows it.
	Flag []string `json:"flag,omitempty" jsonschema:"maxItems=16"`
	// Value narrows Flag to an option whose value matches one of these globs.
	Value []string `json:"value,omitempty" jsonschema:"maxItems=16"`
	// Class holds when an operand names one of these places: root (/ or everything in it), system
	// (a top-level system folder), home (~, $HOME, everything in it, or a folder above it), repo (the
	// repository root, everything in it, or a folder above it), cwd (., .., *, ./*: everything where
	// it runs), after-cd (a relative path after a cd in the same line that may not have gone where it
	// says), git-dir (a .git folder).
	Class []string `json:"class,omitempty" jsonschema:"maxItems=8"`
	// Operand holds when an operand matches one of these globs.
	Operand []string `json:"operand,omitempty" jsonschema:"maxItems=16"`
	// Word holds when any word after the command (an option, an operand, --) matches one of these
	// globs, as written.
	Word []string `json:"word,omitempty" jsonschema:"maxItems=16"`
	// From holds when an operand is the output of one of these commands ($(pgrep x)).
	From []string `json:"from,omitempty" jsonschema:"maxItems=16"`
	// Config holds when git -c KEY=VALUE (or --config-env) sets a key matching one of these globs.
	Config []string `json:"config,omitempty" jsonschema:"maxItems=16"`
	// Env holds when the command runs with NAME=VALUE matching one of these globs.
	Env []string `json:"env,omitempty" jsonschema:"maxItems=16"`
	// Redirect holds when output is written to a target matching one of these globs.
	Redirect []string `json:"redirect,omitempty" jsonschema:"maxItems=16"`
	// Opaque holds for a command whose text cannot be known (eval "$X", curl ... | sh).
	Opaque bool `json:"opaque,omitempty"`
	// NoCase compares Operand, Value and Config globs without case.
	NoCase bool `json:"nocase,omitempty"`
	// Exact stops a wholly unknown value from satisfying the condition (a variable is not taken to
	// hold a +refspec); without it, an unknown value may be anything.
	Exact bool `json:"exact,omitempty"`
}

// The patterns compile on first use: every run of abcd links the guard, few check a rule.
var (
	idPattern = pattern.New(`^[a-z][a-z0-9-]{0,63}$`)
	// classes are the place classes a rule may name (Cond.Class), and git-tree: a .git folder or
	// anything in it.
	classes = []string{"root", "system", "home", "repo", "cwd", "after-cd", "git-dir", "git-tree"}
	// commandClasses are what a command is, rather than a place it names.
	commandClasses = []string{"fork-bomb", "guard-unallowed", "remote", "installs-abcd", "installs-service"}
	// classScopes narrow a place class to some of a command's words: what a copy takes from (src)
	// or puts to (dest), the host folders a container is given (mount), and what a command sends off
	// the machine (send, with the classes of sendClasses).
	classScopes = []string{"src", "dest", "mount", "send"}
	// sendClasses are what send: can name: a credential's places (credentialPlaces) and the
	// variables that hold secrets (secretVars).
	sendClasses = []string{"credentials", "secret-vars"}
	optPattern  = pattern.New(`^--?[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	findPattern = pattern.New(`^-[a-z]{1,20}$`)
)

// MaxFileBytes bounds a rules file.
const MaxFileBytes = 256 << 10

// Decode reads a rules file strictly: one JSON object, no unknown or repeated key, nothing after it,
// schema_version 1, and every rule well formed. file names it in errors.
func Decode(file string, data []byte) (File, error) {
	f, err := strictjson.DecodeFile(file, data, strictjson.Limits{MaxBytes: MaxFileBytes, MaxDepth: 32}, FileVersion, func(f *File) int { return f.SchemaVersion })
	if err != nil {
		return File{}, err
	}
	if err := f.check(); err != nil {
		return File{}, fmt.Errorf("%s: %w", file, err)
	}
	return f, nil
}

func (f File) check() error {
	seen := map[string]bool{}
	for i, s := range f.Syntax {
		if strings.TrimSpace(s.Command) != s.Command || s.Command == "" || len(strings.Fields(s.Command)) > 3 {
			return fmt.Errorf("syntax[%d]: command %q is not a name and up to two subcommand words", i, text.Clip(s.Command))
		}
		if seen[s.Command] {
			return fmt.Errorf("syntax[%d]: %q is described twice", i, s.Command)
		}
		seen[s.Command] = true
		for _, o := range append(slices.Clone(s.Values), s.Long...) {
			if !optPattern.MatchString(o) {
				return fmt.Errorf("syntax %q: %q is not an option", s.Command, text.Clip(o))
			}
		}
		for _, o := range s.Long {
			if !strings.HasPrefix(o, "--") {
				return fmt.Errorf("syntax %q: long option %q must start with --", s.Command, o)
			}
		}
	}
	ids := map[string]bool{}
	for i, r := range f.Rules {
		if !idPattern.MatchString(r.ID) {
			return fmt.Errorf("rules[%d]: id %q must match %s", i, text.Clip(r.ID), idPattern)
		}
		if ids[r.ID] {
			return fmt.Errorf("rules[%d]: id %q is used twice", i, r.ID)
		}
		ids[r.ID] = true
		if err := r.check(); err != nil {
			return fmt.Errorf("rule %s: %w", r.ID, err)
		}
	}
	for id, t := range f.Tiers {
		if !idPattern.MatchString(id) {
			return fmt.Errorf("tiers: %q is not a rule id", text.Clip(id))
		}
		if t != Allow && t != Warn && t != Block {
			return fmt.Errorf("tiers: %s: %q is not allow, warn or block", id, text.Clip(string(t)))
		}
	}
	for _, id := range f.Disable {
		if !idPattern.MatchString(id) {
			return fmt.Errorf("disable: %q is not a rule id", text.Clip(id))
		}
	}
	return nil
}

func (r Rule) check() error {
	if r.Tier != Block && r.Tier != Warn {
		return fmt.Errorf("tier %q is not block or warn", text.Clip(string(r.Tier)))
	}
	if r.Unknown != "" && r.Unknown != Block && r.Unknown != Warn && r.Unknown != Allow {
		return fmt.Errorf("unknown %q is not block, warn or allow", text.Clip(string(r.Unknown)))
	}
	if len(r.Command) == 0 && len(r.All) == 0 {
		return fmt.Errorf("names no command and no condition, so it would match everything")
	}
	for _, c := range r.Command {
		if c == "" || strings.ContainsAny(c, "/ \t\n") {
			return fmt.Errorf("command %q is not a base name", text.Clip(c))
		}
	}
	if len(r.Subcommand) > 0 && len(r.Command) == 0 {
		return fmt.Errorf("a subcommand needs a command")
	}
	for _, s := range r.Subcommand {
		for _, alt := range strings.Split(s, "|") {
			if alt == "" || strings.ContainsAny(alt, " \t\n") {
				return fmt.Errorf("subcommand %q is not a word or words joined by |", text.Clip(s))
			}
		}
	}
	for _, c := range append(slices.Clone(r.All), r.None...) {
		if err := c.check(); err != nil {
			return err
		}
	}
	if strings.TrimSpace(r.Why) == "" || strings.TrimSpace(r.Safer) == "" {
		return fmt.Errorf("needs why and safer")
	}
	if len(r.Bad) == 0 || len(r.Good) == 0 {
		return fmt.Errorf("needs bad and good fixtures")
	}
	return nil
}

func (c Cond) check() error {
	kinds := 0
	for _, set := range []bool{len(c.Flag) > 0, len(c.Class) > 0, len(c.Operand) > 0, len(c.Word) > 0, len(c.From) > 0,
		len(c.Config) > 0, len(c.Env) > 0, len(c.Redirect) > 0, c.Opaque} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return fmt.Errorf("a condition sets exactly one of flag, class, operand, word, from, config, env, redirect, opaque (this one sets %d)", kinds)
	}
	if len(c.Value) > 0 && len(c.Flag) == 0 {
		return fmt.Errorf("value narrows a flag condition only")
	}
	for _, f := range c.Flag {
		if !optPattern.MatchString(f) && !findPattern.MatchString(f) {
			return fmt.Errorf("flag %q is not an option", text.Clip(f))
		}
	}
	for _, k := range c.Class {
		place := k
		if scope, rest, scoped := strings.Cut(k, ":"); scoped && slices.Contains(classScopes, scope) {
			place = rest
			if scope == "send" {
				if !slices.Contains(sendClasses, rest) {
					return fmt.Errorf("class %q: send: takes %s", text.Clip(k), strings.Join(sendClasses, " or "))
				}
				continue
			}
		}
		if !slices.Contains(classes, place) && (place != k || !slices.Contains(commandClasses, k)) {
			return fmt.Errorf("class %q is not one of %s (src:, dest: or mount: before a place narrows it to what a copy takes from or puts to, or what a container is given), %s, or send: with %s",
				text.Clip(k), strings.Join(classes, ", "), strings.Join(commandClasses, ", "), strings.Join(sendClasses, " or "))
		}
	}
	for _, g := range slices.Concat(c.Value, c.Operand, c.Word, c.Config, c.Env, c.Redirect) {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return fmt.Errorf("glob %q is malformed", text.Clip(g))
		}
	}
	return nil
}

// Registry is a checked set of rules and syntaxes, ready to evaluate lines.
type Registry struct {
	Off    bool
	Rules  []Rule
	syntax map[string]Syntax
}

// Compile turns the built-in file and a repository file (nil for none) into one registry. A
// repository may add rules and syntaxes, retier or disable rules by id, and switch the guard off; an id
// it names that does not exist, or a rule or syntax it adds twice, is refused.
func Compile(builtin File, repo *File) (*Registry, error) {
	reg := &Registry{syntax: map[string]Syntax{}}
	for _, s := range builtin.Syntax {
		reg.syntax[s.Command] = s
	}
	reg.Rules = slices.Clone(builtin.Rules)
	if repo == nil {
		return reg, nil
	}
	for _, s := range repo.Syntax {
		if _, dup := reg.syntax[s.Command]; dup {
			return nil, fmt.Errorf("syntax %q is built in; a repository may describe only other commands", s.Command)
		}
		reg.syntax[s.Command] = s
	}
	index := map[string]int{}
	for i, r := range reg.Rules {
		index[r.ID] = i
	}
	for _, r := range repo.Rules {
		if _, dup := index[r.ID]; dup {
			return nil, fmt.Errorf("rule %s is built in; change its tier under tiers, or add a rule with a new id", r.ID)
		}
		index[r.ID] = len(reg.Rules)
		reg.Rules = append(reg.Rules, r)
	}
	for _, id := range slices.Sorted(maps.Keys(repo.Tiers)) {
		i, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("tiers names %s, which is no rule", id)
		}
		t := repo.Tiers[id]
		reg.Rules[i].Tier = t
		// A match on an unknown value never outranks the rule's own tier.
		if reg.Rules[i].unknownTier().rank() > t.rank() {
			reg.Rules[i].Unknown = t
		}
	}
	off := map[string]bool{}
	for _, id := range repo.Disable {
		if _, ok := index[id]; !ok {
			return nil, fmt.Errorf("disable names %s, which is no rule", id)
		}
		off[id] = true
	}
	reg.Rules = slices.DeleteFunc(reg.Rules, func(r Rule) bool { return off[r.ID] || r.Tier == Allow })
	reg.Off = repo.Enabled != nil && !*repo.Enabled
	return reg, nil
}

// Weakens lists how next is weaker than base: the guard switched off, a rule gone or lowered, a rule's
// pattern or a syntax changed. An empty list means next only adds or tightens.
func Weakens(base, next *Registry) []string {
	var out []string
	if next.Off && !base.Off {
		out = append(out, "switches the guard off")
	}
	have := map[string]Rule{}
	for _, r := range next.Rules {
		have[r.ID] = r
	}
	for _, r := range base.Rules {
		n, ok := have[r.ID]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("removes rule %s (%s)", r.ID, r.Tier))
		case n.Tier.rank() < r.Tier.rank():
			out = append(out, fmt.Sprintf("lowers rule %s from %s to %s", r.ID, r.Tier, n.Tier))
		case n.unknownTier().rank() < r.unknownTier().rank():
			out = append(out, fmt.Sprintf("lowers rule %s on unknown values from %s to %s", r.ID, r.unknownTier(), n.unknownTier()))
		case !samePattern(r, n):
			out = append(out, fmt.Sprintf("changes the pattern of rule %s", r.ID))
		}
	}
	for name, s := range base.syntax {
		if n, ok := next.syntax[name]; !ok || !sameJSON(s, n) {
			out = append(out, fmt.Sprintf("changes how %s reads its options", name))
		}
	}
	named := base.commandsNamed()
	for name := range next.syntax {
		if _, described := base.syntax[name]; !described && named[strings.Fields(name)[0]] {
			out = append(out, fmt.Sprintf("describes how %s reads its options, which changes how a rule reads it", name))
		}
	}
	sort.Strings(out)
	return out
}

// commandsNamed are the base names the registry's rules name.
func (r *Registry) commandsNamed() map[string]bool {
	named := map[string]bool{}
	for _, rule := range r.Rules {
		for _, c := range rule.Command {
			named[c] = true
		}
	}
	return named
}

// Strict is the part of a repository's file that only adds to or tightens the built-in rules: its
// new rules, its syntaxes for commands no built-in rule names, its raised tiers and what it disables
// of its own rules. It is what stands while a weaker file is not allowed.
func Strict(builtin File, repo File) (File, error) {
	base, err := Compile(builtin, nil)
	if err != nil {
		return File{}, err
	}
	tier := map[string]Tier{}
	for _, r := range base.Rules {
		tier[r.ID] = r.Tier
	}
	named := base.commandsNamed()
	out := File{SchemaVersion: 1, Rules: repo.Rules}
	for _, s := range repo.Syntax {
		if !named[strings.Fields(s.Command)[0]] {
			out.Syntax = append(out.Syntax, s)
		}
	}
	for id, t := range repo.Tiers {
		if was, builtIn := tier[id]; !builtIn || t.rank() > was.rank() {
			if out.Tiers == nil {
				out.Tiers = map[string]Tier{}
			}
			out.Tiers[id] = t
		}
	}
	for _, id := range repo.Disable {
		if _, builtIn := tier[id]; !builtIn {
			out.Disable = append(out.Disable, id)
		}
	}
	return out, nil
}

func (r Rule) unknownTier() Tier {
	if r.Unknown == "" {
		return Warn
	}
	return r.Unknown
}

func samePattern(a, b Rule) bool {
	a.Tier, b.Tier, a.Unknown, b.Unknown = "", "", "", ""
	a.Why, b.Why, a.Safer, b.Safer = "", "", "", ""
	a.Bad, b.Bad, a.Good, b.Good = nil, nil, nil, nil
	return sameJSON(a, b)
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
