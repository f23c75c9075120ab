package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
)

// MarshalJSON writes the scalar's JSON text as it was given.
func (s Scalar) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte(`""`), nil
	}
	return []byte(s), nil
}

// UnmarshalJSON keeps a string, number or boolean as its JSON text and refuses anything else, so a
// setting can never smuggle an object or null to a provider.
func (s *Scalar) UnmarshalJSON(data []byte) error {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return errors.New("a setting needs a value")
	}
	switch t[0] {
	case '"', 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if !json.Valid(t) {
			return errors.New("a setting's value is not valid JSON")
		}
		*s = Scalar(t)
		return nil
	}
	return errors.New("a setting's value must be a string, a number or a boolean")
}
