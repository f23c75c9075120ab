package loop

import (
	"fmt"
	"strings"

	"github.com/abcd-dev/abcd/domain/contract"
)

// NotifyVersion is the schema_version of the event build.notify's command reads.
const NotifyVersion = 1

// NotifyKind is what a notification says happened to a run.
type NotifyKind string

const (
	// NotifyFinished: the run is over, every lane delivered.
	NotifyFinished NotifyKind = "finished"
	// NotifyNeedsYou: the run waits for the person: only the host's work is left (the harness's
	// steps), or it is over with a lane handed back.
	NotifyNeedsYou NotifyKind = "needs_you"
	// NotifyBudget: the run's budget stopped it; the same command with a bigger budget goes on.
	NotifyBudget NotifyKind = "budget"
	// NotifyFailed: the invocation driving the run ended with an error.
	NotifyFailed NotifyKind = "failed"
)

// NotifyKinds lists every kind.
func NotifyKinds() []NotifyKind {
	return []NotifyKind{NotifyFinished, NotifyNeedsYou, NotifyBudget, NotifyFailed}
}

func (NotifyKind) SchemaEnum() contract.Rule { return contract.Enum(NotifyKinds()...) }

// NotifyLanes counts a run's lanes: all of them, those delivered and those handed back.
type NotifyLanes struct {
	Total      int `json:"total" jsonschema:"minimum=0"`
	Delivered  int `json:"delivered" jsonschema:"minimum=0"`
	HandedBack int `json:"handed_back" jsonschema:"minimum=0"`
}

// NotifyEvent is the one JSON document abcd hands build.notify's command on its stdin when an
// implement run ends in a way the person wants to hear of. It carries abcd's own words and figures
// only, every text scrubbed of the credentials abcd holds: never a brief, a finding or an agent's
// words.
type NotifyEvent struct {
	SchemaVersion int        `json:"schema_version"`
	Event         NotifyKind `json:"event"`
	// Run is the run's id.
	Run string `json:"run"`
	// Spec is the spec the run implements.
	Spec string `json:"spec"`
	// Repository is the repository folder's name.
	Repository string `json:"repository"`
	// Ended is why the driver stopped (finished, host, budget), "" when the invocation failed.
	Ended string `json:"ended"`
	// Fault is the refusal's code when the invocation failed, or "fault" for an error of abcd's own;
	// "" otherwise.
	Fault string `json:"fault"`
	// Lanes counts the run's lanes: all, delivered, handed back.
	Lanes NotifyLanes `json:"lanes"`
	// Spend is what the run's recorded steps have cost so far.
	Spend Spend `json:"spend"`
	// Budget is the budget the run ran under, what is left of it, and why it stopped the run.
	Budget BudgetView `json:"budget"`
	// Summary is the event in one line, for a notification's body.
	Summary string `json:"summary" jsonschema:"maxLength=1000"`
	// Next is what to do next with the run, in plain words: the driver's own word, after the hints of
	// the steps left for the host ("" when nothing is left to do).
	Next string `json:"next" jsonschema:"maxLength=2000"`
	// At is when the run ended (RFC 3339, UTC).
	At string `json:"at" jsonschema:"format=date-time"`
}

func (NotifyEvent) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"schema_version": contract.Versions(NotifyVersion)}
}

// NotifyKindOf is what a run's end is worth telling the person: a run that failed, finished (with a
// lane handed back: it needs them), left only the host's work, or was stopped by its budget. A run the
// person or the caller interrupted is not: they are there.
func NotifyKindOf(ended string, failed bool, lanes NotifyLanes) (NotifyKind, bool) {
	switch {
	case failed:
		return NotifyFailed, true
	case ended == "finished" && lanes.HandedBack > 0, ended == "host":
		return NotifyNeedsYou, true
	case ended == "finished":
		return NotifyFinished, true
	case ended == "budget":
		return NotifyBudget, true
	}
	return "", false
}

// LanesOf counts a run's lanes by stage.
func LanesOf(stages []string) NotifyLanes {
	n := NotifyLanes{Total: len(stages)}
	for _, s := range stages {
		switch Stage(s) {
		case StageDone:
			n.Delivered++
		case StageHandedBack:
			n.HandedBack++
		}
	}
	return n
}

// Summarise fills the event's summary: what happened, the lanes, and what was spent.
func (e *NotifyEvent) Summarise() {
	var what string
	switch e.Event {
	case NotifyFinished:
		what = "finished"
	case NotifyNeedsYou:
		what = "needs you"
		if e.Ended == "host" {
			what += ": only the host's work is left"
		}
	case NotifyBudget:
		what = "was stopped by its budget"
	case NotifyFailed:
		what = "failed (" + e.Fault + ")"
	}
	words := []string{fmt.Sprintf("abcd: run %s of %s %s", e.Run, e.Spec, what)}
	if e.Lanes.Total > 0 {
		words = append(words, fmt.Sprintf("%d of %d lanes delivered, %d handed back", e.Lanes.Delivered, e.Lanes.Total, e.Lanes.HandedBack))
	}
	if e.Spend.Steps > 0 {
		words = append(words, fmt.Sprintf("spent %.2f USD over %d steps", e.Spend.USD, e.Spend.Steps))
	}
	e.Summary = strings.Join(words, "; ")
}

// Scrubbed is the event with every text passed through scrub (the credentials abcd holds taken out).
func (e NotifyEvent) Scrubbed(scrub func(string) string) NotifyEvent {
	e.Run, e.Spec, e.Repository, e.Ended, e.Fault = scrub(e.Run), scrub(e.Spec), scrub(e.Repository), scrub(e.Ended), scrub(e.Fault)
	e.Budget.Left, e.Budget.Stopped = scrub(e.Budget.Left), scrub(e.Budget.Stopped)
	e.Summary, e.Next, e.At = scrub(e.Summary), scrub(e.Next), scrub(e.At)
	return e
}
