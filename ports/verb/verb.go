// Package verb declares a verb once: its name, CLI words, summary, annotations, input and result
// types, and the use case it runs, for the verb table, both front doors and the schema generator.
package verb

import (
	"context"
	"fmt"
	"reflect"
)

// Verb is one declaration: everything a front door or the schema generator needs to know about it.
type Verb struct {
	// Name is the verb's one name: the MCP tool name and its schemas' prefix. Plain [a-z0-9_].
	Name string
	// Path is the CLI command words under abcd.
	Path    []string
	Summary string
	// Example is one or more command lines, one a line, that run the verb as a person would type
	// them: the CLI's help shows them under Examples:, and a test holds every verb to having one.
	Example string
	// ReadOnly, Destructive, Idempotent and OpenWorld are the MCP tool annotations, true to what the
	// use case does.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// Dispatches names the roster agents this verb may hand work to; empty for most verbs.
	Dispatches []string
	// Long marks a verb that may run for hours (it drives a run to its end, bounded by the routes'
	// own bounds): a front door gives it no short deadline of its own, and reports its progress.
	Long bool

	inputType  reflect.Type
	resultType reflect.Type
	deps       reflect.Type
	run        func(ctx context.Context, deps any, in any) (any, error)
}

// InputType and ResultType are the boundary types the schema generator reflects.
func (v Verb) InputType() reflect.Type  { return v.inputType }
func (v Verb) ResultType() reflect.Type { return v.resultType }

// DepsType is the dependency struct the verb's use case takes: the assembly hands it that, and
// nothing more.
func (v Verb) DepsType() reflect.Type { return v.deps }

// NewInput returns a pointer to a fresh zero input, for a front door to fill.
func (v Verb) NewInput() any { return reflect.New(v.inputType).Interface() }

// Run runs the verb's use case on deps (a value of DepsType) and an input made by NewInput.
func (v Verb) Run(ctx context.Context, deps any, in any) (any, error) {
	if v.run == nil {
		return nil, fmt.Errorf("verb %s: declared without a use case", v.Name)
	}
	return v.run(ctx, deps, in)
}

// Declare binds a typed use case to its declaration, so the table cannot pair a verb with the wrong
// input or result type, nor hand a use case another family's dependencies.
func Declare[D, I, R any](v Verb, run func(context.Context, D, *I) (R, error)) Verb {
	v.inputType = reflect.TypeFor[I]()
	v.resultType = reflect.TypeFor[R]()
	v.deps = reflect.TypeFor[D]()
	v.run = func(ctx context.Context, deps any, in any) (any, error) {
		d, ok := deps.(D)
		if !ok {
			return nil, fmt.Errorf("verb %s: dependencies are %T, want %s", v.Name, deps, v.deps)
		}
		typed, ok := in.(*I)
		if !ok {
			return nil, fmt.Errorf("verb %s: input is %T, want *%s", v.Name, in, v.inputType)
		}
		return run(ctx, d, typed)
	}
	return v
}
