// A third-party OpenAI-compatible server (@dwmkerr/mock-llm, from npm) against abcd's provider
// route: the built binary connects to it (one verification call, the block written 0600, refused a
// second time, disconnected), and the adapter dispatches reviews to it, with the schema enforced and
// with the server refusing response_format. A canary key is handed in and scanned for everywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
