package loop

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/internal/pattern"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
)

// Bounds of a budget, the same in the configuration (build.budget) and on the command line.
const (
	MinBudgetUSD     = 0.01
	MaxBudgetUSD     = 100000
	MaxBudgetTokens  = 10_000_000_000
	MaxBudgetMinutes = 100000
)

var (
	usdPattern   = pattern.New(`^(0|[1-9][0-9]{0,5})(\.[0-9]{1,6})?$`)
	countPattern = pattern.New(`^[1-9][0-9]{0,10}$`)
)

// BudgetUSD is a run's budget in US dollars, as a person writes it (0.60): 0.01 to 100000, at most
// six decimals.
type BudgetUSD string

// BudgetTokens is a run's budget in tokens (input and output): 1 to 10,000,000,000.
type BudgetTokens string

// BudgetMinutes is a run's budget in minutes of its steps' wall time: 1 to 100,000.
type BudgetMinutes string

func budgetRefusal(flag, s, want string) error {
	return refusal.New(refusal.CodeBudgetInvalid, "", fmt.Sprintf("%q is not %s", text.Clip(s), want),
		"give --"+flag+" "+want+", or leave it out to keep build.budget")
}

// UnmarshalText refuses anything but a number of dollars from 0.01 to 100000 (budget_invalid).
func (b *BudgetUSD) UnmarshalText(data []byte) error {
	s := string(data)
	if v, ok := parseUSD(s); !ok || v < MinBudgetUSD || v > MaxBudgetUSD {
		return budgetRefusal("budget-usd", s, "a number of US dollars from 0.01 to 100000 (such as 0.60)")
	}
	*b = BudgetUSD(s)
	return nil
}

func parseUSD(s string) (float64, bool) {
	if !usdPattern.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// USD is the budget's dollars (0 when unset).
func (b BudgetUSD) USD() float64 {
	v, _ := parseUSD(string(b))
	return v
}

func (BudgetUSD) SchemaRule() contract.Rule {
	return contract.Rule{Description: "US dollars, 0.01 to 100000, as a decimal number in a string (such as \"0.60\")", MinLength: 1, MaxLength: 13,
		Pattern: usdPattern.String()}
}

func parseCount(s string, max int64) (int64, bool) {
	if !countPattern.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v >= 1 && v <= max
}

// UnmarshalText refuses anything but a whole number of tokens from 1 to 10,000,000,000 (budget_invalid).
func (b *BudgetTokens) UnmarshalText(data []byte) error {
	if _, ok := parseCount(string(data), MaxBudgetTokens); !ok {
		return budgetRefusal("budget-tokens", string(data), "a whole number of tokens from 1 to 10000000000")
	}
	*b = BudgetTokens(data)
	return nil
}

// Tokens is the budget's tokens (0 when unset).
func (b BudgetTokens) Tokens() int64 {
	v, _ := parseCount(string(b), MaxBudgetTokens)
	return v
}

func (BudgetTokens) SchemaRule() contract.Rule {
	return contract.Rule{Description: "tokens, a whole number from 1 to 10000000000 in a string", MinLength: 1, MaxLength: 11, Pattern: countPattern.String()}
}

// UnmarshalText refuses anything but a whole number of minutes from 1 to 100000 (budget_invalid).
func (b *BudgetMinutes) UnmarshalText(data []byte) error {
	if _, ok := parseCount(string(data), MaxBudgetMinutes); !ok {
		return budgetRefusal("budget-minutes", string(data), "a whole number of minutes from 1 to 100000")
	}
	*b = BudgetMinutes(data)
	return nil
}

// Minutes is the budget's minutes (0 when unset).
func (b BudgetMinutes) Minutes() int64 {
	v, _ := parseCount(string(b), MaxBudgetMinutes)
	return v
}

func (BudgetMinutes) SchemaRule() contract.Rule {
	return contract.Rule{Description: "minutes, a whole number from 1 to 100000 in a string", MinLength: 1, MaxLength: 11, Pattern: countPattern.String()}
}

// Budget bounds what a run may spend: each bound 0 is no bound.
type Budget struct {
	USD     float64
	Tokens  int64
	Minutes int64
}

// Set reports whether any bound is set.
func (b Budget) Set() bool { return b.USD > 0 || b.Tokens > 0 || b.Minutes > 0 }

// Over says why a step may not start ("" when it may): what is spent, with the step's own cap in
// dollars (0: it has none) and what the steps still running may spend (their caps), would go over a
// bound. A step with no cap of its own may cost anything: it starts only while nothing else is
// running and something is left, so at most one step's cost goes past the budget.
func (b Budget) Over(spent Spend, stepCap, running float64, uncappedRunning bool) string {
	if b.USD > 0 {
		committed := spent.USD + running
		switch {
		case committed >= b.USD:
			return fmt.Sprintf("%.2f USD of the budget's %.2f is spent", spent.USD, b.USD)
		case stepCap > 0 && committed+stepCap > b.USD:
			return fmt.Sprintf("%.2f USD is spent or held by steps running, and this step may spend %.2f more: over the budget's %.2f", committed, stepCap, b.USD)
		case stepCap == 0 && (running > 0 || uncappedRunning):
			return "this step has no cap of its own, and other steps are still running: it waits for them"
		}
	}
	if b.Tokens > 0 && spent.Tokens() >= b.Tokens {
		return fmt.Sprintf("%d tokens of the budget's %d are spent", spent.Tokens(), b.Tokens)
	}
	if b.Minutes > 0 && time.Duration(spent.WallMS)*time.Millisecond >= time.Duration(b.Minutes)*time.Minute {
		return fmt.Sprintf("%s of the budget's %d minutes is spent", (time.Duration(spent.WallMS) * time.Millisecond).Round(time.Second), b.Minutes)
	}
	return ""
}

// Left is what is left of each bound that is set, in words.
func (b Budget) Left(spent Spend) string {
	out := ""
	add := func(s string) {
		if out != "" {
			out += ", "
		}
		out += s
	}
	if b.USD > 0 {
		add(fmt.Sprintf("%.2f of %.2f USD", math.Max(b.USD-spent.USD, 0), b.USD))
	}
	if b.Tokens > 0 {
		add(fmt.Sprintf("%d of %d tokens", max(b.Tokens-spent.Tokens(), 0), b.Tokens))
	}
	if b.Minutes > 0 {
		left := max(time.Duration(b.Minutes)*time.Minute-time.Duration(spent.WallMS)*time.Millisecond, 0)
		add(fmt.Sprintf("%s of %d minutes", left.Round(time.Second), b.Minutes))
	}
	return out
}

// Admission is what a purse says of a step about to start.
type Admission int

const (
	// Start: within the budget; the step starts and its cap is held until it comes back.
	Start Admission = iota
	// Wait: within the budget once the steps running are done (they may spend less than their caps).
	Wait
	// Stop: over the budget; no step starts from now on (Stopped says why).
	Stop
)

// Purse is a run's budget while its steps start and come back: what the recorded steps spent (Spent,
// as the run's state last said), the caps of the steps running, and why it stopped the run.
type Purse struct {
	Budget  Budget
	Spent   Spend
	Stopped string
	running map[string]float64
}

// Admit sorts the steps about to start, in order (each named by key, which may spend cap): those
// that start now, and those the budget stopped; a step that must wait is kept in held, to be offered
// again with the next steps (Waiting).
func Admit[J any](p *Purse, jobs []J, key func(J) string, cap func(J) float64, held *[]J) (start, stopped []J) {
	for _, j := range jobs {
		switch p.Admit(key(j), cap(j)) {
		case Wait:
			*held = append(*held, j)
		case Stop:
			stopped = append(stopped, j)
		default:
			start = append(start, j)
		}
	}
	return start, stopped
}

// Admit says whether the step key, which may spend cap dollars (0: unbounded), starts now.
func (p *Purse) Admit(key string, cap float64) Admission {
	if p.Stopped == "" && p.Budget.Set() {
		held, uncapped := 0.0, false
		for _, c := range p.running {
			held += c
			uncapped = uncapped || c == 0
		}
		why := p.Budget.Over(p.Spent, cap, held, uncapped)
		switch {
		case why == "":
		case len(p.running) > 0 && p.Budget.Over(p.Spent, cap, 0, false) == "":
			return Wait
		default:
			p.Stopped = why
		}
	}
	if p.Stopped != "" {
		return Stop
	}
	if p.running == nil {
		p.running = map[string]float64{}
	}
	p.running[key] = cap
	return Start
}

// Came takes a step that came back off what the running steps hold.
func (p *Purse) Came(key string) { delete(p.running, key) }

// BudgetFrom is a run's budget: each bound given (a --budget-* flag), else build.budget's in the
// configuration (a value out of its bounds is the key's *config.ValueError), else none.
func BudgetFrom(s *config.Stack, usd BudgetUSD, tokens BudgetTokens, minutes BudgetMinutes) (Budget, error) {
	u, err := config.Get[float64](s, "build.budget.usd")
	if err != nil {
		return Budget{}, err
	}
	t, err := config.Get[int64](s, "build.budget.tokens")
	if err != nil {
		return Budget{}, err
	}
	m, err := config.Get[int64](s, "build.budget.minutes")
	if err != nil {
		return Budget{}, err
	}
	b := Budget{USD: u.V, Tokens: t.V, Minutes: m.V}
	if usd != "" {
		b.USD = usd.USD()
	}
	if tokens != "" {
		b.Tokens = tokens.Tokens()
	}
	if minutes != "" {
		b.Minutes = minutes.Minutes()
	}
	return b, nil
}

// BudgetView is the budget a run was driven under (each bound 0 when unset), what is left of it, and
// why it stopped the run ("" when it did not).
type BudgetView struct {
	USD     float64 `json:"usd" jsonschema:"minimum=0"`
	Tokens  int64   `json:"tokens" jsonschema:"minimum=0"`
	Minutes int64   `json:"minutes" jsonschema:"minimum=0"`
	Left    string  `json:"left"`
	Stopped string  `json:"stopped"`
}

// View is the purse as a run's result says it, once the run's steps spent spent.
func (p *Purse) View(spent Spend) BudgetView {
	v := BudgetView{USD: p.Budget.USD, Tokens: p.Budget.Tokens, Minutes: p.Budget.Minutes, Stopped: p.Stopped}
	if p.Budget.Set() {
		v.Left = p.Budget.Left(spent)
	}
	return v
}
