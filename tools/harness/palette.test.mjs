// Rules and history through the real harness command lines (make test-harness), each run headless
// against a loopback stand-in of its vendor's API with a dummy key:
//
//   - Claude Code with the abcd plugin: its UserPromptSubmit hook (abcd rules hook) puts the rules the
//     prompt calls for in what Claude Code sends the model; its SubagentStop and SessionEnd hooks (abcd
//     history hook) capture the session and its sub-agent's, redacted, with no canary in the store.
//   - Gemini CLI with the hooks docs/rules.md and docs/history.md show: BeforeAgent injects the rules,
//     SessionEnd captures the chat.
//   - Codex: its session rollout captured with abcd history capture --all.
import { suite, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, makeWorld, root, toolsDir } from '../mcp/lib.mjs';
import { anthropic, gemini, responses } from './standins.mjs';

const cli = (name) => join(toolsDir, 'harness', 'node_modules', '.bin', name);
const canaries = JSON.parse(readFileSync(join(root, 'domain', 'history', 'testdata', 'canaries.json'), 'utf8')).canaries
  .map((c) => ({ ...c, text: c.text || c.secret }));

const rulesFile = JSON.stringify({
  schema_version: 1,
  domains: [{ name: 'database', recall: ['migration', 'migrations'], aliases: ['db'],
    rules: [{ id: 'reversible', text: 'Every migration has a down step that undoes it.' }] }],
});

// world is a repository with a commit, a rules file, abcd (and its helper) on the PATH as abcd.
function world() {
  const w = makeWorld({ record: false });
  const binDir = join(w.dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  symlinkSync(bin, join(binDir, 'abcd'));
  w.env = { ...w.env, PATH: `${binDir}:${w.env.PATH}`, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  mkdirSync(join(w.repo, '.abcd'), { recursive: true });
  writeFileSync(join(w.repo, '.abcd', 'rules.json'), rulesFile);
  // A provider whose key abcd holds (the canary corpus's abcd credential): redaction looks for it.
  const key = join(w.home, 'provider.key');
  writeFileSync(key, canaries.find((c) => c.kind === 'abcd provider credential').secret + '\n', { mode: 0o600 });
  writeFileSync(join(w.home, 'config.json'), JSON.stringify({ schema_version: 1,
    oracle: { api: { local: { base_url: 'http://127.0.0.1:9/v1', key_file: key, models: ['m'] } } } }), { mode: 0o600 });
  spawnSync('git', ['add', '-A'], { cwd: w.repo, env: w.env });
  const c = spawnSync('git', ['commit', '-q', '-m', 'first'], { cwd: w.repo, env: w.env, encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr);
  return w;
}

function run(w, cmd, args, env = {}, input = undefined) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: w.repo, env: { ...w.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    if (input !== undefined) child.stdin.end(input);
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${cmd} ${args.join(' ')} took over 120s:\n${stdout}\n${stderr}`)); }, 120_000);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}

function abcd(w, ...args) {
  const r = spawnSync(bin, args, { cwd: w.repo, env: w.env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// waitFor polls until ok() holds, or fails after a minute.
async function waitFor(what, ok) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const got = ok();
    if (got) return got;
    if (Date.now() > deadline) assert.fail(`${what} did not happen within a minute`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

function sessions(w) {
  const r = abcd(w, 'history', 'list', '--json');
  return r.status === 0 ? JSON.parse(r.stdout).sessions : [];
}

// storeBytes is every byte abcd keeps of the repository's history.
function storeBytes(w) {
  let out = '';
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out += readFileSync(p, 'latin1');
    }
  };
  walk(join(w.home, 'history'));
  return out;
}

function assertNoCanary(w, where, keys) {
  let kept = storeBytes(w);
  for (const k of keys) {
    const shown = abcd(w, 'history', 'show', k, '--raw');
    assert.equal(shown.status, 0, shown.stderr);
    kept += shown.stdout + JSON.stringify(abcd(w, 'history', 'show', k, '--json').stdout);
  }
  for (const c of canaries) {
    for (const form of [c.secret, JSON.stringify(c.secret).slice(1, -1), Buffer.from(c.secret).toString('base64')]) {
      assert.ok(!kept.includes(form), `${where}: the ${c.kind} canary stands in what abcd keeps`);
    }
  }
  assert.ok(!kept.includes(w.userHome), `${where}: the home path stands in what abcd keeps`);
}

suite('rules and history through the real harnesses', { concurrency: false }, () => {
  test('Claude Code with the plugin: the prompt carries the rules; the session and its sub-agent are kept, redacted', async () => {
    const w = world();
    const api = await anthropic('All done: ' + canaries.map((c) => c.text).join(' | '));
    try {
      const prompt = 'SPAWN a helper, then write the migration for the orders table. Keys to use: ' + canaries.map((c) => c.text).join('\n');
      const res = await run(w, cli('claude'), ['--plugin-dir', root, '-p', prompt, '--output-format', 'stream-json', '--verbose'],
        { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-dummy-key-for-the-stand-in' });
      assert.equal(res.status, 0, res.stdout.slice(-2000) + res.stderr);

      // What the real Claude Code sent the model holds the rules the prompt called for.
      const sent = api.requests.filter((r) => r.url.startsWith('/v1/messages')).map((r) => r.body).join('\n');
      assert.match(sent, /abcd rules: the conventions of this repository that this prompt calls for/);
      assert.match(sent, /\[database\] recalled by \\"migration\\"/);
      assert.match(sent, /Every migration has a down step that undoes it\./);
      assert.match(sent, /secrets\] recalled by/, 'the secrets guardrail, for the keys in the prompt');

      // The plugin's SubagentStop and SessionEnd hooks handed both transcripts to a capture.
      const kept = await waitFor('the session and its sub-agent captured', () => {
        const s = sessions(w);
        return s.length >= 2 && s.some((x) => x.agent) && s.some((x) => !x.agent) ? s : null;
      });
      const main = kept.find((x) => !x.agent);
      const sub = kept.find((x) => x.agent);
      assert.equal(main.harness, 'claude');
      assert.equal(sub.parent, main.session, 'the sub-agent links to its parent session');
      assert.ok(main.redactions['abcd-credential'] === undefined || main.redactions['abcd-credential'] >= 0);
      assert.ok(Object.values(main.redactions).reduce((a, b) => a + b, 0) > 0, 'what was redacted is counted');
      const found = JSON.parse(abcd(w, 'history', 'search', 'orders', '--json').stdout);
      assert.ok(found.hits.some((h) => h.key === main.key), 'the session is found by its words');
      const log = readFileSync(join(w.home, 'history', 'hook.log'), 'utf8');
      assert.match(log, /stored/);
      assertNoCanary(w, 'Claude Code', [main.key, sub.key]);
    } finally {
      await api.close();
      w.cleanup();
    }
  });

  test('Gemini CLI: BeforeAgent injects the rules, SessionEnd keeps the chat', async () => {
    const w = world();
    const api = await gemini('Noted: ' + canaries.slice(0, 5).map((c) => c.text).join(' | '));
    try {
      mkdirSync(join(w.userHome, '.gemini'), { recursive: true });
      writeFileSync(join(w.userHome, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
      mkdirSync(join(w.repo, '.gemini'), { recursive: true });
      writeFileSync(join(w.repo, '.gemini', 'settings.json'), JSON.stringify({ hooks: {
        BeforeAgent: [{ hooks: [{ type: 'command', command: 'abcd rules hook', timeout: 10000 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: 'abcd history hook --harness gemini', timeout: 10000 }] }],
      } }));
      const prompt = 'Write the migration for the orders table with ' + canaries.slice(0, 5).map((c) => c.text).join(', ');
      const res = await run(w, cli('gemini'), ['-p', prompt, '-o', 'stream-json'],
        { GEMINI_API_KEY: 'dummy-gemini-key-for-the-stand-in', GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_CLI_TRUST_WORKSPACE: 'true' });
      assert.equal(res.status, 0, res.stdout.slice(-2000) + res.stderr);
      const sent = api.requests.filter((r) => r.url.includes('streamGenerateContent')).map((r) => r.body).join('\n');
      assert.match(sent, /\[database\] recalled by/);
      assert.match(sent, /Every migration has a down step that undoes it\./);
      const kept = await waitFor('the chat captured', () => sessions(w).find((x) => x.harness === 'gemini'));
      assert.match(kept.title, /orders table/);
      assertNoCanary(w, 'Gemini CLI', [kept.key]);
    } finally {
      await api.close();
      w.cleanup();
    }
  });

  test('Codex: its rollout captured by abcd history capture --all', async () => {
    const w = world();
    const api = await responses('Codex says hello.');
    try {
      const codexHome = join(w.dir, 'codex-home');
      mkdirSync(codexHome);
      const provider = `model_providers.standin={name="standin",base_url="${api.url}/v1",wire_api="responses",env_key="STANDIN_KEY"}`;
      const res = await run(w, cli('codex'), ['exec', '--json', '--skip-git-repo-check', '-c', provider, '-c', 'model_provider=standin', '-m', 'gpt-5',
        'write the migration and use ' + canaries[0].text], { CODEX_HOME: codexHome, STANDIN_KEY: 'dummy-codex-key' });
      assert.equal(res.status, 0, res.stdout.slice(-2000) + res.stderr);
      w.env = { ...w.env, CODEX_HOME: codexHome };
      const cap = abcd(w, 'history', 'capture', '--all', '--json');
      assert.equal(cap.status, 0, cap.stdout + cap.stderr);
      const captured = JSON.parse(cap.stdout).captured;
      assert.equal(captured.length, 1, cap.stdout);
      assert.equal(captured[0].harness, 'codex');
      assert.equal(captured[0].outcome, 'stored');
      const again = JSON.parse(abcd(w, 'history', 'capture', '--all', '--json').stdout).captured;
      assert.equal(again[0].outcome, 'unchanged', 'the same transcript again changes nothing');
      assertNoCanary(w, 'Codex', [captured[0].key]);
    } finally {
      await api.close();
      w.cleanup();
    }
  });
});
