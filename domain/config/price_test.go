package config

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParsePriceReadsTwoOrFourPrices(t *testing.T) {
	p, err := ParsePrice("gpt-5 1.25 10")
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(p, Price{Model: "gpt-5", Input: 1.25, Output: 10}))
	p, err = ParsePrice("  claude-sonnet-4-5\t3 15 0.3 3.75 ")
	assert.NilError(t, err)
	assert.Check(t, is.DeepEqual(p, Price{Model: "claude-sonnet-4-5", Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}))
	for _, bad := range []string{"", "gpt-5", "gpt-5 1", "gpt-5 1 2 3", "gpt-5 1 2 3 4 5", "gpt-5 -1 2", "gpt-5 NaN 2", "gpt-5 1 1001",
		"gpt-5 1 Inf", "gpt-5 1 2e", "bad model 1 2", "a//b 1 2"} {
		_, err := ParsePrice(bad)
		assert.Check(t, is.ErrorContains(err, "takes \"MODEL INPUT OUTPUT"), "%q", bad)
	}
}

func TestPriceTableRefusesRepeatsAndTooMany(t *testing.T) {
	_, err := ParsePrices([]string{"m 1 2", "m 3 4"})
	assert.Check(t, is.ErrorContains(err, "item 1 prices m again"))
	many := make([]string, MaxPrices+1)
	for i := range many {
		many[i] = "m" + strings.Repeat("x", i) + " 1 2"
	}
	_, err = ParsePrices(many)
	assert.Check(t, is.ErrorContains(err, "over the limit of 32"))
	data, _ := json.Marshal([]string{"m 1 2", "n 1 2 0.1 0.2"})
	assert.Check(t, priceList(data))
	assert.Check(t, is.ErrorContains(priceList(json.RawMessage(`"m 1 2"`)), "JSON array"))
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"gpt-5 1.25 10", "m 3 15 0.3 3.75", "m -1 2", "m 1e3 0x10", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrice(s)
		if err != nil {
			return
		}
		if !ValidModelID(p.Model) {
			t.Fatalf("%q: model %q taken", s, p.Model)
		}
		for _, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
			if !(v >= 0 && v <= 1000) {
				t.Fatalf("%q: price %v taken", s, v)
			}
		}
	})
}
