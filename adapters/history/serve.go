package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/abcd-dev/abcd/adapters/history/helper"
	"github.com/abcd-dev/abcd/ports"
)

// Serve answers one request read from in on out: the helper's whole job.
func Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(in, helper.MaxRequestBytes+1))
	if err != nil {
		return err
	}
	var res helper.Response
	var req helper.Request
	if len(data) > helper.MaxRequestBytes {
		res.Error = "the request is larger than the helper reads"
	} else if err := json.Unmarshal(data, &req); err != nil {
		res.Error = "the request is not JSON: " + err.Error()
	} else {
		res = handle(ctx, req)
	}
	enc, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = out.Write(enc)
	return err
}

func handle(ctx context.Context, req helper.Request) helper.Response {
	s := Store{Home: req.Home}
	var res helper.Response
	var err error
	switch req.Op {
	case "get":
		res.Record, res.Found, err = s.Get(ctx, req.Repo, req.Key)
	case "put":
		if req.Entry == nil {
			err = errors.New("put without an entry")
		} else {
			err = s.Put(ctx, req.Repo, *req.Entry)
		}
	case "list":
		res.Records, err = s.List(ctx, req.Repo, req.Filter)
	case "show":
		res.Entry, res.Found, err = s.Show(ctx, req.Repo, req.Key)
	case "search":
		res.Hits, err = s.Search(ctx, req.Repo, req.Query, req.Limit)
	case "prune":
		res.Removed, err = s.Prune(ctx, req.Repo, req.MaxBytes)
	default:
		err = fmt.Errorf("no operation %q", req.Op)
	}
	switch {
	case errors.Is(err, ports.ErrKeptLonger):
		res.Kind = "kept-longer"
	case errors.Is(err, ports.ErrHistoryQuery):
		res.Kind = "query"
	case err != nil:
		res.Error = err.Error()
	}
	return res
}
