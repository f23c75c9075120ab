package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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

// CheckStrictMax is CheckStrict with another size bound, for documents larger than configuration
// (a run's state).
func CheckStrictMax(file string, data []byte, max int) error {
	if len(data) > max {
		return &FileError{file, fmt.Sprintf("is larger than %d bytes", max)}
	}
	if !utf8.Valid(data) {
		return &FileError{file, "is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return &FileError{file, "is not JSON: " + jsonMsg(err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &FileError{file, "must hold one JSON object"}
	}
	if err := walkObject(dec, file, "", 1); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return &FileError{file, "has content after its object: remove everything after the closing }"}
	}
	return nil
}

func walkObject(dec *json.Decoder, file, path string, depth int) error {
	if depth > maxDepth {
		return &FileError{file, fmt.Sprintf("nests deeper than %d levels", maxDepth)}
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return &FileError{file, "is not JSON: " + jsonMsg(err)}
		}
		key, _ := tok.(string)
		full := join(path, key)
		if seen[key] {
			return &FileError{file, fmt.Sprintf("names the key %q twice: keep one", Clip(full))}
		}
		seen[key] = true
		if err := walkValue(dec, file, full, depth); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return &FileError{file, "is not JSON: " + jsonMsg(err)}
	}
	return nil
}

func walkValue(dec *json.Decoder, file, path string, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return &FileError{file, "is not JSON: " + jsonMsg(err)}
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		return walkObject(dec, file, path, depth+1)
	case '[':
		if depth+1 > maxDepth {
			return &FileError{file, fmt.Sprintf("nests deeper than %d levels", maxDepth)}
		}
		for dec.More() {
			if err := walkValue(dec, file, path, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return &FileError{file, "is not JSON: " + jsonMsg(err)}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends before its object closes"
	}
	return err.Error()
}

// Clip bounds text a refusal echoes to 80 bytes, cut on a rune boundary.
func Clip(s string) string {
	const limit = 80
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// SchemaVersion reads the file's top-level schema_version, which must be 1.
func checkSchemaVersion(file string, top map[string]json.RawMessage) error {
	raw, ok := top["schema_version"]
	if !ok {
		return &FileError{file, `declares no schema_version: add "schema_version": 1`}
	}
	if strings.TrimSpace(string(raw)) != "1" {
		return &FileError{file, fmt.Sprintf("declares schema_version %s; this abcd reads version 1", Clip(string(raw)))}
	}
	return nil
}
