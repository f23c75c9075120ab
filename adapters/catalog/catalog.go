// Package catalog serves the embedded published schemas. The index is parsed once, on first use, so
// commands that never list schemas never pay for it.
package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"

	"github.com/abcd-dev/abcd/domain/contract"
)

// Catalog implements ports.SchemaCatalog over a file system laid out as schemas/: v1/index.json and
// v1/<file> for each entry.
type Catalog struct {
	fsys fs.FS

	once  sync.Once
	index contract.Index
	err   error
}

// New returns a catalog over fsys.
func New(fsys fs.FS) *Catalog { return &Catalog{fsys: fsys} }

func (c *Catalog) load() {
	data, err := fs.ReadFile(c.fsys, contract.Version+"/index.json")
	if err != nil {
		c.err = fmt.Errorf("embedded schema index: %w", err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.index); err != nil {
		c.err = fmt.Errorf("embedded schema index: %w", err)
	}
}

// Index returns the published index.
func (c *Catalog) Index() (contract.Index, error) {
	c.once.Do(c.load)
	return c.index, c.err
}

// Schema returns the named schema's bytes as published.
func (c *Catalog) Schema(name string) ([]byte, bool, error) {
	idx, err := c.Index()
	if err != nil {
		return nil, false, err
	}
	for _, e := range idx.Schemas {
		if e.Name == name {
			data, err := fs.ReadFile(c.fsys, contract.Version+"/"+e.File)
			if err != nil {
				return nil, false, fmt.Errorf("embedded schema %s: %w", name, err)
			}
			return data, true, nil
		}
	}
	return nil, false, nil
}
