package record

import (
	"github.com/abcd-dev/abcd/domain/contract"
	"github.com/abcd-dev/abcd/domain/record"
)

func (RecordSummary) SchemaFields() map[string]contract.Rule {
	return map[string]contract.Rule{"family": contract.Enum(record.Families()...)}
}
