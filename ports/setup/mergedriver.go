package setup

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/ports"
	recorduc "github.com/abcd-dev/abcd/ports/record"
)

// writeMergeDriver adds what is missing of the driver's set-up; a driver already configured (by an
// earlier install, or by hand) is left as it is.
func (st *installation) writeMergeDriver(ctx context.Context, step *AhoyStep) error {
	a := st.a
	data, present, err := a.Setup.ReadFile(recorduc.GitattributesRel)
	if err != nil {
		return err
	}
	if missing := recorduc.MissingAttributes(data); len(missing) > 0 {
		out := string(data)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if len(missing) == len(recorduc.MergeAttributes) {
			out += recorduc.MergeAttrsComment + "\n"
		}
		out += strings.Join(missing, "\n") + "\n"
		if !present {
			if _, err := a.Setup.CreateFile(recorduc.GitattributesRel, []byte(out)); err != nil {
				return err
			}
		} else if err := a.Setup.ReplaceFile(recorduc.GitattributesRel, []byte(out)); err != nil {
			return err
		}
		st.wrote(step, recorduc.GitattributesRel)
	} else if _, err := a.Setup.CreateFile(recorduc.GitattributesRel, nil); err != nil {
		// Creating over a file that stands writes nothing, and sweeps the temporary file an install
		// killed after placing it left beside it.
		return err
	}
	key := "merge." + recorduc.MergeDriverName + ".driver"
	_, set, err := a.Git.ConfigValue(ctx, key)
	if errors.Is(err, ports.ErrNoGit) {
		if a.Diag != nil {
			a.Diag.Warn("git cannot run here, so this clone's git config has no merge driver for the record yet: run `abcd ahoy install` again where git runs")
		}
		return nil
	}
	if err != nil || set {
		return err
	}
	if err := a.Git.SetConfig(ctx, "merge."+recorduc.MergeDriverName+".name", recorduc.MergeDriverTitle); err != nil {
		return err
	}
	program := "abcd"
	if a.Self != nil {
		program = a.Self()
	}
	if err := a.Git.SetConfig(ctx, key, recorduc.MergeDriverCommand(program)); err != nil {
		return err
	}
	st.wrote(step, "git config "+key)
	return nil
}

// removeMergeDriver takes out what install added: the driver's lines in .gitattributes (the file
// too, when nothing else is in it) and this clone's git config for it.
func (a *Deps) removeMergeDriver(ctx context.Context, res *AhoyUninstallResult) error {
	data, present, err := a.Setup.ReadFile(recorduc.GitattributesRel)
	if err != nil {
		return err
	}
	if present && len(recorduc.MissingAttributes(data)) < len(recorduc.MergeAttributes) {
		var kept []string
		for _, l := range strings.SplitAfter(string(data), "\n") {
			t := strings.Join(strings.Fields(l), " ")
			if t != recorduc.MergeAttrsComment && !slices.Contains(recorduc.MergeAttributes, t) && l != "" {
				kept = append(kept, l)
			}
		}
		rest := strings.Join(kept, "")
		if strings.TrimSpace(rest) == "" {
			if _, err := a.Setup.RemoveFileIf(recorduc.GitattributesRel, data); err != nil {
				return err
			}
			res.Removed = append(res.Removed, recorduc.GitattributesRel)
		} else {
			if err := a.Setup.ReplaceFile(recorduc.GitattributesRel, []byte(rest)); err != nil {
				return err
			}
			res.Removed = append(res.Removed, recorduc.GitattributesRel+" (abcd's lines)")
		}
	}
	if _, set, err := a.Git.ConfigValue(ctx, "merge."+recorduc.MergeDriverName+".driver"); err != nil || !set {
		return err
	}
	for _, k := range []string{"driver", "name"} {
		if err := a.Git.UnsetConfig(ctx, "merge."+recorduc.MergeDriverName+"."+k); err != nil {
			return err
		}
	}
	res.Removed = append(res.Removed, "git config merge."+recorduc.MergeDriverName)
	return nil
}
