// Package helper is the protocol between abcd and abcd-history, the helper binary that holds the
// history store (SQLite through modernc.org/sqlite), and Client, abcd's side of it: a HistoryStore
// that runs the helper for each call. It imports no database driver, so abcd links none.
package helper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/abcd-dev/abcd/domain/history"
	"github.com/abcd-dev/abcd/ports"
)

// HelperName is the helper binary abcd runs for its history store; it stands beside abcd.
const HelperName = "abcd-history"

// Request is one store call, as abcd sends it to the helper on stdin.
type Request struct {
	Op       string              `json:"op"`
	Home     string              `json:"home"`
	Repo     string              `json:"repo"`
	Key      string              `json:"key,omitempty"`
	Entry    *ports.HistoryEntry `json:"entry,omitempty"`
	Filter   ports.HistoryFilter `json:"filter"`
	Query    string              `json:"query,omitempty"`
	Limit    int                 `json:"limit,omitempty"`
	MaxBytes int64               `json:"max_bytes,omitempty"`
}

// Response is the helper's answer on stdout.
type Response struct {
	Error   string             `json:"error,omitempty"`
	Kind    string             `json:"kind,omitempty"` // kept-longer, query: the answers the use cases tell apart
	Found   bool               `json:"found,omitempty"`
	Record  history.Record     `json:"record"`
	Entry   ports.HistoryEntry `json:"entry"`
	Records []history.Record   `json:"records,omitempty"`
	Hits    []ports.HistoryHit `json:"hits,omitempty"`
	Removed []string           `json:"removed,omitempty"`
}

// MaxRequestBytes bounds one request: a transcript's bytes and its messages, as JSON.
const MaxRequestBytes = 4 * history.MaxTranscriptBytes

// Client is abcd's history store: it runs the helper beside abcd for each call, so the database
// driver is never linked into abcd. Home is $ABCD_HOME; Helper is the helper's path ("" for the one
// beside the running binary).
type Client struct {
	Home   string
	Helper string
}

// Timeout bounds one helper call.
const Timeout = 2 * time.Minute

func (c Client) helper() (string, error) {
	if c.Helper != "" {
		return c.Helper, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(exe), HelperName)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the history store's helper %s is not beside abcd (%s): make build and make install put it there", HelperName, filepath.Dir(exe))
	}
	return p, nil
}

func (c Client) call(ctx context.Context, req Request) (Response, error) {
	bin, err := c.helper()
	if err != nil {
		return Response{}, err
	}
	req.Home = c.Home
	in, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return Response{}, fmt.Errorf("the history store's helper failed: %w %s", err, clip(errOut.String()))
	}
	var res Response
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return Response{}, fmt.Errorf("the history store's helper answered something unreadable: %w", err)
	}
	switch {
	case res.Kind == "kept-longer":
		return res, ports.ErrKeptLonger
	case res.Kind == "query":
		return res, ports.ErrHistoryQuery
	case res.Error != "":
		return res, errors.New("history store: " + res.Error)
	}
	return res, nil
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

func (c Client) Get(ctx context.Context, repo, key string) (history.Record, bool, error) {
	res, err := c.call(ctx, Request{Op: "get", Repo: repo, Key: key})
	return res.Record, res.Found, err
}

func (c Client) Put(ctx context.Context, repo string, e ports.HistoryEntry) error {
	_, err := c.call(ctx, Request{Op: "put", Repo: repo, Entry: &e})
	return err
}

func (c Client) List(ctx context.Context, repo string, f ports.HistoryFilter) ([]history.Record, error) {
	res, err := c.call(ctx, Request{Op: "list", Repo: repo, Filter: f})
	return res.Records, err
}

func (c Client) Show(ctx context.Context, repo, key string) (ports.HistoryEntry, bool, error) {
	res, err := c.call(ctx, Request{Op: "show", Repo: repo, Key: key})
	return res.Entry, res.Found, err
}

func (c Client) Search(ctx context.Context, repo, query string, limit int) ([]ports.HistoryHit, error) {
	res, err := c.call(ctx, Request{Op: "search", Repo: repo, Query: query, Limit: limit})
	return res.Hits, err
}

func (c Client) Prune(ctx context.Context, repo string, maxBytes int64) ([]string, error) {
	res, err := c.call(ctx, Request{Op: "prune", Repo: repo, MaxBytes: maxBytes})
	return res.Removed, err
}
