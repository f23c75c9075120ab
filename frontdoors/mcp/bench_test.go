package mcp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"
)

// benchRoundTrips measures one request at a time through ServeStdio, in process: the server's own
// cost, without a process boundary (make bench measures the binary beside the Go SDK's).
func benchRoundTrips(b *testing.B, method, params string) {
	s, _ := newServer(b, testApp(b))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	r := bufio.NewReaderSize(outR, 1<<20)
	send := func(id int) {
		msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + "}\n"
		if _, err := io.WriteString(inW, msg); err != nil {
			b.Fatal(err)
		}
		line, err := r.ReadBytes('\n')
		if err != nil || !bytes.Contains(line, []byte(`"result"`)) {
			b.Fatalf("%v: %s", err, line)
		}
	}
	if _, err := io.WriteString(inW, initializeLine(0, Legacy20251125)+"\n"); err != nil {
		b.Fatal(err)
	}
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		send(i + 1)
	}
	b.StopTimer()
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

func BenchmarkStdioToolsList(b *testing.B) { benchRoundTrips(b, "tools/list", `{}`) }

func BenchmarkStdioToolsCallVersion(b *testing.B) {
	benchRoundTrips(b, "tools/call", `{"name":"version","arguments":{}}`)
}

func BenchmarkStdioToolsCallSchemaList(b *testing.B) {
	benchRoundTrips(b, "tools/call", `{"name":"schema_list","arguments":{}}`)
}
