// RepoPrompt takes reviews through the built binary: `abcd review` with oracle.review rp sends both
// reviewers' briefs to a RepoPrompt stand-in on the official MCP TypeScript SDK (Streamable HTTP)
// and records its answers as rp's; a stand-in that refuses leaves each review on the host with a
// fallback receipt, and the host's returns are recorded as the host's. Every result is checked
// against its published schema with ajv.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const bin = process.env.ABCD_BIN || join(root, 'bin', 'abcd');
const schemaDir = join(root, 'schemas', 'v1');
const index = JSON.parse(readFileSync(join(schemaDir, 'index.json'), 'utf8'));
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
for (const e of index.schemas) ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, e.file), 'utf8')));
const validate = (name) => ajv.getSchema(index.schemas.find((e) => e.name === name).id);

const dir = mkdtempSync(join(tmpdir(), 'abcd-rp-loop-'));
const standins = [];
after(() => {
  for (const s of standins) s.kill();
  rmSync(dir, { recursive: true, force: true });
});

// standIn starts the stand-in in mode and resolves to its URL.
async function standIn(mode) {
  const child = spawn(process.execPath, [join(here, 'standin.mjs'), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  standins.push(child);
  const first = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the stand-in exited ${code}`)));
  });
  return JSON.parse(first).url;
}

// repo is a repository with abcd installed, reviews routed to rp at url, and a feature branch one
// commit past main.
function repo(name, url) {
  const cwd = join(dir, name);
  const home = join(dir, `${name}-home`);
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH, HOME: dir, ABCD_HOME: home, NO_COLOR: '1',
    GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com' };
  const git = (...args) => {
    const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  };
  const run = (verb, ...args) => runExit(0, verb, ...args);
  const runExit = (code, verb, ...args) => {
    const r = spawnSync(bin, [...args, '--json'], { cwd, env, encoding: 'utf8', input: '' });
    assert.equal(r.status, code, `abcd ${args.join(' ')}: ${r.stdout} ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    const ok = validate(`${verb}.result`);
    assert.ok(ok(doc), `${verb}: ${JSON.stringify(ok.errors)}`);
    return doc;
  };
  git('init', '-q', '-b', 'main');
  git('commit', '-q', '--allow-empty', '-m', 'base');
  run('ahoy_install', 'ahoy', 'install', '--yes');
  const config = join(cwd, '.abcd', 'config.json');
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), oracle: { review: 'rp' } }));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ schema_version: 1, oracle: { rp: { url } } }), { mode: 0o600 });
  git('add', '-A');
  git('commit', '-q', '-m', 'abcd');
  git('checkout', '-q', '-b', 'feature');
  writeFileSync(join(cwd, 'feature.txt'), 'a feature\n');
  git('add', 'feature.txt');
  git('commit', '-q', '-m', 'feature');
  return { cwd, run, runExit };
}

test('abcd review sends both reviews to RepoPrompt and records its answers as rp\'s', async () => {
  const r = repo('answers', await standIn('sse'));
  const reviewed = r.run('review', 'review', '--base', 'main');
  assert.equal(reviewed.run.finished, true, JSON.stringify(reviewed.did));
  assert.deepEqual(reviewed.run.awaits, [], 'nothing is left for the host');
  assert.ok(reviewed.did.some((d) => /ruthless-reviewer's review \(round 1\) was answered by rp: SHIP/.test(d)), reviewed.did.join('\n'));
  assert.ok(reviewed.did.some((d) => /security-reviewer's review \(round 1\) was answered by rp: APPROVE/.test(d)), reviewed.did.join('\n'));
  const story = r.run('implement_record', 'implement', 'record', '--run', reviewed.run.run);
  assert.equal(story.verdicts.length, 2);
  for (const v of story.verdicts) {
    assert.equal(v.route, 'rp', v.role);
    assert.equal(v.ran, 'rp', v.role);
    assert.equal(v.pass, true, v.role);
  }
  assert.deepEqual(story.fallbacks, []);
  // What RepoPrompt was sent is kept beside the brief, and arrived whole: the stand-in's answer
  // carries the SHA-256 of the message it received.
  for (const v of story.verdicts) {
    const answer = readFileSync(v.return.startsWith('/') ? v.return : join(r.cwd, v.return), 'utf8');
    const request = readFileSync(join(dirname(v.return.startsWith('/') ? v.return : join(r.cwd, v.return)), 'request.md'));
    const { createHash } = await import('node:crypto');
    assert.match(answer, new RegExp(`sha256 ${createHash('sha256').update(request).digest('hex')} new_chat true`), v.role);
  }
});

// A finished review that fails exits 1, with its result (not a refusal), so a script or CI gates on
// it; one that passes exits 0 (above).
test('abcd review exits 1 when the review it returns says FIX FIRST or BLOCK', async () => {
  const r = repo('fails', await standIn('fails'));
  const reviewed = r.runExit(1, 'review', 'review', '--base', 'main');
  assert.equal(reviewed.run.finished, true, JSON.stringify(reviewed.did));
  assert.equal(reviewed.run.lanes[0].stage, 'handed-back');
  assert.ok(reviewed.did.some((d) => /ruthless-reviewer's review \(round 1\) was answered by rp: FIX FIRST/.test(d)), reviewed.did.join('\n'));
  assert.ok(reviewed.did.some((d) => /security-reviewer's review \(round 1\) was answered by rp: BLOCK/.test(d)), reviewed.did.join('\n'));
});

test('a RepoPrompt that refuses leaves each review on the host with a fallback receipt', async () => {
  const r = repo('refuses', await standIn('iserror'));
  const reviewed = r.run('review', 'review', '--base', 'main');
  assert.equal(reviewed.run.finished, false);
  assert.equal(reviewed.run.awaits.length, 2, 'both reviews are the host\'s');
  const story = r.run('implement_record', 'implement', 'record', '--run', reviewed.run.run);
  assert.equal(story.fallbacks.length, 2);
  for (const f of story.fallbacks) {
    assert.equal(f.asked, 'rp');
    assert.equal(f.reason, 'refused');
    assert.equal(f.ran, 'host');
  }
  let last;
  for (const aw of reviewed.run.awaits) {
    const word = aw.role === 'security-reviewer' ? 'APPROVE' : 'SHIP';
    writeFileSync(aw.return, `Read the diff.\n\n## Verdict\n\n${word}\n\nNo findings.\n`);
    last = r.run('implement_receipt', 'implement', 'receipt', aw.return);
  }
  assert.equal(last.run.finished, true);
  const done = r.run('implement_record', 'implement', 'record', '--run', reviewed.run.run);
  for (const v of done.verdicts) {
    assert.equal(v.route, 'rp', 'the review asked for rp');
    assert.equal(v.ran, 'host', 'and the host took it');
  }
});
