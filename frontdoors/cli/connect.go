package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/setup"
)

// addProviderCommands puts ahoy connect and ahoy disconnect under the ahoy group.
func addProviderCommands(root *cobra.Command, a *app.App, s *IO, opts *options) {
	for _, c := range root.Commands() {
		if c.Name() != "ahoy" {
			continue
		}
		connect := verbCommand(a, s, opts, "ahoy_connect", "connect [NAME --base-url URL --model ID | --runner NAME --cli CLI]", renderConnect, optArg("name"),
			textFlag("base_url", "the provider's base URL with its version path: https, or http to a loopback address"),
			textFlag("model", "the model the verification call asks for; the first on the provider's models (a runner: the CLI's default when unset)"),
			listFlag("tiers", "tier", "TIER=ID: the model serving local, economy or frontier (repeatable)"),
			textFlag("key_env", "the environment variable holding the key (its name, never the key)"),
			textFlag("key_file", "an absolute path to a file holding the key: yours, mode 0600"),
			textFlag("runner", "connect a coding-agent CLI as a runner of this name, instead of a provider"),
			textFlag("cli", "the runner's CLI: claude, codex, gemini, or acp for any agent speaking the Agent Client Protocol"),
			textFlag("executable", "the CLI's absolute path (default: its command on PATH)"),
			listFlag("args", "arg", "an argument an acp runner's executable is started with, such as --arg=--acp (repeatable)"),
			listFlag("credential_env", "credential-env", "a variable holding the CLI's credentials, by name (repeatable)"),
			listFlag("pass_env", "pass-env", "another variable the CLI needs, by name: a base URL, a proxy, a region (repeatable)"),
			listFlag("roles", "role", "an agent whose steps the runner takes: implementer, ruthless-reviewer, security-reviewer or intent-auditor (repeatable)"),
			listFlag("endpoints", "endpoint", "a base URL the runner's CLI reaches beside its vendor's API that no *_BASE_URL variable names: https, or http to a loopback address (repeatable)"),
			listFlag("prices", "price", `"MODEL INPUT OUTPUT [CACHE_READ CACHE_WRITE]": a model's price in US dollars per million tokens, which prices the tokens its steps report (repeatable)`),
			textFlag("billing", "subscription: a flat fee, so every step's cost is unmetered; metered, the default: steps cost what they report, else their tokens at --price"),
			textFlag("sandbox", "off runs the runner's steps and its proving call outside abcd's sandbox (every receipt says so); on, the default, inside it"))
		connect.Long = "Connect an OpenAI-compatible provider: one small verification call with the model and key, then\nthe provider's block in the machine configuration file ($ABCD_HOME/config.json), written atomically,\n0600, under a lock. An existing block of that name is never replaced: disconnect it first.\nWith neither --key-env nor --key-file the provider is a keyless local server.\n\nWith --runner NAME --cli CLI, connect a headless coding-agent CLI as a runner instead: abcd checks\nits --version against the versions it knows, its --help for every flag it will pass, and makes one\nsmall proving call with the variables you name, before writing the runner's block. Each --role sends\nthat agent's steps to the runner (oracle.roles.<agent>.runner), in the same write; an agent the\nmachine already sends elsewhere is refused.\n\nWith --cli acp the runner is any agent that speaks the Agent Client Protocol over stdio: give its\n--executable and each --arg it starts with; abcd is its client, and the proving call is one ACP session."
		disconnect := verbCommand(a, s, opts, "ahoy_disconnect", "disconnect NAME", renderDisconnect, arg("name"))
		c.AddCommand(connect, disconnect)
	}
}

func renderConnect(s *IO, r setup.AhoyConnectResult) string {
	var b strings.Builder
	if c := r.Runner; c != nil {
		fmt.Fprintf(&b, "%s runner %s: %s %s\n", s.bold("connected"), r.Name, c.CLI, c.Version)
		fmt.Fprintf(&b, "  executable  %s\n", c.Executable)
		fmt.Fprintf(&b, "  flags       %d checked in its --help\n", len(c.Flags))
		if r.ModelReported != "" {
			fmt.Fprintf(&b, "  answered as %s\n", r.ModelReported)
		}
		if len(r.Tiers) > 0 {
			fmt.Fprintf(&b, "  tiers       %s\n", strings.Join(r.Tiers, ", "))
		}
		if len(c.CredentialEnv) > 0 {
			fmt.Fprintf(&b, "  credentials %s\n", strings.Join(c.CredentialEnv, ", "))
		}
		if len(c.PassEnv) > 0 {
			fmt.Fprintf(&b, "  passed      %s\n", strings.Join(c.PassEnv, ", "))
		}
		if c.Sandbox != "" {
			fmt.Fprintf(&b, "  sandbox     %s\n", c.Sandbox)
		}
		fmt.Fprintf(&b, "  written to  %s\n", r.File)
		if len(r.Routed) > 0 {
			fmt.Fprintf(&b, "  takes       %s\n", strings.Join(r.Routed, ", "))
		}
		fmt.Fprintf(&b, "next: %s\n", r.Next.Text)
		return b.String()
	}
	fmt.Fprintf(&b, "%s %s (answered as %s)\n", s.bold("connected"), r.Name, r.ModelReported)
	fmt.Fprintf(&b, "  models      %s\n", strings.Join(r.Models, ", "))
	if len(r.Tiers) > 0 {
		fmt.Fprintf(&b, "  tiers       %s\n", strings.Join(r.Tiers, ", "))
	}
	fmt.Fprintf(&b, "  key         %s\n", r.Credential)
	fmt.Fprintf(&b, "  written to  %s\n", r.File)
	routed := "no step (see next)"
	if len(r.Routed) > 0 {
		routed = strings.Join(r.Routed, ", ")
	}
	fmt.Fprintf(&b, "  takes       %s\n", routed)
	for _, sk := range r.Skipped {
		fmt.Fprintf(&b, "  skipped     %s\n", sk)
	}
	fmt.Fprintf(&b, "next: %s\n", r.Next.Text)
	return b.String()
}

func renderDisconnect(s *IO, r setup.AhoyDisconnectResult) string {
	if !r.Removed {
		return fmt.Sprintf("%s configures no provider or runner %s; nothing changed\n", r.File, r.Name)
	}
	out := fmt.Sprintf("%s %s from %s\n", s.bold("disconnected"), r.Name, r.File)
	if len(r.RolesRemoved) > 0 {
		out += fmt.Sprintf("  also removed the roles pointing at it: %s\n", strings.Join(r.RolesRemoved, ", "))
	}
	return out
}
