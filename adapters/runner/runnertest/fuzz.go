package runnertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/abcd-dev/abcd/adapters/runner"
	"github.com/abcd-dev/abcd/domain/strictjson"
)

// FuzzParser fuzzes a dialect's parser from its recorded streams (testdata/<version>/*.jsonl, every
// line a seed, and every stream whole): a stream of lines is read by one parser as a step reads it.
// Whatever the input, the parser never panics, names an event's type when it reads one, a handshake
// is neither a terminal event nor a tool call, a terminal event it reports carries a reason and, when
// it failed, a cause of the closed set, and an event that proves abcd's settings loaded is never the
// CLI's work.
func FuzzParser(f *testing.F, d runner.Dialect) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	if len(files) == 0 {
		f.Fatal("no recorded stream to start from")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		p := d.NewParser()
		for _, line := range bytes.Split(stream, []byte("\n")) {
			// The adapter hands a parser only lines that are one strict JSON object.
			if strictjson.CheckObject(line, strictjson.Limits{MaxDepth: 512}) != nil || len(line) == 0 {
				continue
			}
			ev, err := p.Event(line)
			if err != nil {
				var ee *runner.ErrEvent
				if !errors.As(err, &ee) {
					t.Fatalf("a parser fault is not an ErrEvent: %v", err)
				}
				continue
			}
			if ev.Terminal != nil {
				if ev.Terminal.Event == "" || ev.Terminal.Reason == "" {
					t.Fatalf("a terminal event without its type or reason: %+v", ev.Terminal)
				}
				if ev.Terminal.Failure != nil && !ev.Terminal.Failure.Cause.Valid() {
					t.Fatalf("a failure outside the closed causes: %+v", ev.Terminal.Failure)
				}
				if s := ev.Terminal.Structured; s != nil && !json.Valid(s) {
					t.Fatalf("a structured answer that is not JSON: %q", s)
				}
			}
			if ev.Handshake && (ev.Terminal != nil || len(ev.Opened)+len(ev.Closed)+len(ev.Whole) > 0) {
				t.Fatalf("a handshake that is also a terminal event or a tool call: %q", line)
			}
			if ev.Terminal == nil && ev.Type == "" {
				t.Fatalf("an event read without its type: %q", line)
			}
			// What proves abcd's settings loaded is never the CLI's work itself: an event the model
			// wrote could otherwise prove the settings it runs without.
			if ev.Loaded != "" && (ev.Terminal != nil || ev.Turn || len(ev.Opened)+len(ev.Closed)+len(ev.Whole) > 0) {
				t.Fatalf("an event that proves the settings is also work: %q", line)
			}
		}
	})
}
