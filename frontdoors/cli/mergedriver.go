package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/record"
)

// newMergeDriverCmd is the record's merge driver, the one command git runs rather than a person:
// `abcd merge-record %O %A %B %L %P`. It writes the merge over %A (ours) and exits 0 when it is
// clean, 1 when it holds a conflict between markers, as git's merge drivers do. Hidden from help;
// plumbing, not a verb (docs/architecture.md says why).
func newMergeDriverCmd(a *app.App, s *IO) *cobra.Command {
	return &cobra.Command{
		Use:    record.MergeDriverVerb + " BASE OURS THEIRS MARKER_SIZE PATH",
		Short:  "The record's merge driver, run by git (ahoy install sets it up)",
		Hidden: true,
		Args:   exactArgs(5),
		RunE: func(c *cobra.Command, args []string) error {
			size, err := strconv.Atoi(args[3])
			if err != nil || size < 1 || size > 1000 {
				return usageRefusal(c, fmt.Sprintf("the marker size %q is not a number from 1 to 1000", text.Clip(args[3])))
			}
			res, err := a.MergeRecord(c.Context(), record.MergeDriverInput{Base: args[0], Ours: args[1], Theirs: args[2], MarkerSize: size, Path: args[4]})
			if err != nil {
				return err
			}
			fmt.Fprint(s.Err, res.Say())
			if len(res.Conflicts) > 0 {
				return exitCode(1)
			}
			return nil
		},
	}
}
