// Package fake holds in-memory implementations of every port, for tests.
package fake

import (
	"context"
	"time"

	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/roster"
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

// Config serves fixed configuration files, or Err.
type Config struct {
	Files ports.ConfigFiles
	Err   error
}

func (c Config) ReadConfig(context.Context) (ports.ConfigFiles, error) { return c.Files, c.Err }

// Rules serves fixed rules files, or Err.
type Rules struct {
	Files ports.RuleFiles
	Err   error
	Kept  map[string][]byte
}

func (r Rules) ReadRules(context.Context) (ports.RuleFiles, error) { return r.Files, r.Err }

// ReadCompiled and WriteCompiled keep compiled rules in Kept, when it is not nil.
func (r Rules) ReadCompiled(_ context.Context, key string) ([]byte, bool) {
	if r.Kept == nil {
		return nil, false
	}
	data, ok := r.Kept[key]
	return data, ok
}

func (r Rules) WriteCompiled(_ context.Context, key string, data []byte) error {
	if r.Kept != nil {
		r.Kept[key] = data
	}
	return nil
}

// Roster serves a fixed roster, or Err.
type Roster struct {
	R   roster.Roster
	Err error
}

func (r Roster) Roster() (roster.Roster, error) { return r.R, r.Err }

// Diag records every warning.
type Diag struct{ Warnings []string }

func (d *Diag) Warn(msg string) { d.Warnings = append(d.Warnings, msg) }

// Clock is a fixed time.
type Clock struct{ T time.Time }

func (c Clock) Now() time.Time { return c.T }

// Random counts up from N, so ids are distinct and predictable.
type Random struct{ N uint32 }

func (r *Random) Uint32() uint32 { r.N++; return r.N }
