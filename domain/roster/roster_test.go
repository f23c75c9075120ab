package roster

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func agent(name, file string) Agent {
	return Agent{FrontMatter: FrontMatter{Name: name, Tools: []string{"Read"}}, File: file, Body: "b"}
}

func TestNewSortsByName(t *testing.T) {
	r, err := New([]Agent{agent("zeta", "z.md"), agent("alpha", "a.md"), agent("mid", "m.md")})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if got, want := r.Names(), []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
	var files []string
	for _, a := range r.Agents() {
		files = append(files, a.File)
	}
	if want := []string{"a.md", "m.md", "z.md"}; !reflect.DeepEqual(files, want) {
		t.Errorf("Agents files = %q, want %q", files, want)
	}
	a, ok := r.Get("mid")
	if !ok || a.File != "m.md" {
		t.Errorf("Get(mid) = %+v, %v", a, ok)
	}
	for _, missing := range []string{"", "beta", "zz", "Alpha"} {
		if _, ok := r.Get(missing); ok {
			t.Errorf("Get(%q) found an agent", missing)
		}
	}
}

func TestNewEmpty(t *testing.T) {
	for _, in := range [][]Agent{nil, {}} {
		r, err := New(in)
		if err != nil {
			t.Fatalf("New(%v): %v", in, err)
		}
		if r.Names() == nil || len(r.Names()) != 0 {
			t.Errorf("Names = %#v, want empty non-nil", r.Names())
		}
		if r.Agents() == nil || len(r.Agents()) != 0 {
			t.Errorf("Agents = %#v, want empty non-nil", r.Agents())
		}
	}
	var zero Roster
	if zero.Names() == nil || zero.Agents() == nil {
		t.Error("zero Roster returns nil slices")
	}
	if _, ok := zero.Get("x"); ok {
		t.Error("zero Roster found an agent")
	}
}

func TestNewRefusesDuplicateNames(t *testing.T) {
	_, err := New([]Agent{agent("a", "agents/a.md"), agent("b", "agents/b.md"), agent("a", "plugins/a.md")})
	var dup *DuplicateNameError
	if !errors.As(err, &dup) {
		t.Fatalf("err = %v, want *DuplicateNameError", err)
	}
	if dup.Name != "a" || dup.First != "agents/a.md" || dup.Again != "plugins/a.md" {
		t.Errorf("got %+v", dup)
	}
	for _, s := range []string{`"a"`, "agents/a.md", "plugins/a.md"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}

func TestNewRefusesMalformedName(t *testing.T) {
	for _, name := range []string{"", "Bad", "a b"} {
		if _, err := New([]Agent{agent(name, "f.md")}); err == nil {
			t.Errorf("New accepted name %q", name)
		}
	}
}

func TestRosterHandsOutCopies(t *testing.T) {
	in := []Agent{agent("a", "a.md")}
	r, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	in[0].Tools[0] = "changed-in-input"
	r.Agents()[0].Tools[0] = "changed-via-agents"
	got, _ := r.Get("a")
	got.Tools[0] = "changed-via-get"
	if again, _ := r.Get("a"); again.Tools[0] != "Read" {
		t.Errorf("roster agent changed to %q", again.Tools[0])
	}
}
