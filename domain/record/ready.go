package record

import (
	"fmt"
	"strings"
)

// Check is one named check of the readiness gate: whether it passed, what was found, and (when it
// did not pass) the remedy.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Remedy string `json:"remedy"`
}

// Readiness runs the gate an intent passes before its build: press_release (the Press Release section
// is written), acceptance_criteria (at least one criterion; ParseIntent has already refused any not
// in Given/When/Then form), open_questions (none unresolved) and linked_spec (an open spec implementing
// the intent with at least one step), in that order. specs may hold any specs; those implementing
// other intents are ignored.
func Readiness(i Intent, specs []Spec) []Check {
	return []Check{pressRelease(i), acceptanceCriteria(i), openQuestions(i), linkedSpec(i, specs)}
}

// pressRelease: the Press Release section is there and written.
func pressRelease(i Intent) Check {
	c := Check{Name: "press_release"}
	if s, ok := FindSection(i.Sections, SectionPressRelease); !ok {
		c.Detail = "no ## " + SectionPressRelease + " section"
		c.Remedy = fmt.Sprintf("add a ## %s section to %s: the announcement, written as if the work has shipped", SectionPressRelease, i.File)
	} else if !Written(s) {
		c.Detail = fmt.Sprintf("## %s (line %d) holds only placeholders", SectionPressRelease, s.Line)
		c.Remedy = fmt.Sprintf("write the ## %s section of %s in place of its placeholder: who it is for, what they can now do, and why it matters", SectionPressRelease, i.File)
	} else {
		c.OK, c.Detail = true, fmt.Sprintf("## %s is written", SectionPressRelease)
	}
	return c
}

// acceptanceCriteria: at least one criterion (ParseIntent has refused any not in Given/When/Then
// form).
func acceptanceCriteria(i Intent) Check {
	c := Check{Name: "acceptance_criteria"}
	n := len(i.Criteria)
	if n == 0 {
		c.Detail = "no acceptance criterion"
		c.Remedy = fmt.Sprintf("under ## %s in %s, write at least one line as - ac-1: Given <context>, when <action>, then <outcome>", SectionCriteria, i.File)
		return c
	}
	ids := make([]string, n)
	for k, ac := range i.Criteria {
		ids[k] = ac.ID
	}
	c.OK, c.Detail = true, fmt.Sprintf("%d %s in Given/When/Then form: %s", n, plural(n, "criterion", "criteria"), strings.Join(ids, ", "))
	return c
}

// openQuestions: none unresolved.
func openQuestions(i Intent) Check {
	c := Check{Name: "open_questions"}
	var open []string
	for _, q := range i.Questions {
		if !q.Resolved {
			open = append(open, fmt.Sprintf("line %d: %s", q.Line, q.Text))
		}
	}
	if len(open) == 0 {
		c.OK = true
		c.Detail = fmt.Sprintf("no unresolved question (%d resolved)", len(i.Questions))
		return c
	}
	c.Detail = fmt.Sprintf("%d unresolved %s (%s)", len(open), plural(len(open), "question", "questions"), strings.Join(open, "; "))
	c.Remedy = fmt.Sprintf("answer each open question in %s and mark it - [x] (or move what stays open to ## %s)", i.File, SectionWhatsOutOfScope)
	return c
}

// linkedSpec: an open spec implements the intent, with steps in an order that can run. Specs of
// other intents are ignored.
func linkedSpec(i Intent, specs []Spec) Check {
	id := i.Front.ID
	c := Check{Name: "linked_spec"}
	var stepless, closed, unordered []Spec
	for _, s := range specs {
		if s.Front.Implements != id {
			continue
		}
		switch {
		case s.Front.Lifecycle != "open":
			closed = append(closed, s)
		case len(s.Steps) == 0:
			stepless = append(stepless, s)
		case stepOrderOf(s) != "":
			unordered = append(unordered, s)
		default:
			c.OK = true
			c.Detail = fmt.Sprintf("open spec %s has %d %s", s.Front.ID, len(s.Steps), plural(len(s.Steps), "step", "steps"))
			return c
		}
	}
	switch {
	case len(unordered) > 0:
		s := unordered[0]
		c.Detail = fmt.Sprintf("open spec %s: %s", s.Front.ID, stepOrderOf(s))
		c.Remedy = fmt.Sprintf("under ## %s in %s, make each (after …) name earlier steps that exist, with no cycle", SectionSteps, s.File)
	case len(stepless) > 0:
		s := stepless[0]
		c.Detail = fmt.Sprintf("open spec %s has no step", s.Front.ID)
		c.Remedy = fmt.Sprintf("under ## %s in %s, write the steps as a numbered list: 1. text", SectionSteps, s.File)
	case i.Front.Lifecycle == "drafts":
		c.Detail = "no open spec implements " + id
		c.Remedy = "run abcd intent plan " + id + " to create its spec"
	default:
		c.Detail = "no open spec implements " + id
		if len(closed) > 0 {
			c.Detail += fmt.Sprintf(" (%d closed)", len(closed))
		}
		c.Remedy = fmt.Sprintf("run abcd spec new --intent %s \"<title>\" to create one", id)
	}
	return c
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func stepOrderOf(s Spec) string {
	problem, _ := StepOrderProblem(s.Steps)
	return problem
}
