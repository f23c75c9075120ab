package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/setup"
)

func newAhoyCmd(a *app.App, s *IO, opts *options) *cobra.Command {
	ahoy := group("ahoy", "Set abcd up in a repository, or take it out")
	install := verbCommand(a, s, opts, "ahoy_install", "install", renderInstall,
		boolFlag("yes", "y", "accept the required steps without asking; skip the optional routing offers"))
	install.Long = "Set abcd up in this git repository: the record folders, .abcd/config.json, .abcd/.gitignore for\nlocal run state and, only with your consent, the routing table on your machine and in the repository.\nRunning it again changes nothing that is already there; a declined offer is made again next time."
	sandbox := verbCommand(a, s, opts, "ahoy_sandbox", "sandbox", renderSandbox)
	sandbox.Long = "Turn Claude Code's own sandbox on for this repository, configured for the loop: a sandbox block in\n.claude/settings.local.json (every other member kept). Its Bash commands may then not write .abcd/ or\n.git/, nor read your credentials or $ABCD_HOME; docs/security.md says what it adds and what it cannot\nexpress. Running it is the consent; ahoy uninstall takes the block out."
	uninstall := verbCommand(a, s, opts, "ahoy_uninstall", "uninstall", renderUninstall)
	ahoy.AddCommand(install, sandbox, uninstall)
	return ahoy
}

func renderInstall(s *IO, r setup.AhoyInstallResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", s.bold("abcd ahoy install:"), r.Root)
	for _, st := range r.Steps {
		fmt.Fprintf(&b, "  %-26s %-9s %s\n", st.Category, st.Status, strings.Join(st.Paths, " "))
	}
	if slices.Contains(r.Written, setup.ClaudeSettingsRel) {
		fmt.Fprintf(&b, "  %-26s %-9s %s\n", setup.HarnessSandboxCategory, "created", setup.ClaudeSettingsRel)
	}
	if len(r.OptionalSkipped) > 0 {
		fmt.Fprintf(&b, "skipped (offered again next time): %s\n", strings.Join(r.OptionalSkipped, ", "))
	}
	for _, n := range r.Next {
		fmt.Fprintf(&b, "next: %s\n", n.Text)
	}
	return b.String()
}

func renderSandbox(s *IO, r setup.AhoySandboxResult) string {
	return fmt.Sprintf("%s %s\n  %-26s %-9s %s\n", s.bold("abcd ahoy sandbox:"), r.Root, setup.HarnessSandboxCategory, r.Status, r.File)
}

func renderUninstall(s *IO, r setup.AhoyUninstallResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", s.bold("abcd ahoy uninstall:"), r.Root)
	for _, p := range r.Removed {
		fmt.Fprintf(&b, "  removed  %s\n", p)
	}
	for _, p := range r.Kept {
		fmt.Fprintf(&b, "  kept     %s\n", p)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
