package shell

import (
	"bufio"
	"fmt"
	"os"
	"testing"
)

func TestZZProbe(t *testing.T) {
	p := os.Getenv("PROBE")
	if p == "" {
		t.Skip()
	}
	f, _ := os.Open(p)
	defer f.Close()
	reg := registry(t)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		v := check(t, reg, line)
		fmt.Printf("%-5s %-24s %s\n", v.Decision, v.Rule, line)
	}
}
