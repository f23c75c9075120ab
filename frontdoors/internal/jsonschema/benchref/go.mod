module github.com/abcd-dev/abcd/frontdoors/internal/jsonschema/benchref

go 1.26.8

require (
	github.com/abcd-dev/abcd/domain v0.0.0
	github.com/abcd-dev/abcd/frontdoors v0.0.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require golang.org/x/text v0.14.0 // indirect

replace (
	github.com/abcd-dev/abcd/adapters => ../../../../adapters
	github.com/abcd-dev/abcd/agents => ../../../../agents
	github.com/abcd-dev/abcd/domain => ../../../../domain
	github.com/abcd-dev/abcd/frontdoors => ../../..
	github.com/abcd-dev/abcd/ports => ../../../../ports
	github.com/abcd-dev/abcd/schemas => ../../../../schemas
)
