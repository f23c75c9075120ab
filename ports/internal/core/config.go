package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// LoadConfig reads, parses and validates both configuration files into a stack. Any fault refuses.
func (a *Core) LoadConfig(ctx context.Context) (ports.ConfigFiles, *config.Stack, error) {
	files, err := a.Config.ReadConfig(ctx)
	if err != nil {
		return ports.ConfigFiles{}, nil, err
	}
	var layers [2]*config.Source
	for i, f := range []struct {
		file  ports.ConfigFile
		layer config.Layer
	}{{files.RepoConfig, config.LayerRepo}, {files.MachineConfig, config.LayerMachine}} {
		if !f.file.Present {
			continue
		}
		src, err := config.ParseConfig(f.layer, f.file.Path, f.file.Data)
		if err == nil {
			err = config.Validate(src, files.MachineConfig.Path)
		}
		if err != nil {
			return ports.ConfigFiles{}, nil, ConfigRefusal(err)
		}
		layers[i] = &src
	}
	return files, config.NewStack(nil, layers[0], layers[1]), nil
}

// ConfigRefusal turns a domain fault in a configuration file into a refusal naming the file.
func ConfigRefusal(err error) error {
	var fe *config.FileError
	if errors.As(err, &fe) {
		return refusal.New(refusal.CodeConfigInvalid, fe.File, fe.Msg, "fix the file, or move it aside to use the lower layers")
	}
	var ve *config.ValueError
	if errors.As(err, &ve) {
		return refusal.New(refusal.CodeConfigValueInvalid, ve.Origin, fmt.Sprintf("%s %s", text.Clip(ve.Key), ve.Msg),
			fmt.Sprintf("change %s in %s; a value that fails its check is never replaced by a lower layer's", text.Clip(ve.Key), ve.Origin))
	}
	return err
}
