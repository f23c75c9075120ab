module github.com/abcd-dev/abcd/domain

go 1.26.8
