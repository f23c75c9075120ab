module github.com/abcd-dev/abcd/adapters

go 1.26.8

require (
	github.com/abcd-dev/abcd/agents v0.0.0-00010101000000-000000000000
	github.com/abcd-dev/abcd/domain v0.0.0
	github.com/abcd-dev/abcd/ports v0.0.0
)

require mvdan.cc/sh/v3 v3.14.1

require (
	github.com/google/go-cmp v0.7.0 // indirect
	gotest.tools/v3 v3.5.2
)

replace github.com/abcd-dev/abcd/domain => ../domain

replace github.com/abcd-dev/abcd/ports => ../ports

replace github.com/abcd-dev/abcd/schemas => ../schemas

replace github.com/abcd-dev/abcd/agents => ../agents
