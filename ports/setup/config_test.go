package setup_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/abcd-dev/abcd/domain/config"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/ports"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/fake"
	"github.com/abcd-dev/abcd/ports/internal/apptest"
	"github.com/abcd-dev/abcd/ports/setup"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

const (
	cfgRepoPath    = "/work/repo/.abcd/config.json"
	cfgMachinePath = "/home/ada/.abcd/config.json"
)

// cfgFiles are the two configuration files; "" is an absent file.
func cfgFiles(repo, machine string) ports.ConfigFiles {
	file := func(path, data string) ports.ConfigFile {
		if data == "" {
			return ports.ConfigFile{Path: path}
		}
		return ports.ConfigFile{Path: path, Present: true, Data: []byte(data)}
	}
	return ports.ConfigFiles{
		RepoConfig:     file(cfgRepoPath, repo),
		MachineConfig:  file(cfgMachinePath, machine),
		RepoRouting:    ports.ConfigFile{Path: "/work/repo/.abcd/config/oracle-routing.json"},
		MachineRouting: ports.ConfigFile{Path: "/home/ada/.abcd/oracle-routing.json"},
	}
}

func showConfig(t *testing.T, files ports.ConfigFiles, key string) (setup.ConfigShowResult, error) {
	t.Helper()
	a := &app.App{Config: fake.Config{Files: files}}
	args := map[string]any{}
	if key != "" {
		args["key"] = key
	}
	res, err := a.Call(context.Background(), "config_show", args)
	if err != nil {
		return setup.ConfigShowResult{}, err
	}
	return res.(setup.ConfigShowResult), nil
}

func entryByKey(t *testing.T, res setup.ConfigShowResult, key string) setup.ConfigEntry {
	t.Helper()
	for _, e := range res.Keys {
		if e.Key == key {
			return e
		}
	}
	t.Fatalf("key %s not listed; keys: %v", key, keysOf(res))
	return setup.ConfigEntry{}
}

func keysOf(res setup.ConfigShowResult) []string {
	out := []string{}
	for _, e := range res.Keys {
		out = append(out, e.Key)
	}
	return out
}

const (
	cfgRepo    = `{"schema_version":1,"setup_version":1,"build":{"dod":"make test"},"oracle":{"review":"rp"}}`
	cfgMachine = `{"schema_version":1,"oracle":{"review":"host","rp":{"url":"http://127.0.0.1:7777/mcp","tool":"oracle_send"}}}`
)

func TestConfigShowListsEveryKeyInForceWithItsLayers(t *testing.T) {
	res, err := showConfig(t, cfgFiles(cfgRepo, cfgMachine), "")
	assert.NilError(t, err)

	assert.DeepEqual(t, res.Files, []setup.ConfigFileStatus{
		{Layer: "repository", Kind: "config", Path: cfgRepoPath, Present: true},
		{Layer: "machine", Kind: "config", Path: cfgMachinePath, Present: true},
	})
	// Every key abcd reads, set or not: those any layer sets (the bundled defaults among them), the
	// others unset, and the patterns no file fills, sorted.
	assert.DeepEqual(t, setKeysOf(res), withDefaults("build.dod", "oracle.review", "oracle.rp.tool", "oracle.rp.url", "setup_version"))
	assert.DeepEqual(t, keysOf(res), everyKey())

	// The repository and the machine (and the bundled default) disagree: the repository wins.
	review := entryByKey(t, res, "oracle.review")
	assert.DeepEqual(t, review, setup.ConfigEntry{
		Key: "oracle.review", Set: true, Value: config.ValueText(`"rp"`), Layer: "repository", Origin: cfgRepoPath,
		Disagreed: true, Doc: review.Doc,
		Layers: []setup.ConfigLayerValue{
			{Layer: "repository", Origin: cfgRepoPath, Value: `"rp"`, Wins: true, Agrees: true},
			{Layer: "machine", Origin: cfgMachinePath, Value: `"host"`, Wins: false, Agrees: false},
			{Layer: "bundled", Origin: "bundled default", Value: `"host"`, Wins: false, Agrees: false},
		},
	})
	assert.Check(t, review.Doc != "")

	// The machine and the bundled default agree: nothing disagreed.
	tool := entryByKey(t, res, "oracle.rp.tool")
	assert.Check(t, is.Equal(tool.Layer, "machine"))
	assert.Check(t, is.Equal(tool.Origin, cfgMachinePath))
	assert.Check(t, !tool.Disagreed)
	assert.DeepEqual(t, tool.Layers, []setup.ConfigLayerValue{
		{Layer: "machine", Origin: cfgMachinePath, Value: `"oracle_send"`, Wins: true, Agrees: true},
		{Layer: "bundled", Origin: "bundled default", Value: `"oracle_send"`, Wins: false, Agrees: true},
	})

	// A key one layer sets.
	dod := entryByKey(t, res, "build.dod")
	assert.Check(t, is.Equal(dod.Value, config.ValueText(`"make test"`)))
	assert.Check(t, is.Equal(dod.Layer, "repository"))
	assert.Check(t, is.Len(dod.Layers, 1))
	assert.Check(t, !dod.Disagreed)
	url := entryByKey(t, res, "oracle.rp.url")
	assert.Check(t, is.Equal(url.Layer, "machine"))
	assert.Check(t, is.Equal(url.Origin, cfgMachinePath))
}

func TestConfigShowBundledDefaults(t *testing.T) {
	res, err := showConfig(t, cfgFiles("", ""), "")
	assert.NilError(t, err)
	assert.DeepEqual(t, res.Files, []setup.ConfigFileStatus{
		{Layer: "repository", Kind: "config", Path: cfgRepoPath, Present: false},
		{Layer: "machine", Kind: "config", Path: cfgMachinePath, Present: false},
	})
	assert.DeepEqual(t, setKeysOf(res), withDefaults())
	for _, e := range res.Keys {
		if !e.Set {
			assert.Check(t, e.Doc != "" && e.Layer == "none", "an unset key says what it is: %+v", e)
		}
	}
	for key, value := range map[string]string{"build.fix_rounds": "3", "oracle.review": `"host"`, "oracle.rp.tool": `"oracle_send"`} {
		e := entryByKey(t, res, key)
		assert.Check(t, e.Set, key)
		assert.Check(t, is.Equal(e.Layer, "bundled"), key)
		assert.Check(t, is.Equal(string(e.Value), value), key)
		assert.Check(t, !e.Disagreed, key)
		assert.Check(t, is.DeepEqual(e.Layers, []setup.ConfigLayerValue{{Layer: "bundled", Origin: e.Origin, Value: config.ValueText(value), Wins: true, Agrees: true}}), key)
	}
}

func TestConfigShowOneKey(t *testing.T) {
	res, err := showConfig(t, cfgFiles(cfgRepo, cfgMachine), "oracle.review")
	assert.NilError(t, err)
	assert.DeepEqual(t, keysOf(res), []string{"oracle.review"})
	assert.Check(t, is.Equal(res.Keys[0].Layer, "repository"))

	// A key abcd reads that no layer sets is listed, not set.
	res, err = showConfig(t, cfgFiles("", ""), "build.dod")
	assert.NilError(t, err)
	assert.DeepEqual(t, keysOf(res), []string{"build.dod"})
	assert.Check(t, !res.Keys[0].Set)
	assert.Check(t, is.Equal(res.Keys[0].Layer, "none"))
	assert.Check(t, is.Len(res.Keys[0].Layers, 0))
	assert.Check(t, res.Keys[0].Layers != nil, "layers is an array, never null")

	// A pattern key narrows too.
	res, err = showConfig(t, cfgFiles("", `{"schema_version":1,"oracle":{"api":{"acme":{"base_url":"https://api.acme.test/v1"}}}}`),
		"oracle.api.acme.base_url")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Keys[0].Layer, "machine"))
}

func TestConfigShowRefusesAnUnknownKey(t *testing.T) {
	for _, key := range []string{"oracle.reveiw", "nope", "oracle.api.acme.tiers.gold", strings.Repeat("k", 200)} {
		_, err := showConfig(t, cfgFiles(cfgRepo, cfgMachine), key)
		r := apptest.AssertRefusal(t, err, "config_key_unknown")
		assert.Check(t, is.Contains(r.Remedy.String(), "run config_show"), key)
		assert.Check(t, len(r.Why) < 200, "the refusal bounds what it echoes: %q", r.Why)
	}
}

func TestConfigShowRefusesAFile(t *testing.T) {
	cases := []struct {
		name          string
		repo, machine string
		file          string
		why           []string
	}{
		{
			name: "unknown key under a claimed namespace",
			repo: `{"schema_version":1,"oracle":{"reveiw":"rp"}}`, //nolint:misspell // an unknown key, misspelt on purpose
			file: cfgRepoPath, why: []string{"oracle.reveiw", "oracle.review", "oracle.rp.url"},
		},
		{
			name:    "unknown top-level key",
			machine: `{"schema_version":1,"setup_verison":1}`,                        //nolint:misspell // an unknown key, misspelt on purpose
			file:    cfgMachinePath, why: []string{"setup_verison", "setup_version"}, //nolint:misspell // the unknown key the refusal names
		},
		{
			name: "machine-only key in the repository file",
			repo: `{"schema_version":1,"oracle":{"rp":{"url":"http://127.0.0.1:7777/mcp"}}}`,
			file: cfgRepoPath, why: []string{"oracle.rp.url", cfgMachinePath},
		},
		{
			name: "provider block in the repository file",
			repo: `{"schema_version":1,"oracle":{"api":{"acme":{"key_env":"ACME_KEY"}}}}`,
			file: cfgRepoPath, why: []string{"oracle.api.acme.key_env", cfgMachinePath},
		},
		{
			name: "duplicate key at depth",
			repo: `{"schema_version":1,"oracle":{"review":"rp","review":"host"}}`,
			file: cfgRepoPath, why: []string{"oracle.review", "twice"},
		},
		{
			name:    "trailing content",
			machine: `{"schema_version":1}{"oracle":{}}`,
			file:    cfgMachinePath, why: []string{"after its object"},
		},
		{
			name: "wrong schema_version",
			repo: `{"schema_version":2}`,
			file: cfgRepoPath, why: []string{"schema_version 2"},
		},
		{
			name:    "no schema_version",
			machine: `{"oracle":{"review":"rp"}}`,
			file:    cfgMachinePath, why: []string{"schema_version"},
		},
		{
			name: "not JSON",
			repo: `{"schema_version":1,`,
			file: cfgRepoPath, why: []string{"not JSON"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo, machine := c.repo, c.machine
			if repo == "" {
				repo = `{"schema_version":1}`
			}
			if machine == "" {
				machine = `{"schema_version":1}`
			}
			for _, key := range []string{"", "oracle.review"} {
				_, err := showConfig(t, cfgFiles(repo, machine), key)
				r := apptest.AssertRefusal(t, err, "config_invalid")
				assert.Check(t, is.Equal(r.What, c.file), "the refusal names the file")
				for _, w := range c.why {
					assert.Check(t, is.Contains(r.Why, w))
				}
			}
		})
	}
}

func TestConfigShowNeverFallsThroughAFailingWinner(t *testing.T) {
	cases := []struct {
		name, repo, machine, origin, key string
	}{
		{"repository value outside its enum", `{"schema_version":1,"oracle":{"review":"carrier-pigeon"}}`,
			`{"schema_version":1,"oracle":{"review":"rp"}}`, cfgRepoPath, "oracle.review"},
		{"repository value of the wrong type", `{"schema_version":1,"oracle":{"review":true}}`,
			`{"schema_version":1}`, cfgRepoPath, "oracle.review"},
		{"machine value that fails its check over a valid default", `{"schema_version":1}`,
			`{"schema_version":1,"oracle":{"rp":{"tool":"no spaces please"}}}`, cfgMachinePath, "oracle.rp.tool"},
		{"setup_version zero", `{"schema_version":1,"setup_version":0}`, `{"schema_version":1}`, cfgRepoPath, "setup_version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, key := range []string{"", c.key} {
				_, err := showConfig(t, cfgFiles(c.repo, c.machine), key)
				r := apptest.AssertRefusal(t, err, "config_value_invalid")
				assert.Check(t, is.Equal(r.What, c.origin))
				assert.Check(t, is.Contains(r.Why, c.key))
				assert.Check(t, is.Contains(r.Remedy.String(), c.origin))
			}
		})
	}
}

func TestConfigShowPassesAReadFaultThrough(t *testing.T) {
	guarded := refusal.New("config_file", cfgMachinePath, "is writable by group or others (mode 0664)", "run `chmod 600 "+cfgMachinePath+"`")
	a := &app.App{Config: fake.Config{Err: guarded}}
	_, err := a.Call(context.Background(), "config_show", map[string]any{})
	assert.Equal(t, err, error(guarded), "the guarded reader's refusal comes through unchanged")
}

func TestConfigShowRefusalNeverQuotesASecret(t *testing.T) {
	for _, url := range []string{
		"http://ada:hunter2@rp.secret-host.example:7777/mcp",
		"http://ada:hunter2@127.0.0.1:7777/mcp",
		"https://rp.secret-host.example/mcp?token=hunter2",
		"http://rp.secret-host.example:7777/mcp",
	} {
		machine := `{"schema_version":1,"oracle":{"rp":{"url":"` + url + `"}}}`
		for _, key := range []string{"", "oracle.rp.url"} {
			_, err := showConfig(t, cfgFiles("", machine), key)
			r := apptest.AssertRefusal(t, err, "config_value_invalid")
			assert.Check(t, is.Equal(r.What, cfgMachinePath))
			for _, secret := range []string{"hunter2", "secret-host", "ada:", "7777"} {
				for field, text := range map[string]string{"what": r.What, "why": r.Why, "remedy": r.Remedy.String(), "error": err.Error()} {
					assert.Check(t, !strings.Contains(text, secret), "the refusal's %s quotes %q from %s: %q", field, secret, url, text)
				}
			}
		}
	}
}

// A namespace abcd does not claim belongs to someone else (an extension): the file passes
// validation, so config show must not then refuse it as a failing value of a key abcd reads.
func TestConfigShowToleratesAnUnclaimedNamespace(t *testing.T) {
	repo := `{"schema_version":1,"oracle":{"review":"rp"},"acme":{"colour":"teal"}}`
	res, err := showConfig(t, cfgFiles(repo, ""), "")
	assert.NilError(t, err, "a key under an unclaimed namespace refused config show")
	assert.Check(t, is.Equal(entryByKey(t, res, "oracle.review").Layer, "repository"))
}

// setKeysOf is the keys some layer sets.
func setKeysOf(res setup.ConfigShowResult) []string {
	out := []string{}
	for _, e := range res.Keys {
		if e.Set {
			out = append(out, e.Key)
		}
	}
	return out
}

// everyKey is every key and pattern the registry has, sorted.
func everyKey() []string {
	var out []string
	for _, k := range config.Keys() {
		out = append(out, k.Pattern)
	}
	slices.Sort(out)
	return out
}

// withDefaults is the keys given and every key with a bundled default, once each, sorted.
func withDefaults(keys ...string) []string {
	out := append([]string{}, keys...)
	for _, k := range config.Keys() {
		if k.Default != nil && !slices.Contains(out, k.Pattern) {
			out = append(out, k.Pattern)
		}
	}
	slices.Sort(out)
	return out
}
