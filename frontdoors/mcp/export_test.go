package mcp

// Test helpers the end-to-end tests (package mcp_test) share with the package's own tests.
var (
	SamplesFor      = samplesFor
	WrongTypeValues = wrongTypeValues
	Nulls           = nulls
)

// MergedID and MergedTwin are the merged state's shared id and second record (samples name them).
const (
	MergedID   = mergedID
	MergedTwin = mergedTwin
)
