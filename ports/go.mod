module github.com/abcd-dev/abcd/ports

go 1.26.8

require (
	github.com/abcd-dev/abcd/domain v0.0.0
	gotest.tools/v3 v3.5.2
)

require github.com/google/go-cmp v0.5.9 // indirect

replace github.com/abcd-dev/abcd/domain => ../domain
