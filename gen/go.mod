module github.com/abcd-dev/abcd/gen

go 1.26.8

require github.com/invopop/jsonschema v0.14.0

require github.com/google/go-cmp v0.5.9 // indirect

require (
	github.com/abcd-dev/abcd/domain v0.0.0
	github.com/abcd-dev/abcd/ports v0.0.0
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.1 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.2 // indirect
	gotest.tools/v3 v3.5.2
)

replace github.com/abcd-dev/abcd/domain => ../domain

replace github.com/abcd-dev/abcd/ports => ../ports
