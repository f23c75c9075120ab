package guard

import (
	"bytes"
	"testing"
)

// FuzzGuardFile reads any bytes as a repository's .abcd/guard.json: a file is read strictly or
// refused, never half read; one that is read compiles or is refused; and the part of it that stands
// while it is not allowed never weakens the built-in rules, whatever the file says.
func FuzzGuardFile(f *testing.F) {
	for _, seed := range []string{
		`{"schema_version":1}`,
		`{"schema_version":1,"enabled":false}`,
		`{"schema_version":1,"disable":["rm-recursive-root"],"tiers":{"git-stash-drop":"block","git-push-force":"warn"}}`,
		`{"schema_version":1,"syntax":[{"command":"shred","values":["-z"]},{"command":"terraform","style":"subcommand"}]}`,
		`{"schema_version":1,"rules":[{"id":"x","tier":"block","command":["terraform"],"subcommand":["destroy"],"why":"w","safer":"s","bad":["terraform destroy"],"good":["terraform plan"]}],"tiers":{"x":"allow"}}`,
		`{"schema_version":1,"rules":[{"id":"y","tier":"warn","unknown":"allow","all":[{"redirect":["{repo}/prod.env"],"exact":true}],"why":"w","safer":"s","bad":["a"],"good":["b"]}],"disable":["y"]}`,
		`{"schema_version":2}`, `{"schema_version":1,"x":1}`, `{"schema_version":1,"disable":[],"disable":[]}`, `[]`, `{`,
	} {
		f.Add([]byte(seed))
	}
	builtin, err := Builtin()
	if err != nil {
		f.Fatal(err)
	}
	base, err := Compile(builtin, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode("guard.json", data)
		if err != nil {
			if file.SchemaVersion != 0 || file.Rules != nil || file.Tiers != nil {
				t.Fatalf("a refused file came back half read: %+v", file)
			}
			return
		}
		if _, err := Compile(builtin, &file); err != nil {
			return
		}
		strict, err := Strict(builtin, file)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := Compile(builtin, &strict)
		if err != nil {
			t.Fatalf("the strict part of a file that compiles does not compile: %v\n%s", err, data)
		}
		if weak := Weakens(base, reg); len(weak) > 0 {
			t.Fatalf("the strict part weakens the built-in rules: %v\n%s", weak, data)
		}
	})
}

// FuzzAllowFile reads any bytes as $ABCD_HOME/guard-allowed.json: read strictly or refused, and what
// is read is written back to the same bytes' meaning.
func FuzzAllowFile(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"allow":[]}`))
	f.Add([]byte(`{"schema_version":1,"allow":[{"file":"/a/.abcd/guard.json","sha256":"` + Digest(nil) + `"}]}`))
	f.Add([]byte(`{"schema_version":1,"allow":[{"file":"a","sha256":"x"}]}`))
	f.Add([]byte(`{"schema_version":1,"allow":[{"file":"/a","sha256":"` + Digest(nil) + `","x":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := DecodeAllowFile("allow", data)
		if err != nil {
			return
		}
		enc, err := file.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeAllowFile("allow", enc)
		if err != nil {
			t.Fatalf("what was read does not read back: %v\n%s", err, enc)
		}
		enc2, _ := again.Encode()
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("read back differently:\n%s\n%s", enc, enc2)
		}
		for _, a := range file.Allow {
			if a.SHA256 == Digest(nil) && !Allowed(file.Allow, a.File, nil) {
				t.Fatalf("the entry for %s does not allow the bytes it names", a.File)
			}
		}
	})
}
