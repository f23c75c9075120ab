// A third-party OpenAI-compatible server (@dwmkerr/mock-llm, from npm) against abcd's provider
// route: the built binary connects to it (one verification call, the block written 0600, refused a
// second time, disconnected), and the adapter dispatches reviews to it, with the schema enforced and
// with the server refusing response_format. A canary key is handed in and scanned for everywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { root, start } from './mockllm.mjs';

const bin = process.env.ABCD_BIN || join(root, 'bin', 'abcd');
const canary = 'sk-canary-interop-5e8a1f0c93';
const schemaDir = join(root, 'schemas', 'v1');
const index = JSON.parse(readFileSync(join(schemaDir, 'index.json'), 'utf8'));
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
for (const e of index.schemas) ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, e.file), 'utf8')));
const validate = (name) => ajv.getSchema(index.schemas.find((e) => e.name === name).id);

let server;
let dir;
const seen = [];

before(async () => {
  server = await start();
  dir = mkdtempSync(join(tmpdir(), 'abcd-openai-interop-'));
});

after(async () => {
  await server?.stop();
  // Everything abcd printed, wrote, or the server logged: the key is in none of it.
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  for (const s of [...seen, ...files, server?.output() ?? '']) {
    assert.ok(!s.includes(canary) && !s.includes('canary-interop'), `the key leaked: ${s.slice(0, 200)}`);
  }
  rmSync(dir, { recursive: true, force: true });
});

function abcd(home, args) {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  const r = spawnSync(bin, args, {
    cwd: repo, encoding: 'utf8', input: '',
    env: { PATH: process.env.PATH, HOME: dir, ABCD_HOME: home, NO_COLOR: '1', ABCD_INTEROP_KEY: canary },
  });
  seen.push(r.stdout, r.stderr);
  return r;
}

test('abcd ahoy connect verifies against the server, writes the block once, and disconnect removes it', () => {
  const home = join(dir, 'abcd-home');
  const connect = ['ahoy', 'connect', 'mock', '--base-url', server.baseURL, '--model', 'strict-review',
    '--tier', 'economy=strict-review', '--tier', 'frontier=loose-review', '--key-env', 'ABCD_INTEROP_KEY', '--json'];
  const r = abcd(home, connect);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const doc = JSON.parse(r.stdout);
  const ok = validate('ahoy_connect.result');
  assert.ok(ok(doc), JSON.stringify(ok.errors));
  assert.equal(doc.model_reported, 'strict-review', 'the server reported the model it answered as');
  assert.deepEqual(doc.models, ['strict-review', 'loose-review']);
  assert.deepEqual(doc.tiers, ['economy=strict-review', 'frontier=loose-review']);
  assert.equal(doc.credential, 'key_env');

  const file = join(home, 'config.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(home).mode & 0o777, 0o700);
  const written = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(written.oracle.api.mock, {
    base_url: server.baseURL, key_env: 'ABCD_INTEROP_KEY', models: ['strict-review', 'loose-review'],
    tiers: { economy: 'strict-review', frontier: 'loose-review' },
  });

  const show = abcd(home, ['config', 'show', '--json']);
  assert.equal(show.status, 0, show.stderr);
  const keys = JSON.parse(show.stdout).keys;
  const models = keys.find((k) => k.key === 'oracle.api.mock.models');
  assert.deepEqual(models.value, ['strict-review', 'loose-review']);
  assert.equal(models.layer, 'machine');
  const okShow = validate('config_show.result');
  assert.ok(okShow(JSON.parse(show.stdout)), JSON.stringify(okShow.errors));

  const again = abcd(home, connect);
  assert.equal(again.status, 2);
  const refusal = JSON.parse(again.stdout);
  assert.equal(refusal.code, 'provider_exists');
  assert.match(refusal.remedy, /abcd ahoy disconnect mock/);
  assert.equal(readFileSync(file, 'utf8'), readFileSync(file, 'utf8'));

  const text = abcd(home, ['ahoy', 'disconnect', 'mock']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /disconnected mock/);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).oracle, undefined);
});

test('a verification call the server does not answer as asked writes nothing', () => {
  const home = join(dir, 'abcd-home-2');
  const r = abcd(home, ['ahoy', 'connect', 'mock', '--base-url', server.baseURL.replace('/v1', '/v2'), '--model', 'm', '--json']);
  assert.equal(r.status, 2, r.stdout);
  assert.equal(JSON.parse(r.stdout).code, 'provider_unverified');
  assert.ok(!JSON.parse(r.stdout).why.includes('127.0.0.1'), 'the refusal names no address');
  let exists = true;
  try { statSync(join(home, 'config.json')); } catch { exists = false; }
  assert.equal(exists, false);
});

test('the adapter dispatches reviews to the server end to end and reports its model', () => {
  const r = spawnSync('go', ['test', '-count=1', '-v', '-run', '^TestInteropMockLLM$', './adapters/openai/'], {
    cwd: root, encoding: 'utf8',
    env: { ...process.env, ABCD_OPENAI_INTEROP_URL: server.baseURL, ABCD_OPENAI_INTEROP_SCHEMA: join(schemaDir, 'review_reply.schema.json') },
  });
  seen.push(r.stdout, r.stderr);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /--- PASS: TestInteropMockLLM/);
  assert.doesNotMatch(r.stdout, /SKIP/);
  assert.match(r.stdout, /strict-review: model strict-review, schema enforced true, verdict SHIP/);
  assert.match(r.stdout, /loose-review: model loose-review, schema enforced false, verdict SHIP/);
});

// The provider takes reviews through the built binary, in abcd review and in a build-loop round:
// the routing table asks economy of the ruthless reviewer (strict-review, the schema enforced) and
// frontier of the security reviewer (loose-review, which refuses response_format, so the reply is
// checked locally); the record shows the provider's route and the model it reported.
test('reviews go to the provider through abcd review and through a build-loop round', () => {
  const home = join(dir, 'abcd-home-loop');
  const repo = join(dir, 'loop-repo');
  mkdirSync(repo, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: dir, ABCD_HOME: home, NO_COLOR: '1', ABCD_INTEROP_KEY: canary,
    GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com' };
  const git = (cwd, ...args) => {
    const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const run = (verb, ...args) => {
    const r = spawnSync(bin, [...args, '--json'], { cwd: repo, env, encoding: 'utf8', input: '' });
    seen.push(r.stdout, r.stderr);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stdout} ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    const ok = validate(`${verb}.result`);
    assert.ok(ok(doc), `${verb}: ${JSON.stringify(ok.errors)}`);
    return doc;
  };
  const write = (rel, body) => {
    mkdirSync(join(rel.startsWith('/') ? '' : repo, rel, '..'), { recursive: true });
    writeFileSync(rel.startsWith('/') ? rel : join(repo, rel), body);
  };
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'base');
  run('ahoy_install', 'ahoy', 'install', '--yes');
  run('ahoy_connect', 'ahoy', 'connect', 'mock', '--base-url', server.baseURL, '--model', 'strict-review',
    '--tier', 'economy=strict-review', '--tier', 'frontier=loose-review', '--key-env', 'ABCD_INTEROP_KEY', '--price', 'strict-review 1 2');
  assert.deepEqual(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).oracle.api.mock.prices, ['strict-review 1 2']);
  writeFileSync(join(home, 'oracle-routing.json'), JSON.stringify({ schema_version: 1, agents: {
    'ruthless-reviewer': { tier: 'economy' }, 'security-reviewer': { tier: 'frontier' }, 'intent-auditor': { tier: 'host-decides' } } }), { mode: 0o600 });
  const providerVerdicts = (story) => {
    const byRole = Object.fromEntries(story.verdicts.filter((v) => v.role !== 'intent-auditor').map((v) => [v.role, v]));
    assert.equal(byRole['ruthless-reviewer'].ran, 'mock');
    assert.equal(byRole['ruthless-reviewer'].receipt.connection_used, 'mock');
    assert.equal(byRole['ruthless-reviewer'].receipt.model_reported, 'strict-review');
    assert.equal(byRole['ruthless-reviewer'].call.schema_enforced, true);
    assert.equal(byRole['security-reviewer'].ran, 'mock');
    assert.equal(byRole['security-reviewer'].call.model_reported, 'loose-review');
    assert.equal(byRole['security-reviewer'].call.schema_enforced, false, 'the server refused response_format: checked locally');
    // mock-llm streams no usage, so even the priced model's cost is unknown: never a guess.
    assert.equal(byRole['ruthless-reviewer'].call.cost_source, 'unknown');
    assert.equal(byRole['ruthless-reviewer'].call.cost_usd, 0);
    assert.equal(byRole['ruthless-reviewer'].call.tokens_in, 0);
    assert.deepEqual(story.fallbacks, []);
  };

  // abcd review of a branch.
  git(repo, 'checkout', '-q', '-b', 'feature');
  write('feature.txt', 'new\n');
  git(repo, 'add', 'feature.txt');
  git(repo, 'commit', '-q', '-m', 'feature');
  const reviewed = run('review', 'review', '--base', 'main');
  assert.equal(reviewed.run.finished, true, JSON.stringify(reviewed.did));
  providerVerdicts(run('implement_record', 'implement', 'record', '--run', reviewed.run.run));

  // A build-loop round: the implementer on the host, its reviews on the provider.
  git(repo, 'checkout', '-q', 'main');
  write('.abcd/config.json', JSON.stringify({ schema_version: 1, setup_version: 1, build: { dod: 'true' } }));
  write('.abcd/development/intents/planned/itd-2611300000000001-lazy.md', '---\nid: itd-2611300000000001\ntype: intent\ntitle: "Lazy"\nlifecycle: planned\nkind: standalone\nseverity: minor\ncreated: 2026-11-30\n---\n\n## Press Release\n\nIt starts lazily.\n\n## Acceptance Criteria\n\n- ac-1: Given a run, when it starts, then it is lazy.\n\n## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n');
  write('.abcd/development/specs/open/spc-2611300000000002-lazy.md', '---\nid: spc-2611300000000002\ntype: spec\ntitle: "Lazy"\nlifecycle: open\nimplements: itd-2611300000000001\ncreated: 2026-11-30\n---\n\n## Steps\n\n1. Be lazy.\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'record');
  const started = run('implement_start', 'implement', 'start', 'lazy');
  const step = run('implement_step', 'implement', 'step', '--run', started.run.run);
  const [impl] = step.run.awaits;
  const lane = step.run.lanes[0];
  write(join(lane.worktree, 'lazy.txt'), 'lazy\n');
  git(lane.worktree, 'add', 'lazy.txt');
  git(lane.worktree, 'commit', '-q', '-m', 'lazy');
  const sha = git(lane.worktree, 'rev-parse', 'HEAD');
  const laneDir = join(repo, `.abcd/.work.local/run/${started.run.run}/lane-1`);
  write(join(laneDir, 'dod.txt'), 'ok\n');
  write(join(laneDir, 'report.md'), 'Lazy now.\n');
  write(impl.return, JSON.stringify({ schema_version: 1, run: started.run.run, lane: 'lane-1', branch: lane.branch, commits: [sha],
    dod: { command: 'true', exit_code: 0, output: 'dod.txt' }, report: 'report.md', model: 'host-model' }));
  const receipt = run('implement_receipt', 'implement', 'receipt', impl.return);
  assert.ok(receipt.did.some((d) => /answered by mock/.test(d)), JSON.stringify(receipt.did));
  const story = run('implement_record', 'implement', 'record', '--run', started.run.run);
  providerVerdicts(story);
  assert.equal(story.implementations[0].receipt.model_reported, 'host-model', 'the implementer\'s model is its model_reported');
});
