package rules

import (
	"encoding/binary"
	"errors"
	"math"
)

// The compiled form of a Set: what Compose made from the layers, kept so the prompt hook, which runs
// on every prompt, need not decode, check and compose the same bytes again. It is written only from
// a Set that Compose made from files that were checked, and read back only under the key of the very
// bytes it was made from, so it says nothing the files do not. Anything it cannot read is an error,
// and the caller composes the files again.

const compiledMagic = "abcd-rules-compiled-2\n"

// errCompiled is every fault in reading a compiled Set.
var errCompiled = errors.New("the compiled rules are unreadable")

// Compiled is the Set in its compiled form.
func (s *Set) Compiled() []byte {
	w := &writer{index: map[string]uint32{}}
	w.bool(s.Inject)
	w.prov(s.InjectFrom)
	w.int(s.Budget.Bytes)
	w.int(s.Budget.Rules)
	w.prov(s.BytesFrom)
	w.prov(s.RulesFrom)
	w.strs(s.Notices)
	w.int(len(s.Domains))
	for _, d := range s.Domains {
		w.str(d.Name)
		w.prov(d.From)
		w.bool(d.Guardrail)
		w.wordList(d.Recall, d.words)
		w.wordList(d.Aliases, d.aliases)
		w.bool(d.Dormant)
		w.optProv(d.DormantFrom)
		w.int(len(d.Rules))
		for _, r := range d.Rules {
			w.str(r.ID)
			w.str(r.Text)
			w.strs(r.Recall)
			for _, pw := range r.words {
				w.word(pw)
			}
			w.prov(r.From)
			w.optProv(r.Replaced)
		}
		w.int(len(d.Dropped))
		for _, r := range d.Dropped {
			w.str(r.ID)
			w.str(r.Text)
			w.prov(r.From)
			w.prov(r.By)
		}
	}
	// The strings go first, so the reader makes each once.
	out := append([]byte(compiledMagic), binary.AppendUvarint(nil, uint64(len(w.strings)))...)
	for _, s := range w.strings {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, w.body...)
}

// FromCompiled reads a Set back from its compiled form.
func FromCompiled(data []byte) (*Set, error) {
	if len(data) < len(compiledMagic) || string(data[:len(compiledMagic)]) != compiledMagic {
		return nil, errCompiled
	}
	r := &reader{data: data[len(compiledMagic):]}
	n := r.count(1 << 20)
	r.strings = make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		l := r.count(MaxFileBytes)
		if r.err == nil {
			r.strings = append(r.strings, string(r.data[:l]))
			r.data = r.data[l:]
		}
	}
	s := &Set{names: map[string]*Resolved{}}
	s.Inject = r.bool()
	s.InjectFrom = r.prov()
	s.Budget.Bytes = r.count(MaxBudgetBytes)
	s.Budget.Rules = r.count(MaxBudgetRules)
	s.BytesFrom = r.prov()
	s.RulesFrom = r.prov()
	s.Notices = r.strs()
	nd := r.count(MaxDomains)
	for i := 0; i < nd && r.err == nil; i++ {
		d := &Resolved{Name: r.str(), From: r.prov(), Guardrail: r.bool()}
		d.Recall, d.words = r.wordList()
		d.Aliases, d.aliases = r.wordList()
		d.Dormant = r.bool()
		d.DormantFrom = r.optProv()
		nr := r.count(MaxRulesInDomain)
		for k := 0; k < nr && r.err == nil; k++ {
			in := InForce{ID: r.str(), Text: r.str(), Recall: r.strs()}
			for range in.Recall {
				in.words = append(in.words, r.word())
			}
			in.From = r.prov()
			in.Replaced = r.optProv()
			d.Rules = append(d.Rules, in)
		}
		nx := r.count(MaxRulesInDomain * 3)
		for k := 0; k < nx && r.err == nil; k++ {
			d.Dropped = append(d.Dropped, Dropped{ID: r.str(), Text: r.str(), From: r.prov(), By: r.prov()})
		}
		s.Domains = append(s.Domains, d)
		s.names[d.Name] = d
		for _, a := range d.Aliases {
			s.names[a.Text] = d
		}
	}
	if r.err == nil && len(r.data) != 0 {
		r.err = errCompiled
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

type writer struct {
	body    []byte
	strings []string
	index   map[string]uint32
}

func (w *writer) int(n int) { w.body = binary.AppendUvarint(w.body, uint64(n)) }

func (w *writer) bool(b bool) {
	if b {
		w.body = append(w.body, 1)
	} else {
		w.body = append(w.body, 0)
	}
}

func (w *writer) str(s string) {
	i, ok := w.index[s]
	if !ok {
		i = uint32(len(w.strings))
		w.index[s] = i
		w.strings = append(w.strings, s)
	}
	w.int(int(i))
}

func (w *writer) strs(ss []string) {
	w.int(len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

func (w *writer) prov(p Provenance) {
	w.str(string(p.Layer))
	w.str(p.Origin)
}

func (w *writer) optProv(p *Provenance) {
	w.bool(p != nil)
	if p != nil {
		w.prov(*p)
	}
}

func (w *writer) word(pw word) {
	w.str(pw.raw)
	w.bool(pw.prefix)
	w.strs(pw.parts)
}

func (w *writer) wordList(ws []Word, parsed []word) {
	w.int(len(ws))
	for i, x := range ws {
		w.str(x.Text)
		w.prov(x.From)
		w.word(parsed[i])
	}
}

type reader struct {
	data    []byte
	strings []string
	err     error
}

func (r *reader) count(most int) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > uint64(most) || v > math.MaxInt32 {
		r.err = errCompiled
		return 0
	}
	r.data = r.data[n:]
	if most == MaxFileBytes && int(v) > len(r.data) {
		r.err = errCompiled
		return 0
	}
	return int(v)
}

func (r *reader) bool() bool {
	if r.err != nil || len(r.data) == 0 || r.data[0] > 1 {
		r.err = errCompiled
		return false
	}
	b := r.data[0] == 1
	r.data = r.data[1:]
	return b
}

func (r *reader) str() string {
	i := r.count(len(r.strings) - 1)
	if r.err != nil || i >= len(r.strings) {
		r.err = errCompiled
		return ""
	}
	return r.strings[i]
}

func (r *reader) strs() []string {
	n := r.count(1 << 16)
	var out []string
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.str())
	}
	return out
}

func (r *reader) prov() Provenance { return Provenance{Layer: Layer(r.str()), Origin: r.str()} }

func (r *reader) optProv() *Provenance {
	if !r.bool() {
		return nil
	}
	p := r.prov()
	return &p
}

func (r *reader) word() word {
	w := word{raw: r.str(), prefix: r.bool(), parts: r.strs()}
	if len(w.parts) == 0 || len(w.parts) > 4 {
		r.err = errCompiled
	}
	return w
}

func (r *reader) wordList() ([]Word, []word) {
	n := r.count(MaxWordsInDomain)
	var ws []Word
	var parsed []word
	for i := 0; i < n && r.err == nil; i++ {
		ws = append(ws, Word{Text: r.str(), From: r.prov()})
		parsed = append(parsed, r.word())
	}
	return ws, parsed
}
