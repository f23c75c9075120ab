package guard

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// CommandLine is a command line handed to the guard: any text a shell takes, several lines and tabs
// included, but never empty and without other control characters (a terminal escape is no command).
// Its length is not refused here: a line too long to read is blocked, with the reason, by the guard.
type CommandLine string

// CheckCommandLine says what is wrong with a command line handed in.
func CheckCommandLine(s string) error {
	if strings.TrimSpace(s) == "" {
		return refusal.New(refusal.CodeGuardCommandEmpty, "", "was given no command line to check", "give the command line to check")
	}
	if !utf8.ValidString(s) {
		return refusal.New(refusal.CodeGuardCommandInvalid, "", "the command line is not valid UTF-8", "give the command line as text")
	}
	if i := strings.IndexFunc(s, isControl); i >= 0 {
		return refusal.New(refusal.CodeGuardCommandInvalid, "", fmt.Sprintf("the command line holds a control character (%U) at byte %d", s[i], i), "give the command line as plain text")
	}
	return nil
}

// UnmarshalText checks the line as it is decoded.
func (c *CommandLine) UnmarshalText(b []byte) error {
	if err := CheckCommandLine(string(b)); err != nil {
		return err
	}
	*c = CommandLine(b)
	return nil
}

// Folder is the absolute folder a command line runs in.
type Folder string

// MaxFolderBytes bounds a folder's path.
const MaxFolderBytes = 4096

// CheckFolder says what is wrong with a folder handed in.
func CheckFolder(s string) error {
	switch {
	case len(s) > MaxFolderBytes:
		return refusal.New(refusal.CodeGuardCwdInvalid, "", fmt.Sprintf("the folder is longer than %d bytes", MaxFolderBytes), "give the absolute folder the command runs in")
	case !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return refusal.New(refusal.CodeGuardCwdInvalid, "", "the folder holds a control character", "give the absolute folder the command runs in")
	case !path.IsAbs(s):
		return refusal.New(refusal.CodeGuardCwdInvalid, "", fmt.Sprintf("the folder %q is not an absolute path", text.Clip(s)), "give the absolute folder the command runs in")
	}
	return nil
}

// UnmarshalText checks the folder as it is decoded.
func (f *Folder) UnmarshalText(b []byte) error {
	if err := CheckFolder(string(b)); err != nil {
		return err
	}
	*f = Folder(b)
	return nil
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// SchemaRule describes a command line to the schema generator: text, at least one character.
func (CommandLine) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the command line, as the shell would receive it", MinLength: 1}
}

// SchemaRule describes a folder to the schema generator: an absolute path.
func (Folder) SchemaRule() contract.Rule {
	return contract.Rule{Description: "the absolute folder the command line runs in", MinLength: 1, MaxLength: MaxFolderBytes, Pattern: "^/"}
}
