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

// benchReadLine reads one line of n bytes as the stdio server does, beside the standard library's
// unbounded bufio.Reader.ReadBytes of the same line as the reference: readLine gathers a long line
// the same way (the buffer's copies, joined once), so their ratio stays near one.
func benchReadLine(b *testing.B, n int, read func(*bufio.Reader)) {
	line := bytes.Repeat([]byte("x"), n)
	line = append(line, '\n')
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		read(bufio.NewReaderSize(bytes.NewReader(line), 64<<10))
	}
}

func BenchmarkReadLine(b *testing.B) {
	for _, n := range []int{1 << 10, 2 << 20, 15 << 20, 20 << 20} {
		b.Run(strconv.Itoa(n>>10)+"KiB", func(b *testing.B) {
			benchReadLine(b, n, func(r *bufio.Reader) {
				if _, _, _, err := readLine(r, MaxMessageBytes); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(strconv.Itoa(n>>10)+"KiB-ReadBytes", func(b *testing.B) {
			benchReadLine(b, n, func(r *bufio.Reader) {
				if _, err := r.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
