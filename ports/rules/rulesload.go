// The rules in force: the layers read, composed with the guard's lessons, and the compiled cache.

package rules

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/abcd-dev/abcd/domain/guard"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/rules"
	"github.com/abcd-dev/abcd/ports"
	guarduc "github.com/abcd-dev/abcd/ports/guard"
	"github.com/abcd-dev/abcd/ports/internal/core"
)

// LoadRules composes the layers: abcd's bundled domains (the shell domain made from the guard's rules,
// with what the repository's .abcd/guard.json adds), the machine's file, the repository's file. A
// file that fails to parse is refused naming it, never read as no rules; each notice is warned. What
// was composed is kept, compiled, under a digest of every input (the bundled data, the guard's files,
// both rules files and where they are), so the next prompt with the same files reads it back instead.
func (a *Deps) LoadRules(ctx context.Context) (*rules.Set, RulesState, error) {
	return a.composedRules(ctx, false)
}

// composedRules is loadRules; keep also keeps what it composed, for the prompt hook's next run. The
// verbs never keep anything: they are read-only. The hook (keep) is also lenient: a rules file that
// fails to parse is refused as a layer, named in one notice, and the other layers, abcd's bundled
// guardrails first, are still handed to the prompt; the verbs refuse it whole, so it is fixed.
func (a *Deps) composedRules(ctx context.Context, keep bool) (*rules.Set, RulesState, error) {
	if a.Rules == nil {
		return nil, RulesState{}, fmt.Errorf("rules: no rules source is wired into this build")
	}
	files, err := a.Rules.ReadRules(ctx)
	if err != nil {
		return nil, RulesState{}, err
	}
	guardData, guardErr := a.repoGuardFile(ctx)
	key := rulesKey(files, guardData, guardErr, keep)
	var set *rules.Set
	if data, ok := a.Rules.ReadCompiled(ctx, key); ok {
		set, _ = rules.FromCompiled(data) // unreadable: composed again below, and kept anew
	}
	if set == nil {
		set, err = lastComposed.compose(key, files, guardData, guardErr, keep)
		if err != nil {
			return nil, RulesState{}, err
		}
		if keep {
			if err := a.Rules.WriteCompiled(ctx, key, set.Compiled()); err != nil {
				a.Warn("rules: the compiled rules could not be kept on this machine (" + core.ErrText(err) + "); each prompt composes them again")
			}
		}
	}
	state := RulesState{
		Files: []RulesFileStatus{
			{Layer: "machine", Path: files.Machine.Path, Present: files.Machine.Present},
			{Layer: "repository", Path: files.Repository.Path, Present: files.Repository.Present},
		},
		Inject:  RulesSwitch{On: set.Inject, RulesLayer: layerOf(set.InjectFrom)},
		Budget:  RulesBudget{Bytes: set.Budget.Bytes, Rules: set.Budget.Rules, BytesFrom: layerOf(set.BytesFrom), RulesFrom: layerOf(set.RulesFrom)},
		Notices: append([]string{}, set.Notices...),
	}
	if !keep {
		// The hook's answer carries its notices to the person (systemMessage): said there once.
		for _, n := range state.Notices {
			a.Warn("rules: " + n)
		}
	}
	return set, state, nil
}

// rulesKey is the digest of everything a composed Set is made from.
func rulesKey(files ports.RuleFiles, guardData []byte, guardErr error, lenient bool) string {
	h := sha256.New()
	part := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	part([]byte("abcd rules 1"))
	if lenient {
		// A lenient set may lack a broken layer a strict load refuses: never read back for one.
		part([]byte("lenient"))
	}
	part(rules.BundledJSON())
	part(guard.BuiltinJSON())
	part(guardData)
	if guardErr != nil {
		part([]byte(guardErr.Error()))
	}
	for _, f := range []ports.ConfigFile{files.Machine, files.Repository} {
		part([]byte(fmt.Sprintf("%s %t", f.Path, f.Present)))
		part(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lastComposed is the set this process composed last, by the key of everything it was composed
// from: a long run writes a brief for every step, and each would compose the same set again. A file
// that changed has another key, so it is composed anew.
var lastComposed composedMemo

type composedMemo struct {
	mu  sync.Mutex
	key string
	set *rules.Set
}

// compose is composeRules, or the set composed last when key is the same. The set is read, never
// changed, by whoever is handed it.
func (m *composedMemo) compose(key string, files ports.RuleFiles, guardData []byte, guardErr error, lenient bool) (*rules.Set, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.set != nil && m.key == key {
		return m.set, nil
	}
	set, err := composeRules(files, guardData, guardErr, lenient)
	if err != nil {
		return nil, err
	}
	m.key, m.set = key, set
	return set, nil
}

// composeRules decodes and composes the layers; lenient leaves out a file that fails to parse, with
// a notice naming it, where a strict compose refuses.
func composeRules(files ports.RuleFiles, guardData []byte, guardErr error, lenient bool) (*rules.Set, error) {
	guardRules, guardNotice := guardLessons(guardData, guardErr)
	bundled, err := rules.BundledSource(guardRules)
	if err != nil {
		return nil, fmt.Errorf("the bundled rules: %w", err)
	}
	sources := []rules.Source{bundled}
	var refused []string
	for _, f := range []struct {
		layer rules.Layer
		file  *ports.ConfigFile
	}{{rules.Machine, &files.Machine}, {rules.Repository, &files.Repository}} {
		if !f.file.Present {
			continue
		}
		decoded, err := rules.Decode(f.file.Path, f.file.Data)
		if err != nil && lenient {
			refused = append(refused, fmt.Sprintf("%s is refused (%s), so its rules are left out and the other layers' are in force: fix the file (abcd schema show rules_file gives its shape)",
				f.file.Path, fileWhy(f.file.Path, err)))
			continue
		}
		if err != nil {
			return nil, rulesFileRefusal(f.file.Path, err)
		}
		sources = append(sources, rules.Source{Layer: f.layer, Origin: f.file.Path, File: decoded})
	}
	set, err := rules.Compose(sources)
	if err != nil {
		return nil, refusal.New(refusal.CodeRulesFileInvalid, "the rules files", err.Error(),
			"rename the domain or alias in one of the files; abcd rules lists the domains in force")
	}
	if guardNotice != "" {
		set.Notices = append([]string{guardNotice}, set.Notices...)
	}
	set.Notices = append(refused, set.Notices...)
	return set, nil
}

func rulesFileRefusal(path string, err error) error {
	return refusal.New(refusal.CodeRulesFileInvalid, path, fileWhy(path, err),
		"fix the file (abcd schema show rules_file gives its shape), or move it aside; until then the verbs read no rule from any layer, and the prompt hook leaves this file's out")
}

// fileWhy is a decoding error without the file's name it starts with, for a message that names the
// file already.
func fileWhy(path string, err error) string {
	return strings.TrimPrefix(err.Error(), path+": ")
}

// repoGuardFile is the repository's working-tree .abcd/guard.json: nil when there is none.
func (a *Deps) repoGuardFile(ctx context.Context) ([]byte, error) {
	if a.Records == nil {
		return nil, nil
	}
	data, err := a.Records.Read(ctx, guarduc.GuardFile)
	if r, ok := refusal.As(err); ok && r.Code == refusal.CodeRecordMissing {
		return nil, nil
	}
	return data, err
}

// guardLessons are the rules the shell domain is made from: the guard's built-in registry, with the
// rules the repository's working-tree .abcd/guard.json adds. A change there that only takes rules
// away is not followed: a lesson kept errs on the side of care, and the guard names the weakening.
// A guard file that cannot be read leaves the built-in lessons, with a notice.
func guardLessons(data []byte, readErr error) ([]guard.Rule, string) {
	builtin, err := guard.Builtin()
	if err != nil {
		return nil, "the guard's built-in rules cannot be read (" + core.ErrText(err) + "); the shell domain is empty"
	}
	out := builtin.Rules
	switch {
	case readErr != nil:
		return out, fmt.Sprintf("%s cannot be read (%s); the shell domain holds the guard's built-in rules only", guarduc.GuardFile, core.ErrText(readErr))
	case data == nil:
		return out, ""
	}
	f, err := guard.Decode(guarduc.GuardFile, data)
	if err != nil {
		return out, fmt.Sprintf("%s is broken (%s); the shell domain holds the guard's built-in rules only", guarduc.GuardFile, core.ErrText(err))
	}
	return append(append([]guard.Rule{}, out...), f.Rules...), ""
}
