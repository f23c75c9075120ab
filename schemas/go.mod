module github.com/abcd-dev/abcd/schemas

go 1.26.8
