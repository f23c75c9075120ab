package story

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	domloop "github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/review"
	"github.com/abcd-dev/abcd/ports/loop"
)

// readAudits fills each audit's verdict per criterion from the auditor's recorded return. The file
// must still hold the bytes recorded (its SHA-256), or the verdict's note says why none are shown:
// the record is never refused for it, as the verdict and its findings stand on their own.
func readAudits(ctx context.Context, a *loop.Deps, res *loop.ImplementRecordResult) {
	for i := range res.Verdicts {
		v := &res.Verdicts[i]
		if v.Role != domloop.RoleAuditor {
			continue
		}
		data, err := a.Runs.Read(ctx, v.Return, review.MaxReturnBytes)
		if err != nil {
			v.AuditNote = "the audit's return could not be read: " + err.Error()
			continue
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != v.SHA256 {
			v.AuditNote = "the audit's return no longer holds what was recorded"
			continue
		}
		ret, err := review.DecodeAuditReply(data)
		if err != nil {
			v.AuditNote = "the audit's return could not be read back: " + err.Error()
			continue
		}
		v.Criteria = ret.Verdicts
	}
}
