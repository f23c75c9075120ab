// Package fake holds in-memory implementations of every port, for tests.
package fake

import (
	"context"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/ports"
)

// Inspector returns fixed facts, or Err.
type Inspector struct {
	Facts ports.RepoFacts
	Err   error
}

func (i Inspector) Inspect(context.Context) (ports.RepoFacts, error) { return i.Facts, i.Err }

// Schemas serves schemas from memory.
type Schemas struct {
	Idx   contract.Index
	Files map[string][]byte
	Err   error
}

func (s Schemas) Index() (contract.Index, error) { return s.Idx, s.Err }

func (s Schemas) Schema(name string) ([]byte, bool, error) {
	if s.Err != nil {
		return nil, false, s.Err
	}
	data, ok := s.Files[name]
	return data, ok, nil
}
