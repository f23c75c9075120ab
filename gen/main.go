// Command gen writes the published JSON Schemas (schemas/v1) from the boundary types, checks them for
// drift, and records which schemas a release has published.
//
//	go run ./gen            regenerate schemas/v1 (make schemas)
//	go run ./gen -check     fail on any byte of difference (make schemas-check)
//	go run ./gen -publish N record schema N's meaning as published (a comma list, or "all")
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
)

// ledgerFile records the meaning digest of every schema a release published in this version.
const ledgerFile = "gen/published-" + contract.Version + ".json"

func main() {
	check := flag.Bool("check", false, "fail when schemas/ differs from the Go types, writing nothing")
	publish := flag.String("publish", "", "record these schemas' meaning as published (comma list, or all)")
	flag.Parse()
	if err := run(*check, *publish); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(check bool, publish string) error {
	root, err := WorkspaceRoot(".")
	if err != nil {
		return err
	}
	ledger, err := ReadLedger(root)
	if err != nil {
		return err
	}
	files, err := Generate(root, ledger)
	if err != nil {
		return err
	}
	if check {
		if problems := Drift(root, files); len(problems) > 0 {
			return fmt.Errorf("the published schemas drifted from the Go types:\n  %s", strings.Join(problems, "\n  "))
		}
		return nil
	}
	if err := WriteSchemas(root, files); err != nil {
		return err
	}
	if publish != "" {
		return Publish(root, ledger, files, publish)
	}
	return nil
}

// ReadLedger reads gen/published-v1.json; an absent ledger publishes nothing.
func ReadLedger(root string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(root, ledgerFile))
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	ledger := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ledger); err != nil {
		return nil, fmt.Errorf("%s: %w", ledgerFile, err)
	}
	return ledger, nil
}

// Publish adds the named schemas' meaning digests to the ledger, after which gen refuses to change them.
func Publish(root string, ledger map[string]string, files map[string][]byte, names string) error {
	var list []string
	if names == "all" {
		for f := range files {
			if n, ok := strings.CutSuffix(f, ".schema.json"); ok {
				list = append(list, n)
			}
		}
	} else {
		list = strings.Split(names, ",")
	}
	for _, n := range list {
		data, ok := files[contract.FileName(strings.TrimSpace(n))]
		if !ok {
			return fmt.Errorf("-publish: no schema named %q (see schemas/v1/index.json)", n)
		}
		d, err := MeaningDigest(data)
		if err != nil {
			return err
		}
		ledger[strings.TrimSpace(n)] = d
	}
	data, err := json.MarshalIndent(ledger, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(root, ledgerFile), append(data, '\n'))
}

// Drift compares generated files with schemas/v1 and names every file that differs, is missing or
// is stale, each with the command that fixes it.
func Drift(root string, files map[string][]byte) []string {
	dir := filepath.Join(root, "schemas", contract.Version)
	var problems []string
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case os.IsNotExist(err):
			problems = append(problems, fmt.Sprintf("schemas/%s/%s is missing: run `make schemas` and commit it", contract.Version, name))
		case err != nil:
			problems = append(problems, fmt.Sprintf("schemas/%s/%s: %v", contract.Version, name, err))
		case !bytes.Equal(got, want):
			problems = append(problems, fmt.Sprintf("schemas/%s/%s differs from the Go types: run `make schemas` and commit it", contract.Version, name))
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			problems = append(problems, fmt.Sprintf("schemas/%s/%s is no longer generated: run `make schemas` to remove it", contract.Version, e.Name()))
		}
	}
	slices.Sort(problems)
	return problems
}

// WriteSchemas writes every file atomically and removes files no type generates any more.
func WriteSchemas(root string, files map[string][]byte) error {
	dir := filepath.Join(root, "schemas", contract.Version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := writeAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gen-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
