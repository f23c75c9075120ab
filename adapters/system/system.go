// Package system is the clock and the randomness the core receives through its ports.
package system

import (
	"math/rand/v2"
	"time"
)

// Clock is the wall clock.
type Clock struct{}

// Now is the current time.
func (Clock) Now() time.Time { return time.Now() }

// Random draws from the runtime's seeded generator; ids need uniqueness, not secrecy.
type Random struct{}

// Uint32 is a random number.
func (Random) Uint32() uint32 { return rand.Uint32() }
