package oracle

import (
	"maps"
	"slices"
	"testing"
)

// BenchmarkResolve resolves every agent of the proposal with every layer present and a flag over
// each, against a machine with connections and defaults.
func BenchmarkResolve(b *testing.B) {
	agents := slices.Sorted(maps.Keys(Proposal()))
	repo, machine := Table{}, Table{}
	flags := make(map[string]*FlagRoute, len(agents))
	for _, a := range agents {
		repo[a] = Row{Tier: Economy, FanOut: 1, Settings: Settings{"temperature": `0.2`, "effort": `"medium"`}}
		machine[a] = Row{Tier: Local, FanOut: 1, Settings: Settings{"temperature": `0.7`}}
		fr, err := ParseRoutes([]string{a + "=frontier@openrouter?effort=high,stream=true"}, []string{a}, configuredOpenRouter)
		if err != nil {
			b.Fatal(err)
		}
		r := fr[a]
		flags[a] = &r
	}
	conns := Configured{Names: []string{"local-llm", "openrouter"}, Serving: map[Tier]Connection{Local: openrouter, Economy: openrouter, Frontier: openrouter}}
	defaults := func(Connection) Settings { return Settings{"max_tokens": `4096`, "temperature": `1`} }
	l := Layers{Repo: repo, Machine: machine, RepoOrigin: ".abcd/config/oracle-routing.json",
		MachineOrigin: "~/.abcd/oracle-routing.json", RepoPresent: true, MachinePresent: true}
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range agents {
			l.Flag = flags[a]
			r, err := Resolve(a, l, conns, defaults)
			if err != nil || r.Source != SourceFlag {
				b.Fatalf("%+v %v", r, err)
			}
		}
	}
}
