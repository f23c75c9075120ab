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

// Caps is what one step may spend at most of each bound, where its route holds it to one (0: no cap
// of that bound): USD, a CLI that enforces a budget (Claude Code's --max-budget-usd); Tokens, a route
// that bounds a step's input and output (none today: a runner's CLI reports its tokens only at the
// step's end, and a provider's max_tokens bounds its output alone); Wall, a runner's wall clock, which
// abcd enforces. Untimed is a step whose wall time a minutes budget does not count (a provider's,
// RepoPrompt's): it holds none of it.
type Caps struct {
	USD     float64
	Tokens  int64
	Wall    time.Duration
	Untimed bool
}

// Held is what the steps running may still spend: their caps summed, and which bounds one of them
// has no cap of.
type Held struct {
	Caps
	UncappedUSD, UncappedTokens, UncappedWall bool
}

// Hold adds a running step's caps to what is held.
func (h *Held) Hold(c Caps) {
	h.USD += c.USD
	h.Tokens += c.Tokens
	h.UncappedUSD = h.UncappedUSD || c.USD == 0
	h.UncappedTokens = h.UncappedTokens || c.Tokens == 0
	if !c.Untimed {
		h.Wall += c.Wall
		h.UncappedWall = h.UncappedWall || c.Wall == 0
	}
}

// bound is one bound of a budget as Over weighs it, in its own unit.
type bound struct {
	budget, spent, held, step float64
	uncapped, heldUncapped    bool
	// spentWords says the bound is spent; overWords that what is committed and the step's cap go
	// over it; unit names it.
	spentWords func() string
	overWords  func(committed, step float64) string
	unit       string
}

// Over says why a step may not start ("" when it may): what is spent, with what the steps still
// running may spend (held) and the step's own caps, would go over a bound. A step with no cap of a
// bound may spend anything of it: it starts only while nothing else running holds that bound and
// something is left, so at most one step's spending goes past the budget.
func (b Budget) Over(spent Spend, step Caps, held Held) string {
	minutes := func(v float64) string { return (time.Duration(v) * time.Millisecond).Round(time.Second).String() }
	bounds := []bound{
		{budget: b.USD, spent: spent.USD, held: held.USD, step: step.USD, uncapped: step.USD == 0, heldUncapped: held.UncappedUSD, unit: "US dollars",
			spentWords: func() string { return fmt.Sprintf("%.2f USD of the budget's %.2f is spent", spent.USD, b.USD) },
			overWords: func(c, s float64) string {
				return fmt.Sprintf("%.2f USD is spent or held by steps running, and this step may spend %.2f more: over the budget's %.2f", c, s, b.USD)
			}},
		{budget: float64(b.Tokens), spent: float64(spent.Tokens()), held: float64(held.Tokens), step: float64(step.Tokens), uncapped: step.Tokens == 0,
			heldUncapped: held.UncappedTokens, unit: "tokens",
			spentWords: func() string { return fmt.Sprintf("%d tokens of the budget's %d are spent", spent.Tokens(), b.Tokens) },
			overWords: func(c, s float64) string {
				return fmt.Sprintf("%.0f tokens are spent or held by steps running, and this step may spend %.0f more: over the budget's %d", c, s, b.Tokens)
			}},
		{budget: float64(b.Minutes * 60_000), spent: float64(spent.WallMS), held: float64(held.Wall.Milliseconds()), step: float64(step.Wall.Milliseconds()),
			uncapped: step.Wall == 0 && !step.Untimed, heldUncapped: held.UncappedWall, unit: "minutes",
			spentWords: func() string {
				return fmt.Sprintf("%s of the budget's %d minutes is spent", minutes(float64(spent.WallMS)), b.Minutes)
			},
			overWords: func(c, s float64) string {
				return fmt.Sprintf("%s of steps' wall time is spent or held by steps running, and this step may take %s more (its runner's limits.wall_clock_s): over the budget's %d minutes",
					minutes(c), minutes(s), b.Minutes)
			}},
	}
	for _, m := range bounds {
		if m.budget <= 0 {
			continue
		}
		committed := m.spent + m.held
		switch {
		case committed >= m.budget:
			return m.spentWords()
		case !m.uncapped && committed+m.step > m.budget:
			return m.overWords(committed, m.step)
		case m.uncapped && (m.held > 0 || m.heldUncapped):
			return "this step has no cap of its own on " + m.unit + ", and other steps are still running: it waits for them"
		}
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
	running map[string]Caps
}

// Admit sorts the steps about to start, in order (each named by key, which may spend caps): those
// that start now, and those the budget stopped; a step that must wait is kept in held, to be offered
// again with the next steps (Waiting).
func Admit[J any](p *Purse, jobs []J, key func(J) string, caps func(J) Caps, held *[]J) (start, stopped []J) {
	for _, j := range jobs {
		switch p.Admit(key(j), caps(j)) {
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

// Admit says whether the step key, which may spend caps, starts now.
func (p *Purse) Admit(key string, caps Caps) Admission {
	if p.Stopped == "" && p.Budget.Set() {
		var held Held
		for _, c := range p.running {
			held.Hold(c)
		}
		why := p.Budget.Over(p.Spent, caps, held)
		switch {
		case why == "":
		case len(p.running) > 0 && p.Budget.Over(p.Spent, caps, Held{}) == "":
			return Wait
		default:
			p.Stopped = why
		}
	}
	if p.Stopped != "" {
		return Stop
	}
	if p.running == nil {
		p.running = map[string]Caps{}
	}
	p.running[key] = caps
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
