// The contract, read by a consumer that is not Go: every implemented verb's --json output from the
// built binary is validated by ajv (draft 2020-12) against the schema published in schemas/v1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const schemaDir = join(root, 'schemas', 'v1');
const bin = process.env.ABCD_BIN || join(root, 'bin', 'abcd');
const cases = JSON.parse(readFileSync(join(here, 'cases.json'), 'utf8'));
const index = JSON.parse(readFileSync(join(schemaDir, 'index.json'), 'utf8'));

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
for (const entry of index.schemas) {
  ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, entry.file), 'utf8')));
}
const validatorFor = (name) => {
  const id = index.schemas.find((e) => e.name === name)?.id;
  assert.ok(id, `no schema named ${name} in the index`);
  return ajv.getSchema(id);
};

// setup makes the folder a case runs in, and a machine home that is empty.
function setup(kind, files = {}, homeFiles = {}, fixtures = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'abcd-contract-'));
  const repo = join(dir, 'repo');
  const home = join(dir, 'home');
  mkdirSync(repo);
  mkdirSync(home, { mode: 0o700 });
  if (kind !== 'plain') {
    const git = spawnSync('git', ['init', '-q', repo]);
    assert.equal(git.status, 0, 'git init');
  }
  if (kind === 'record') {
    const drafts = join(repo, '.abcd', 'development', 'intents', 'drafts');
    mkdirSync(drafts, { recursive: true });
    writeFileSync(join(drafts, 'itd-2611300000000001-first.md'), '---\nid: itd-2611300000000001\n---\n');
    const open = join(repo, '.abcd', 'work', 'issues', 'open');
    mkdirSync(open, { recursive: true });
    writeFileSync(join(open, 'iss-2611300000000002-noticed.md'), '---\nid: iss-2611300000000002\n---\n');
    writeFileSync(join(repo, '.abcd', 'config.json'), '{"schema_version":1}\n');
  }
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), body);
  }
  // fixtures: a file of the repository's own test data, copied in with its recorded folder made
  // this repository's (a harness transcript names the folder its session ran in).
  for (const [rel, { from, folder }] of Object.entries(fixtures)) {
    const text = readFileSync(join(root, from), 'utf8');
    writeFileSync(join(repo, rel), folder ? text.replaceAll(JSON.stringify(folder), JSON.stringify(repo)) : text);
  }
  for (const [rel, body] of Object.entries(homeFiles)) {
    writeFileSync(join(home, rel), body, { mode: 0o600 });
  }
  return { dir, repo, home };
}

// snapshot lists every path under dir with its size and mode, to prove a refusal wrote nothing.
function snapshot(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      const hash = st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : '-';
      out.push(`${p} ${st.size} ${st.mode} ${hash}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

const gitIdentity = { GIT_AUTHOR_NAME: 'abcd test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'abcd test', GIT_COMMITTER_EMAIL: 'test@example.com' };

function run(c) {
  const env = setup(c.setup, c.files, c.home_files, c.fixtures);
  try {
    const childEnv = { PATH: process.env.PATH, HOME: env.home, ABCD_HOME: env.home, NO_COLOR: '1' };
    // pre: commands that build the repository state the case runs in (ids are unknown in advance, so
    // cases name records by slug fragment).
    // {repo} in an argument is the repository's absolute path, unknown until it is made.
    const at = (args) => args.map((a) => a.replaceAll('{repo}', env.repo));
    for (const args of (c.pre ?? []).map(at)) {
      const [cmd, rest] = args[0] === 'git' ? ['git', args.slice(1)] : [bin, args];
      const r = spawnSync(cmd, rest, { cwd: env.repo, env: { ...childEnv, ...gitIdentity }, encoding: 'utf8', input: '' });
      assert.equal(r.status, 0, `pre ${args.join(' ')}: ${r.stderr}`);
    }
    for (const [rel, body] of Object.entries(c.after_pre_files ?? {})) {
      mkdirSync(dirname(join(env.repo, rel)), { recursive: true });
      writeFileSync(join(env.repo, rel), body);
    }
    const before = snapshot(env.dir);
    const res = spawnSync(bin, at(c.args), {
      cwd: env.repo,
      env: childEnv,
      encoding: 'utf8',
      input: '',
    });
    return { res, before, after: snapshot(env.dir) };
  } finally {
    rmSync(env.dir, { recursive: true, force: true });
  }
}

test('every published schema compiles under ajv strict mode, draft 2020-12', () => {
  for (const entry of index.schemas) {
    assert.ok(ajv.getSchema(entry.id), `${entry.name} did not compile`);
    assert.equal(entry.id, `${index.namespace}${entry.file}`);
  }
});

// The title rule, read by a consumer that is not Go: ajv (ECMA-262 patterns, lengths in
// characters) takes or refuses each generated title exactly as abcd's own check does, as a verb's
// input and as a record file's front matter (domain/record/testdata/title-cases.json).
test('ajv and abcd agree on every generated title, as input and as stored', () => {
  const titles = JSON.parse(readFileSync(join(root, 'domain', 'record', 'testdata', 'title-cases.json'), 'utf8'));
  assert.ok(titles.length > 100);
  const input = validatorFor('intent_new.input');
  const front = validatorFor('intent_front_matter');
  for (const c of titles) {
    assert.equal(input({ title: c.title }), c.typed === '', `input ${JSON.stringify(c.title)}: abcd says ${c.typed || 'taken'}`);
    const fm = { id: 'itd-2611300000000001', type: 'intent', title: c.title, lifecycle: 'drafts', kind: 'standalone', severity: 'major', created: '2026-11-30' };
    assert.equal(front(fm), c.stored, `stored ${JSON.stringify(c.title)}: abcd says ${c.stored}`);
  }
});

// Verbs whose cases need state only a scripted agent can make (commits, receipts) are driven by
// loop.test.mjs, which validates their output against the same schemas; ahoy_connect needs a
// provider that answers, and tools/openai/interop.test.mjs validates it against a real one.
const loopVerbs = ['implement_step', 'implement_receipt', 'review', 'intent_audit', 'ahoy_connect'];

test('every verb in the index has a case, and every case names a verb in the index', () => {
  const verbs = new Set(index.schemas.filter((e) => e.verb).map((e) => e.verb));
  const covered = new Set([...cases.filter((c) => !c.refusal).map((c) => c.verb), ...loopVerbs]);
  for (const v of verbs) assert.ok(covered.has(v), `verb ${v} has no case in tools/contract/cases.json`);
  for (const v of covered) assert.ok(verbs.has(v), `case verb ${v} is not in the index`);
});

// The refusal schema enumerates the codes abcd declares: a consumer may branch on code knowing
// every value it can take, and a document with any other code is not a refusal.
test('the refusal schema takes a declared code and no other', () => {
  const validate = validatorFor('refusal');
  const doc = { kind: 'refused', code: 'not_initialized', what: 'abcd', why: 'no record yet', remedy: 'run abcd ahoy install', exit_code: 2 };
  assert.ok(validate(doc), ajv.errorsText(validate.errors));
  for (const code of ['not_initialised', 'Not_initialized', '']) {
    assert.ok(!validate({ ...doc, code }), `the undeclared code ${JSON.stringify(code)} validates`);
  }
});

for (const c of cases) {
  test(c.name, () => {
    const { res, before, after } = run(c);
    assert.equal(res.status, c.exit, `exit code; stderr: ${res.stderr}`);
    assert.ok(res.stdout.endsWith('\n') && res.stdout.indexOf('\n') === res.stdout.length - 1,
      `stdout must be exactly one JSON document on one line, got: ${JSON.stringify(res.stdout)}`);
    const doc = JSON.parse(res.stdout);
    const validate = validatorFor(c.refusal ? 'refusal' : `${c.verb}.result`);
    assert.ok(validate(doc), `${c.refusal ? 'refusal' : c.verb + '.result'}: ${ajv.errorsText(validate.errors)}\n${res.stdout}`);
    if (c.refusal) {
      assert.equal(doc.exit_code, c.exit);
      assert.ok(doc.remedy.length > 0, 'a refusal names its remedy');
      assert.deepEqual(after, before, 'a refusal writes nothing');
    }
  });
}
