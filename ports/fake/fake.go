// Package fake holds in-memory implementations of every port, for tests.
package fake

import (
	"bytes"
	"context"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/ports"
)

// Inspector returns fixed facts, or Err.
type Inspector struct {
	Facts ports.RepoFacts
	Err   error
}

func (i Inspector) Inspect(context.Context) (ports.RepoFacts, error) { return i.Facts, i.Err }

// Schemas serves schemas from memory.
type Schemas struct {
	Idx   contract.Index
	Files map[string][]byte
	Err   error
}

func (s Schemas) Index() (contract.Index, error) { return s.Idx, s.Err }

func (s Schemas) Schema(name string) ([]byte, bool, error) {
	if s.Err != nil {
		return nil, false, s.Err
	}
	data, ok := s.Files[name]
	return data, ok, nil
}

// Config serves fixed configuration files, or Err.
type Config struct {
	Files ports.ConfigFiles
	Err   error
}

func (c Config) ReadConfig(context.Context) (ports.ConfigFiles, error) { return c.Files, c.Err }

// Roster serves a fixed roster, or Err.
type Roster struct {
	R   roster.Roster
	Err error
}

func (r Roster) Roster() (roster.Roster, error) { return r.R, r.Err }

// Diag records every warning.
type Diag struct{ Warnings []string }

func (d *Diag) Warn(msg string) { d.Warnings = append(d.Warnings, msg) }

// Setup is an in-memory repository and machine folder. Paths are slash-separated; Dirs and Files are
// relative to the root, Machine holds machine files by name.
type Setup struct {
	RootDir string
	NotGit  bool
	Dirs    map[string]bool
	Files   map[string][]byte
	Machine map[string][]byte
	Home    string
	Err     error
}

// NewSetup is an empty git repository at root with an empty machine folder at home.
func NewSetup(root, home string) *Setup {
	return &Setup{RootDir: root, Home: home, Dirs: map[string]bool{}, Files: map[string][]byte{}, Machine: map[string][]byte{}}
}

func (s *Setup) Root() (string, bool) { return s.RootDir, !s.NotGit }

func (s *Setup) MkdirAll(rel string) (bool, error) {
	if s.Err != nil {
		return false, s.Err
	}
	if s.Dirs[rel] {
		return false, nil
	}
	for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		s.Dirs[p] = true
	}
	return true, nil
}

func (s *Setup) CreateFile(rel string, data []byte) (bool, error) {
	if s.Err != nil {
		return false, s.Err
	}
	if _, ok := s.Files[rel]; ok {
		return false, nil
	}
	s.Files[rel] = append([]byte(nil), data...)
	return true, nil
}

func (s *Setup) Exists(rel string) (bool, error) {
	_, file := s.Files[rel]
	return file || s.Dirs[rel], s.Err
}

func (s *Setup) RemoveEmptyDir(rel string) (bool, error) {
	if !s.Dirs[rel] {
		return false, s.Err
	}
	for p := range s.Dirs {
		if strings.HasPrefix(p, rel+"/") {
			return false, nil
		}
	}
	for p := range s.Files {
		if strings.HasPrefix(p, rel+"/") {
			return false, nil
		}
	}
	delete(s.Dirs, rel)
	return true, s.Err
}

func (s *Setup) RemoveFileIf(rel string, data []byte) (bool, error) {
	got, ok := s.Files[rel]
	if !ok || !bytes.Equal(got, data) {
		return false, s.Err
	}
	delete(s.Files, rel)
	return true, s.Err
}

func (s *Setup) MachinePath(name string) string { return path.Join(s.Home, name) }

func (s *Setup) MachineExists(name string) (bool, error) {
	_, ok := s.Machine[name]
	return ok, s.Err
}

func (s *Setup) CreateMachineFile(name string, data []byte) (bool, error) {
	if s.Err != nil {
		return false, s.Err
	}
	if _, ok := s.Machine[name]; ok {
		return false, nil
	}
	s.Machine[name] = append([]byte(nil), data...)
	return true, nil
}

// Prompter answers from a script and records every question. With TTY false it is not interactive.
type Prompter struct {
	TTY       bool
	Answers   []bool
	Questions []string
	Shown     []string
}

func (p *Prompter) Interactive() bool { return p.TTY }
func (p *Prompter) Show(text string)  { p.Shown = append(p.Shown, text) }

func (p *Prompter) Confirm(_ context.Context, q string) (bool, error) {
	p.Questions = append(p.Questions, q)
	if len(p.Answers) == 0 {
		return false, nil
	}
	a := p.Answers[0]
	p.Answers = p.Answers[1:]
	return a, nil
}

// Records is an in-memory record store keyed by path.
type Records struct {
	Init  bool
	Files map[string][]byte
	// Locked makes Lock report contention.
	Locked bool
}

// NewRecords is an initialized, empty record.
func NewRecords() *Records { return &Records{Init: true, Files: map[string][]byte{}} }

func (r *Records) Initialized() bool { return r.Init }

func (r *Records) List(_ context.Context, dir, prefix string, limit int) ([]ports.RecordFile, error) {
	var names []string
	for p := range r.Files {
		if path.Dir(p) == dir && strings.HasPrefix(path.Base(p), prefix+"-") && strings.HasSuffix(p, ".md") {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	out := []ports.RecordFile{}
	for _, p := range names {
		data := r.Files[p]
		if limit > 0 && len(data) > limit {
			data = data[:limit]
		}
		out = append(out, ports.RecordFile{Path: p, Data: append([]byte(nil), data...)})
	}
	return out, nil
}

func (r *Records) Read(_ context.Context, p string) ([]byte, error) {
	data, ok := r.Files[p]
	if !ok {
		return nil, refusal.New("record_missing", p, "does not exist", "list the records")
	}
	return append([]byte(nil), data...), nil
}

func (r *Records) Create(_ context.Context, p string, data []byte) (bool, error) {
	if _, ok := r.Files[p]; ok {
		return false, nil
	}
	r.Files[p] = append([]byte(nil), data...)
	return true, nil
}

func (r *Records) Replace(_ context.Context, p string, data []byte) error {
	if _, ok := r.Files[p]; !ok {
		return refusal.New("record_missing", p, "does not exist", "list the records")
	}
	r.Files[p] = append([]byte(nil), data...)
	return nil
}

func (r *Records) Move(_ context.Context, from, to string, data []byte) error {
	if _, ok := r.Files[to]; ok {
		return refusal.New("record_exists", to, "already exists", "lint the record")
	}
	if _, ok := r.Files[from]; !ok {
		return refusal.New("record_missing", from, "does not exist", "list the records")
	}
	delete(r.Files, from)
	r.Files[to] = append([]byte(nil), data...)
	return nil
}

func (r *Records) Lock(context.Context) (func(), error) {
	if r.Locked {
		return nil, refusal.Busy("record_locked", ".abcd/.work.local/record.lock", "another abcd is changing the record", "try again")
	}
	return func() {}, nil
}

// Clock is a fixed time.
type Clock struct{ T time.Time }

func (c Clock) Now() time.Time { return c.T }

// Random counts up from N, so ids are distinct and predictable.
type Random struct{ N uint32 }

func (r *Random) Uint32() uint32 { r.N++; return r.N }
