package story

import (
	"context"

	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/refusal"
	loopuc "github.com/abcd-dev/abcd/ports/loop"
	"github.com/abcd-dev/abcd/ports/verb"
)

// RecordInput names the run, and the tellings of its story to add to the record.
type RecordInput struct {
	Run loop.RunID `json:"run,omitempty"`
	// Markdown adds the story as markdown for a pull request or an issue, the lane graph as a Mermaid
	// block (the result's markdown).
	Markdown bool `json:"markdown,omitempty"`
	// HTML adds the story as one self-contained HTML page (the result's html).
	HTML bool `json:"html,omitempty"`
}

// RecordVerb declares implement_record here rather than with the loop's other verbs, because its
// tellings are made from the loop's result.
func RecordVerb() verb.Verb {
	return verb.Declare(verb.Verb{Name: "implement_record", Path: []string{"implement", "record"}, Example: "abcd implement record\nabcd implement record --markdown\nabcd implement record --html --out run.html",
		Summary:  "Show a run's whole story: every round's verdicts with their routes, fallbacks and counts; as markdown or a self-contained HTML page with its lane graph when asked",
		ReadOnly: true, Idempotent: true},
		ImplementRecord)
}

// ImplementRecord is the run's record, with the tellings asked for.
func ImplementRecord(ctx context.Context, a *loopuc.Deps, in *RecordInput) (loopuc.ImplementRecordResult, error) {
	res, err := loopuc.ImplementRecord(ctx, a, &loopuc.RunInput{Run: in.Run})
	if err != nil {
		return res, err
	}
	if in.Markdown && in.HTML {
		return res, refusal.New(refusal.CodeInputInvalid, "", "asks for the story as markdown and as HTML at once", "ask for one: markdown for a pull request or an issue, html for a page").On("implement_record", "html")
	}
	readAudits(ctx, a, &res)
	if in.Markdown {
		res.Markdown = Markdown(res)
	}
	if in.HTML {
		if res.HTML, err = HTML(res); err != nil {
			return loopuc.ImplementRecordResult{}, err
		}
	}
	return res, nil
}
