package apptest

import (
	"github.com/abcd-dev/abcd/domain/loop"
)

func VerdictFor(role string) []byte {
	word := map[string]string{loop.RoleRuthless: "SHIP", loop.RoleSecurity: "APPROVE"}[role]
	return []byte("## Verdict\n\n" + word + "\n\nNothing to fix.\n")
}
