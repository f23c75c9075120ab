// Package review holds what the build loop's agents hand back and the rules that verify it: the
// reviewers' markdown returns and their verdict words, the intent-auditor's JSON return, the
// implementer's receipt, and the fallback receipt a route that did not return leaves behind. It is
// pure: every function is handed bytes and facts, never a path, a clock or a process.
package review

import (
	"fmt"
	"slices"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// Role is one of the loop's agents, by its roster name.
type Role string

const (
	Implementer Role = "implementer"
	Ruthless    Role = "ruthless-reviewer"
	Security    Role = "security-reviewer"
	Auditor     Role = "intent-auditor"
)

// Roles lists every role, in the loop's order.
func Roles() []Role { return []Role{Implementer, Ruthless, Security, Auditor} }

func (Role) SchemaEnum() contract.Rule { return contract.Enum(Roles()...) }

// Validators lists the roles that validate a lane's work, in the loop's order.
func Validators() []Role { return []Role{Ruthless, Security, Auditor} }

// Valid reports whether r is one of the loop's roles.
func (r Role) Valid() bool {
	switch r {
	case Implementer, Ruthless, Security, Auditor:
		return true
	}
	return false
}

// Words returns the verdict words a role writes: those that pass and those that fail. The
// implementer and an unknown role write none. Each call returns fresh slices.
func Words(r Role) (pass []string, fail []string) {
	switch r {
	case Ruthless:
		return []string{"SHIP"}, []string{"FIX FIRST"}
	case Security:
		return []string{"APPROVE"}, []string{"BLOCK", "NEEDS-INPUT"}
	case Auditor:
		return []string{"MET", "MET_WITH_CONCERNS"}, []string{"NOT_MET", "INCONCLUSIVE"}
	}
	return nil, nil
}

// Word values a Verdict carries for the auditor, whose per-criterion words are folded into one.
const (
	WordPass = "PASS"
	WordFail = "FAIL"
)

// MaxReturnBytes bounds a reviewer's or the auditor's return.
const MaxReturnBytes = 256 << 10

// MaxReceiptBytes bounds the implementer's receipt.
const MaxReceiptBytes = 64 << 10

// MaxFindingsBytes bounds Verdict.Findings.
const MaxFindingsBytes = 64 << 10

// Verdict is what the loop records of one validator's return.
type Verdict struct {
	Role Role `json:"role"`
	// Word is the verdict word as written (SHIP, FIX FIRST, ...); for the auditor PASS or FAIL.
	Word string `json:"word"`
	Pass bool   `json:"pass"`
	// Findings is the text after the verdict line (reviewers) or the non-MET criteria and the
	// summary (auditor), trimmed, at most MaxFindingsBytes, cut on a rune boundary.
	Findings string `json:"findings" jsonschema:"maxLength=65536"`
}

func (Verdict) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"role": contract.Enum(Validators()...),
		"word": contract.Enum(append(ReviewerWords(), WordPass, WordFail)...)}
}

// ReviewerWords lists the reviewers' verdict words, role by role, passing words first.
func ReviewerWords() []string {
	var out []string
	for _, r := range []Role{Ruthless, Security} {
		pass, fail := Words(r)
		out = append(append(out, pass...), fail...)
	}
	return out
}

// wordList renders a role's words for a refusal: "SHIP or FIX FIRST", "APPROVE, BLOCK or NEEDS-INPUT".
func wordList(r Role) string {
	pass, fail := Words(r)
	all := slices.Concat(pass, fail) // never append to pass: its array may be the role's own
	switch len(all) {
	case 0:
		return ""
	case 1:
		return all[0]
	}
	out := ""
	for i, w := range all[:len(all)-1] {
		if i > 0 {
			out += ", "
		}
		out += w
	}
	return out + " or " + all[len(all)-1]
}

// Reviewer is a reviewer role a person asks for by name: ruthless-reviewer or security-reviewer.
type Reviewer string

// UnmarshalText refuses any other name (role_unknown).
func (r *Reviewer) UnmarshalText(b []byte) error {
	switch Role(b) {
	case Ruthless, Security:
		*r = Reviewer(b)
		return nil
	}
	shown := text.Clip(string(b))
	return refusal.New(refusal.CodeRoleUnknown, "", fmt.Sprintf("%q is not a reviewer", shown),
		"use ruthless-reviewer or security-reviewer, or leave it out for both")
}

func (Reviewer) SchemaRule() contract.Rule {
	return contract.Rule{Description: "one reviewer: ruthless-reviewer or security-reviewer", Enum: []string{string(Ruthless), string(Security)}}
}
