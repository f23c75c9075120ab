package shell

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestZZHeldout(t *testing.T) {
	p := os.Getenv("HELDOUT")
	if p == "" {
		t.Skip()
	}
	f, _ := os.Open(p)
	defer f.Close()
	reg := registry(t)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	atk, caught, ord, blocked, warned := 0, 0, 0, 0, 0
	for sc.Scan() {
		var c struct{ Kind, Class, Line string }
		json.Unmarshal(sc.Bytes(), &c)
		v := check(t, reg, c.Line)
		if c.Kind == "attack" {
			atk++
			if v.Decision != "allow" {
				caught++
			} else {
				fmt.Printf("MISSED %-12s %q\n", c.Class, c.Line)
			}
		} else {
			ord++
			switch v.Decision {
			case "block":
				blocked++
				fmt.Printf("FP-BLOCK %-22s %q\n", v.Rule, c.Line)
			case "warn":
				warned++
				fmt.Printf("fp-warn  %-22s %q\n", v.Rule, c.Line)
			}
		}
	}
	fmt.Printf("attacks %d caught %d (%.1f%%); ordinary %d blocked %d warned %d\n", atk, caught, 100*float64(caught)/float64(atk), ord, blocked, warned)
}
