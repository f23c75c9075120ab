// Command openai measures the provider route's dispatch overhead against a third-party
// OpenAI-compatible server (@dwmkerr/mock-llm, started here on loopback from tools/node_modules):
// adapters/openai's BenchmarkDispatch sends the same request bytes as a plain POST and through the
// adapter, and reports both p50 and p99 and their ratio.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	n := flag.Int("n", 200, "requests of each kind")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "openai bench:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	server := exec.Command("node", "tools/openai/mockllm.mjs")
	server.Env = append(os.Environ(), "MOCK_CHUNK_INTERVAL_MS=0")
	server.Stderr = os.Stderr
	stdin, err := server.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := server.StdoutPipe()
	if err != nil {
		return err
	}
	if err := server.Start(); err != nil {
		return fmt.Errorf("starting mock-llm (run make tools-deps first): %w", err)
	}
	defer func() { _ = stdin.Close(); _ = server.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("mock-llm did not start: %w", err)
	}
	base := strings.TrimSpace(line)
	bench := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkDispatch$", "-benchtime", fmt.Sprintf("%dx", n), "./adapters/openai/")
	bench.Env = append(os.Environ(), "ABCD_OPENAI_BENCH_URL="+base)
	out, err := bench.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "BenchmarkDispatch") {
			fmt.Printf("provider dispatch against @dwmkerr/mock-llm on loopback, %d requests each:\n  %s\n", n, l)
		}
	}
	return nil
}
