package history

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// benchTranscript is about n bytes of a Claude Code transcript of code work: prompts, Bash calls and
// their output, with the words that wake the generic rule (key, token, secret, password) among them.
func benchTranscript(n int) []byte {
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("the of and to in is that for it as with file test build commit error function return value string package import config server client request response handler database query key token secret password auth api access func main go run make npm err nil ctx path dir")
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		var t strings.Builder
		for k := 0; k < 300; k++ {
			t.WriteString(words[r.Intn(len(words))])
			if k%11 == 10 {
				t.WriteString(" = x\n")
			} else {
				t.WriteByte(' ')
			}
		}
		line, _ := json.Marshal(map[string]any{"type": "user", "sessionId": "s", "cwd": "/home/ada/proj",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprint(i), "content": t.String()}}}})
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func BenchmarkRedactAMegabyte(b *testing.B) {
	det, err := SecretDetector()
	if err != nil {
		b.Fatal(err)
	}
	data := benchTranscript(1 << 20)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewRedactor(det, []string{testCredential}, testHome) // a capture's own, as each capture makes one
		out, err := r.JSON(data, Counts{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.SurvivorsJSON(out); err != nil {
			b.Fatal(err)
		}
	}
}
