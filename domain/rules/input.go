package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// DomainName names a domain (or an alias of one) a verb is asked about.
type DomainName string

// UnmarshalText refuses what cannot be a domain's name (rules_domain_invalid): it is the same rule a
// rules file's names are held to, so a name that can be asked for can also be declared.
func (n *DomainName) UnmarshalText(b []byte) error {
	s := string(b)
	if err := CheckName(strings.ToLower(s)); err != nil || s != strings.ToLower(s) {
		why := fmt.Sprintf("%q is no domain's name", text.Clip(s))
		if err != nil {
			why = err.Error()
		}
		return refusal.New(refusal.CodeRulesDomainInvalid, "", why, "name a domain as abcd rules lists it")
	}
	*n = DomainName(s)
	return nil
}

// SchemaRule describes a domain's name to the schema generator.
func (DomainName) SchemaRule() contract.Rule {
	return contract.Rule{Description: "a domain's name or alias, as abcd rules lists it", MinLength: 1, MaxLength: MaxNameBytes,
		Pattern: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$"}
}

// MaxPromptInputBytes bounds a prompt handed to a verb, in characters; the first MaxPromptBytes
// bytes of it are read for words.
const MaxPromptInputBytes = 1 << 20

// PromptText is a prompt as a person or a harness sent it: any text, lines and tabs included.
type PromptText string

// CheckPrompt says what keeps s from being read as a prompt: more than MaxPromptInputBytes, invalid
// UTF-8, or a hidden character other than a tab or a line break (a terminal escape is no prompt).
func CheckPrompt(s string) error {
	switch {
	case !utf8.ValidString(s):
		return refusal.New(refusal.CodeRulesPromptInvalid, "", "the prompt is not valid UTF-8", "give the prompt as text")
	case utf8.RuneCountInString(s) > MaxPromptInputBytes:
		return refusal.New(refusal.CodeRulesPromptInvalid, "", fmt.Sprintf("the prompt is over the %d characters abcd reads", MaxPromptInputBytes), "give the prompt's first part")
	}
	if p := text.BlockProblem(s); p != "" {
		return refusal.New(refusal.CodeRulesPromptInvalid, "", "the prompt holds "+p, "give the prompt as plain text: lines and tabs, no control characters")
	}
	return nil
}

// UnmarshalText checks the prompt as it is decoded.
func (p *PromptText) UnmarshalText(b []byte) error {
	if err := CheckPrompt(string(b)); err != nil {
		return err
	}
	*p = PromptText(b)
	return nil
}

// SchemaRule describes a prompt to the schema generator.
func (PromptText) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the prompt, as it was sent", MaxLength: MaxPromptInputBytes}
}
