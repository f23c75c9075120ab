package layout

import "testing"

func TestLayout(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Local, ".abcd/.work.local"},
		{Runs, ".abcd/.work.local/run"},
		{Journal, ".abcd/.work.local/journal.json"},
		{Staging, ".abcd/.work.local/tmp"},
		{RunDir("run-1"), ".abcd/.work.local/run/run-1"},
		{Ignore, "/.work.local/"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
