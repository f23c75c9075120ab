package record

import "strings"

// A line-level three-way merge, as git's own merge does it: the lines both sides keep from the base
// anchor the merge; between anchors, a side that left the base alone takes the other side's change,
// two equal changes are one, and two different changes are a conflict, written between markers.

// maxEdits bounds the edit distance one diff explores. Past it the region is treated as changed
// whole: the merge then has no anchor inside it and reports a conflict holding both sides whole, so
// a pathological input costs bounded time and loses nothing.
const maxEdits = 1000

// block is a run of lines equal in two sequences: a[a:a+n] == b[b:b+n].
type block struct{ a, b, n int }

// intern maps lines to small integers, so the diff compares integers.
type intern map[string]int

func (t intern) of(lines []string) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		id, ok := t[l]
		if !ok {
			id = len(t)
			t[l] = id
		}
		out[i] = id
	}
	return out
}

// matching returns the runs of lines a and b share along a shortest edit script (Myers' algorithm,
// after the common prefix and suffix are taken out), in order, ending with the sentinel
// {len(a), len(b), 0}. Past maxEdits it returns the prefix and suffix alone.
func matching(a, b []int) []block {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []block
	if pre > 0 {
		out = append(out, block{0, 0, pre})
	}
	out = append(out, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	if suf > 0 {
		out = append(out, block{len(a) - suf, len(b) - suf, suf})
	}
	return append(out, block{len(a), len(b), 0})
}

// myers is the matching runs of a and b, offset by off in both, or none past maxEdits.
func myers(a, b []int, off int) []block {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	limit := min(n+m, maxEdits)
	// v[k+limit] is the furthest x on diagonal k; trace[d] is v after round d, for the walk back.
	v := make([]int32, 2*limit+3)
	var trace [][]int32
	end := -1
	for d := 0; d <= limit && end < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[k-1+limit+1] < v[k+1+limit+1]) {
				x = int(v[k+1+limit+1])
			} else {
				x = int(v[k-1+limit+1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[k+limit+1] = int32(x)
			if x >= n && y >= m {
				end = d
			}
		}
		trace = append(trace, append([]int32(nil), v[limit+1-d:limit+1+d+1]...))
	}
	if end < 0 {
		return nil
	}
	at := func(d, k int) int { return int(trace[d][k+d]) }
	var rev []block
	x, y := n, m
	for d := end; d > 0; d-- {
		k := x - y
		var pk int
		if k == -d || (k != d && at(d-1, k-1) < at(d-1, k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(d-1, pk)
		sx := px
		if pk == k-1 {
			sx = px + 1
		}
		if x > sx {
			rev = append(rev, block{sx + off, sx - k + off, x - sx})
		}
		x, y = px, px-pk
	}
	if x > 0 {
		rev = append(rev, block{off, off, x})
	}
	out := make([]block, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

// region is one stretch of a three-way merge: lines all three share (stable), or a stretch where
// they differ, resolved or in conflict.
type region struct {
	stable   bool
	conflict bool
	lines    []string // stable or resolved
	ours     []string // a conflict's two sides
	theirs   []string
	base     []string
}

// diff3 merges ours and theirs against base, line by line.
func diff3(base, ours, theirs []string) []region {
	t := intern{}
	b, o, th := t.of(base), t.of(ours), t.of(theirs)
	mo, mt := matching(b, o), matching(b, th)
	type sync struct{ z, ze, o, oe, t, te int }
	var syncs []sync
	for i, j := 0, 0; i < len(mo) && j < len(mt); {
		x, y := mo[i], mt[j]
		lo, hi := max(x.a, y.a), min(x.a+x.n, y.a+y.n)
		if lo < hi {
			so, st := x.b+lo-x.a, y.b+lo-y.a
			syncs = append(syncs, sync{lo, hi, so, so + hi - lo, st, st + hi - lo})
		}
		if x.a+x.n < y.a+y.n {
			i++
		} else {
			j++
		}
	}
	syncs = append(syncs, sync{len(base), len(base), len(ours), len(ours), len(theirs), len(theirs)})
	var out []region
	z, io, it := 0, 0, 0
	for _, s := range syncs {
		bz, oz, tz := base[z:s.z], ours[io:s.o], theirs[it:s.t]
		if len(bz)+len(oz)+len(tz) > 0 {
			out = append(out, resolve(bz, oz, tz))
		}
		if s.ze > s.z {
			out = append(out, region{stable: true, lines: base[s.z:s.ze]})
		}
		z, io, it = s.ze, s.oe, s.te
	}
	return out
}

// resolve is one unstable stretch: a side that kept the base takes the other's change; equal
// changes are one; anything else is a conflict.
func resolve(base, ours, theirs []string) region {
	switch {
	case equalLines(ours, theirs), equalLines(theirs, base):
		return region{lines: ours}
	case equalLines(ours, base):
		return region{lines: theirs}
	}
	return region{conflict: true, ours: ours, theirs: theirs, base: base}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// markers writes conflicts the way git does: the lines both sides' versions start and end with stay
// outside, and what differs stands between <<<<<<< ours, ======= and >>>>>>> theirs.
type markers struct {
	size int
	eol  string
}

func (m markers) line(c byte, label string) string {
	s := strings.Repeat(string(c), m.size)
	if label != "" {
		s += " " + label
	}
	return s + m.eol
}

// write appends a conflict between ours and theirs to out.
func (m markers) write(out, ours, theirs []string) []string {
	pre := 0
	for pre < len(ours) && pre < len(theirs) && ours[pre] == theirs[pre] {
		pre++
	}
	suf := 0
	for suf < len(ours)-pre && suf < len(theirs)-pre && ours[len(ours)-1-suf] == theirs[len(theirs)-1-suf] {
		suf++
	}
	out = append(out, ours[:pre]...)
	out = append(out, m.line('<', "ours"))
	out = append(out, ours[pre:len(ours)-suf]...)
	out = append(out, m.line('=', ""))
	out = append(out, theirs[pre:len(theirs)-suf]...)
	out = append(out, m.line('>', "theirs"))
	return append(out, ours[len(ours)-suf:]...)
}

// mergeLines is a three-way line merge: the merged lines, and whether any stretch conflicted.
func (m markers) mergeLines(base, ours, theirs []string) ([]string, bool) {
	switch {
	case equalLines(ours, theirs), equalLines(theirs, base):
		return ours, false
	case equalLines(ours, base):
		return theirs, false
	}
	var out []string
	conflict := false
	for _, r := range diff3(base, ours, theirs) {
		if r.conflict {
			out, conflict = m.write(out, r.ours, r.theirs), true
			continue
		}
		out = append(out, r.lines...)
	}
	return out, conflict
}
