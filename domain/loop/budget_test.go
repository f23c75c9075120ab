package loop

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func TestBudgetValuesCheckThemselves(t *testing.T) {
	var u BudgetUSD
	for _, ok := range []string{"0.01", "0.60", "5", "100000", "12.345678"} {
		assert.Check(t, u.UnmarshalText([]byte(ok)), ok)
	}
	assert.Check(t, is.Equal(BudgetUSD("0.60").USD(), 0.6))
	for _, bad := range []string{"", "0", "0.00", "0.009", "-1", "1e3", "abc", "100000.01", "1.1234567", " 1", "01", "NaN", "Inf"} {
		err := u.UnmarshalText([]byte(bad))
		r, ok := refusal.As(err)
		assert.Check(t, ok && r.Code == refusal.CodeBudgetInvalid, "%q: %v", bad, err)
	}
	var tk BudgetTokens
	var m BudgetMinutes
	assert.Check(t, tk.UnmarshalText([]byte("10000000000")))
	assert.Check(t, tk.UnmarshalText([]byte("10000000001")) != nil)
	assert.Check(t, m.UnmarshalText([]byte("100000")))
	assert.Check(t, m.UnmarshalText([]byte("100001")) != nil)
	for _, bad := range []string{"", "0", "-1", "1.5", "012"} {
		assert.Check(t, tk.UnmarshalText([]byte(bad)) != nil, bad)
		assert.Check(t, m.UnmarshalText([]byte(bad)) != nil, bad)
	}
	assert.Check(t, is.Equal(BudgetTokens("7000").Tokens(), int64(7000)))
	assert.Check(t, is.Equal(BudgetMinutes("90").Minutes(), int64(90)))
}

func TestOverHoldsSpentRunningAndTheStepsCapAgainstTheBudget(t *testing.T) {
	usd := func(c float64) Caps { return Caps{USD: c} }
	held := func(cs ...Caps) Held {
		var h Held
		for _, c := range cs {
			h.Hold(c)
		}
		return h
	}
	b := Budget{USD: 0.6}
	assert.Check(t, is.Equal(b.Over(Spend{USD: 0.5}, Caps{}, Held{}), ""), "no cap, nothing running, something left")
	assert.Check(t, is.Contains(b.Over(Spend{USD: 0.75}, Caps{}, Held{}), "0.75 USD of the budget's 0.60 is spent"))
	assert.Check(t, is.Contains(b.Over(Spend{USD: 0.6}, Caps{}, Held{}), "is spent"), "exactly spent is spent")
	assert.Check(t, is.Equal(b.Over(Spend{USD: 0.25}, usd(0.25), Held{}), ""))
	assert.Check(t, is.Contains(b.Over(Spend{USD: 0.25}, usd(0.25), held(usd(0.25))), "this step may spend 0.25 more"))
	assert.Check(t, is.Contains(b.Over(Spend{}, Caps{}, held(usd(0.1))), "no cap of its own on US dollars"))
	assert.Check(t, is.Contains(b.Over(Spend{}, Caps{}, held(Caps{})), "no cap of its own on US dollars"))

	// Tokens: no route caps them, so a step waits for the steps running, and starts alone while
	// something is left.
	tok := Budget{Tokens: 1000}
	assert.Check(t, is.Equal(tok.Over(Spend{Input: 500, Output: 499}, Caps{}, Held{}), ""), "alone, with one token left")
	assert.Check(t, is.Contains(tok.Over(Spend{Input: 1}, Caps{}, held(Caps{})), "no cap of its own on tokens"))
	assert.Check(t, is.Contains(tok.Over(Spend{Input: 500, Output: 500}, Caps{}, Held{}), "1000 tokens of the budget's 1000"))
	assert.Check(t, is.Contains(tok.Over(Spend{}, Caps{Tokens: 600}, held(Caps{Tokens: 500})), "500 tokens are spent or held by steps running, and this step may spend 600 more"))
	assert.Check(t, is.Contains(tok.Over(Spend{Input: 100}, Caps{Tokens: 601}, held(Caps{Tokens: 300})), "400 tokens are spent or held by steps running, and this step may spend 601 more"))
	assert.Check(t, is.Contains(tok.Over(Spend{Input: 100}, Caps{Tokens: 1}, held(Caps{Tokens: 900})), "100 tokens of the budget's 1000 are spent"), "what is held counts as spent")
	assert.Check(t, is.Equal(tok.Over(Spend{Input: 100}, Caps{Tokens: 500}, held(Caps{Tokens: 400})), ""), "exactly the budget")

	// Minutes: a runner's wall clock is its step's cap; a provider's step is untimed and holds none.
	mins := Budget{Minutes: 2}
	wall := func(d time.Duration) Caps { return Caps{Wall: d} }
	assert.Check(t, is.Equal(mins.Over(Spend{WallMS: 60_000}, wall(time.Minute), Held{}), ""))
	assert.Check(t, is.Contains(mins.Over(Spend{WallMS: 61_000}, wall(time.Minute), Held{}),
		"1m1s of steps' wall time is spent or held by steps running, and this step may take 1m0s more (its runner's limits.wall_clock_s): over the budget's 2 minutes"))
	assert.Check(t, is.Contains(mins.Over(Spend{}, wall(time.Minute), held(wall(70*time.Second))), "this step may take 1m0s more"), "a running step's wall clock is held")
	assert.Check(t, is.Contains(mins.Over(Spend{WallMS: 120_000}, Caps{}, Held{}), "of the budget's 2 minutes"))
	assert.Check(t, is.Contains(mins.Over(Spend{}, Caps{}, held(wall(time.Second))), "no cap of its own on minutes"))
	assert.Check(t, is.Equal(mins.Over(Spend{WallMS: 100_000}, Caps{Untimed: true}, held(wall(time.Second))), ""), "an untimed step neither waits nor holds")
	assert.Check(t, is.Equal(mins.Over(Spend{}, Caps{}, held(Caps{Untimed: true})), ""), "an untimed step running holds no minutes")
	assert.Check(t, is.Contains(mins.Over(Spend{}, wall(3*time.Minute), Held{}), "over the budget's 2 minutes"), "a wall clock longer than the budget never starts")

	all := Budget{USD: 1, Tokens: 10, Minutes: 1}
	assert.Check(t, is.Equal(all.Left(Spend{USD: 0.25, Input: 20, WallMS: 30_000}), "0.75 of 1.00 USD, 0 of 10 tokens, 30s of 1 minutes"))
	assert.Check(t, !Budget{}.Set())
}

// A purse holds each running step's caps until it comes back: a second runner step waits while the
// first's wall clock is held, starts once it came back, and a step whose cap goes over stops the run.
func TestAPurseHoldsTheRunningStepsCaps(t *testing.T) {
	p := Purse{Budget: Budget{Minutes: 10}}
	step := Caps{Wall: 6 * time.Minute}
	assert.Check(t, is.Equal(p.Admit("a", step), Start))
	assert.Check(t, is.Equal(p.Admit("b", step), Wait), "6 held and 6 more go over 10, but not once a is back")
	assert.Check(t, is.Equal(p.Admit("c", Caps{Untimed: true}), Start), "a provider's step holds no minutes")
	p.Came("a")
	p.Spent = Spend{WallMS: 5 * 60_000}
	assert.Check(t, is.Equal(p.Admit("b", step), Stop), "5 spent and 6 more go over 10")
	assert.Check(t, is.Contains(p.Stopped, "this step may take 6m0s more"))
	assert.Check(t, is.Equal(p.Admit("d", Caps{Untimed: true}), Stop), "nothing starts once stopped")
}

func FuzzBudgetUSD(f *testing.F) {
	for _, s := range []string{"0.60", "0", "1e3", "100000", "0.000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var u BudgetUSD
		if u.UnmarshalText([]byte(s)) != nil {
			return
		}
		if v := u.USD(); !(v >= MinBudgetUSD && v <= MaxBudgetUSD) || !usdPattern.MatchString(s) {
			t.Fatalf("%q taken as %v", s, v)
		}
	})
}
