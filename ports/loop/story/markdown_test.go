package story_test

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/abcd-dev/abcd/ports/loop/story"
)

// The story of a three-lane run as markdown, held to a reviewed golden file (go test -update writes
// it again): the graph, the steps, the rounds, the fallback, the audit and the session.
func TestMarkdownTellsTheRun(t *testing.T) {
	golden.Assert(t, story.Markdown(threeLanes()), "three-lanes.md")
}

// The graph: a node per lane, the third after the other two, merged into the integration.
func TestMarkdownDrawsTheLaneGraph(t *testing.T) {
	md := story.Markdown(threeLanes())
	block, ok := between(md, "```mermaid\n", "```\n")
	assert.Assert(t, ok, md)
	for _, want := range []string{"flowchart LR\n", "  n0 --> n2\n", "  n1 --> n2\n", "  n2 -.-> n3\n"} {
		assert.Check(t, is.Contains(block, want))
	}
	assert.Check(t, !strings.Contains(block, "n2 --> n3"), "the integration builds on no lane by after: it merges them")
	assert.Check(t, !strings.Contains(block, "n0 -.-> n3"), "lane-3's head holds lane-1's work: the integration is drawn from lane-3 alone")
	// A label holds no quote, bracket or angle bracket of the lane's own text.
	assert.Check(t, is.Contains(block, `Trim the #34;init#34; work #60;fast#62;.`), block)
}

// What agents wrote cannot break out: the finding is quoted in a fence longer than any run of
// backticks in it, and no line outside a fence carries raw markup.
func TestMarkdownQuotesWhatAgentsWrote(t *testing.T) {
	md := story.Markdown(threeLanes())
	assert.Check(t, is.Contains(md, "  `````text\n  The check is missing.\n"))
	inFence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if inFence != "" {
			if trimmed == inFence {
				inFence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			inFence = strings.TrimSuffix(strings.TrimSuffix(trimmed, "text"), "mermaid")
			continue
		}
		assert.Check(t, !strings.Contains(line, "<script") && !strings.Contains(line, "<b>") && !strings.Contains(line, "@octocat"), line)
	}
	assert.Check(t, is.Equal(inFence, ""), "every fence is closed")
	assert.Check(t, is.Contains(md, "Only measured on Linux <b>today</b>."), "inside its fence, the text stands as written")
}

func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(rest, close)
	return in, ok
}
