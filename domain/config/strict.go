package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/abcd-dev/abcd/domain/strictjson"
	"github.com/abcd-dev/abcd/domain/text"
)

// MaxFileBytes bounds every configuration file abcd reads.
const MaxFileBytes = 1 << 20

// maxDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxDepth = 32

// FileError refuses one file, naming it.
type FileError struct {
	File string
	Msg  string
}

func (e *FileError) Error() string { return e.File + ": " + e.Msg }

// CheckStrict accepts exactly one JSON object with no key named twice at any depth, nothing after it,
// valid UTF-8, and nesting of at most 32 levels. It reports the first fault.
func CheckStrict(file string, data []byte) error { return CheckStrictMax(file, data, MaxFileBytes) }

// CheckStrictMax is CheckStrict with another size bound, for documents larger than configuration.
// The reading is strictjson's; this names the file.
func CheckStrictMax(file string, data []byte, max int) error {
	err := strictjson.CheckObject(data, strictjson.Limits{MaxBytes: max, MaxDepth: maxDepth})
	if e := (*strictjson.Error)(nil); errors.As(err, &e) {
		return &FileError{file, e.Describe()}
	}
	return err
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// checkSchemaVersion reads the file's top-level schema_version, which must be FileVersion.
func checkSchemaVersion(file string, top map[string]json.RawMessage) error {
	raw, ok := top["schema_version"]
	if !ok {
		return &FileError{file, fmt.Sprintf(`declares no schema_version: add "schema_version": %d`, FileVersion)}
	}
	if strings.TrimSpace(string(raw)) != strconv.Itoa(FileVersion) {
		return &FileError{file, fmt.Sprintf("declares schema_version %s; this abcd reads version %d", text.Clip(string(raw)), FileVersion)}
	}
	return nil
}
