package files

import (
	"context"
	"os"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/fs"

	"github.com/abcd-dev/abcd/domain/refusal"
)

// Replace never brings back a record moved or removed meanwhile.
func TestReplaceRefusesAMissingRecord(t *testing.T) {
	dir := recordRepo(t)
	r := Records{Dir: dir.Path()}
	p := ".abcd/development/intents/drafts/itd-2611300000000009-gone.md"
	err := r.Replace(context.Background(), p, []byte("x"))
	ref, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, ref.Code, refusal.CodeRecordMissing)
	_, err = os.Lstat(dir.Join(p))
	assert.Assert(t, os.IsNotExist(err), "nothing was created")
}

// A repository configuration folder that is a link is refused, not followed.
func TestConfigThroughALinkedFolderIsRefused(t *testing.T) {
	elsewhere := fs.NewDir(t, "elsewhere", fs.WithFile("oracle-routing.json", `{"schema_version":1,"agents":{}}`))
	repo := fs.NewDir(t, "repo", fs.WithDir(".git"), fs.WithDir(".abcd", fs.WithSymlink("config", elsewhere.Path())))
	home := fs.NewDir(t, "home", fs.WithMode(0o700))
	_, err := ConfigSource{Dir: repo.Path(), Home: home.Path()}.ReadConfig(context.Background())
	ref, ok := refusal.As(err)
	assert.Assert(t, ok, "%v", err)
	assert.Equal(t, ref.Code, refusal.CodeSymlinkRefused)
}
