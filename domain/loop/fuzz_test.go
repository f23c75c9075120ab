package loop

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecode: Decode never panics; a refusal names the file; whatever it accepts is this schema
// version, Encode writes it without a null, and Encode → Decode gives the same state and the same
// bytes. The machine's read-only questions do not panic on it either.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(fullState(f)))
	f.Add([]byte(`{"schema_version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("state.json", data)
		if err != nil {
			if !strings.Contains(err.Error(), "state.json") {
				t.Fatalf("the refusal does not name the file: %v", err)
			}
			return
		}
		if s.SchemaVersion < oldestVersion || s.SchemaVersion > SchemaVersion {
			t.Fatalf("accepted schema_version %d", s.SchemaVersion)
		}
		out := Encode(s)
		var generic any
		if err := json.Unmarshal(out, &generic); err != nil {
			t.Fatalf("Encode wrote invalid JSON: %v", err)
		}
		if path := nullAt(generic, "$"); path != "" {
			t.Fatalf("Encode wrote null at %s", path)
		}
		s2, err := Decode("state.json", out)
		if err != nil {
			t.Fatalf("Decode refuses what Encode wrote: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Fatalf("Encode → Decode changed the state:\n%+v\nwas\n%+v", s2, s)
		}
		if again := Encode(s2); !bytes.Equal(again, out) {
			t.Fatalf("Encode is not stable:\n%s\nwas\n%s", again, out)
		}
		_ = Pending(s)
		if s.Check() == nil {
			_ = Due(s) // the engine only steps a state Check accepts
		}
		_ = s.Finished()
		_ = s.OpenAwaits()
	})
}
