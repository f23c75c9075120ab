package pattern

import (
	"sync"
	"testing"
)

func TestPatternMatchesAndCompilesOnce(t *testing.T) {
	p := New(`^[a-z]+$`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.MatchString("abc") }()
	}
	wg.Wait()
	if !p.MatchString("abc") || p.MatchString("ABC") {
		t.Fatal("wrong match")
	}
	if p.String() != `^[a-z]+$` {
		t.Fatal(p.String())
	}
}
