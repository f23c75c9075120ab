package shell

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestZZSeeds(t *testing.T) {
	var seeds []string
	for _, c := range loadCorpus(t) {
		if len(c.Line) < 200 {
			seeds = append(seeds, c.Line)
		}
	}
	seeds = append(seeds, strings.Repeat("(", 100), strings.Repeat("$(", 60)+strings.Repeat(")", 60), "cd \x00 && rm", "rm -rf $'\\x2f'")
	fmt.Println(len(seeds))
	reg := registry(t)
	for i, s := range seeds {
		st := time.Now()
		done := make(chan bool)
		go func() { check(t, reg, s); done <- true }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			fmt.Printf("HANG %d %q\n", i, s)
			return
		}
		if d := time.Since(st); d > 100*time.Millisecond {
			fmt.Printf("slow %d %v %q\n", i, d, s)
		}
	}
}
