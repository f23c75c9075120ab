package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
)

// addProviderCommands puts ahoy connect and ahoy disconnect under the ahoy group.
func addProviderCommands(root *cobra.Command, a *app.App, s *IO, opts *options) {
	for _, c := range root.Commands() {
		if c.Name() != "ahoy" {
			continue
		}
		connect := verbCommand(a, s, opts, "ahoy_connect", "connect NAME --base-url URL --model ID", renderConnect, arg("name"),
			textFlag("base_url", "the provider's base URL with its version path: https, or http to a loopback address"),
			textFlag("model", "the model the verification call asks for; the first on the provider's models"),
			listFlag("tiers", "tier", "TIER=ID: the model serving local, economy or frontier (repeatable)"),
			textFlag("key_env", "the environment variable holding the key (its name, never the key)"),
			textFlag("key_file", "an absolute path to a file holding the key: yours, mode 0600"))
		connect.Long = "Connect an OpenAI-compatible provider: one small verification call with the model and key, then\nthe provider's block in the machine configuration file ($ABCD_HOME/config.json), written atomically,\n0600, under a lock. An existing block of that name is never replaced: disconnect it first.\nWith neither --key-env nor --key-file the provider is a keyless local server."
		disconnect := verbCommand(a, s, opts, "ahoy_disconnect", "disconnect NAME", renderDisconnect, arg("name"))
		c.AddCommand(connect, disconnect)
	}
}

func renderConnect(s *IO, r app.AhoyConnectResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (answered as %s)\n", s.bold("connected"), r.Name, r.ModelReported)
	fmt.Fprintf(&b, "  models      %s\n", strings.Join(r.Models, ", "))
	if len(r.Tiers) > 0 {
		fmt.Fprintf(&b, "  tiers       %s\n", strings.Join(r.Tiers, ", "))
	}
	fmt.Fprintf(&b, "  key         %s\n", r.Credential)
	fmt.Fprintf(&b, "  written to  %s\n", r.File)
	fmt.Fprintf(&b, "next: %s\n", r.Next.Text)
	return b.String()
}

func renderDisconnect(s *IO, r app.AhoyDisconnectResult) string {
	if !r.Removed {
		return fmt.Sprintf("%s configures no provider %s; nothing changed\n", r.File, r.Name)
	}
	out := fmt.Sprintf("%s %s from %s\n", s.bold("disconnected"), r.Name, r.File)
	if len(r.RolesRemoved) > 0 {
		out += fmt.Sprintf("  also removed the roles pointing at it: %s\n", strings.Join(r.RolesRemoved, ", "))
	}
	return out
}
