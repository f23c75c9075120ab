package record

import (
	"github.com/abcd-dev/abcd/domain/record"
)

// keepless lists the keep files missing from a record that exists.
func (a *Deps) keepless() ([]string, error) {
	var missing []string
	for _, rel := range KeepFiles() {
		ok, err := a.Setup.Exists(rel)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, rel)
		}
	}
	return missing, nil
}

// KeepFiles are the record folders' keep files (record.KeepFile).
func KeepFiles() []string {
	var keeps []string
	for _, f := range record.Folders() {
		keeps = append(keeps, f.Dir+"/"+record.KeepFile)
	}
	return keeps
}
