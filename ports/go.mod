module github.com/abcd-dev/abcd/ports

go 1.26.8

require gotest.tools/v3 v3.5.2 // indirect
