package otel

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestEveryAttributeTypeIsAnOTLPAnyValue: each attribute type the SDK holds, in OTLP's JSON mapping
// (the adapter's tests decode the scalar ones with the official definitions; these are the rest).
func TestEveryAttributeTypeIsAnOTLPAnyValue(t *testing.T) {
	cases := []struct {
		v    attribute.Value
		want string
	}{
		{attribute.BoolValue(true), `{"boolValue":true}`},
		{attribute.Int64Value(math.MinInt64), `{"intValue":"-9223372036854775808"}`},
		{attribute.Float64Value(1e21), `{"doubleValue":1e+21}`},
		{attribute.Float64Value(math.NaN()), `{"doubleValue":"NaN"}`},
		{attribute.Float64Value(math.Inf(-1)), `{"doubleValue":"-Infinity"}`},
		{attribute.StringValue("a \"quoted\"\n<line>"), `{"stringValue":"a \"quoted\"\n\u003cline\u003e"}`},
		{attribute.BoolSliceValue([]bool{true, false}), `{"arrayValue":{"values":[{"boolValue":true},{"boolValue":false}]}}`},
		{attribute.Int64SliceValue([]int64{1, -2}), `{"arrayValue":{"values":[{"intValue":"1"},{"intValue":"-2"}]}}`},
		{attribute.Float64SliceValue([]float64{0.5}), `{"arrayValue":{"values":[{"doubleValue":0.5}]}}`},
		{attribute.StringSliceValue([]string{"x", ""}), `{"arrayValue":{"values":[{"stringValue":"x"},{"stringValue":""}]}}`},
		{attribute.StringSliceValue(nil), `{"arrayValue":{"values":[]}}`},
		{attribute.ByteSliceValue([]byte{0, 255}), `{"bytesValue":"AP8="}`},
		{attribute.SliceValue(attribute.IntValue(1), attribute.StringValue("s")), `{"arrayValue":{"values":[{"intValue":"1"},{"stringValue":"s"}]}}`},
		{attribute.MapValue(attribute.Int("n", 2)), `{"kvlistValue":{"values":[{"key":"n","value":{"intValue":"2"}}]}}`},
		{attribute.Value{}, `{}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(otlpKeyValue{Key: "k", Value: otlpValue{c.v}})
		assert.NilError(t, err, "%v", c.v.Type())
		assert.Check(t, is.Equal(string(got), `{"key":"k","value":`+c.want+`}`), "%v", c.v.Type())
	}
}

func TestHeadersArePercentDecodedPairs(t *testing.T) {
	h := http.Header{}
	assert.NilError(t, parseHeaders(" x-team-key = abc%20def ,, Authorization=Basic%20dTpw%3D , empty=", h))
	assert.Check(t, is.DeepEqual(h, http.Header{"X-Team-Key": {"abc def"}, "Authorization": {"Basic dTpw="}, "Empty": {""}}))
	for _, bad := range []string{"novalue", "=v", "a b=c", "k=%zz", "k=a%0Ab", "k=a%00"} {
		assert.Check(t, parseHeaders(bad, http.Header{}) != nil, "%q", bad)
	}
}

// FuzzParseHeaders: whatever the variable holds, what is accepted is a set of headers net/http sends
// as they are (token names, no line breaks in a value), and an error never quotes the variable.
func FuzzParseHeaders(f *testing.F) {
	for _, seed := range []string{"a=b", "x-key=abc%20def,other=1", "k=%0d%0a", "=", ",,", "a b=c", "k=v=w", "k=%E2%82%AC"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		h := http.Header{}
		err := parseHeaders(raw, h)
		if err != nil {
			if len(raw) > 3 && strings.Contains(err.Error(), raw) {
				t.Fatalf("the error %q quotes the variable", err)
			}
			return
		}
		for name, values := range h {
			if !isToken(name) {
				t.Fatalf("header name %q", name)
			}
			for _, v := range values {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Fatalf("header %s's value %q", name, v)
				}
			}
		}
	})
}
