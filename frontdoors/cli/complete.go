package cli

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/record"
)

// completeBound bounds one completion's reads: a shell waits on it at every Tab.
const completeBound = 2 * time.Second

// maxCandidates bounds what one completion offers.
const maxCandidates = 500

// candidates lists the values a field can take, each "value\tdescription", for the shell to offer.
type candidates func(ctx context.Context, a *app.App) ([]string, error)

// completerFor is how a verb's field is completed: record ids and slugs for a REF of its family, spec
// ids for a spec, intents and decisions where those are named, run ids for --run and the return
// paths of open awaits for a receipt; nil for a field whose values abcd cannot list. Every one reads
// through a read-only verb, so completing writes nothing.
func completerFor(verb, field string) candidates {
	family, _, _ := strings.Cut(verb, "_")
	switch {
	case field == "ref" && (family == "intent" || family == "spec" || family == "issue" || family == "decision"):
		return recordsOf(family+"_list", nil)
	case field == "spec":
		return recordsOf("spec_list", map[string]any{"lifecycle": "open"})
	case field == "intent":
		return recordsOf("intent_list", nil)
	case field == "supersedes":
		return recordsOf("decision_list", nil)
	case field == "run":
		// The verbs that go on with a run take an unfinished one; the others any.
		open := verb == "implement_step" || verb == "implement_abandon" || verb == "implement_run"
		return runsOf(open, false)
	case field == "path" && verb == "implement_receipt":
		return runsOf(true, true)
	}
	return nil
}

// recordsOf lists a family's records as the list verb answers them: each id with its title, then
// each slug (the file name's words after the id) with its id.
func recordsOf(list string, args map[string]any) candidates {
	return func(ctx context.Context, a *app.App) ([]string, error) {
		if args == nil {
			args = map[string]any{}
		}
		res, err := a.Call(ctx, list, args)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, r := range res.(record.RecordListResult).Records {
			out = append(out, r.ID+"\t"+oneLine(r.Title))
			if slug := strings.TrimPrefix(strings.TrimSuffix(path.Base(r.Path), ".md"), r.ID+"-"); slug != "" && slug != r.ID {
				out = append(out, slug+"\t"+r.ID)
			}
		}
		return out, nil
	}
}

// runsOf lists run ids with their spec and standing (open: the unfinished ones alone), or, with
// returns, the return path of every open await.
func runsOf(open, returns bool) candidates {
	return func(ctx context.Context, a *app.App) ([]string, error) {
		res, err := a.Call(ctx, "implement_status", map[string]any{"open": open})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, r := range res.(loop.ImplementStatusResult).Runs {
			if returns {
				for _, aw := range r.Awaits {
					out = append(out, aw.Return+"\t"+aw.Lane+" "+aw.Role)
				}
				continue
			}
			standing := "in progress"
			if r.Finished {
				standing = "finished"
			}
			out = append(out, r.Run+"\t"+strings.TrimSpace(r.Kind+" "+r.Spec+", "+standing))
		}
		return out, nil
	}
}

// complete offers what c lists that starts with toComplete, bounded in time and number. A listing
// that fails offers nothing and says why on stderr, as cobra's completions do, with the error
// directive so the shell falls back to nothing rather than to file names.
func complete(cmd *cobra.Command, a *app.App, c candidates, toComplete string) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(cmd.Context(), completeBound)
	defer cancel()
	all, err := c(ctx, a)
	if err != nil {
		cobra.CompErrorln(err.Error())
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, cand := range all {
		if strings.HasPrefix(cand, toComplete) && len(out) < maxCandidates {
			out = append(out, cand)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeFields gives a verb's command the completions of its positional arguments and flags, for
// the fields completerFor knows; a positional argument it does not know keeps the shell's own.
func completeFields(cmd *cobra.Command, a *app.App, verb string, fields []field) {
	var positional []candidates
	known := false
	for _, f := range fields {
		c := completerFor(verb, f.name)
		if f.flag == "" {
			positional = append(positional, c)
			known = known || c != nil
			continue
		}
		if c != nil {
			// The flag is the command's own, just made: registering cannot fail but for a bug.
			if err := cmd.RegisterFlagCompletionFunc(f.flag, func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return complete(cmd, a, c, toComplete)
			}); err != nil {
				panic(err)
			}
		}
	}
	if !known {
		return
	}
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) >= len(positional) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if c := positional[len(args)]; c != nil {
			return complete(cmd, a, c, toComplete)
		}
		return nil, cobra.ShellCompDirectiveDefault
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
