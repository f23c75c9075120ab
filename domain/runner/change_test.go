package runner

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/secret"
)

const heldKey = "sk-ant-api03-Qx7Lm2Zp9Kr4Wt8Vn3Bj6Hc1Fd5Gs0Ya"

// diffAdding is a diff that adds lines to path.
func diffAdding(path string, lines ...string) string {
	return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/" + path +
		"\n@@ -0,0 +1," + string(rune('0'+len(lines))) + " @@\n+" + strings.Join(lines, "\n+") + "\n"
}

// A change that carries a held credential, in any spelling the scrubber knows, names the file; one
// that only removes it, or shows it as context, carries nothing new.
func TestAChangeCarryingAHeldCredentialNamesItsFile(t *testing.T) {
	sc := secret.NewScrubber(heldKey)
	for name, c := range map[string]Change{
		"as it is":         {Diff: diffAdding("config/app.env", "ANTHROPIC_API_KEY="+heldKey)},
		"in base64":        {Diff: diffAdding("k.txt", base64.StdEncoding.EncodeToString([]byte("x:"+heldKey)))},
		"in hex":           {Diff: diffAdding("k.txt", hex.EncodeToString([]byte(heldKey)))},
		"cut short":        {Diff: diffAdding("k.txt", "prefix "+heldKey[:20])},
		"cut over lines":   {Diff: diffAdding("k.go", `k := "sk-ant-" +`, `"api03-Q" +`, `"x7Lm2Zp" + "9Kr4Wt8Vn3Bj6Hc1Fd5Gs0Ya"`)},
		"in a file's name": {Diff: diffAdding("keys/"+heldKey[7:]+".txt", "nothing")},
		"in a message":     {Messages: "add the key " + heldKey + "\n", Diff: diffAdding("a.txt", "a")},
		"in a second file": {Diff: diffAdding("a.txt", "a") + diffAdding("b.txt", "b "+heldKey)},
		"without its sk-":  {Diff: diffAdding("k.txt", strings.TrimPrefix(heldKey, "sk-ant-api03-"))},
		"JSON-escaped":     {Diff: diffAdding("k.json", `{"k":"`+strings.ReplaceAll(heldKey, "-", `\u002d`)+`"}`)},
	} {
		scan := ScanChange(c, sc)
		assert.Check(t, !scan.Clean(), name)
		assert.Check(t, is.Len(scan.Files, 1), "%s: %v", name, scan.Files)
		f := scan.Failure(sc)
		assert.Check(t, is.Equal(f.Cause, CauseCredentialInChange))
		assert.Check(t, !secret.NewScrubber(heldKey).Holds(f.Detail), "%s: the detail carries the key: %s", name, f.Detail)
		patch := ScrubbedPatch(c, sc)
		assert.Check(t, !sc.Carries(patch), "%s: the kept patch carries the key:\n%s", name, patch)
		assert.Check(t, is.Contains(patch, secret.Mark), name)
	}
	removed := "diff --git a/k.txt b/k.txt\nindex 1..2 100644\n--- a/k.txt\n+++ b/k.txt\n@@ -1,2 +1,2 @@\n " + heldKey + "\n-old " + heldKey + "\n+new\n"
	assert.Check(t, ScanChange(Change{Diff: removed}, sc).Clean(), "what the lane held already is not the step's")
	assert.Check(t, ScanChange(Change{Diff: diffAdding("a.go", "package a", `const k = "sk-ant-"`)}, sc).Clean())
	assert.Check(t, ScanChange(Change{Diff: diffAdding("a.txt", heldKey)}, secret.NewScrubber()).Clean(), "no credential held, none found")
}

// A change too large to be scanned whole is never clean: abcd cannot show it carries nothing.
func TestAChangeTooLargeToScanIsNotClean(t *testing.T) {
	sc := secret.NewScrubber(heldKey)
	scan := ScanChange(Change{Diff: diffAdding("a.txt", "fine"), Truncated: true}, sc)
	assert.Check(t, !scan.Clean())
	assert.Check(t, scan.TooLarge)
	f := scan.Failure(sc)
	assert.Check(t, is.Equal(f.Cause, CauseCredentialInChange))
	assert.Check(t, is.Contains(f.Detail, "larger than the 32 MiB"))
}

func TestAScanNamesAFewFilesAndCountsTheRest(t *testing.T) {
	sc := secret.NewScrubber(heldKey)
	var diff strings.Builder
	for _, p := range []string{"a", "b", "c", "d", "e"} {
		diff.WriteString(diffAdding(p+".txt", heldKey))
	}
	f := ScanChange(Change{Diff: diff.String()}, sc).Failure(sc)
	assert.Check(t, is.Contains(f.Detail, `(in "a.txt", "b.txt", "c.txt" and 2 other files)`), f.Detail)
}

func FuzzDiffFiles(f *testing.F) {
	f.Add(diffAdding("a b/c.txt", "x", "y"))
	f.Add("diff --git a/x b/x\n+++ b/x\n+" + heldKey + "\n")
	sc := secret.NewScrubber(heldKey)
	f.Fuzz(func(t *testing.T, diff string) {
		for _, file := range diffFiles(diff) {
			if !strings.Contains(diff, file.name) {
				t.Fatalf("a name the diff does not hold: %q", file.name)
			}
		}
		if strings.HasPrefix(diff, "diff --git ") && strings.Contains(diff, "\n+"+heldKey) {
			if ScanChange(Change{Diff: diff}, sc).Clean() {
				t.Fatalf("an added key passed: %q", diff)
			}
		}
	})
}
