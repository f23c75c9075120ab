package shell

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestZZCorpus(t *testing.T) {
	p := os.Getenv("CORPUS")
	if p == "" {
		t.Skip()
	}
	f, _ := os.Open(p)
	defer f.Close()
	reg := registry(t)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, bad := 0, 0
	for sc.Scan() {
		var c struct{ Class, Kind, Line, Want string }
		json.Unmarshal(sc.Bytes(), &c)
		n++
		v := check(t, reg, c.Line)
		if string(v.Decision) != c.Want {
			bad++
			fmt.Printf("%-12s want %-5s got %-5s %-24s %q\n", c.Class+c.Kind, c.Want, v.Decision, v.Rule, c.Line)
		}
	}
	fmt.Println("total", n, "mismatch", bad)
}
