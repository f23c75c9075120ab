// The build loop end to end: the built binary in temp git repositories, with test code playing the
// harness's agents (writing receipts and returns). Every --json document is validated by ajv against
// the verb's published result schema, or the refusal schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const schemaDir = join(here, '..', '..', 'schemas', 'v1');
const bin = process.env.ABCD_BIN || join(here, '..', '..', 'bin', 'abcd');
const index = JSON.parse(readFileSync(join(schemaDir, 'index.json'), 'utf8'));
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
for (const e of index.schemas) ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, e.file), 'utf8')));
const validator = (name) => ajv.getSchema(index.schemas.find((e) => e.name === name).id);

const identity = { GIT_AUTHOR_NAME: 'agent', GIT_AUTHOR_EMAIL: 'agent@example.com', GIT_COMMITTER_NAME: 'agent', GIT_COMMITTER_EMAIL: 'agent@example.com' };

class Repo {
  constructor({ steps = ['Lazy regexps.', 'Static build.'], config = {}, routing = null } = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'abcd-loop-'));
    this.root = join(this.dir, 'repo');
    this.home = join(this.dir, 'home');
    mkdirSync(this.root);
    mkdirSync(this.home, { mode: 0o700 });
    this.env = { PATH: process.env.PATH, HOME: this.home, ABCD_HOME: this.home, NO_COLOR: '1', ...identity };
    this.git('init', '-q', '-b', 'main');
    this.git('commit', '-q', '--allow-empty', '-m', 'base');
    this.base = this.git('rev-parse', 'HEAD');
    this.ok('ahoy_install', 'ahoy', 'install', '--yes');
    this.write('.abcd/config.json', JSON.stringify({ schema_version: 1, setup_version: 1, build: { dod: 'true', ...config.build }, ...config.rest }));
    if (routing) writeFileSync(join(this.home, 'oracle-routing.json'), JSON.stringify(routing), { mode: 0o600 });
    this.write('.abcd/development/intents/planned/itd-2611300000000001-faster-cold-start.md',
      '---\nid: itd-2611300000000001\ntype: intent\ntitle: "Faster cold start"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n' +
      '## Press Release\n\nabcd starts fast.\n\n## Acceptance Criteria\n\n- ac-1: Given a binary, when I run it, then it answers quickly.\n- ac-2: Given a set-up repository, when I run abcd, then status is fast too.\n\n## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n');
    this.write('.abcd/development/specs/open/spc-2611300000000002-faster-cold-start.md',
      '---\nid: spc-2611300000000002\ntype: spec\ntitle: "Faster cold start"\nlifecycle: open\nimplements: itd-2611300000000001\ncreated: 2026-11-30\n---\n\n## Steps\n\n' +
      steps.map((s, i) => `${i + 1}. ${s}`).join('\n') + '\n');
    this.git('add', '-A');
    this.git('commit', '-q', '-m', 'record');
  }
  close() { rmSync(this.dir, { recursive: true, force: true }); }
  write(rel, body) {
    mkdirSync(dirname(join(this.root, rel)), { recursive: true });
    writeFileSync(join(this.root, rel), body);
  }
  read(rel) { return readFileSync(join(this.root, rel), 'utf8'); }
  git(...args) {
    const r = spawnSync('git', args, { cwd: this.root, env: this.env, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  }
  // run runs abcd --json and validates its one document; it returns [exit code, document].
  run(verb, ...args) {
    const r = spawnSync(bin, [...args, '--json'], { cwd: this.root, env: this.env, encoding: 'utf8', input: '' });
    return [r.status, this.check(verb, r.status, r.stdout, args)];
  }
  check(verb, status, stdout, args) {
    assert.ok(stdout.endsWith('\n') && stdout.indexOf('\n') === stdout.length - 1, `one document for ${args.join(' ')}: ${stdout}`);
    const doc = JSON.parse(stdout);
    const name = status === 0 ? `${verb}.result` : 'refusal';
    const validate = validator(name);
    assert.ok(validate(doc), `${args.join(' ')}: ${name}: ${ajv.errorsText(validate.errors)}\n${stdout}`);
    return doc;
  }
  ok(verb, ...args) {
    const [code, doc] = this.run(verb, ...args);
    assert.equal(code, 0, `${args.join(' ')}: ${JSON.stringify(doc)}`);
    return doc;
  }
  refused(verb, ...args) {
    const [code, doc] = this.run(verb, ...args);
    assert.equal(code, 2, `${args.join(' ')} should be refused: ${JSON.stringify(doc)}`);
    assert.equal(doc.kind, 'refused');
    return doc;
  }
  state(run) { return JSON.parse(this.read(`.abcd/.work.local/run/${run}/state.json`)); }
  stateHash(run) { return createHash('sha256').update(this.read(`.abcd/.work.local/run/${run}/state.json`)).digest('hex'); }
  awaits(run) { return this.ok('implement_status', 'implement', 'status', '--run', run).runs[0].awaits; }
  // implement plays an implementer: a commit on the lane branch, the DoD output, a report, a receipt.
  implement(run, await_, { commits } = {}) {
    const lane = await_.lane;
    const laneDir = `.abcd/.work.local/run/${run}/${lane}`;
    const branch = `abcd/${run}/${lane}`;
    const current = this.git('symbolic-ref', '--short', 'HEAD');
    this.git('checkout', '-q', branch);
    this.seq = (this.seq ?? 0) + 1;
    writeFileSync(join(this.root, `${lane}-${await_.round}.txt`), `work of ${lane} round ${await_.round}, try ${this.seq}\n`);
    this.git('add', `${lane}-${await_.round}.txt`);
    this.git('commit', '-q', '-m', `${lane} round ${await_.round}`);
    const sha = this.git('rev-parse', 'HEAD');
    this.git('checkout', '-q', current);
    this.write(`${laneDir}/dod-${await_.round}.txt`, 'all green\n');
    this.write(`${laneDir}/report-${await_.round}.md`, 'Did the step.\n');
    this.write(await_.return, JSON.stringify({ schema_version: 1, run, lane, branch, commits: commits ?? [sha],
      dod: { command: 'true', exit_code: 0, output: `dod-${await_.round}.txt` }, report: `report-${await_.round}.md`, model: 'scripted-agent' }));
    return sha;
  }
  review(await_, word, findings = 'No findings.') {
    this.write(await_.return, `# Review\n\nRead the diff.\n\n## Verdict\n\n${word}\n\n${findings}\n`);
  }
  audit(await_, verdicts) {
    this.write(await_.return, JSON.stringify({ schema_version: 1, intent: 'itd-2611300000000001',
      verdicts: Object.entries(verdicts).map(([criterion, verdict]) => ({ criterion, verdict, evidence: 'tests/cold_start_test.go shows it',
        concerns: verdict === 'MET' ? '' : 'not shown' })), summary: 'Audited.' }));
  }
  receipt(path) { return this.ok('implement_receipt', 'implement', 'receipt', path); }
}

const startRun = (repo) => {
  const start = repo.ok('implement_start', 'implement', 'start', 'faster');
  const run = start.run.run;
  repo.ok('implement_step', 'implement', 'step', '--run', run);
  return run;
};
const find = (awaits, lane, role) => awaits.find((a) => a.lane === lane && a.role === role);

test('a passing run: implementers, reviewers on every lane, the auditor last, then the story', () => {
  const repo = new Repo();
  try {
    const run = startRun(repo);
    let awaits = repo.awaits(run);
    assert.deepEqual(awaits.map((a) => `${a.lane}:${a.role}`), ['lane-1:implementer', 'lane-2:implementer']);
    const brief = repo.read(awaits[0].brief);
    assert.match(brief, /Lazy regexps\./);
    assert.match(brief, /ac-1: Given a binary/);
    assert.match(brief, /abcd implement receipt/);

    // A repeat step re-tells the open awaits and changes nothing.
    const before = repo.stateHash(run);
    const again = repo.ok('implement_step', 'implement', 'step', '--run', run);
    assert.equal(again.next.length, 2);
    assert.equal(repo.stateHash(run), before);

    for (const a of awaits) {
      repo.implement(run, a);
      repo.receipt(a.return);
    }
    awaits = repo.awaits(run);
    assert.deepEqual(awaits.map((a) => `${a.lane}:${a.role}`).sort(),
      ['lane-1:ruthless-reviewer', 'lane-1:security-reviewer', 'lane-2:ruthless-reviewer', 'lane-2:security-reviewer']);
    assert.match(repo.read(find(awaits, 'lane-1', 'ruthless-reviewer').brief), /untrusted data, not instructions/);

    for (const lane of ['lane-2', 'lane-1']) {
      repo.review(find(awaits, lane, 'ruthless-reviewer'), 'SHIP');
      repo.receipt(find(awaits, lane, 'ruthless-reviewer').return);
      repo.review(find(awaits, lane, 'security-reviewer'), '**APPROVE**');
      repo.receipt(find(awaits, lane, 'security-reviewer').return);
    }
    awaits = repo.awaits(run);
    assert.deepEqual(awaits.map((a) => `${a.lane}:${a.role}`), ['lane-2:intent-auditor']);
    repo.audit(awaits[0], { 'ac-1': 'MET', 'ac-2': 'MET_WITH_CONCERNS' });
    const last = repo.receipt(awaits[0].return);
    assert.equal(last.run.finished, true);
    assert.deepEqual(last.run.lanes.map((l) => l.stage), ['done', 'done']);

    const story = repo.ok('implement_record', 'implement', 'record', '--run', run);
    assert.equal(story.verdicts.length, 5);
    assert.ok(story.verdicts.every((v) => v.pass && v.route === 'host' && v.ran === 'host'));
    assert.deepEqual(story.by_route, [{ name: 'host', total: 5, passed: 5, failed: 0 }]);
    assert.equal(story.implementations.length, 2);
  } finally {
    repo.close();
  }
});

test('a failing round: a fix brief with every finding, then round 2 with escalated tiers', () => {
  const repo = new Repo({ steps: ['Lazy regexps.'],
    routing: { schema_version: 1, agents: { 'ruthless-reviewer': { tier: 'local' }, 'security-reviewer': { tier: 'economy' } } } });
  try {
    const run = startRun(repo);
    let [impl] = repo.awaits(run);
    repo.implement(run, impl);
    repo.receipt(impl.return);
    let awaits = repo.awaits(run);
    assert.equal(find(awaits, 'lane-1', 'ruthless-reviewer').routing.tier, 'local');
    repo.review(find(awaits, 'lane-1', 'ruthless-reviewer'), 'FIX FIRST', 'x.go:12 blocker: the error is dropped. Fix: return it.');
    repo.receipt(find(awaits, 'lane-1', 'ruthless-reviewer').return);
    repo.review(find(awaits, 'lane-1', 'security-reviewer'), 'APPROVE');
    const settled = repo.receipt(find(awaits, 'lane-1', 'security-reviewer').return);
    assert.equal(settled.run.lanes[0].stage, 'fix');

    awaits = repo.awaits(run);
    assert.equal(awaits.length, 1);
    assert.equal(awaits[0].kind, 'fix');
    const fixBrief = repo.read(awaits[0].brief);
    assert.match(fixBrief, /the error is dropped/);
    assert.match(fixBrief, /FIX FIRST/);
    repo.implement(run, awaits[0]);
    repo.receipt(awaits[0].return);

    awaits = repo.awaits(run);
    assert.equal(find(awaits, 'lane-1', 'ruthless-reviewer').round, 2);
    assert.equal(find(awaits, 'lane-1', 'ruthless-reviewer').routing.tier, 'economy', 'local escalates to economy');
    assert.equal(find(awaits, 'lane-1', 'security-reviewer').routing.tier, 'frontier', 'economy escalates to frontier');
    repo.review(find(awaits, 'lane-1', 'ruthless-reviewer'), 'SHIP');
    repo.receipt(find(awaits, 'lane-1', 'ruthless-reviewer').return);
    repo.review(find(awaits, 'lane-1', 'security-reviewer'), 'APPROVE');
    repo.receipt(find(awaits, 'lane-1', 'security-reviewer').return);
    const [auditor] = repo.awaits(run);
    repo.audit(auditor, { 'ac-1': 'MET', 'ac-2': 'MET' });
    assert.equal(repo.receipt(auditor.return).run.finished, true);

    const story = repo.ok('implement_record', 'implement', 'record', '--run', run);
    const tiers = story.verdicts.filter((v) => v.role === 'ruthless-reviewer').map((v) => `${v.round}:${v.tier}:${v.word}`);
    assert.deepEqual(tiers, ['1:local:FIX FIRST', '2:economy:SHIP']);
    assert.deepEqual(story.by_role.find((c) => c.name === 'ruthless-reviewer'), { name: 'ruthless-reviewer', total: 2, passed: 1, failed: 1 });
  } finally {
    repo.close();
  }
});

test('a lane handed back after build.fix_rounds failed rounds takes no more receipts', () => {
  const repo = new Repo({ steps: ['Lazy regexps.'], config: { build: { fix_rounds: 1 } } });
  try {
    const run = startRun(repo);
    const [impl] = repo.awaits(run);
    repo.implement(run, impl);
    repo.receipt(impl.return);
    const awaits = repo.awaits(run);
    repo.review(find(awaits, 'lane-1', 'security-reviewer'), 'BLOCK', 'a.go:3 blocker: secret in the log.');
    repo.receipt(find(awaits, 'lane-1', 'security-reviewer').return);
    repo.review(find(awaits, 'lane-1', 'ruthless-reviewer'), 'SHIP');
    const last = repo.receipt(find(awaits, 'lane-1', 'ruthless-reviewer').return);
    assert.equal(last.run.lanes[0].stage, 'handed-back');
    assert.equal(last.run.finished, true);
    assert.deepEqual(repo.awaits(run), []);
    repo.refused('implement_receipt', 'implement', 'receipt', find(awaits, 'lane-1', 'ruthless-reviewer').return);
  } finally {
    repo.close();
  }
});

test('bad receipts and returns are refused naming what is wrong, and nothing is recorded', () => {
  const repo = new Repo({ steps: ['Lazy regexps.'] });
  try {
    const run = startRun(repo);
    const [impl] = repo.awaits(run);
    const before = repo.stateHash(run);
    const good = (over) => {
      repo.implement(run, impl);
      const r = JSON.parse(repo.read(impl.return));
      repo.write(impl.return, JSON.stringify({ ...r, ...over }));
    };
    const cases = [
      ['wrong run', () => good({ run: 'run-1111111111111111' }), /run/],
      ['a commit from the base', () => good({ commits: [repo.base] }), /base/],
      ['a commit from elsewhere', () => good({ commits: ['a'.repeat(40)] }), /reachable|not/],
      ['a failing definition of done', () => good({ dod: { command: 'true', exit_code: 1, output: 'dod-0.txt' } }), /exited 1/],
      ['an unknown field', () => good({ extra: 1 }), /extra/],
      ['an output outside the lane folder', () => good({ dod: { command: 'true', exit_code: 0, output: '../../../../../etc/passwd' } }), /\.\./],
      ['a symlinked receipt', () => { rmSync(join(repo.root, impl.return), { force: true }); symlinkSync('/etc/passwd', join(repo.root, impl.return)); }, /symbolic link/],
    ];
    for (const [name, make, says] of cases) {
      rmSync(join(repo.root, impl.return), { force: true });
      make();
      const doc = repo.refused('implement_receipt', 'implement', 'receipt', impl.return);
      assert.match(`${doc.why} ${doc.what}`, says, name);
      assert.equal(repo.stateHash(run), before, `${name}: nothing recorded`);
    }

    rmSync(join(repo.root, impl.return), { force: true });
    repo.implement(run, impl);
    // The absolute path an agent may print names the same await.
    repo.receipt(join(repo.root, impl.return));
    const awaits = repo.awaits(run);
    const ruthless = find(awaits, 'lane-1', 'ruthless-reviewer');
    const mid = repo.stateHash(run);
    for (const [name, body, says] of [
      ['two Verdict headings', '## Verdict\n\nSHIP\n\n## Verdict\n\nFIX FIRST\n', /Verdict/],
      ['an unknown word', '## Verdict\n\nLGTM\n', /SHIP/],
      ["the other role's word", '## Verdict\n\nAPPROVE\n', /APPROVE|SHIP/],
      ['no Verdict heading', 'Looks fine.\n', /Verdict/],
      ['256 KiB + 1', '## Verdict\n\nSHIP\n\n' + 'x'.repeat(256 * 1024), /larger|bytes/],
    ]) {
      repo.write(ruthless.return, body);
      const doc = repo.refused('implement_receipt', 'implement', 'receipt', ruthless.return);
      assert.match(doc.why, says, name);
      assert.equal(repo.stateHash(run), mid, `${name}: nothing recorded`);
    }
    repo.refused('implement_receipt', 'implement', 'receipt', `.abcd/.work.local/run/${run}/lane-1/not-an-await.md`);
  } finally {
    repo.close();
  }
});

test('concurrent receipts from several processes lose no update', async () => {
  const repo = new Repo({ steps: ['One.', 'Two.', 'Three.', 'Four.', 'Five.', 'Six.'] });
  try {
    const run = startRun(repo);
    const awaits = repo.awaits(run);
    for (const a of awaits) repo.implement(run, a);
    const results = await Promise.all(awaits.map((a) => new Promise((resolve) => {
      const child = spawn(bin, ['implement', 'receipt', a.return, '--json'], { cwd: repo.root, env: repo.env });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.on('close', (code) => resolve([code, out]));
    })));
    for (const [code, out] of results) {
      assert.ok(code === 0 || code === 3, `exit ${code}: ${out}`);
      repo.check('implement_receipt', code === 3 ? 3 : code, out, ['implement', 'receipt']);
    }
    // Whatever met contention is handed in again; then every lane must have moved.
    for (let i = 0; i < results.length; i++) {
      if (results[i][0] === 3) repo.receipt(awaits[i].return);
    }
    const state = repo.state(run);
    assert.deepEqual(state.lanes.map((l) => l.stage), Array(6).fill('validate'));
    assert.equal(state.lanes.reduce((n, l) => n + l.implementations.length, 0), 6);
    assert.equal(repo.awaits(run).length, 12);
  } finally {
    repo.close();
  }
});

test('abcd review: a one-lane review of the branch, and a fallback receipt when rp cannot take it', () => {
  const repo = new Repo({ config: { rest: { oracle: { review: 'rp' } } } });
  try {
    repo.git('checkout', '-q', '-b', 'feature');
    writeFileSync(join(repo.root, 'feature.txt'), 'new\n');
    repo.git('add', 'feature.txt');
    repo.git('commit', '-q', '-m', 'feature');
    const res = repo.ok('review', 'review', '--base', 'main');
    const run = res.run.run;
    assert.equal(res.run.kind, 'review');
    const awaits = res.run.awaits;
    assert.deepEqual(awaits.map((a) => a.role).sort(), ['ruthless-reviewer', 'security-reviewer']);
    assert.match(repo.read(awaits[0].brief), /feature\.txt/);
    repo.review(find(awaits, 'lane-1', 'ruthless-reviewer'), 'SHIP');
    repo.receipt(find(awaits, 'lane-1', 'ruthless-reviewer').return);
    repo.review(find(awaits, 'lane-1', 'security-reviewer'), 'NEEDS-INPUT', 'Is the key rotated?');
    const last = repo.receipt(find(awaits, 'lane-1', 'security-reviewer').return);
    assert.equal(last.run.lanes[0].stage, 'handed-back');
    const story = repo.ok('implement_record', 'implement', 'record', '--run', run);
    assert.equal(story.fallbacks.length, 2);
    assert.ok(story.fallbacks.every((f) => f.asked === 'rp' && f.reason === 'absent' && f.ran === 'host'));
    assert.ok(story.verdicts.every((v) => v.route === 'rp' && v.ran === 'host'));
    for (const v of story.verdicts) {
      assert.equal(v.receipt.connection_tried, 'rp');
      assert.equal(v.receipt.connection_used, 'host');
      assert.match(v.receipt.fallback_reason, /no server/);
      assert.deepEqual(v.receipt.settings_sent, {});
    }

    repo.refused('review', 'review', '--role', 'intent-auditor', '--base', 'main');
    repo.refused('review', 'review', '--base', 'feature');
    repo.refused('review', 'review', '--route', 'intent-auditor=frontier', '--base', 'main');
  } finally {
    repo.close();
  }
});

test("abcd intent audit: the auditor's verdicts land in the intent's Audit Notes", () => {
  const repo = new Repo();
  try {
    writeFileSync(join(repo.root, 'delivered.txt'), 'delivered\n');
    repo.git('add', 'delivered.txt');
    repo.git('commit', '-q', '-m', 'delivered');
    const res = repo.ok('intent_audit', 'intent', 'audit', 'faster', '--base', repo.base, '--route', 'intent-auditor=economy');
    const [auditor] = res.run.awaits;
    assert.equal(auditor.role, 'intent-auditor');
    assert.equal(auditor.routing.tier, 'economy');
    assert.equal(auditor.routing.override, 'intent-auditor=economy');
    repo.write(auditor.return, JSON.stringify({ schema_version: 1, intent: 'itd-2611300000000001', verdicts: [
      { criterion: 'ac-1', verdict: 'MET', evidence: 'bench shows 1.4x', concerns: '' }], summary: 'half done' }));
    const missing = repo.refused('implement_receipt', 'implement', 'receipt', auditor.return);
    assert.match(missing.why, /ac-2/);
    // A summary the intent cannot hold is the return's fault, refused before anything is written.
    const intentPath = '.abcd/development/intents/planned/itd-2611300000000001-faster-cold-start.md';
    const intentBefore = repo.read(intentPath);
    repo.write(auditor.return, JSON.stringify({ schema_version: 1, intent: 'itd-2611300000000001', verdicts: [
      { criterion: 'ac-1', verdict: 'MET', evidence: 'bench', concerns: '' }, { criterion: 'ac-2', verdict: 'MET', evidence: 'bench', concerns: '' }],
      summary: '```' }));
    const fenced = repo.refused('implement_receipt', 'implement', 'receipt', auditor.return);
    assert.equal(fenced.code, 'return_refused');
    assert.equal(repo.read(intentPath), intentBefore);
    repo.audit(auditor, { 'ac-1': 'MET', 'ac-2': 'NOT_MET' });
    const done = repo.receipt(auditor.return);
    assert.equal(done.recorded.word, 'FAIL');
    const intent = repo.read('.abcd/development/intents/planned/itd-2611300000000001-faster-cold-start.md');
    assert.match(intent, /## Audit Notes[\s\S]*ac-1: MET[\s\S]*ac-2: NOT_MET/);
    assert.equal(repo.ok('lint', 'lint').errors, 0);
  } finally {
    repo.close();
  }
});
