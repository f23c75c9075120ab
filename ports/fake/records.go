package fake

import (
	"context"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
)

// Records is an in-memory record store keyed by path.
type Records struct {
	Init  bool
	Files map[string][]byte
	// Locked is true while a lock is held; set it to make Lock report contention.
	Locked bool
	// Waited is the wait the last Lock was given; Temps is what StrayTemps lists, MergeTempFiles
	// what MergeTemps lists.
	Waited         time.Duration
	Temps          []ports.StrayTemp
	MergeTempFiles []ports.StrayTemp
	// Missing is what InstallMissing lists: the files an interrupted install did not write.
	Missing []string
}

// NewRecords is an initialized, empty record.
func NewRecords() *Records { return &Records{Init: true, Files: map[string][]byte{}} }

func (r *Records) Initialized() bool { return r.Init }

// InstallMissing is Missing: the files an interrupted install did not write.
func (r *Records) InstallMissing() ([]string, error) { return r.Missing, nil }

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

func (r *Records) Names(ctx context.Context, dir, prefix string) ([]string, error) {
	files, err := r.List(ctx, dir, prefix, 1)
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out, err
}

func (r *Records) Read(_ context.Context, p string) ([]byte, error) {
	data, ok := r.Files[p]
	if !ok {
		return nil, refusal.New(refusal.CodeRecordMissing, p, "does not exist", "list the records")
	}
	return append([]byte(nil), data...), nil
}

func (r *Records) Create(ctx context.Context, p string, data []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if _, ok := r.Files[p]; ok {
		return false, nil
	}
	r.Files[p] = append([]byte(nil), data...)
	return true, nil
}

func (r *Records) Replace(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := r.Files[p]; !ok {
		return refusal.New(refusal.CodeRecordMissing, p, "does not exist", "list the records")
	}
	r.Files[p] = append([]byte(nil), data...)
	return nil
}

func (r *Records) Lock(_ context.Context, wait time.Duration) (func(), error) {
	r.Waited = wait
	if r.Locked {
		return nil, refusal.Busy(refusal.CodeRecordLocked, ".abcd", "another abcd is changing the record", "try again")
	}
	r.Locked = true
	return func() { r.Locked = false }, nil
}

func (r *Records) StrayTemps(context.Context) ([]ports.StrayTemp, error) {
	return append([]ports.StrayTemp{}, r.Temps...), nil
}

func (r *Records) MergeTemps(context.Context) ([]ports.StrayTemp, error) {
	return append([]ports.StrayTemp{}, r.MergeTempFiles...), nil
}
