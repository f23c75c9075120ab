package guard

import "testing"

func TestBuiltinDecodes(t *testing.T) {
	f, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Rules) < 30 {
		t.Fatalf("%d built-in rules, want at least 30", len(f.Rules))
	}
	if _, err := Compile(f, nil); err != nil {
		t.Fatal(err)
	}
}
