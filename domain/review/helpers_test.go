package review

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// wantProblems checks err is a *ReturnError whose problems, in order, contain each of want.
func wantProblems(t *testing.T, err error, want ...string) {
	t.Helper()
	var re *ReturnError
	if !errors.As(err, &re) {
		t.Fatalf("error %T %v, want a *ReturnError", err, err)
	}
	if len(re.Problems) != len(want) {
		t.Fatalf("%d problems, want %d:\n  %s", len(re.Problems), len(want), strings.Join(re.Problems, "\n  "))
	}
	for i, w := range want {
		if !strings.Contains(re.Problems[i], w) {
			t.Errorf("problem %d is %q, want it to contain %q", i, re.Problems[i], w)
		}
	}
	if !strings.HasPrefix(err.Error(), "the return is refused: ") || !strings.Contains(err.Error(), strings.Join(re.Problems, "; ")) {
		t.Errorf("Error() is %q", err.Error())
	}
}

// reflectTag returns a struct field's jsonschema tag.
func reflectTag(t *testing.T, v any, field string) string {
	t.Helper()
	f, ok := reflect.TypeOf(v).FieldByName(field)
	if !ok {
		t.Fatalf("%T has no field %s", v, field)
	}
	return f.Tag.Get("jsonschema")
}
