package record

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNewID(t *testing.T) {
	at := time.Date(2026, 7, 1, 14, 30, 5, 999, time.FixedZone("x", 2*3600)) // 12:30:05 UTC
	tests := []struct {
		f      Family
		random uint32
		want   string
	}{
		{Intents, 1234, "itd-2607011230051234"},
		{Specs, 7, "spc-2607011230050007"},
		{Issues, 4294967295, "iss-2607011230057295"},
		{Decisions, 10000, "dcn-2607011230050000"},
		{"things", 1, ""},
	}
	for _, tt := range tests {
		got := NewID(tt.f, at, tt.random)
		if got != tt.want {
			t.Errorf("NewID(%s, %d) = %q, want %q", tt.f, tt.random, got, tt.want)
		}
		if f, ok := FamilyOfID(got); tt.want != "" && (!ok || f != tt.f) {
			t.Errorf("FamilyOfID(%q) = %v %v", got, f, ok)
		}
	}
}

func TestFamilyOfID(t *testing.T) {
	for id, want := range map[string]Family{
		"itd-2607011230051234": Intents, "spc-0000000000000000": Specs, "iss-9999999999999999": Issues, "dcn-2607011230051234": Decisions,
		"itd-260701123005123": "", "itd-26070112300512345": "", "xyz-2607011230051234": "", "ITD-2607011230051234": "",
		"itd_2607011230051234": "", "itd-260701123005123a": "", "": "", "itd-2607011230051234-slug": "",
	} {
		f, ok := FamilyOfID(id)
		if f != want || ok != (want != "") {
			t.Errorf("FamilyOfID(%q) = %q %v", id, f, ok)
		}
	}
	for f, p := range map[Family]string{Intents: "itd", Specs: "spc", Issues: "iss", Decisions: "dcn", "x": ""} {
		if Prefix(f) != p {
			t.Errorf("Prefix(%s) = %q", f, Prefix(f))
		}
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ title, want string }{
		{"Add a Login Page", "add-a-login-page"},
		{"  --Hello,   World!!  ", "hello-world"},
		{"Don't panic: it's v2.0", "dont-panic-its-v2-0"},
		{"Café déjà vu — Straße, Łódź, Œuvre", "cafe-deja-vu-strasse-lodz-oeuvre"},
		{"日本語のタイトル", "untitled"},
		{"日本 and 2 words", "and-2-words"},
		{"", "untitled"},
		{"!!!", "untitled"},
		{"a/b\\c..d", "a-b-c-d"},
		{strings.Repeat("word ", 20), "word-word-word-word-word-word-word-word-word"}, // a tenth word would make 49 bytes
		{strings.Repeat("x", 60), strings.Repeat("x", 48)},
		{"the " + strings.Repeat("x", 60), "the"},
		{strings.Repeat("ab ", 16), strings.TrimSuffix(strings.Repeat("ab-", 16), "-")},
	}
	for _, tt := range tests {
		got := Slug(tt.title)
		if got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.title, got, tt.want)
		}
		if len(got) > MaxSlugBytes || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.Contains(got, "--") || strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") {
			t.Errorf("Slug(%q) = %q is not a slug", tt.title, got)
		}
	}
}

func TestFileNames(t *testing.T) {
	if got := FileName(itdID, "login"); got != itdID+"-login.md" {
		t.Errorf("FileName = %q", got)
	}
	if got := FileName(itdID, ""); got != itdID+".md" {
		t.Errorf("FileName = %q", got)
	}
	for name, want := range map[string]string{
		"a/b/" + itdID + "-login.md": itdID, `c:\x\` + itdID + ".md": itdID, itdID + "-.md": "", itdID + "x.md": "",
		itdID + "-login.txt": "", "itd-1-login.md": "", "notes.md": "",
	} {
		got, ok := IDOfFileName(name)
		if got != want && !(want == "" && !ok) || ok != (want != "") {
			t.Errorf("IDOfFileName(%q) = %q %v", name, got, ok)
		}
	}
}

func TestLifecycles(t *testing.T) {
	for f, want := range map[Family]string{Intents: "drafts,planned,shipped", Specs: "open,closed", Issues: "open,closed", Decisions: ""} {
		got := Lifecycles(f)
		if strings.Join(got, ",") != want || len(got) == 0 {
			t.Errorf("Lifecycles(%s) = %q", f, got)
		}
		for _, l := range got {
			folder, ok := FolderOf(f, l)
			if !ok || folder.Family != f || folder.Lifecycle != l || folder.Prefix != Prefix(f) {
				t.Errorf("FolderOf(%s, %q) = %+v %v", f, l, folder, ok)
			}
		}
	}
	if _, ok := FolderOf(Intents, "open"); ok {
		t.Error("FolderOf(intents, open)")
	}
	if d, _ := FolderOf(Decisions, ""); d.Dir != ".abcd/development/decisions" {
		t.Errorf("decisions folder %+v", d)
	}
}

func TestCanMove(t *testing.T) {
	allowed := map[[3]string]bool{
		{"intents", "drafts", "planned"}: true, {"intents", "planned", "shipped"}: true,
		{"specs", "open", "closed"}: true, {"issues", "open", "closed"}: true,
	}
	for _, f := range Families() {
		ls := append(Lifecycles(f), "bogus")
		for _, from := range ls {
			for _, to := range ls {
				err := CanMove(f, from, to)
				if want := allowed[[3]string{string(f), from, to}]; want != (err == nil) {
					t.Errorf("CanMove(%s, %q, %q) = %v", f, from, to, err)
				}
				var te *TransitionError
				if err != nil && (!errors.As(err, &te) || te.Family != f || te.From != from || te.To != to) {
					t.Errorf("error %#v", err)
				}
			}
		}
	}
	if err := CanMove(Intents, "shipped", "drafts"); err.Error() != `an intent cannot move from "shipped" to "drafts": the allowed moves are drafts → planned, planned → shipped` {
		t.Errorf("message %q", err)
	}
	if err := CanMove(Decisions, "", ""); !strings.Contains(err.Error(), "no lifecycle") {
		t.Errorf("message %q", err)
	}
}

func TestCheckTitle(t *testing.T) {
	for title, ok := range map[string]bool{"A title": true, "": false, " x": false, "a\nb": false, strings.Repeat("é", 200): true, strings.Repeat("é", 201): false, "\xff": false} {
		if err := CheckTitle(title); (err == nil) != ok {
			t.Errorf("CheckTitle(%q) = %v", title, err)
		}
	}
}
