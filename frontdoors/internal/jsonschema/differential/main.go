// Command differential writes the instances the differential test runs: for every schema published
// in schemas/v1, a valid instance and mutations that break each keyword it uses, generated from the
// schema alone and deterministically, each with abcd's own validator's verdict. The node test
// tools/contract/differential.test.mjs runs ajv over the same instances and requires the same
// verdict on every one.
//
//	go run ./frontdoors/internal/jsonschema/differential schemas/v1 > cases.json
package main

import (
	"fmt"
	"os"

	"github.com/abcd-dev/abcd/frontdoors/internal/jsonschema/instances"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: differential SCHEMA_DIR")
		os.Exit(2)
	}
	cases, err := instances.Cases(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(1)
	}
	out, err := instances.Encode(cases)
	if err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(1)
	}
}
