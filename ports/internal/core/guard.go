package core

import (
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

func (a *Core) Warn(msg string) {
	if a.Diag != nil {
		a.Diag.Warn(msg)
	}
}

// errText is an error's sentence for a notice.
func ErrText(err error) string {
	if r, ok := refusal.As(err); ok {
		return text.Clip(r.Why)
	}
	return text.Clip(err.Error())
}

// onField names the verb's field a refusal from a value's own check is about.
func OnField(err error, verb, field string) error {
	if r, ok := refusal.As(err); ok {
		return r.On(verb, field)
	}
	return err
}
