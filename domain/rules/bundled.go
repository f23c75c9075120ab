package rules

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/text"
)

//go:embed bundled.json
var bundledJSON []byte

// BundledJSON is the bundled guardrail domains as abcd ships them (the shell domain is made at load).
func BundledJSON() []byte { return bundledJSON }

// ShellDomain is the name of the domain generated from the guard's rules. ShellGitDomain holds the
// lessons of its rules about git and the forges' CLIs (gh, glab), and ShellSystemDomain those about
// disks, volumes, power and containers, so that each stays within what a domain may carry.
const (
	ShellDomain       = "shell"
	ShellGitDomain    = "shell-git"
	ShellSystemDomain = "shell-system"
)

// gitCommands and systemCommands are the commands whose guard rules go to ShellGitDomain and
// ShellSystemDomain: a rule goes there when every command it names is one of them.
var (
	gitCommands    = []string{"git", "gh", "glab", "tea", "hub"}
	systemCommands = []string{"dd", "shred", "blkdiscard", "sgdisk", "sfdisk", "fdisk", "parted", "cfdisk", "gdisk", "badblocks", "hdparm", "nvme", "sg_format",
		"diskutil", "wipefs", "mkswap", "reboot", "poweroff", "halt", "shutdown", "systemctl", "loginctl", "init", "telinit", "cryptsetup", "zpool", "zfs",
		"lvremove", "vgremove", "pvremove", "mdadm", "dmsetup", "docker", "podman", "nerdctl", "killall5"}
)

// systemCommand is one of systemCommands, or a filesystem maker (mkfs.ext4, newfs_apfs, mke2fs).
func systemCommand(c string) bool {
	return slices.Contains(systemCommands, c) || strings.HasPrefix(c, "mkfs") || strings.HasPrefix(c, "newfs") || strings.HasPrefix(c, "mke2fs") ||
		c == "mkntfs" || c == "mkdosfs" || c == "mkexfatfs"
}

// all reports whether every command a rule names passes in.
func all(r guard.Rule, in func(string) bool) bool {
	return len(r.Command) > 0 && !slices.ContainsFunc(r.Command, func(c string) bool { return !in(c) })
}

// BundledOrigin is what provenance calls abcd's own domains.
const BundledOrigin = "abcd"

// BundledSource is abcd's own layer: the guardrail domains it ships (secrets and personal data leaving the
// machine, committing, machine load) and the shell domain made from the guard's rules in force, so
// the lessons an agent is handed and the guard that checks its commands never disagree. guardRules
// are the rules the guard holds (its registry's, after a repository's additions).
func BundledSource(guardRules []guard.Rule) (Source, error) {
	f, err := Decode("the bundled rules", bundledJSON)
	if err != nil {
		return Source{}, err
	}
	var gitRules, systemRules, rest []guard.Rule
	for _, r := range guardRules {
		switch {
		case all(r, func(c string) bool { return slices.Contains(gitCommands, c) }):
			gitRules = append(gitRules, r)
		case all(r, systemCommand):
			systemRules = append(systemRules, r)
		default:
			rest = append(rest, r)
		}
	}
	shell, err := ShellFromGuard(rest)
	if err != nil {
		return Source{}, err
	}
	f.Domains = append(f.Domains, shell)
	for _, part := range []struct {
		name  string
		rules []guard.Rule
	}{{ShellGitDomain, gitRules}, {ShellSystemDomain, systemRules}} {
		if len(part.rules) == 0 {
			continue
		}
		d, err := lessonsDomain(part.name, nil, part.rules, nil)
		if err != nil {
			return Source{}, err
		}
		f.Domains = append(f.Domains, d)
	}
	if err := f.check(); err != nil {
		return Source{}, fmt.Errorf("the bundled rules: %w", err)
	}
	return Source{Layer: Bundled, Origin: BundledOrigin, File: f}, nil
}

// notRecalledBy are command names that are everyday words of a prompt in another sense (a URL's
// scheme), so they never recall the shell domain; their rules still come when *shell forces it or
// another of their words is in the prompt.
var notRecalledBy = []string{"http", "https"}

// ShellFromGuard makes the shell domain from the guard's rules: one rule per guard rule, in the
// guard's order, saying what the command does (the guard's why), an example the guard stops, and what
// to run instead (its safer). The domain is recalled by the names of the commands the rules check;
// each rule narrows itself to its own command, subcommand and option words, so a prompt about git
// push brings the push rules, not the rm ones. The rule ids are the guard's.
func ShellFromGuard(guardRules []guard.Rule) (Domain, error) {
	return lessonsDomain(ShellDomain, []string{"bash"}, guardRules, []string{"shell", "shell command", "command line", "terminal"})
}

// lessonsDomain makes one generated domain of guard rules, recalled by their commands and by extra.
func lessonsDomain(name string, aliases []string, guardRules []guard.Rule, extra []string) (Domain, error) {
	d := Domain{Name: name, Aliases: aliases}
	seen := map[string]bool{}
	addDomainWord := func(w string) {
		if w == "" || seen[w] || slices.Contains(notRecalledBy, w) || len(d.Recall) >= MaxWordsInDomain-len(d.Aliases) {
			return
		}
		seen[w] = true
		d.Recall = append(d.Recall, w)
	}
	for _, r := range guardRules {
		if len(d.Rules) >= MaxRulesInDomain {
			return Domain{}, fmt.Errorf("the guard holds more than %d rules for the %s domain, more than a domain can carry", MaxRulesInDomain, name)
		}
		var own []string
		addOwn := func(w string) {
			if w != "" && !slices.Contains(own, w) && len(own) < 32 {
				own = append(own, w)
			}
		}
		for _, c := range r.Command {
			w := wordOf(c)
			addDomainWord(w)
			if len(r.Subcommand) == 0 {
				addOwn(w)
				continue
			}
			// A rule about a subcommand is recalled by the command and subcommand together (git
			// push), every spelling its alternatives allow.
			for _, phrase := range phrases(c, r.Subcommand) {
				addOwn(wordOf(phrase))
			}
		}
		for _, c := range r.All {
			for _, f := range c.Flag {
				if strings.HasPrefix(f, "--") {
					addOwn(wordOf(f))
				}
			}
		}
		rule := Rule{ID: r.ID, Text: lesson(r), Recall: own}
		if len(rule.Recall) == 0 {
			// A rule that names no command (a redirection onto a disk, a command hidden in a
			// variable) comes whenever the domain does.
			rule.Recall = nil
		}
		d.Rules = append(d.Rules, rule)
	}
	for _, w := range extra {
		addDomainWord(w)
	}
	if err := d.check(); err != nil {
		return Domain{}, fmt.Errorf("the %s domain made from the guard's rules: %w", name, err)
	}
	return d, nil
}

// lesson is a guard rule as a rule of conduct, within MaxRuleBytes.
func lesson(r guard.Rule) string {
	example := ""
	if len(r.Bad) > 0 {
		example = oneLine(r.Bad[0], 80)
	}
	verb := "blocks"
	if r.Tier == guard.Warn {
		verb = "warns on"
	}
	s := fmt.Sprintf("Do not run %s (the guard %s it, rule %s): %s. Instead: %s",
		"`"+example+"`", verb, r.ID, strings.TrimSuffix(oneLine(r.Why, 400), "."), strings.TrimSuffix(oneLine(r.Safer, 400), ".")+".")
	return oneLine(s, MaxRuleBytes-len("…"))
}

// phrases spells a command with its subcommand words, one phrase per choice of alternatives, at most
// eight: git with [push] is "git push"; gh with [repo, delete|archive] is "gh repo delete" and
// "gh repo archive".
func phrases(command string, subcommand []string) []string {
	out := []string{command}
	for _, position := range subcommand {
		var next []string
		for _, p := range out {
			for _, alt := range strings.Split(position, "|") {
				if len(next) < 8 {
					next = append(next, p+" "+alt)
				}
			}
		}
		out = next
	}
	return out
}

// wordOf turns a command, subcommand or long option into the recall word that names it: its words
// (mkfs.ext4 is "mkfs ext4", --no-verify is "no verify"), or "" when it has none or too many.
func wordOf(s string) string {
	var parts []string
	for _, t := range tokens(s) {
		parts = append(parts, t.text)
	}
	if len(parts) == 0 || len(parts) > 4 {
		return ""
	}
	w := strings.Join(parts, " ")
	if _, err := parseWord(w); err != nil {
		return ""
	}
	return w
}

// oneLine folds a text's line breaks and tabs to spaces, shows any other hidden character as ?, and
// bounds it.
func oneLine(s string, most int) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Map(func(r rune) rune {
		if text.Hidden(r) != "" {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) > most {
		cut := most
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
