package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/ports/app"
)

// fieldKind is how a command line carries one input field.
type fieldKind int

const (
	textField fieldKind = iota // a string
	boolField                  // a flag that is set or not
	listField                  // a repeatable flag
	intField                   // a whole number
)

// field is one input field a command fills, by the field's JSON name: from a positional argument,
// or from a flag. The CLI never checks a value: the verb's input type does, when the collected
// arguments are decoded (verb.Verb.Decode), exactly as it does for MCP.
type field struct {
	name     string
	flag     string // the flag's name; "" for a positional argument
	short    string // the flag's one-letter name, if any
	usage    string
	kind     fieldKind
	optional bool // a positional argument that may be left out
	def      string
}

// arg is a required positional argument; optArg one that may be left out.
func arg(name string) field    { return field{name: name} }
func optArg(name string) field { return field{name: name, optional: true} }

// textFlag is a flag carrying one string for the field of the same name.
func textFlag(name, usage string) field {
	return field{name: name, flag: strings.ReplaceAll(name, "_", "-"), usage: usage}
}

// boolFlag is a flag that is set or not.
func boolFlag(name, short, usage string) field {
	return field{name: name, flag: strings.ReplaceAll(name, "_", "-"), short: short, usage: usage, kind: boolField}
}

// listFlag is a repeatable flag; each use adds one item to the field's list.
func listFlag(name, flag, usage string) field {
	return field{name: name, flag: flag, usage: usage, kind: listField}
}

// intFlag is a flag carrying one whole number.
func intFlag(name, usage string) field {
	return field{name: name, flag: strings.ReplaceAll(name, "_", "-"), usage: usage, kind: intField}
}

// withDefault shows a default in the flag's help; the verb applies it when the field is absent.
func (f field) withDefault(def string) field { f.def = def; return f }

// Annotations recording how a command spells its verb's fields, read by the refusal spelling.
const (
	annotationVerb  = "verb"
	annotationArgs  = "args"  // positional fields, in order, comma-separated
	annotationFlags = "flags" // field=flag pairs, comma-separated
)

// verbCommand builds the command that runs a verb: its summary from the table, its positional
// arguments and flags filling the input by field name, and the result rendered as text or, under
// --json, as the result document.
func verbCommand[R any](a *app.App, s *IO, opts *options, verb, use string, render func(*IO, R) string, fields ...field) *cobra.Command {
	return verbCommandExit(a, s, opts, verb, use, render, nil, fields...)
}

// verbCommandExit is verbCommand for a verb whose printed result can still end the process with a
// code other than 0 (lint's error-level findings): exit decides, after the result is printed.
func verbCommandExit[R any](a *app.App, s *IO, opts *options, verb, use string, render func(*IO, R) string, exit func(R) error, fields ...field) *cobra.Command {
	cmd := command(verb, use)
	var positional, flagPairs []string
	texts, bools, lists, ints := map[string]*string{}, map[string]*bool{}, map[string]*[]string{}, map[string]*int{}
	required := 0
	for _, f := range fields {
		if f.flag == "" {
			positional = append(positional, f.name)
			if !f.optional {
				required++
			}
			continue
		}
		flagPairs = append(flagPairs, f.name+"="+f.flag)
		switch f.kind {
		case boolField:
			b := new(bool)
			cmd.Flags().BoolVarP(b, f.flag, f.short, false, f.usage)
			bools[f.name] = b
		case listField:
			l := new([]string)
			cmd.Flags().StringArrayVar(l, f.flag, nil, f.usage)
			lists[f.name] = l
		case intField:
			n := new(int)
			cmd.Flags().IntVar(n, f.flag, 0, f.usage)
			ints[f.name] = n
		default:
			t := new(string)
			cmd.Flags().StringVarP(t, f.flag, f.short, f.def, f.usage)
			texts[f.name] = t
		}
	}
	cmd.Annotations[annotationArgs] = strings.Join(positional, ",")
	cmd.Annotations[annotationFlags] = strings.Join(flagPairs, ",")
	cmd.Args = argCount(required, len(positional))
	completeFields(cmd, a, verb, fields)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		in := map[string]any{}
		for i, a := range args {
			in[positional[i]] = a
		}
		for _, f := range fields {
			if f.flag == "" || !cmd.Flags().Changed(f.flag) {
				continue // an absent flag is an absent field: the verb's default applies
			}
			switch f.kind {
			case boolField:
				in[f.name] = *bools[f.name]
			case listField:
				in[f.name] = *lists[f.name]
			case intField:
				in[f.name] = *ints[f.name]
			default:
				in[f.name] = *texts[f.name]
			}
		}
		res, err := a.Call(cmd.Context(), verb, in)
		if err != nil {
			return err
		}
		r := spelled(cmd, res.(R))
		if err := emit(s, opts, r, func() string { return render(s, r) }); err != nil {
			return err
		}
		if exit != nil {
			return exit(r)
		}
		return nil
	}
	return cmd
}

// argCount refuses fewer than min or more than max positional arguments, naming the usage line.
func argCount(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) >= min && len(args) <= max:
			return nil
		case max == 0:
			return noArgs(cmd, args)
		case min == max:
			return usageRefusal(cmd, fmt.Sprintf("takes %d argument(s), got %d", max, len(args)))
		}
		return usageRefusal(cmd, fmt.Sprintf("takes %d to %d arguments, got %d", min, max, len(args)))
	}
}
