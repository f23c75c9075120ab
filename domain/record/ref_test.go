package record

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestResolveRef(t *testing.T) {
	in := []Candidate{
		{"itd-2607011230051234", "login-page", "a.md"},
		{"itd-2607011230059999", "logout", "b.md"},
		{"itd-2608010000000001", "login", "c.md"},
		{"itd-2609010000000001", "export-csv", "d.md"},
	}
	tests := []struct {
		name, ref string
		want      string   // the id found
		cands     []string // ids of the candidates of a *RefError
		reason    bool     // refused as not a ref
	}{
		{"exact id", "itd-2607011230051234", "itd-2607011230051234", nil, false},
		{"exact id, upper case and spaces", "  ITD-2607011230051234 ", "itd-2607011230051234", nil, false},
		{"file name", "itd-2607011230059999-logout.md", "itd-2607011230059999", nil, false},
		{"id with slug", "itd-2607011230059999-whatever", "itd-2607011230059999", nil, false},
		{"unique prefix", "itd-2608", "itd-2608010000000001", nil, false},
		{"ambiguous prefix", "itd-2607", "", []string{"itd-2607011230051234", "itd-2607011230059999"}, false},
		{"prefix under 5 characters is a slug fragment", "itd-", "", nil, false},
		{"exact slug beats fragments", "login", "itd-2608010000000001", nil, false},
		{"unique fragment", "csv", "itd-2609010000000001", nil, false},
		{"ambiguous fragment", "log", "", []string{"itd-2607011230051234", "itd-2607011230059999", "itd-2608010000000001"}, false},
		{"none", "nothing", "", nil, false},
		{"path", "../etc/passwd", "", nil, true},
		{"slash", "a/b", "", nil, true},
		{"backslash", `a\b`, "", nil, true},
		{"dots", "a..b", "", nil, true},
		{"control", "log\x1b[2J", "", nil, true},
		{"C1 control", "log\u009b", "", nil, true},
		{"invalid UTF-8", "log\xff", "", nil, true},
		{"empty", " ", "", nil, true},
		{"too long", strings.Repeat("a", 201), "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveRef(tt.ref, in)
			if tt.want != "" {
				if err != nil || got.ID != tt.want {
					t.Fatalf("got %+v, %v", got, err)
				}
				return
			}
			var re *RefError
			if !errors.As(err, &re) {
				t.Fatalf("got %+v, %v", got, err)
			}
			var ids []string
			for _, c := range re.Candidates {
				ids = append(ids, c.ID)
			}
			if !reflect.DeepEqual(ids, tt.cands) || (re.Reason != "") != tt.reason || re.Ref != tt.ref || got != (Candidate{}) {
				t.Errorf("got %#v", re)
			}
			msg := err.Error()
			switch {
			case tt.reason:
				if !strings.Contains(msg, "is not a record ref") || strings.ContainsAny(msg, "\x1b\u009b") {
					t.Errorf("message %q", msg)
				}
			case len(tt.cands) == 0:
				if !strings.Contains(msg, "no record matches") || strings.Contains(msg, "abcd") {
					t.Errorf("message %q", msg)
				}
			default:
				for _, id := range tt.cands {
					if !strings.Contains(msg, id) {
						t.Errorf("message %q lacks %s", msg, id)
					}
				}
			}
		})
	}
}

func TestResolveRefExactIDWins(t *testing.T) {
	// Ids of one length cannot prefix one another, but hand-made refs can: an exact id still wins.
	in := []Candidate{{"itd-2607011230051234", "a", "a.md"}, {"itd-26070112300512345", "b", "b.md"}}
	if got, err := ResolveRef("itd-2607011230051234", in); err != nil || got.File != "a.md" {
		t.Errorf("got %+v %v", got, err)
	}
	// Duplicate ids (merged branches) are ambiguous.
	dup := []Candidate{{"itd-2607011230051234", "a", "b.md"}, {"itd-2607011230051234", "a", "a.md"}}
	_, err := ResolveRef("itd-2607011230051234", dup)
	var re *RefError
	if !errors.As(err, &re) || len(re.Candidates) != 2 || re.Candidates[0].File != "a.md" {
		t.Errorf("got %v", err)
	}
}

func TestRefErrorMessages(t *testing.T) {
	var many []Candidate
	for k := 0; k < 12; k++ {
		many = append(many, Candidate{ID: fmt.Sprintf("spc-26070100000000%02d", k), Slug: fmt.Sprintf("step-%d", k), File: "x.md"})
	}
	_, err := ResolveRef("step", many)
	msg := err.Error()
	if !strings.Contains(msg, `"step" matches 12 records: spc-2607010000000000 (step-0), `) || !strings.Contains(msg, "spc-2607010000000009 (step-9), and 2 more") || strings.Contains(msg, "step-10") {
		t.Errorf("message %q", msg)
	}
	// The error names the family searched as data, so each front door can spell the listing verb;
	// it names no command itself.
	mixed := []Candidate{{ID: itdID, Slug: "a"}, {ID: spcID, Slug: "b"}}
	var re *RefError
	if _, err := ResolveRef("zzz", mixed); !errors.As(err, &re) || re.Family != "" || strings.Contains(err.Error(), "abcd") {
		t.Errorf("mixed: %#v", err)
	}
	if _, err := ResolveRef("zzz", many); !errors.As(err, &re) || re.Family != Specs {
		t.Errorf("specs: %#v", err)
	}
}

func TestARefTooShortForAnIDPrefixSaysSo(t *testing.T) {
	_, err := ResolveRef("itd", []Candidate{{ID: "itd-2611300000000001", Slug: "faster", File: "a.md"}})
	if err == nil || !strings.Contains(err.Error(), "at least 5 characters") {
		t.Fatalf("got %v", err)
	}
	_, err = ResolveRef("itd-29", []Candidate{{ID: "itd-2611300000000001", Slug: "faster", File: "a.md"}})
	if err == nil || strings.Contains(err.Error(), "at least 5 characters") {
		t.Fatalf("a long enough ref is not told it is short: %v", err)
	}
}
