package review

import (
	"strings"
	"testing"
)

func TestRoleValid(t *testing.T) {
	for _, r := range Roles() {
		if !r.Valid() {
			t.Errorf("%s is not valid", r)
		}
	}
	for _, r := range []Role{"", "Ruthless-Reviewer", "reviewer", "host"} {
		if r.Valid() {
			t.Errorf("%q is valid", r)
		}
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		role       Role
		pass, fail string
		list       string
	}{
		{Ruthless, "SHIP", "FIX FIRST", "SHIP or FIX FIRST"},
		{Security, "APPROVE", "BLOCK,NEEDS-INPUT", "APPROVE, BLOCK or NEEDS-INPUT"},
		{Auditor, "MET,MET_WITH_CONCERNS", "NOT_MET,INCONCLUSIVE", "MET, MET_WITH_CONCERNS, NOT_MET or INCONCLUSIVE"},
		{Implementer, "", "", ""},
		{"nobody", "", "", ""},
	} {
		pass, fail := Words(tc.role)
		if strings.Join(pass, ",") != tc.pass || strings.Join(fail, ",") != tc.fail {
			t.Errorf("Words(%s) = %q, %q", tc.role, pass, fail)
		}
		if got := wordList(tc.role); got != tc.list {
			t.Errorf("wordList(%s) = %q, want %q", tc.role, got, tc.list)
		}
	}
	pass, _ := Words(Ruthless)
	pass[0] = "CHANGED"
	if again, _ := Words(Ruthless); again[0] != "SHIP" {
		t.Fatal("Words shares its slices")
	}
}

func TestReturnErrorWithoutProblems(t *testing.T) {
	if got := (&ReturnError{}).Error(); got != "the return is refused" {
		t.Fatal(got)
	}
}
