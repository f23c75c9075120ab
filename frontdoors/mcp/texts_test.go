package mcp

// Every text an agent of the build loop is handed, read together as the agent (and whoever
// dispatched it) reads them: the agent definitions, the MCP prompts of the roster, the briefs and
// next lines the loop writes, the driver prompt (and the plugin's commands, which are its text), and
// docs/build-loop.md. They must say one rule for a reviewer's and an auditor's return, and the formats
// they describe must be the ones the parsers read.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/domain/roster"
)

const (
	textsRun    = "run-2612010000001234"
	textsRoot   = "/home/ada/repo"
	textsIntent = "itd-2611300000000001"
)

// textsWorld is a spec run with one lane under review and its integration under audit, and the
// shipped roster.
type textsWorld struct {
	roster roster.Roster
	state  loop.State
}

func newTextsWorld(t *testing.T) textsWorld {
	t.Helper()
	var agents []roster.Agent
	for _, name := range []string{loop.RoleAuditor, loop.RoleRuthless, loop.RoleSecurity} {
		data, err := os.ReadFile(filepath.Join("..", "..", "agents", name+".md"))
		assert.NilError(t, err)
		a, err := roster.Parse(name+".md", data)
		assert.NilError(t, err)
		agents = append(agents, a)
	}
	r, err := roster.New(agents)
	assert.NilError(t, err)
	base := strings.Repeat("1", 40)
	s := loop.New(loop.KindSpec, loop.Options{Run: textsRun, Intent: textsIntent, Base: base, DoD: "make test", Criteria: []string{"ac-1", "ac-2"},
		Validators: []string{loop.RoleRuthless, loop.RoleSecurity, loop.RoleAuditor}, IntegrationBranch: "abcd/" + textsRun + "/integration"},
		[]loop.LaneSpec{{Step: 1, Text: "Make it lazy.", Branch: "abcd/" + textsRun + "/lane-1"}})
	for i := range s.Lanes {
		s.Lanes[i].Head, s.Lanes[i].Start, s.Lanes[i].Round, s.Lanes[i].Stage = strings.Repeat("2", 40), base, 1, loop.StageValidate
		s.Lanes[i].Worktree = loop.WorktreeDir(textsRun, s.Lanes[i].ID)
	}
	return textsWorld{roster: r, state: s}
}

// brief renders the brief the loop hands role on lane (0: the step lane, 1: the integration).
func (w textsWorld) brief(t *testing.T, lane int, kind loop.AwaitKind, role string) (string, string) {
	t.Helper()
	l := w.state.Lanes[lane]
	p := loop.Plan{Lane: lane, Kind: kind, Role: role, Round: 1}
	briefPath, ret := loop.AwaitPaths(textsRun, l.ID, p)
	c := loop.BriefContext{State: w.state, Lane: l, Plan: p, Root: textsRoot, Return: loop.Abs(textsRoot, ret),
		LaneDir: loop.Abs(textsRoot, loop.LaneDir(textsRun, l.ID)), Worktree: loop.Abs(textsRoot, l.Worktree),
		SpecPath: textsRoot + "/.abcd/development/specs/open/spc-2611300000000002-lazy.md", IntentID: textsIntent, IntentTitle: "Faster cold start",
		IntentPath: textsRoot + "/.abcd/development/intents/planned/itd-2611300000000001-faster.md",
		Criteria:   []string{"ac-1: Given a binary, when I run it, then it answers quickly.", "ac-2: Given a set-up repository, when I run abcd, then status is fast too."},
		Diff:       "diff --git a/x.go b/x.go\n+lazy\n", DiffFrom: l.Start, Tier: "economy"}
	if role != loop.RoleImplementer {
		ag, ok := w.roster.Get(role)
		assert.Assert(t, ok, role)
		c.AgentName, c.AgentDescription, c.AgentPrompt = ag.Name, ag.Description, ag.Body
		pass, fail := review.Words(review.Role(role))
		c.Pass, c.Fail = pass, fail
	}
	aw := loop.Await{Kind: kind, Role: role, Round: 1, Brief: loop.Abs(textsRoot, briefPath), Return: loop.Abs(textsRoot, ret),
		Routing: loop.Routing{Tier: "economy", Route: "host"}}
	return loop.Brief(c), loop.Next(aw).String()
}

var (
	// finalMessage is the rule, as the agent reads it: its final message is its return.
	finalMessage = regexp.MustCompile(`(?i)your final message is your return`)
	// places is the rule, as the dispatcher reads it: it places the final message at the return path
	// and hands it in.
	places = regexp.MustCompile(`(?is)final message.*whole and unchanged, to .*implement[_ ]receipt`)
	// toTheAgent are what would tell a reviewer or the auditor to write a file or hand a return in
	// itself: the rule is that it does neither.
	toTheAgent = []*regexp.Regexp{
		regexp.MustCompile(`(?i)write (your|the) (whole )?return (to|at)`),
		regexp.MustCompile(`(?i)\bthen hand it in\b`),
		regexp.MustCompile(`(?i)only write (their|its|your) return`),
		regexp.MustCompile(`(?i)the one file to write`),
	}
	// toTheDispatcher are what would forbid the dispatcher the placing the rule asks of it.
	toTheDispatcher = []*regexp.Regexp{
		regexp.MustCompile(`(?i)never write a (receipt or a )?return yourself`),
		regexp.MustCompile(`(?i)when it has written [^;]*return\.(md|json)`),
		regexp.MustCompile(`(?i)the agent writes its return`),
	}
)

// agentPart is what a validator's brief says to the agent itself: all but its last paragraph, which
// speaks to whoever started the agent.
func agentPart(brief string) string {
	i := strings.Index(brief, "For whoever started this agent:")
	if i < 0 {
		return brief
	}
	return brief[:i]
}

func TestOneRuleForAReviewersAndAnAuditorsReturn(t *testing.T) {
	w := newTextsWorld(t)
	toAgent := map[string]string{}      // what the agent reads
	toDispatcher := map[string]string{} // what whoever starts the agent reads
	for _, c := range []struct {
		lane int
		kind loop.AwaitKind
		role string
	}{{0, loop.AwaitReview, loop.RoleRuthless}, {0, loop.AwaitReview, loop.RoleSecurity}, {1, loop.AwaitAudit, loop.RoleAuditor}} {
		ag, _ := w.roster.Get(c.role)
		toAgent["agents/"+c.role+".md"] = ag.Body
		toAgent["the MCP prompt "+c.role] = agentPrompt(ag).render(map[string]string{"brief": "/r/brief.md"})
		brief, next := w.brief(t, c.lane, c.kind, c.role)
		toAgent[c.role+"'s brief"] = agentPart(brief)
		toDispatcher[c.role+"'s brief, to whoever starts it"] = strings.TrimPrefix(brief, agentPart(brief))
		toDispatcher[c.role+"'s next line"] = next
	}
	toDispatcher["the driver prompt"] = DriverText("spc-1")
	for _, f := range []string{"build.md", "review.md", "audit.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "commands", f))
		assert.NilError(t, err)
		toDispatcher["commands/"+f] = string(data)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "build-loop.md"))
	assert.NilError(t, err)
	toDispatcher["docs/build-loop.md"] = string(doc)

	for name, text := range toAgent {
		assert.Check(t, finalMessage.MatchString(text), "%s does not say the agent's final message is its return", name)
		for _, re := range append(toTheAgent, toTheDispatcher...) {
			assert.Check(t, !re.MatchString(text), "%s says %q, against the rule", name, re.FindString(text))
		}
	}
	for name, text := range toDispatcher {
		assert.Check(t, places.MatchString(oneSpace(text)), "%s does not tell whoever started the agent to place its final message at the return path and hand it in", name)
		for _, re := range toTheDispatcher {
			assert.Check(t, !re.MatchString(text), "%s says %q, against the rule", name, re.FindString(text))
		}
	}
}

var (
	// decorated is what every text describing the verdict line says of a word wrapped in ** or `.
	decorated = "abcd also reads the word wrapped in `**` or in backticks, but nothing else may share its line"
	// noBold would forbid what the parser reads.
	noBold = regexp.MustCompile(`(?i)(no|never|not|without) (use )?(bold|\*\*)`)
)

// The verdict line and the audit's JSON, as each text describes them, are what the parsers read.
func TestTheFormatsTheTextsDescribeAreTheParsers(t *testing.T) {
	w := newTextsWorld(t)
	example := regexp.MustCompile("(?s)Filled in, it reads like this:\n\n```(markdown|json)\n(.*?)\n```")
	for _, role := range []string{loop.RoleRuthless, loop.RoleSecurity} {
		brief, _ := w.brief(t, 0, loop.AwaitReview, role)
		ag, _ := w.roster.Get(role)
		pass, fail := review.Words(review.Role(role))
		// The definition (in the brief and alone) and the brief name the same words, the parser's.
		for _, word := range append(append([]string{}, pass...), fail...) {
			assert.Check(t, strings.Contains(ag.Body, "`"+word+"`"), "%s's definition does not name %s", role, word)
			assert.Check(t, strings.Contains(brief, word), "%s's brief does not name %s", role, word)
		}
		m := example.FindStringSubmatch(brief)
		assert.Assert(t, m != nil, "%s's brief has no filled-in example", role)
		v, err := review.ParseReviewerReturn(review.Role(role), []byte(m[2]))
		assert.NilError(t, err, "%s's brief's example does not parse", role)
		assert.Check(t, is.Equal(v.Word, fail[0]))
		// The brief says what the definition says of the verdict line.
		for _, says := range []string{"the first line after it that is not blank is exactly the verdict, in capitals, alone on its line"} {
			assert.Check(t, strings.Contains(brief, says), "%s's brief no longer says %q", role, says)
		}
		assert.Check(t, strings.Contains(oneSpace(ag.Body), "On the first line after that heading that is not blank"), role)
		// Every text that describes the verdict line says the same of a decorated word, as the parser
		// reads it: wrapped in ** or backticks is read, anything else on the line is not.
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "build-loop.md"))
		assert.NilError(t, err)
		for name, text := range map[string]string{role + "'s definition": ag.Body, role + "'s brief (its own text)": strings.Replace(brief, ag.Body, "", 1), "docs/build-loop.md": string(doc)} {
			assert.Check(t, strings.Contains(oneSpace(text), decorated), "%s does not say %q", name, decorated)
			assert.Check(t, !noBold.MatchString(text), "%s says %q, yet the parser reads a bold verdict", name, noBold.FindString(text))
		}
		for _, line := range []string{"**" + fail[0] + "**", "`" + fail[0] + "`"} {
			v, err := review.ParseReviewerReturn(review.Role(role), []byte("## Verdict\n"+line+"\n\nNo findings.\n"))
			assert.Check(t, err == nil && v.Word == fail[0], "the texts say %s is read, the parser: %v", line, err)
		}
		_, err = review.ParseReviewerReturn(review.Role(role), []byte("## Verdict\n**"+fail[0]+"**.\n"))
		assert.Check(t, err != nil, "the texts say nothing else shares the verdict's line, yet the parser reads one with a full stop")
	}

	brief, _ := w.brief(t, 1, loop.AwaitAudit, loop.RoleAuditor)
	// The auditor's brief names the intent's file and its criteria verbatim.
	for _, says := range []string{textsRoot + "/.abcd/development/intents/planned/itd-2611300000000001-faster.md",
		"- ac-1: Given a binary, when I run it, then it answers quickly.", "- ac-2: Given a set-up repository, when I run abcd, then status is fast too."} {
		assert.Check(t, strings.Contains(brief, says), "the auditor's brief does not hold %q", says)
	}
	m := example.FindStringSubmatch(brief)
	assert.Assert(t, m != nil, "the auditor's brief has no filled-in example")
	_, v, err := review.ParseAuditReturn([]byte(m[2]), textsIntent, w.state.Criteria)
	assert.NilError(t, err, "the auditor's brief's example does not parse")
	assert.Check(t, v.Pass)
	// The definition's one-line shape parses too, for a one-criterion intent.
	ag, _ := w.roster.Get(loop.RoleAuditor)
	shape := regexp.MustCompile(`(?m)^\{"schema_version":1,.*\}$`).FindString(ag.Body)
	assert.Assert(t, shape != "", "the auditor's definition shows no JSON shape")
	shape = strings.NewReplacer("<intent id>", textsIntent).Replace(shape)
	_, _, err = review.ParseAuditReturn([]byte(shape), textsIntent, []string{"ac-1"})
	assert.NilError(t, err, "the auditor's definition's shape does not parse")
}

// The implementer writes and hands in its own receipt; the dispatcher hands it in too once the agent
// finished, and the refusal that means it was in already is one abcd declares.
func TestTheImplementersReceiptIsItsOwnToHandIn(t *testing.T) {
	w := newTextsWorld(t)
	brief, next := w.brief(t, 0, loop.AwaitImplement, loop.RoleImplementer)
	assert.Check(t, !finalMessage.MatchString(brief), "the implementer writes a receipt; its final message is not its return")
	assert.Check(t, strings.Contains(brief, "Then hand it in: `abcd implement receipt "), brief)
	assert.Check(t, strings.Contains(brief, "## If you cannot do the step"), brief)
	assert.Check(t, strings.Contains(next, "hands it in itself") && strings.Contains(next, "receipt_recorded"), next)
	assert.Check(t, strings.Contains(DriverText("spc-1"), "refused with code receipt_recorded"))
	codes := refusal.Codes()
	for _, code := range []refusal.Code{"receipt_recorded", "return_refused"} {
		assert.Check(t, slices.ContainsFunc(codes, func(c refusal.Declared) bool { return c.Code == code }), "%s is not a declared refusal code", code)
	}
}

func oneSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
