// Package refusal is the one shape every front door uses to say no: what was refused, why, and the
// remedy. Use cases return *Error; front doors render it as text or as the refusal document.
package refusal

import (
	"errors"
	"fmt"
)

// Kind says which exit code a refusal maps to and whether trying again may help.
type Kind string

const (
	// Refused: bad input or a rule said no. Nothing was written. Exit 2.
	Refused Kind = "refused"
	// Contention: a lock is held or a run is paused; trying again later may work. Exit 3.
	Contention Kind = "contention"
	// Fault: something unexpected broke. Exit 1.
	Fault Kind = "fault"
)

// ExitCode is the process exit code for a kind.
func (k Kind) ExitCode() int {
	switch k {
	case Refused:
		return 2
	case Contention:
		return 3
	default:
		return 1
	}
}

// Error is a refusal a use case returns. Code is a stable snake_case identifier for machines; What,
// Why and Remedy are sentences for people. None of them may carry a secret.
type Error struct {
	Kind   Kind
	Code   string
	What   string
	Why    string
	Remedy string
}

func (e *Error) Error() string {
	if e.Remedy == "" {
		return fmt.Sprintf("%s: %s", e.What, e.Why)
	}
	return fmt.Sprintf("%s: %s (%s)", e.What, e.Why, e.Remedy)
}

// New is a refusal of kind Refused.
func New(code, what, why, remedy string) *Error {
	return &Error{Kind: Refused, Code: code, What: what, Why: why, Remedy: remedy}
}

// Busy is a refusal of kind Contention.
func Busy(code, what, why, remedy string) *Error {
	return &Error{Kind: Contention, Code: code, What: what, Why: why, Remedy: remedy}
}

// As finds a refusal in err's chain.
func As(err error) (*Error, bool) {
	var r *Error
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// Document is the published refusal document: under --json it is the one document stdout carries when
// a verb does not return its result.
type Document struct {
	Kind     Kind   `json:"kind" jsonschema:"enum=refused,enum=contention,enum=fault"`
	Code     string `json:"code" jsonschema:"pattern=^[a-z][a-z0-9_]*$"`
	What     string `json:"what" jsonschema:"minLength=1"`
	Why      string `json:"why" jsonschema:"minLength=1"`
	Remedy   string `json:"remedy"`
	ExitCode int    `json:"exit_code" jsonschema:"enum=1,enum=2,enum=3"`
}

// DocumentOf renders any error as a refusal document; an error that is not a refusal is a fault.
func DocumentOf(err error) Document {
	r, ok := As(err)
	if !ok {
		r = &Error{Kind: Fault, Code: "fault", What: "abcd", Why: err.Error(),
			Remedy: "this is a bug or an environment problem; run again with the same input and report it if it persists"}
	}
	kind := r.Kind
	if kind == "" {
		kind = Refused
	}
	why := r.Why
	if why == "" {
		why = "no reason given"
	}
	what := r.What
	if what == "" {
		what = "abcd"
	}
	code := r.Code
	if code == "" {
		code = string(kind)
	}
	return Document{Kind: kind, Code: code, What: what, Why: why, Remedy: r.Remedy, ExitCode: kind.ExitCode()}
}
