module github.com/abcd-dev/abcd/frontdoors

go 1.26.8

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	gotest.tools/v3 v3.5.2 // indirect
)
