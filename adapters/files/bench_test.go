package files

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchRecords is a repository holding n intent drafts.
func benchRecords(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	drafts := filepath.Join(dir, ".abcd", "development", "intents", "drafts")
	if err := os.MkdirAll(drafts, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("x", 2048)
	for i := range n {
		if err := os.WriteFile(filepath.Join(drafts, fmt.Sprintf("itd-%016d-r.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkListThroughTheRoot lists 1,000 records through the store; BenchmarkListPlainReference
// does the least any store could (read the folder, open and read each file to the same limit), so
// their ratio is the cost of confinement, link refusal and bounds.
func BenchmarkListThroughTheRoot(b *testing.B) {
	r := Records{Dir: benchRecords(b, 1000)}
	ctx := context.Background()
	for b.Loop() {
		files, err := r.List(ctx, ".abcd/development/intents/drafts", "itd", 1024)
		if err != nil || len(files) != 1000 {
			b.Fatal(err, len(files))
		}
	}
}

func BenchmarkListPlainReference(b *testing.B) {
	drafts := filepath.Join(benchRecords(b, 1000), ".abcd", "development", "intents", "drafts")
	for b.Loop() {
		entries, err := os.ReadDir(drafts)
		if err != nil || len(entries) != 1000 {
			b.Fatal(err)
		}
		for _, e := range entries {
			f, err := os.Open(filepath.Join(drafts, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadAll(io.LimitReader(f, 1025)); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadOneRecord is one record read whole through the store: the walk from the repository
// root down its folders and the guarded read.
func BenchmarkReadOneRecord(b *testing.B) {
	r := Records{Dir: benchRecords(b, 1)}
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.Read(ctx, ".abcd/development/intents/drafts/itd-0000000000000000-r.md"); err != nil {
			b.Fatal(err)
		}
	}
}
