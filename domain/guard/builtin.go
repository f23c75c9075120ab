package guard

import (
	_ "embed"
	"sync"
)

//go:embed builtin.json
var builtinJSON []byte

// BuiltinJSON is the built-in registry as abcd ships it.
func BuiltinJSON() []byte { return builtinJSON }

var builtin = sync.OnceValues(func() (File, error) { return Decode("built-in guard rules", builtinJSON) })

// Builtin is the built-in registry, decoded as strictly as a repository's file. A fault here is a
// defect in this build; a test holds it at none.
func Builtin() (File, error) { return builtin() }
