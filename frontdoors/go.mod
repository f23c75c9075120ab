module github.com/abcd-dev/abcd/frontdoors

go 1.26.8

require (
	github.com/abcd-dev/abcd/adapters v0.0.0
	github.com/abcd-dev/abcd/agents v0.0.0-00010101000000-000000000000
	github.com/abcd-dev/abcd/domain v0.0.0
	github.com/abcd-dev/abcd/ports v0.0.0
	github.com/abcd-dev/abcd/schemas v0.0.0
	github.com/google/uuid v1.6.0
	github.com/spf13/cobra v1.10.2
	gotest.tools/v3 v3.5.2
)

require (
	github.com/google/go-cmp v0.5.9 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)

replace github.com/abcd-dev/abcd/domain => ../domain

replace github.com/abcd-dev/abcd/ports => ../ports

replace github.com/abcd-dev/abcd/adapters => ../adapters

replace github.com/abcd-dev/abcd/schemas => ../schemas

replace github.com/abcd-dev/abcd/agents => ../agents
