package openai

import (
	"bytes"
	"testing"
)

// FuzzReadStream: whatever a server streams, the reader ends with an answer or a reason, never a
// panic, and never hands back more than its bounds allow.
func FuzzReadStream(f *testing.F) {
	f.Add([]byte("data: {\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"model\":\"a\"}\n\ndata: {\"model\":\"b\"}\n\n"))
	f.Add([]byte(": keep-alive\r\nevent: x\r\ndata: [DONE]\r\n\r\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\ndata: more\n\n"))
	f.Add([]byte("data:" + string(bytes.Repeat([]byte("x"), 300)) + "\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxBody: 256, MaxEvent: 256, MaxAnswer: 128, MaxStream: 1024}
		ans, fail := readStream(bytes.NewReader(data), lim)
		if fail == nil {
			if int64(len(ans.content)) > lim.MaxAnswer {
				t.Fatalf("an answer of %d bytes passed a bound of %d", len(ans.content), lim.MaxAnswer)
			}
			if !bytes.Contains(data, []byte("[DONE]")) {
				t.Fatalf("a stream without [DONE] completed")
			}
			return
		}
		if fail.reason == "" && fail.detail == "" {
			t.Fatalf("a failure with neither reason nor detail")
		}
		whole, werr := readWhole(bytes.NewReader(data), lim)
		if werr == nil && int64(len(whole.content)) > lim.MaxAnswer {
			t.Fatalf("a whole answer of %d bytes passed its bound", len(whole.content))
		}
	})
}
