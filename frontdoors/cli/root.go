package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/ports/verb"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/hint"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
)

// options are the flags every verb shares.
type options struct {
	json bool
}

// NewRoot builds the command tree over the verb table. Bare abcd runs the status verb.
func NewRoot(a *app.App, s *IO) *cobra.Command {
	opts := &options{}
	root := &cobra.Command{
		Use:           "abcd",
		Short:         "Keep a repository's development record and run its build loop with AI agents",
		Long:          "abcd keeps a repository's development record (intents, specs, issues, decisions) and runs the\nbuild loop that turns a spec into reviewed changes with AI agents.\n\nBare abcd shows the repository's status.",
		Args:          noArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStatus(cmd, a, s, opts)
		},
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.PersistentFlags().BoolVar(&opts.json, "json", false, "print the result as one JSON document (see abcd schema list)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return refusal.New(refusal.CodeUsage, cmd.CommandPath(), err.Error(),
			fmt.Sprintf("run `%s --help` for the flags it takes", cmd.CommandPath()))
	})
	root.AddCommand(newStatusCmd(a, s, opts), newVersionCmd(a, s, opts), newSchemaCmd(a, s, opts), newConfigCmd(a, s, opts), newAhoyCmd(a, s, opts))
	root.AddCommand(recordCommands(a, s, opts)...)
	root.AddCommand(implementCommands(a, s, opts)...)
	root.AddCommand(newMCPCmd(a, s))
	root.AddCommand(newGuardCmd(a, s, opts))
	root.AddCommand(newRulesCmd(a, s, opts))
	root.AddCommand(newHistoryCmd(a, s, opts))
	root.AddCommand(newMergeDriverCmd(a, s))
	addProviderCommands(root, a, s, opts)
	root.SetHelpCommand(helpCommand(root))
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(completionCommand(root))
	return root
}

// Execute runs the command tree with args and returns the process exit code. It is the one place
// errors become exit codes: a refusal's kind decides, anything else is a fault.
func Execute(ctx context.Context, root *cobra.Command, s *IO, args []string) int {
	if args == nil {
		args = []string{} // cobra reads os.Args when handed nil
	}
	root.SetArgs(args)
	err := helpUnderJSON(args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return 0
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	if _, ok := refusal.As(err); !ok && isCobraUsage(err) {
		err = refusal.New(refusal.CodeUsage, "abcd "+strings.Join(args, " "), err.Error(), "run `abcd --help` for the commands abcd takes")
	}
	doc := clipEchoes(refusal.DocumentFor(err, newSpelling(root)), args)
	if wantsJSON(args) {
		data, encErr := verb.Encode(doc)
		if encErr == nil {
			_, _ = s.Out.Write(data)
		}
	} else {
		fmt.Fprintf(s.Err, "abcd: %s: %s: %s\n", doc.Kind, doc.What, doc.Why)
		if doc.Remedy != "" {
			fmt.Fprintf(s.Err, "remedy: %s\n", doc.Remedy)
		}
	}
	return doc.ExitCode
}

// exitCode ends a command whose result is already printed with a code other than 0: lint's
// error-level findings exit 1.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// wantsJSON reads --json from the raw args, since a refusal may come before flags are parsed. It
// accepts what the flag parser accepts, and the last spelling wins.
func wantsJSON(args []string) bool {
	want := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" {
			want = true
		} else if v, ok := strings.CutPrefix(a, "--json="); ok {
			if b, err := strconv.ParseBool(v); err == nil {
				want = b
			}
		}
	}
	return want
}

// isCobraUsage recognises cobra's own errors for an unknown command, which it returns as plain text.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") ||
		strings.HasPrefix(msg, "unknown shorthand flag") || strings.Contains(msg, "flag needs an argument")
}

// noArgs refuses positional arguments with the usage remedy.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasSubCommands() {
		remedy := fmt.Sprintf("run `%s --help` for the commands it takes", cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which SuggestionsFor alone does not apply
		}
		if near := suggestionsFor(cmd, args[0]); len(near) > 0 {
			remedy = fmt.Sprintf("did you mean `%s %s`? (`%s --help` lists the commands it takes)", cmd.CommandPath(), strings.Join(near, "` or `"+cmd.CommandPath()+" "), cmd.CommandPath())
		}
		return refusal.New(refusal.CodeUsage, cmd.CommandPath(), fmt.Sprintf("unknown command %q", text.Clip(args[0])), remedy)
	}
	return refusal.New(refusal.CodeUsage, cmd.CommandPath(), "takes no arguments",
		fmt.Sprintf("run `%s --help` for its usage", cmd.CommandPath()))
}

// suggestionsFor is cobra's SuggestionsFor, skipped for a word too long to be near any command's
// name: cobra measures each distance with a table the size of the two words, so a 100 KB argument
// cost half a second of suggestions that could never be made.
func suggestionsFor(cmd *cobra.Command, typed string) []string {
	longest := 0
	for _, c := range cmd.Commands() {
		longest = max(longest, len(c.Name()))
		for _, s := range c.SuggestFor {
			longest = max(longest, len(s))
		}
	}
	if utf8.RuneCountInString(typed) > longest+cmd.SuggestionsMinimumDistance {
		return nil // more characters than any name holds, past the distance: no edit bridges it
	}
	return cmd.SuggestionsFor(typed)
}

// exactArgs refuses anything but n positional arguments, naming the usage line.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		return usageRefusal(cmd, fmt.Sprintf("takes %d argument(s), got %d", n, len(args)))
	}
}

func usageRefusal(cmd *cobra.Command, why string) error {
	return refusal.New(refusal.CodeUsage, cmd.CommandPath(), why, fmt.Sprintf("usage: %s", cmd.UseLine()))
}

// declared finds a declared verb; a command without its declaration is a programming error.
func declared(name string) verb.Verb {
	v, ok := app.Lookup(name)
	if !ok {
		panic("cli: no verb declared as " + name)
	}
	return v
}

// group is a command that only holds subcommands; run bare, it is refused rather than printing help
// on stdout, so --json still gets one document.
func group(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return refusal.New(refusal.CodeUsage, cmd.CommandPath(), "needs a subcommand",
				fmt.Sprintf("run `%s --help` for its subcommands", cmd.CommandPath()))
		},
	}
}

// command starts a cobra command from the verb's declaration, so names and summaries come from the
// table and nowhere else.
func command(name, use string) *cobra.Command {
	v := declared(name)
	return &cobra.Command{
		Use:         use,
		Short:       v.Summary,
		Example:     indent(v.Example),
		Annotations: map[string]string{"verb": v.Name},
		Args:        noArgs,
	}
}

// indent sets each of an example's lines two spaces in, as cobra's help sets its sections.
func indent(example string) string {
	lines := strings.Split(strings.TrimSpace(example), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// spelled is a result with its next steps spelled as this command line does, from the commands'
// own declarations.
func spelled[R any](cmd *cobra.Command, r R) R { return hint.Spell(r, newSpelling(cmd.Root())) }

// emit prints a result: its JSON under --json, or the text rendering.
func emit(s *IO, opts *options, result any, text func() string) error {
	if opts.json {
		data, err := verb.Encode(result)
		if err != nil {
			return err
		}
		_, err = s.Out.Write(data)
		return err
	}
	_, err := fmt.Fprint(s.Out, text())
	return err
}

// VerbCommands maps each verb name to the command path that runs it; tests hold it to the table.
func VerbCommands(root *cobra.Command) map[string]string {
	out := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if v, ok := c.Annotations["verb"]; ok {
			out[v] = c.CommandPath()
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}
