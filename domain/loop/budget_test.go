package loop

import (
	"testing"

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
	b := Budget{USD: 0.6}
	assert.Check(t, is.Equal(b.Over(Spend{USD: 0.5}, 0, 0, false), ""), "no cap, nothing running, something left")
	assert.Check(t, is.Contains(b.Over(Spend{USD: 0.75}, 0, 0, false), "0.75 USD of the budget's 0.60 is spent"))
	assert.Check(t, is.Contains(b.Over(Spend{USD: 0.6}, 0, 0, false), "is spent"), "exactly spent is spent")
	assert.Check(t, is.Equal(b.Over(Spend{USD: 0.25}, 0.25, 0, false), ""))
	assert.Check(t, is.Contains(b.Over(Spend{USD: 0.25}, 0.25, 0.25, false), "this step may spend 0.25 more"))
	assert.Check(t, is.Contains(b.Over(Spend{}, 0, 0.1, false), "no cap of its own"))
	assert.Check(t, is.Contains(b.Over(Spend{}, 0, 0, true), "no cap of its own"))
	tok := Budget{Tokens: 1000}
	assert.Check(t, is.Equal(tok.Over(Spend{Input: 500, Output: 499}, 0, 0, true), ""), "tokens have no cap: only what is spent counts")
	assert.Check(t, is.Contains(tok.Over(Spend{Input: 500, Output: 500}, 0, 0, false), "1000 tokens of the budget's 1000"))
	mins := Budget{Minutes: 2}
	assert.Check(t, is.Equal(mins.Over(Spend{WallMS: 119_000}, 0, 0, false), ""))
	assert.Check(t, is.Contains(mins.Over(Spend{WallMS: 120_000}, 0, 0, false), "of the budget's 2 minutes"))
	all := Budget{USD: 1, Tokens: 10, Minutes: 1}
	assert.Check(t, is.Equal(all.Left(Spend{USD: 0.25, Input: 20, WallMS: 30_000}), "0.75 of 1.00 USD, 0 of 10 tokens, 30s of 1 minutes"))
	assert.Check(t, !Budget{}.Set())
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
