package fake

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

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
	// Faults are errors Exists and MachineExists give for one name (a folder abcd may not read).
	Faults map[string]error
	// Waited is the wait the last UpdateMachineFile was given.
	Waited time.Duration
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
	if err := s.Faults[rel]; err != nil {
		return false, err
	}
	_, file := s.Files[rel]
	return file || s.Dirs[rel] || rel == "." || rel == "", s.Err
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

// Names lists what Files and Dirs hold directly in rel.
func (s *Setup) Names(rel string, max int) ([]string, error) {
	if s.Err != nil {
		return nil, s.Err
	}
	if err := s.Faults[rel]; err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range []map[string]bool{s.Dirs, keysOf(s.Files)} {
		for p := range m {
			if rest, ok := strings.CutPrefix(p, rel+"/"); ok {
				seen[strings.SplitN(rest, "/", 2)[0]] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	if len(names) > max {
		return nil, fmt.Errorf("%s holds more than %d names", rel, max)
	}
	sort.Strings(names)
	return names, nil
}

func keysOf(m map[string][]byte) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func (s *Setup) RemoveFileIf(rel string, data []byte) (bool, error) {
	got, ok := s.Files[rel]
	if !ok || !bytes.Equal(got, data) {
		return false, s.Err
	}
	delete(s.Files, rel)
	return true, s.Err
}

func (s *Setup) ReadFile(rel string) ([]byte, bool, error) {
	data, ok := s.Files[rel]
	return append([]byte(nil), data...), ok, s.Err
}

func (s *Setup) ReplaceFile(rel string, data []byte) error {
	if s.Err != nil {
		return s.Err
	}
	s.Files[rel] = append([]byte(nil), data...)
	return nil
}

func (s *Setup) MachinePath(name string) string { return path.Join(s.Home, name) }

func (s *Setup) ReadMachineFile(name string) ([]byte, bool, error) {
	data, ok := s.Machine[name]
	return append([]byte(nil), data...), ok, s.Err
}

func (s *Setup) MachineExists(name string) (bool, error) {
	if err := s.Faults[name]; err != nil {
		return false, err
	}
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

// UpdateMachineFile updates a machine file in memory, as the real one does under its lock.
func (s *Setup) UpdateMachineFile(_ context.Context, name string, wait time.Duration, update func([]byte, bool) ([]byte, error)) error {
	s.Waited = wait
	if s.Err != nil {
		return s.Err
	}
	old, present := s.Machine[name]
	data, err := update(append([]byte(nil), old...), present)
	if err != nil || data == nil {
		return err
	}
	s.Machine[name] = append([]byte(nil), data...)
	return nil
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
