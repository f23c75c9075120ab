module github.com/abcd-dev/abcd/agents

go 1.26.8
