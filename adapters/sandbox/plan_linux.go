package sandbox

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/runner"
	"github.com/abcd-dev/abcd/domain/strictjson"
)

// What the Linux fence alone makes of a plan and of the setup its helper is handed: off Linux there is
// no fence to use them.

// receipt is what a receipt records of a plan: the fence, the ABI, the roots, the allowlist.
func (pl plan) receipt(abi int) runner.Sandbox {
	clip := func(xs []string, n int) []string {
		out := slices.Clone(xs)
		if len(out) > n {
			out = out[:n]
		}
		if out == nil {
			out = []string{}
		}
		return out
	}
	return runner.Sandbox{Kind: runner.SandboxLinux, LandlockABI: abi, Writable: clip(pl.Write, runner.MaxSandboxPaths),
		Hidden: clip(pl.Hide, runner.MaxSandboxPaths), Network: clip(pl.Endpoints, runner.MaxSandboxEndpoints), Refused: []string{}}
}

// envValue is name's value in env (KEY=value lines; the last wins), "" when unset.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// decodeStrict decodes one JSON object into v: a key named twice, a member v does not have or
// trailing content is refused.
func decodeStrict(data []byte, v any) error {
	if err := strictjson.CheckObject(data, strictjson.Limits{MaxDepth: 16}); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return d.Decode(v)
}
