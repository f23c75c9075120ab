package loop

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func code(err error) string {
	if r, ok := refusal.As(err); ok {
		return string(r.Code)
	}
	if err != nil {
		return "not a refusal: " + err.Error()
	}
	return ""
}

func TestRunIDChecksItsShape(t *testing.T) {
	for in, want := range map[string]string{
		"run-2611300253503525": "", "run-a1": "",
		"": "run_invalid", "run-": "run_invalid", "../run-1": "run_invalid", "run-1/x": "run_invalid",
		"RUN-1": "run_invalid", "run-1\x00": "run_invalid", "run-" + strings.Repeat("1", 61): "run_invalid",
	} {
		var r RunID
		assert.Check(t, is.Equal(code(r.UnmarshalText([]byte(in))), want), "%q", in)
		assert.Check(t, is.Equal(ValidRunID(in), want == ""), "%q", in)
	}
}

func TestRevisionIsOneCommitNeverAnOption(t *testing.T) {
	for in, want := range map[string]string{
		"main": "", "HEAD~3": "", "v1.2.0": "", "1a2b3c4": "", "origin/main": "", "HEAD@{1}": "",
		"": "revision_invalid", "-x": "revision_invalid", "--upload-pack=evil": "revision_invalid",
		"main..HEAD": "revision_invalid", "a b": "revision_invalid", "a\tb": "revision_invalid",
		"a\x00b": "revision_invalid", "a\u202eb": "revision_invalid", strings.Repeat("r", 256): "revision_invalid",
	} {
		var r Revision
		err := r.UnmarshalText([]byte(in))
		assert.Check(t, is.Equal(code(err), want), "%q", in)
		if re, ok := refusal.As(err); ok {
			assert.Check(t, len(re.Why) < 300 && len(re.Remedy) > 0)
		}
	}
}

func TestReturnPathNeverClimbs(t *testing.T) {
	for in, want := range map[string]string{
		".abcd/.work.local/run/run-1/lane-1/implement/receipt.json": "",
		"/work/repo/.abcd/.work.local/run/run-1/lane-1/return.md":   "",
		`.abcd\.work.local\run\run-1\lane-1\return.md`:              "",
		"": "receipt_path_invalid", "  ": "receipt_path_invalid", "../../etc/passwd": "receipt_path_invalid",
		".abcd/../../x": "receipt_path_invalid", `a\..\..\b`: "receipt_path_invalid", "a\x00b": "receipt_path_invalid",
		strings.Repeat("p", 1025): "receipt_path_invalid",
	} {
		var p ReturnPath
		assert.Check(t, is.Equal(code(p.UnmarshalText([]byte(in))), want), "%q", in)
	}
}
