package loop

// The loop's closed lists, in order, for whoever shows them (the schema generator among them).

// Kinds lists what a run can be for.
func Kinds() []Kind { return []Kind{KindSpec, KindReview, KindAudit} }

// Stages lists where a lane can stand, in the order a lane moves through them.
func Stages() []Stage {
	return []Stage{StageWaiting, StageBrief, StageImplement, StageValidate, StageFix, StageDone, StageHandedBack}
}

// AwaitKinds lists what an agent can be waited on for.
func AwaitKinds() []AwaitKind { return []AwaitKind{AwaitImplement, AwaitFix, AwaitReview, AwaitAudit} }
