package history

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/abcd-dev/abcd/domain/refusal"
)

func TestADateBoundIsADayOrAMoment(t *testing.T) {
	for in, want := range map[string][2]string{
		"2026-12-01":                {"2026-12-01T00:00:00Z", "2026-12-01T23:59:59.999999999Z"},
		"2026-12-01T09:30:00Z":      {"2026-12-01T09:30:00Z", "2026-12-01T09:30:00Z"},
		"2026-12-01T09:30:00+02:00": {"2026-12-01T07:30:00Z", "2026-12-01T07:30:00Z"},
		"2026-12-01T09:30:00.25Z":   {"2026-12-01T09:30:00.25Z", "2026-12-01T09:30:00.25Z"},
	} {
		var d DateBound
		assert.NilError(t, d.UnmarshalText([]byte(in)), in)
		since, ok := d.Since()
		assert.Check(t, ok)
		until, ok := d.Until()
		assert.Check(t, ok)
		assert.Check(t, is.Equal(since.Format(time.RFC3339Nano), want[0]), in)
		assert.Check(t, is.Equal(until.Format(time.RFC3339Nano), want[1]), in)
	}
	for _, in := range []string{"", "yesterday", "2026-13-01", "2026-12-32", "12/01/2026", "2026-12-01 09:30:00", "2026-12-01T09:30:00",
		"2026-12-01T25:00:00Z", "2026-12-01\n", "2026-12-01T09:30:00Z" + string(make([]byte, 30))} {
		var d DateBound
		err := d.UnmarshalText([]byte(in))
		r, ok := refusal.As(err)
		assert.Check(t, ok && r.Code == "history_date_invalid", "%q: %v", in, err)
	}
	var none DateBound
	_, ok := none.Since()
	assert.Check(t, !ok, "no bound bounds nothing")
}
