package core

import (
	"github.com/abcd-dev/abcd/domain/refusal"
)

// problemText is a refusal's sentence for a board that cannot show its lines.
func ProblemText(err error) string {
	if r, ok := refusal.As(err); ok {
		return r.Error()
	}
	return err.Error()
}
