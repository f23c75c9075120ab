package catalog

import (
	"testing"
	"testing/fstest"

	"gotest.tools/v3/assert"
)

func TestCatalog(t *testing.T) {
	fsys := fstest.MapFS{
		"v1/index.json":           {Data: []byte(`{"schema_version":1,"namespace":"https://schemas.abcd.dev/v1/","schemas":[{"name":"refusal","id":"https://schemas.abcd.dev/v1/refusal.schema.json","file":"refusal.schema.json","role":"document","describes":"x"}]}`)},
		"v1/refusal.schema.json":  {Data: []byte(`{"type":"object"}`)},
		"v1/unlisted.schema.json": {Data: []byte(`{"type":"object"}`)},
	}
	c := New(fsys)
	idx, err := c.Index()
	assert.NilError(t, err)
	assert.Equal(t, len(idx.Schemas), 1)
	data, ok, err := c.Schema("refusal")
	assert.NilError(t, err)
	assert.Assert(t, ok)
	assert.Equal(t, string(data), `{"type":"object"}`)
	// Only what the index lists is served.
	_, ok, err = c.Schema("unlisted")
	assert.NilError(t, err)
	assert.Assert(t, !ok)
}

func TestCatalogRefusesAnIndexItCannotRead(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"absent":         {},
		"unknown field":  {"v1/index.json": {Data: []byte(`{"schema_version":1,"extra":1}`)}},
		"listed, absent": {"v1/index.json": {Data: []byte(`{"schema_version":1,"namespace":"n","schemas":[{"name":"a","id":"i","file":"a.schema.json","role":"document","describes":"d"}]}`)}},
	} {
		c := New(fsys)
		if name == "listed, absent" {
			_, _, err := c.Schema("a")
			assert.ErrorContains(t, err, "embedded schema a", name)
			continue
		}
		_, err := c.Index()
		assert.ErrorContains(t, err, "embedded schema index", name)
	}
}
