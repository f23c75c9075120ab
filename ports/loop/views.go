package loop

import "github.com/abcd-dev/abcd/ports/loop/view"

// The loop's views live in ports/loop/view; these names keep them the loop's to its callers.
type (
	AwaitView             = view.AwaitView
	LaneView              = view.LaneView
	RunView               = view.RunView
	RecordVerdictView     = view.RecordVerdictView
	FallbackView          = view.FallbackView
	ImplementRecordResult = view.ImplementRecordResult
	CallView              = view.CallView
	FallbackCount         = view.FallbackCount
	ImplementationView    = view.ImplementationView
	Count                 = view.Count
)
