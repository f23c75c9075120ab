package oracle

import (
	"strings"
	"testing"
)

func TestEscalate(t *testing.T) {
	tests := []struct {
		in, want Tier
	}{
		{Local, Economy},
		{Economy, Frontier},
		{Frontier, Frontier},
		{HostDecides, HostDecides},
		{Tier("bogus"), Tier("bogus")},
	}
	for _, tc := range tests {
		if got := Escalate(tc.in); got != tc.want {
			t.Errorf("Escalate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseTier(t *testing.T) {
	for _, tier := range Tiers() {
		got, err := ParseTier(string(tier))
		if err != nil || got != tier {
			t.Errorf("ParseTier(%q) = %q, %v; want %q, nil", tier, got, err, tier)
		}
	}
	for _, in := range []string{"", "Frontier", "frontier ", "premium", "host_decides", strings.Repeat("x", 200)} {
		got, err := ParseTier(in)
		if err == nil {
			t.Errorf("ParseTier(%q) = %q, nil; want a refusal", in, got)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, TierList()) {
			t.Errorf("ParseTier(%q) refusal %q does not list %q", in, msg, TierList())
		}
		if len(msg) > 200 {
			t.Errorf("ParseTier(%q) refusal is %d bytes; the echo is not bounded", in, len(msg))
		}
	}
}
