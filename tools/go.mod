module github.com/abcd-dev/abcd/tools

go 1.26.8
