package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/frontdoors/mcp"
	"github.com/abcd-dev/abcd/ports/app"
)

// mcpOptions are abcd mcp serve's flags.
type mcpOptions struct {
	http  string
	repo  string
	tools []string
}

func newMCPCmd(a *app.App, s *IO) *cobra.Command {
	group := group("mcp", "Serve abcd's verbs to an agent harness over the Model Context Protocol")
	opts := &mcpOptions{}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve every verb as an MCP tool, over stdio or Streamable HTTP on loopback",
		Long: "Serve every verb as an MCP tool. Over stdio (the default) stdout carries only protocol messages,\n" +
			"one per line, and diagnostics go to stderr; the server exits when stdin closes. With --http it serves\n" +
			"Streamable HTTP at http://ADDR/mcp on loopback only. Both the 2025 handshake revisions and\n" +
			"2026-07-28 are served by the same process. See docs/mcp.md for registering it with a harness.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCPServe(cmd.Context(), a, s, opts) },
	}
	serve.Flags().StringVar(&opts.http, "http", "", "serve Streamable HTTP at ADDR: 127.0.0.1:<port>, [::1]:<port> or localhost:<port> (port 0 picks one)")
	serve.Flags().StringVar(&opts.repo, "repo", "", "serve the repository containing DIR instead of the working directory")
	serve.Flags().StringArrayVar(&opts.tools, "tool", nil, "serve only this tool (repeatable): a request-scoped catalog, as an ACP runner's step is handed")
	group.AddCommand(serve)
	return group
}

func runMCPServe(ctx context.Context, a *app.App, s *IO, opts *mcpOptions) error {
	core := a
	if opts.repo != "" {
		dir, err := filepath.Abs(opts.repo)
		if err == nil {
			var info os.FileInfo
			if info, err = os.Stat(dir); err == nil && !info.IsDir() {
				err = errors.New("not a folder")
			}
		}
		if err != nil {
			return refusal.New(refusal.CodeMCPRepoInvalid, "abcd mcp serve --repo "+text.ClipPath(opts.repo), "the folder cannot be served: "+text.Clip(err.Error()),
				"name an existing folder inside the repository to serve, or leave --repo out to serve the working directory")
		}
		if a.Reroot == nil {
			return refusal.New(refusal.CodeMCPRepoUnavailable, "abcd mcp serve --repo", "this build of abcd cannot serve another repository",
				"run abcd mcp serve from inside the repository instead")
		}
		core = a.Reroot(dir)
	}
	var addr string
	if opts.http != "" {
		var err error
		if addr, err = mcp.ParseLoopbackAddr(opts.http); err != nil {
			var le *mcp.LoopbackError
			why := err.Error()
			if errors.As(err, &le) {
				why = le.Why
			}
			return refusal.New(refusal.CodeMCPBindRefused, "abcd mcp serve --http "+text.Clip(opts.http), why,
				"serve on loopback: --http 127.0.0.1:<port>, --http [::1]:<port> or --http localhost:<port>; for a harness on another machine, use stdio through its own remote-execution support")
		}
	}
	srv, err := mcp.New(core, mcp.Options{Log: s.Err, Only: opts.tools})
	var unknown *mcp.UnknownToolError
	if errors.As(err, &unknown) {
		return refusal.New(refusal.CodeMCPToolUnknown, "abcd mcp serve --tool "+text.Clip(unknown.Name), "no tool abcd serves has that name",
			"name a verb's tool (abcd schema list names every verb), or leave --tool out to serve them all")
	}
	if err != nil {
		return err
	}
	where := "the working directory"
	if core.Setup != nil {
		root, _ := core.Setup.Root()
		where = root
	}
	if addr == "" {
		fmt.Fprintf(s.Err, "abcd mcp: serving %d tools over stdio for %s\n", len(srv.Tools()), where)
		if err := srv.ServeStdio(ctx, s.In, s.Out); err != nil {
			// stdout belongs to the protocol: the reason goes to stderr only.
			fmt.Fprintf(s.Err, "abcd mcp: stopped: %v\n", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// A busy port may free up: contention, not bad input.
		return refusal.Busy(refusal.CodeMCPListenFailed, "abcd mcp serve --http "+text.Clip(opts.http), "cannot listen: "+text.Clip(err.Error()),
			"pick a free port, or --http 127.0.0.1:0 to let the system pick one (the address is printed on stderr)")
	}
	fmt.Fprintf(s.Err, "abcd mcp: serving %d tools at http://%s%s for %s\n", len(srv.Tools()), ln.Addr(), mcp.Endpoint, where)
	return srv.ServeHTTP(ctx, ln)
}
