module github.com/abcd-dev/abcd/adapters

go 1.26.8
