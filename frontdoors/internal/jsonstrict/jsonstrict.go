// Package jsonstrict is domain/strictjson under its old name, for the callers not yet moved to it;
// it holds no code of its own and goes once they are.
package jsonstrict

import (
	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

type (
	Limits  = strictjson.Limits
	Error   = strictjson.Error
	Kind    = strictjson.Kind
	Segment = strictjson.Segment
)

const (
	Syntax    = strictjson.Syntax
	Duplicate = strictjson.Duplicate
	Limit     = strictjson.Limit
)

var (
	Parse      = strictjson.Parse
	ParseCount = strictjson.ParseCount
	JoinPath   = strictjson.JoinPath
	Clip       = text.Clip
)
