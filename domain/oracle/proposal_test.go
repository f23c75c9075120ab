package oracle

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/roster"
)

// TestProposalNamesTheRoster holds the bundled proposal to agents/*.md: an agent added without a row,
// or a row for an agent removed, fails here rather than at run time.
func TestProposalNamesTheRoster(t *testing.T) {
	dir := filepath.Join("..", "..", "agents")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var agents []roster.Agent
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		a, err := roster.Parse("agents/"+e.Name(), data)
		if err != nil {
			t.Fatalf("%v", err)
		}
		agents = append(agents, a)
	}
	r, err := roster.New(agents)
	if err != nil {
		t.Fatal(err)
	}
	names := r.Names()
	if len(names) == 0 {
		t.Fatal("the roster under agents/ is empty")
	}
	proposal := Proposal()
	for _, name := range names {
		if _, ok := proposal[name]; !ok {
			t.Errorf("agent %s is in the roster but has no row in Proposal(): add one", name)
		}
	}
	for name := range proposal {
		if !slices.Contains(names, name) {
			t.Errorf("Proposal() has a row for %s, which is not in the roster %q: remove it", name, names)
		}
	}
}

func TestProposalRows(t *testing.T) {
	if Ceiling != 1 {
		t.Fatalf("Ceiling = %d; the ruling says 1 until a contract declares one", Ceiling)
	}
	want := map[string]Tier{
		"ruthless-reviewer": Frontier,
		"security-reviewer": Frontier,
		"intent-auditor":    Frontier,
	}
	p := Proposal()
	if len(p) != len(want) {
		t.Errorf("Proposal() has %d rows, want %d", len(p), len(want))
	}
	for name, tier := range want {
		row, ok := p[name]
		if !ok {
			t.Errorf("Proposal() lacks %s", name)
			continue
		}
		if row.Tier != tier || row.FanOut != Ceiling || len(row.Settings) != 0 {
			t.Errorf("Proposal()[%s] = %+v, want tier %s, fan_out %d, no settings", name, row, tier, Ceiling)
		}
	}
	// The proposal passes its own rules, and each call is a fresh map.
	if _, notices, err := CheckTable("bundled", RoutingFile{SchemaVersion: 1, Agents: p}, nil); err != nil || len(notices) != 0 {
		t.Errorf("CheckTable(Proposal()) = %v, %v", notices, err)
	}
	p["ruthless-reviewer"] = Row{Tier: Local}
	if Proposal()["ruthless-reviewer"].Tier != Frontier {
		t.Error("Proposal() shares its map between calls")
	}
}
