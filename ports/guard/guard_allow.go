package guard

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports/internal/core"
	"github.com/abcd-dev/abcd/ports/verb"
)

// GuardAllowInput is the person's allow of the repository's guard file on this machine, or its
// withdrawal.
type GuardAllowInput struct {
	// Revoke withdraws this machine's allow of the repository's guard file. Anyone may: it only
	// makes the guard stricter.
	Revoke bool `json:"revoke,omitempty"`
}

// GuardAllowResult says what abcd guard allow did.
type GuardAllowResult struct {
	// File is the guard file's absolute path.
	File string `json:"file" jsonschema:"minLength=1"`
	// SHA256 is the digest of the bytes allowed; empty when nothing is allowed.
	SHA256 string `json:"sha256"`
	// Weakens lists how the file weakens the built-in rules: what the person allowed.
	Weakens []string `json:"weakens"`
	// Allowed is true when this machine now allows the file; Changed when the allow file was written.
	Allowed bool `json:"allowed"`
	Changed bool `json:"changed"`
	// Next says what happens now.
	Next string `json:"next"`
}

func guardAllowVerb() verb.Verb {
	return verb.Declare(verb.Verb{Name: "guard_allow", Path: []string{"guard", "allow"}, Example: "abcd guard allow\nabcd guard allow --revoke",
		Summary:    "Allow the repository's weaker guard file on this machine (only the person, at their own terminal), or withdraw the allow",
		Idempotent: true}, GuardAllow)
}

// GuardAllow records the person's allow of exactly the bytes of the repository's .abcd/guard.json
// at its path, after showing what the file weakens and asking. It needs a person at a terminal:
// over MCP, or from an agent's shell (no terminal), it refuses; the guard also blocks the command
// from inside a session. Withdrawing an allow needs no one: it only strengthens the guard.
func GuardAllow(ctx context.Context, a *Deps, in *GuardAllowInput) (GuardAllowResult, error) {
	const verb = "guard_allow"
	root, _ := a.Setup.Root()
	file := filepath.Join(root, filepath.FromSlash(GuardFile))
	res := GuardAllowResult{File: file, Weakens: []string{}}
	if in.Revoke {
		return revokeAllow(ctx, a, res)
	}
	if a.Prompter == nil || !a.Prompter.Interactive() {
		// Over MCP there is no prompter; in an agent's shell stdin is no terminal. Both get one answer.
		return res, refusal.New(refusal.CodeGuardAllowPerson, "", "allowing a weaker guard file is the person's decision, made at their own terminal, and nobody can answer here (no terminal, or MCP): an agent may not allow it",
			"the person runs abcd guard allow in their own terminal, in the repository").On(verb, "")
	}
	data, err := a.Records.Read(ctx, GuardFile)
	if r, ok := refusal.As(err); ok && r.Code == refusal.CodeRecordMissing {
		return res, refusal.New(refusal.CodeGuardFileMissing, "", fmt.Sprintf("there is no %s to allow in %s", GuardFile, root),
			"nothing to do: without the file the built-in rules stand").On(verb, "")
	}
	if err != nil {
		return res, err
	}
	builtin, err := guard.Builtin()
	if err != nil {
		return res, err
	}
	builtIn, err := guard.Compile(builtin, nil)
	if err != nil {
		return res, err
	}
	_, reg, err := compileRepo(builtin, data)
	if err != nil {
		return res, refusal.New(refusal.CodeGuardFileBroken, "", fmt.Sprintf("%s is broken (%s), and a broken file is never allowed", GuardFile, core.ErrText(err)),
			"fix the file, then allow it").On(verb, "")
	}
	res.SHA256 = guard.Digest(data)
	res.Weakens = guard.Weakens(builtIn, reg)
	if len(res.Weakens) == 0 {
		res.Next = "the file only adds rules or raises tiers, so it stands without an allow"
		return res, nil
	}
	a.Prompter.Show(fmt.Sprintf("%s (sha256 %s) weakens abcd's guard:\n  - %s\n", file, res.SHA256[:16], strings.Join(res.Weakens, "\n  - ")))
	ok, err := a.Prompter.Confirm(ctx, "Allow exactly this file to weaken the guard on this machine?")
	if err != nil {
		return res, err
	}
	if !ok {
		return res, refusal.New(refusal.CodeConsentDeclined, "", "the allow was declined; nothing was written", "run abcd guard allow again to allow it").On(verb, "")
	}
	err = a.UpdateMachineFile(ctx, guard.AllowFileName, func(old []byte, present bool) ([]byte, error) {
		f, err := allowFile(a, old, present)
		if err != nil {
			return nil, err
		}
		f.Allow, res.Changed = guard.WithAllow(f.Allow, file, res.SHA256)
		if !res.Changed {
			return nil, nil
		}
		return f.Encode()
	})
	if err != nil {
		return res, err
	}
	res.Allowed = true
	res.Next = "the file's rules are in force on this machine until its bytes change; abcd guard allow --revoke withdraws the allow"
	return res, nil
}

// revokeAllow removes this machine's allow of the repository's guard file.
func revokeAllow(ctx context.Context, a *Deps, res GuardAllowResult) (GuardAllowResult, error) {
	err := a.UpdateMachineFile(ctx, guard.AllowFileName, func(old []byte, present bool) ([]byte, error) {
		if !present {
			return nil, nil
		}
		f, err := allowFile(a, old, present)
		if err != nil {
			return nil, err
		}
		f.Allow, res.Changed = guard.WithAllow(f.Allow, res.File, "")
		if !res.Changed {
			return nil, nil
		}
		return f.Encode()
	})
	if err != nil {
		return res, err
	}
	res.Next = "no weaker guard file is allowed here: the built-in rules stand, with what the file adds"
	return res, nil
}

// allowFile reads the machine's allow file as update hands it over (absent: a new one).
func allowFile(a *Deps, old []byte, present bool) (guard.AllowFile, error) {
	if !present {
		return guard.AllowFile{SchemaVersion: 1, Allow: []guard.AllowEntry{}}, nil
	}
	f, err := guard.DecodeAllowFile(a.Setup.MachinePath(guard.AllowFileName), old)
	if err != nil {
		return f, refusal.New(refusal.CodeGuardAllowFileBroken, a.Setup.MachinePath(guard.AllowFileName), core.ErrText(err), "fix or remove the file; abcd writes it again").On("guard_allow", "")
	}
	return f, nil
}
