package history

import (
	"regexp"
	"strings"
	"sync"
)

// Lineage is the build-loop step a session served: the run, the lane and the await whose brief it
// was handed, found in the session's own text, and the await's id once the run's state names it.
type Lineage struct {
	Run  string
	Lane string
	// Step is the await's folder in the lane: implement, fix-N, validate/round-N/<role>.
	Step  string
	Await string
	// Brief and Return are the brief's and the return path's paths relative to the repository.
	Brief  string
	Return string
}

// Empty reports a session that served no abcd brief.
func (l Lineage) Empty() bool { return l.Run == "" }

// briefPath finds a brief's or a return path's place under a run's folder, as abcd's briefs and next
// lines spell them: .abcd/.work.local/run/<run>/<lane>/<step>/<file>.
// It compiles on first use: every start of abcd links this package, few read a transcript.
var briefPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\.abcd/\.work\.local/run/(run-[a-z0-9-]{1,60})/([A-Za-z0-9][A-Za-z0-9._-]{0,60})/(implement|fix-[0-9]{1,3}|validate/round-[0-9]{1,3}/[a-z][a-z0-9-]{0,40})/(brief\.md|receipt\.json|return\.md|return\.json)`)
})

// FindLineage is the first brief or return path the session's messages name (the person's or the
// harness's prompt that handed the brief comes first); the empty lineage when none does.
func FindLineage(t Transcript) Lineage {
	for _, m := range t.Messages {
		if !strings.Contains(m.Text, ".work.local/run/") {
			continue
		}
		if g := briefPath().FindStringSubmatch(m.Text); g != nil {
			dir := ".abcd/.work.local/run/" + g[1] + "/" + g[2] + "/" + g[3] + "/"
			l := Lineage{Run: g[1], Lane: g[2], Step: g[3], Brief: dir + "brief.md"}
			switch {
			case g[3] == "implement" || strings.HasPrefix(g[3], "fix-"):
				l.Return = dir + "receipt.json"
			case g[4] == "return.json":
				l.Return = dir + "return.json"
			default:
				l.Return = dir + "return.md"
			}
			if g[4] == "return.json" || g[4] == "return.md" || g[4] == "receipt.json" {
				l.Return = dir + g[4]
			}
			return l
		}
	}
	return Lineage{}
}
