package record

import (
	"fmt"
	"strings"
)

var lifecycles = map[Family][]string{
	Intents:   {"drafts", "planned", "shipped"},
	Specs:     {"open", "closed"},
	Issues:    {"open", "closed"},
	Decisions: {""},
}

// moves lists each family's allowed transitions, from → to, in order.
var moves = map[Family][][2]string{
	Intents: {{"drafts", "planned"}, {"planned", "shipped"}},
	Specs:   {{"open", "closed"}},
	Issues:  {{"open", "closed"}},
}

// Lifecycles lists a family's lifecycles in order: intents drafts, planned, shipped; specs and issues
// open, closed; decisions the single "" (one folder, no lifecycle key). Nil for an unknown family.
func Lifecycles(f Family) []string { return append([]string(nil), lifecycles[f]...) }

func hasLifecycle(f Family, lifecycle string) bool {
	for _, l := range lifecycles[f] {
		if l == lifecycle {
			return true
		}
	}
	return false
}

// FolderOf is the folder of a family's lifecycle.
func FolderOf(f Family, lifecycle string) (Folder, bool) {
	for _, folder := range Folders() {
		if folder.Family == f && folder.Lifecycle == lifecycle {
			return folder, true
		}
	}
	return Folder{}, false
}

// TransitionError refuses a lifecycle move the family does not allow.
type TransitionError struct {
	Family   Family
	From, To string
}

func (e *TransitionError) Error() string {
	allowed := make([]string, 0, 2)
	for _, m := range moves[e.Family] {
		allowed = append(allowed, m[0]+" → "+m[1])
	}
	if len(allowed) == 0 {
		return fmt.Sprintf("%s have no lifecycle to move between: %s stays where it is written", e.Family, article(TypeOf(e.Family)))
	}
	return fmt.Sprintf("%s cannot move from %q to %q: the allowed moves are %s", article(TypeOf(e.Family)), e.From, e.To, strings.Join(allowed, ", "))
}

// CanMove reports whether a record of family f may move from one lifecycle to another: intents
// drafts → planned and planned → shipped; specs and issues open → closed. Anything else (staying put,
// going back, skipping, decisions) is a *TransitionError.
func CanMove(f Family, from, to string) error {
	for _, m := range moves[f] {
		if m[0] == from && m[1] == to {
			return nil
		}
	}
	return &TransitionError{Family: f, From: from, To: to}
}
