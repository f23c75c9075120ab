package cli

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// shells are the completion scripts abcd writes.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// helpCommand replaces cobra's, which prints the root's help for an unknown topic and exits 0.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || target == nil {
				topic := fmt.Sprint(args)
				return refusal.New(refusal.CodeUsage, "abcd help", fmt.Sprintf("no command %s", text.Clip(topic)), "run `abcd --help` for the commands abcd takes")
			}
			return target.Help()
		},
	}
}

// completionCommand replaces cobra's group, whose unknown shells print help and exit 0.
func completionCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:       "completion SHELL",
		Short:     "Print the shell completion script for bash, zsh, fish or powershell",
		ValidArgs: shells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && slices.Contains(shells, args[0]) {
				return nil
			}
			return usageRefusal(cmd, "takes one shell: bash, zsh, fish or powershell")
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
}

// helpUnderJSON refuses --help beside --json: help is text, and under --json stdout carries only
// one JSON document.
func helpUnderJSON(args []string) error {
	if !wantsJSON(args) {
		return nil
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--help" || a == "-h" || a == "help" {
			return refusal.New(refusal.CodeUsage, "abcd --help --json", "help is text, and --json promises one JSON document",
				"drop --json to read the help, or use `abcd schema show <verb>.input` for a verb's input")
		}
	}
	return nil
}
