module github.com/abcd-dev/abcd/ports

go 1.26.8
