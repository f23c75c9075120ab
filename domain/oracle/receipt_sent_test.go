package oracle

import "testing"

// A receipt records what was sent: a connection receives the merged settings, the harness nothing.
func TestReceiptSettingsSentAreWhatWasSent(t *testing.T) {
	r := Route{Agent: "ruthless-reviewer", Row: Row{Tier: Economy}, Settings: Settings{"temperature": Scalar("0.2")}}
	if got := r.Receipt("local", "local", "", "m").SettingsSent; len(got) != 1 || got["temperature"] != "0.2" {
		t.Fatalf("a connection that ran the step got %v", got)
	}
	for _, used := range []string{HarnessName, ""} {
		got := r.Receipt("local", used, "the connection timed out", "m").SettingsSent
		if got == nil || len(got) != 0 {
			t.Fatalf("used %q: the harness receives no settings, got %v", used, got)
		}
	}
}
