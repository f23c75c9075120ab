package story_test

import (
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/abcd-dev/abcd/ports/loop/story"
)

// The page of a three-lane run, held to a reviewed golden file (go test -update writes it again).
func TestHTMLTellsTheRun(t *testing.T) {
	page, err := story.HTML(threeLanes())
	assert.NilError(t, err)
	golden.Assert(t, page, "three-lanes.html")
}

// The graph is abcd's own SVG: a box per lane in columns by depth (lane-3 after lanes 1 and 2, the
// integration last), an edge per lane built on, dashed into the integration.
func TestHTMLDrawsTheLanes(t *testing.T) {
	page, err := story.HTML(threeLanes())
	assert.NilError(t, err)
	for _, want := range []string{
		`<g class="node done" data-lane="lane-1" data-stage="done">`,
		`<rect x="14" y="14" width="210" height="66" rx="6"/>`,  // lane-1: depth 0, row 0
		`<rect x="14" y="102" width="210" height="66" rx="6"/>`, // lane-2: depth 0, row 1
		`<rect x="294" y="14" width="210" height="66" rx="6"/>`, // lane-3: depth 1
		`<rect x="574" y="14" width="210" height="66" rx="6"/>`, // integration: depth 2
		`<path class="edge" data-from="lane-1" data-to="lane-3"`,
		`<path class="edge" data-from="lane-2" data-to="lane-3"`,
		`<path class="edge merged" data-from="lane-3" data-to="integration"`,
		`data-verdict="fail"`,
	} {
		assert.Check(t, is.Contains(page, want))
	}
	assert.Check(t, is.Equal(strings.Count(page, `<path class="edge`), 3))
}

// Every text of the record is untrusted: a finding holding a script, an image with a handler, a
// lane's text with quotes and brackets, an audit's concerns with markup all render as text. The page
// runs no script and fetches nothing: its policy forbids both, and it names no address but SVG's
// namespace.
func TestHTMLRendersUntrustedTextInert(t *testing.T) {
	page, err := story.HTML(threeLanes())
	assert.NilError(t, err)
	lower := strings.ToLower(page)
	assert.Check(t, !strings.Contains(lower, "<script"), "no script element")
	assert.Check(t, !strings.Contains(lower, "<img"), "no image element")
	assert.Check(t, !strings.Contains(lower, "<b>"), "no markup from the record")
	assert.Check(t, is.Contains(page, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;"))
	assert.Check(t, is.Contains(page, "Trim the &#34;init&#34; work &lt;fast&gt;."))
	assert.Check(t, is.Contains(page, "Only measured on Linux &lt;b&gt;today&lt;/b&gt;."))
	assert.Check(t, is.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'"`))
	for _, url := range regexp.MustCompile(`(?i)(https?:|//)[^\s"'<>)]*`).FindAllString(page, -1) {
		assert.Check(t, is.Equal(url, "http://www.w3.org/2000/svg"), "the page names an address: %s", url)
	}
}
