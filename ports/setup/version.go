package setup

import (
	"context"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/ports/verb"
)

// VersionInput takes nothing.
type VersionInput struct{}

// VersionResult is what abcd version reports.
type VersionResult struct {
	Version         string `json:"version" jsonschema:"minLength=1"`
	Commit          string `json:"commit"`
	Go              string `json:"go"`
	SchemaNamespace string `json:"schema_namespace" jsonschema:"format=uri"`
}

func VersionVerb() verb.Verb {
	return verb.Declare(verb.Verb{
		Name:       "version",
		Path:       []string{"version"},
		Example:    "abcd version\nabcd version --json",
		Summary:    "Print abcd's version, commit and schema namespace",
		ReadOnly:   true,
		Idempotent: true,
	}, version)
}

func version(_ context.Context, a *Deps, _ *VersionInput) (VersionResult, error) {
	v := a.Build.Version
	if v == "" {
		v = "dev"
	}
	return VersionResult{Version: v, Commit: a.Build.Commit, Go: a.Build.Go, SchemaNamespace: contract.Namespace}, nil
}
