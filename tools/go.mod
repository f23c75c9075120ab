module github.com/abcd-dev/abcd/tools

go 1.26.8

require gotest.tools/v3 v3.5.2

require github.com/google/go-cmp v0.5.9 // indirect
