// The build loop end to end: the built binary in temp git repositories, with test code playing the
// harness's agents (writing receipts and returns). Every --json document is validated by ajv against
// the verb's published result schema, or the refusal schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, isAbsolute, relative } from 'node:path';
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
  // p is a path the run names (absolute, as briefs and next lines give them) or one relative to the
  // repository root.
  p(path) { return isAbsolute(path) ? path : join(this.root, path); }
  write(path, body) {
    mkdirSync(dirname(this.p(path)), { recursive: true });
    writeFileSync(this.p(path), body);
  }
  read(path) { return readFileSync(this.p(path), 'utf8'); }
  git(...args) { return this.gitIn(this.root, ...args); }
  gitIn(dir, ...args) {
    const r = spawnSync('git', args, { cwd: dir, env: this.env, encoding: 'utf8' });
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
  status(run) { return this.ok('implement_status', 'implement', 'status', '--run', run).runs[0]; }
  awaits(run) { return this.status(run).awaits; }
  // implement plays an implementer the way a harness's agent follows its brief: it works only in
  // the lane's own worktree (which the brief names), commits there, and writes its output, report
  // and receipt into the lane folder, at the absolute paths the brief gives.
  implement(run, await_, { commits } = {}) {
    const lane = this.status(run).lanes.find((l) => l.id === await_.lane);
    assert.ok(isAbsolute(lane.worktree), `${await_.lane} has a worktree: ${JSON.stringify(lane)}`);
    const brief = this.read(await_.brief);
    assert.ok(brief.includes(lane.worktree), `the brief names the worktree ${lane.worktree}`);
    assert.equal(this.gitIn(lane.worktree, 'symbolic-ref', '--short', 'HEAD'), lane.branch);
    const laneDir = join(this.root, `.abcd/.work.local/run/${run}/${await_.lane}`);
    this.seq = (this.seq ?? 0) + 1;
    const file = `${await_.lane}-${await_.round}-${this.seq}.txt`;
    writeFileSync(join(lane.worktree, file), `work of ${await_.lane} round ${await_.round}, try ${this.seq}\n`);
    this.gitIn(lane.worktree, 'add', file);
    this.gitIn(lane.worktree, 'commit', '-q', '-m', `${await_.lane} round ${await_.round}`);
    const sha = this.gitIn(lane.worktree, 'rev-parse', 'HEAD');
    this.write(join(laneDir, `dod-${this.seq}.txt`), 'all green\n');
    this.write(join(laneDir, `report-${this.seq}.md`), 'Did the step.\n');
    this.write(await_.return, JSON.stringify({ schema_version: 1, run, lane: await_.lane, branch: lane.branch, commits: commits ?? [sha],
      dod: { command: 'true', exit_code: 0, output: `dod-${this.seq}.txt` }, report: `report-${this.seq}.md`, model: 'scripted-agent' }));
    return { sha, file };
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
// passLane has both reviewers pass a lane's open round.
const passLane = (repo, run, lane) => {
  const awaits = repo.awaits(run);
  for (const [role, word] of [['ruthless-reviewer', 'SHIP'], ['security-reviewer', 'APPROVE']]) {
    repo.review(find(awaits, lane, role), word);
    repo.receipt(find(awaits, lane, role).return);
  }
};
const find = (awaits, lane, role) => awaits.find((a) => a.lane === lane && a.role === role);

// The run a harness drives, from start to finish: a three-step spec where step 3 builds on steps 1
// and 2. The two independent implementers work at once, each in its own worktree; the dependent lane
// starts from both their heads; one round fails and is fixed; every lane is merged into the
// integration branch and the intent-auditor audits the integrated diff from the base; the spec's
// Progress gets a line per lane delivered. Every document is validated against its published schema.
test('a harness drives a three-step spec with a dependent step to one integrated, audited result', async () => {
  const repo = new Repo({ steps: ['Read the headers.', 'Parse them.', '(after 1, 2) Render the listing.'] });
  try {
    const start = repo.ok('implement_start', 'implement', 'start', 'faster');
    const run = start.run.run;
    assert.deepEqual(start.run.lanes.map((l) => `${l.id}:${l.stage}:${l.after.join('+')}`),
      ['lane-1:waiting:', 'lane-2:waiting:', 'lane-3:waiting:lane-1+lane-2', 'integration:waiting:']);
    const step = repo.ok('implement_step', 'implement', 'step', '--run', run);
    assert.deepEqual(step.run.lanes.map((l) => l.stage), ['implement', 'implement', 'waiting', 'waiting']);
    let awaits = step.run.awaits;
    assert.deepEqual(awaits.map((a) => `${a.lane}:${a.role}`), ['lane-1:implementer', 'lane-2:implementer']);
    for (const a of awaits) {
      assert.ok(isAbsolute(a.brief) && isAbsolute(a.return), `absolute paths: ${a.brief} ${a.return}`);
      const brief = repo.read(a.brief);
      assert.match(brief, /ac-1: Given a binary/);
      assert.match(brief, /"commits": \["0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"\]/, 'a filled-in receipt');
      assert.ok(brief.includes(`abcd implement receipt ${a.return}`));
    }
    for (const n of step.next) {
      assert.match(n.text, /\//, 'a next line names absolute paths');
      assert.equal(n.run.verb, 'implement_receipt', 'a next line hands the return in');
      assert.ok(isAbsolute(n.run.args.path) && n.text.includes(`abcd implement receipt ${n.run.args.path}`), n.text);
    }

    // Two implementers at once, each in its own checkout: neither sees the other's files.
    const [one, two] = await Promise.all(awaits.map(async (a) => repo.implement(run, a)));
    const lanes = repo.status(run).lanes;
    assert.notEqual(lanes[0].worktree, lanes[1].worktree);
    assert.ok(!existsSync(join(lanes[0].worktree, two.file)) && !existsSync(join(lanes[1].worktree, one.file)));
    await Promise.all(awaits.map((a) => new Promise((resolve) => {
      const child = spawn(bin, ['implement', 'receipt', a.return, '--json'], { cwd: repo.root, env: repo.env });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.on('close', (code) => { if (code === 3) repo.receipt(a.return); else { assert.equal(code, 0, out); repo.check('implement_receipt', code, out, ['receipt']); } resolve(); });
    })));

    // lane-1 fails its first round and is fixed; lane-2 passes.
    awaits = repo.awaits(run);
    repo.review(find(awaits, 'lane-1', 'ruthless-reviewer'), 'FIX FIRST', '### F1. The header cache is never cleared\n- Fix: clear it.');
    repo.receipt(find(awaits, 'lane-1', 'ruthless-reviewer').return);
    repo.review(find(awaits, 'lane-1', 'security-reviewer'), 'APPROVE');
    repo.receipt(find(awaits, 'lane-1', 'security-reviewer').return);
    passLane(repo, run, 'lane-2');
    awaits = repo.awaits(run);
    const fix = find(awaits, 'lane-1', 'implementer');
    assert.equal(fix.kind, 'fix');
    assert.match(repo.read(fix.brief), /The header cache is never cleared/);
    assert.ok(!find(awaits, 'lane-3', 'implementer'), 'lane-3 waits until lane-1 is done');
    repo.implement(run, fix);
    repo.receipt(fix.return);
    passLane(repo, run, 'lane-1');

    // lane-3 starts from lane-1's head with lane-2 merged: it sees both lanes' files.
    let lane3 = repo.status(run).lanes[2];
    assert.equal(lane3.stage, 'implement');
    assert.ok(existsSync(join(lane3.worktree, one.file)) && existsSync(join(lane3.worktree, two.file)), 'step 3 sees steps 1 and 2');
    const impl3 = find(repo.awaits(run), 'lane-3', 'implementer');
    assert.match(repo.read(impl3.brief), /builds on them/);
    repo.implement(run, impl3);
    repo.receipt(impl3.return);
    const reviewBrief = repo.read(find(repo.awaits(run), 'lane-3', 'ruthless-reviewer').brief);
    assert.match(reviewBrief, /The agent's definition: ruthless-reviewer/);
    assert.ok(!reviewBrief.includes(one.file), 'lane-3 is reviewed on its own changes, not its dependencies');
    passLane(repo, run, 'lane-3');

    // Every lane is integrated; the auditor audits the integrated diff from the base.
    const status = repo.status(run);
    const integration = status.lanes.find((l) => l.integration);
    assert.equal(integration.stage, 'validate');
    assert.equal(integration.branch, `abcd/${run}/integration`);
    const [auditor] = status.awaits;
    assert.equal(`${auditor.lane}:${auditor.role}`, 'integration:intent-auditor');
    const auditBrief = repo.read(auditor.brief);
    for (const f of [one.file, two.file]) assert.ok(auditBrief.includes(f), `the audit sees ${f}`);
    repo.audit(auditor, { 'ac-1': 'MET', 'ac-2': 'MET_WITH_CONCERNS' });
    const last = repo.receipt(auditor.return);
    assert.equal(last.run.finished, true);
    assert.deepEqual(last.run.lanes.map((l) => l.stage), ['done', 'done', 'done', 'done']);
    assert.ok(last.run.lanes.every((l) => l.worktree === ''), 'the worktrees are removed once the run is over');
    assert.equal(repo.git('worktree', 'list').split('\n').length, 1);
    const merged = repo.git('ls-tree', '--name-only', `abcd/${run}/integration`).split('\n');
    for (const f of [one.file, two.file]) assert.ok(merged.includes(f), `the integration holds ${f}`);

    // The spec's Progress has one line per lane delivered, and the integration.
    const spec = repo.read('.abcd/development/specs/open/spc-2611300000000002-faster-cold-start.md');
    const progress = spec.slice(spec.indexOf('## Progress'));
    for (const lane of ['1', '2', '3']) assert.match(progress, new RegExp(`step ${lane} \\(.*\\): delivered on \`abcd/${run}/lane-${lane}\``));
    assert.match(progress, new RegExp(`integrated on \`abcd/${run}/integration\``));
    // The audit of the integration is in the intent's Audit Notes, once, beside what was promised.
    const intent = repo.read('.abcd/development/intents/planned/itd-2611300000000001-faster-cold-start.md');
    const notes = intent.slice(intent.indexOf('## Audit Notes'));
    assert.equal(notes.split(`(run ${run},`).length - 1, 1, notes);
    assert.match(notes, /ac-1: MET[\s\S]*ac-2: MET_WITH_CONCERNS/);
    assert.match(last.next.map((n) => n.text).join('\n'), new RegExp(`every step delivered, integrated on abcd/${run}/integration and audited; merge that branch`));
    assert.deepEqual(last.next.map((n) => n.run), [{ verb: 'implement_record', args: { run }, fill: [] }]);
    // Bare abcd now suggests closing the spec, not building it again.
    const after = repo.ok('status', 'status').next.map((n) => n.text);
    assert.ok(after.includes(`merge its integration, \`git merge abcd/${run}/integration\`, into the branch the spec closes on; then run \`abcd spec close spc-2611300000000002\``), after.join('\n'));
    // Closed before the merge, the spec is refused, naming the merge; merged, it closes.
    const refused = repo.refused('refusal', 'spec', 'close', 'spc-2611300000000002');
    assert.equal(refused.code, 'integration_unmerged');
    assert.ok(refused.remedy.includes(`git merge abcd/${run}/integration`), refused.remedy);
    repo.git('merge', '-q', '--no-edit', `abcd/${run}/integration`);
    repo.ok('spec_close', 'spec', 'close', 'spc-2611300000000002');
    assert.ok(!after.some((c) => c.includes('abcd implement start')), after.join('\n'));
    assert.equal(repo.ok('lint', 'lint').errors, 0);

    const story = repo.ok('implement_record', 'implement', 'record', '--run', run);
    assert.equal(story.verdicts.length, 9);
    assert.equal(story.implementations.length, 4);
    assert.deepEqual(story.by_route, [{ name: 'host', total: 9, passed: 8, failed: 1 }]);
  } finally {
    repo.close();
  }
});

// abcd runs build.dod itself, in the lane's own checkout at its head, before the reviewers are
// opened, and hands them what it showed; the integration is checked the same way before its audit.
test('the reviewers and the auditor see build.dod as abcd ran it on what they judge', () => {
  const repo = new Repo({ steps: ['Read the headers.'], config: { build: { dod: "git rev-parse HEAD; pwd; printf '\\033[31mred\\033[0m\\n'; exit 3" } } });
  try {
    const run = startRun(repo);
    const impl = find(repo.awaits(run), 'lane-1', 'implementer');
    const { sha } = repo.implement(run, impl);
    const got = repo.receipt(impl.return);
    assert.ok(got.did.some((d) => d.startsWith(`lane-1: abcd ran build.dod`) && d.includes(': exit 3 after ')), got.did.join('\n'));
    const lane = got.run.lanes.find((l) => l.id === 'lane-1');
    for (const role of ['ruthless-reviewer', 'security-reviewer']) {
      const brief = repo.read(find(got.run.awaits, 'lane-1', role).brief);
      assert.ok(brief.includes(`in the checkout at the lane's head (${sha}). It FAILED: exit 3 after `), brief);
      // Its output: the head it ran on and the checkout it ran in, plain text.
      assert.ok(brief.includes(`\`\`\`text\n${sha}\n${lane.worktree}\nred\n\`\`\``), brief);
    }
    passLane(repo, run, 'lane-1');
    const [auditor] = repo.awaits(run);
    const integration = repo.status(run).lanes.find((l) => l.integration);
    const auditBrief = repo.read(auditor.brief);
    assert.ok(auditBrief.includes(`in the checkout at the integration's head (${integration.head})`), auditBrief);
    assert.ok(auditBrief.includes(`${integration.head}\n${integration.worktree}\n`), 'it ran in the integration\'s checkout');
    assert.match(auditBrief, /rather than answering INCONCLUSIVE/);
  } finally {
    repo.close();
  }
});

// A harness that follows only the texts abcd gives: an implementer hands its step back (a blocked
// receipt), and the lane is handed back with its reason while the other lane goes on; nothing asks
// for the blocked step again.
test('an implementer hands a step back: the lane is handed back with why, the run goes on', () => {
  const repo = new Repo({ steps: ['Read the headers.', 'Decrypt the payload.'] });
  try {
    const run = startRun(repo);
    const blocked = find(repo.awaits(run), 'lane-2', 'implementer');
    const brief = repo.read(blocked.brief);
    assert.match(brief, /## If you cannot do the step/);
    const lane = repo.status(run).lanes.find((l) => l.id === 'lane-2');
    const laneDir = join(repo.root, `.abcd/.work.local/run/${run}/lane-2`);
    repo.write(join(laneDir, 'dod-blocked.txt'), 'FAIL: no key\n');
    repo.write(join(laneDir, 'report-blocked.md'), 'The payload is encrypted and the spec names no key.\n');
    repo.write(blocked.return, JSON.stringify({ schema_version: 1, run, lane: 'lane-2', branch: lane.branch,
      dod: { command: 'true', exit_code: 2, output: 'dod-blocked.txt' }, report: 'report-blocked.md', model: 'scripted-agent',
      blocked: 'the payload is encrypted and the spec names no key' }));
    const got = repo.receipt(blocked.return);
    assert.equal(got.recorded.word, 'BLOCKED');
    const l2 = got.run.lanes.find((l) => l.id === 'lane-2');
    assert.equal(l2.stage, 'handed-back');
    assert.match(l2.findings, /The implementer handed the step back: the payload is encrypted and the spec names no key/);
    assert.ok(got.run.awaits.every((a) => a.lane === 'lane-1'), 'only lane-1 is still asked for');
    const impl1 = find(got.run.awaits, 'lane-1', 'implementer');
    repo.implement(run, impl1);
    repo.receipt(impl1.return);
    passLane(repo, run, 'lane-1');
    const last = repo.status(run);
    assert.equal(last.finished, true);
    assert.deepEqual(last.lanes.map((l) => l.stage), ['done', 'handed-back', 'handed-back']);
    assert.deepEqual(last.awaits, []);
    const again = repo.ok('implement_step', 'implement', 'step', '--run', run);
    assert.deepEqual(again.run.awaits, [], 'no step asks for the blocked lane again');
  } finally {
    repo.close();
  }
});

// Two lanes change one file apart: the integration waits for a merge by hand. The script does
// exactly what the next line says (the checkout, the git merge, the one step that goes on), and the
// same run goes on to its audit, the lanes not redone.
test('a conflicting integration is merged by hand where the next line says, and the same run goes on', () => {
  const repo = new Repo({ steps: ['Say one.', 'Say two.'] });
  try {
    const run = startRun(repo);
    for (const [laneId, word] of [['lane-1', 'one'], ['lane-2', 'two']]) {
      const impl = find(repo.awaits(run), laneId, 'implementer');
      const lane = repo.status(run).lanes.find((l) => l.id === laneId);
      writeFileSync(join(lane.worktree, 'greeting.txt'), `${word}\n`);
      repo.gitIn(lane.worktree, 'add', 'greeting.txt');
      repo.gitIn(lane.worktree, 'commit', '-q', '-m', `say ${word}`);
      const sha = repo.gitIn(lane.worktree, 'rev-parse', 'HEAD');
      const laneDir = join(repo.root, `.abcd/.work.local/run/${run}/${laneId}`);
      repo.write(join(laneDir, 'dod.txt'), 'ok\n');
      repo.write(join(laneDir, 'report.md'), `Said ${word}.\n`);
      repo.write(impl.return, JSON.stringify({ schema_version: 1, run, lane: laneId, branch: lane.branch, commits: [sha],
        dod: { command: 'true', exit_code: 0, output: 'dod.txt' }, report: 'report.md', model: 'scripted-agent' }));
      repo.receipt(impl.return);
      passLane(repo, run, laneId);
    }
    const waiting = repo.status(run);
    assert.equal(waiting.lanes.find((l) => l.integration).stage, 'waiting');
    const line = repo.ok('implement_step', 'implement', 'step', '--run', run).next[0];
    // Follow the line literally: its checkout, its git merge, then its step.
    const checkout = line.text.match(/In its checkout (\S+) \(branch/)[1];
    const merge = line.text.match(/run `git merge ([0-9a-f]{40})`/)[1];
    assert.deepEqual(line.run, { verb: 'implement_step', args: { run }, fill: [] });
    const bare = repo.ok('status', 'status').next.map((n) => n.text).join('\n');
    assert.ok(bare.includes(`git merge ${merge}`), bare);
    const r = spawnSync('git', ['merge', merge], { cwd: checkout, env: repo.env, encoding: 'utf8' });
    assert.notEqual(r.status, 0, 'the merge conflicts, as the line said');
    writeFileSync(join(checkout, 'greeting.txt'), 'one\ntwo\n');
    repo.gitIn(checkout, 'add', 'greeting.txt');
    repo.gitIn(checkout, 'commit', '-q', '--no-edit');
    const went = repo.ok('implement_step', 'implement', 'step', '--run', run);
    assert.ok(went.did.some((d) => d.includes('the merge of lane-2 was made by hand')), went.did.join('\n'));
    const integration = went.run.lanes.find((l) => l.integration);
    assert.equal(integration.stage, 'validate');
    assert.ok(went.run.lanes.filter((l) => !l.integration).every((l) => l.round === 1), 'the lanes were not redone');
    const [auditor] = went.run.awaits;
    assert.equal(`${auditor.lane}:${auditor.role}`, 'integration:intent-auditor');
    assert.match(repo.read(auditor.brief), /\+one\n\+two/, "the audit sees the merge as the person made it");
    repo.audit(auditor, { 'ac-1': 'MET', 'ac-2': 'MET' });
    assert.equal(repo.receipt(auditor.return).run.finished, true);
  } finally {
    repo.close();
  }
});

// A provider that is unreachable: the reviews fall back to the host, and every line says so (the
// route did not take it, why, and that it is the harness's), never that the provider is taking it.
test('with an unreachable provider, every next line says the review is the harness\'s', async () => {
  const { createServer } = await import('node:net');
  const port = await new Promise((resolve) => { const srv = createServer(); srv.listen(0, '127.0.0.1', () => { const p = srv.address().port; srv.close(() => resolve(p)); }); });
  const repo = new Repo({ steps: ['Read the headers.'], routing: { schema_version: 1, agents: { 'ruthless-reviewer': { tier: 'economy' }, 'security-reviewer': { tier: 'economy' }, 'intent-auditor': { tier: 'economy' } } } });
  try {
    writeFileSync(join(repo.home, 'config.json'), JSON.stringify({ schema_version: 1, oracle: { api: { gone: {
      base_url: `http://127.0.0.1:${port}/v1`, models: ['m-small'], tiers: { economy: 'm-small' } } } } }), { mode: 0o600 });
    const run = startRun(repo);
    const impl = find(repo.awaits(run), 'lane-1', 'implementer');
    repo.implement(run, impl);
    const got = repo.receipt(impl.return);
    const reviews = got.run.awaits.filter((a) => a.lane === 'lane-1');
    assert.equal(reviews.length, 2, JSON.stringify(got.did));
    const lines = [...got.next.map((n) => n.text), ...repo.ok('implement_step', 'implement', 'step', '--run', run).next.map((n) => n.text),
      ...repo.ok('status', 'status').next.map((n) => n.text)];
    for (const line of lines) assert.ok(!/is taking this/.test(line), `a line says the provider is taking it: ${line}`);
    const told = got.next.map((n) => n.text).filter((t) => /review/.test(t));
    assert.equal(told.length, 2, told.join('\n'));
    for (const t of told) assert.match(t, /^gone did not take this review \(.+\), so it is yours: start a fresh/);
    for (const a of repo.awaits(run)) assert.match(a.routing.fallback, /gone did not take the step \(unreachable: .*\); the host takes it/);
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
    assert.equal(auditor.lane, 'integration');
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
    assert.equal(last.run.lanes[1].stage, 'handed-back', 'the integration goes back with it');
    assert.match(last.run.lanes[1].findings, /lane-1 was handed back/);
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
      ['a symlinked receipt', () => { rmSync(repo.p(impl.return), { force: true }); symlinkSync('/etc/passwd', repo.p(impl.return)); }, /symbolic link/],
    ];
    for (const [name, make, says] of cases) {
      rmSync(repo.p(impl.return), { force: true });
      make();
      const doc = repo.refused('implement_receipt', 'implement', 'receipt', impl.return);
      assert.match(`${doc.why} ${doc.what}`, says, name);
      assert.equal(repo.stateHash(run), before, `${name}: nothing recorded`);
    }

    rmSync(repo.p(impl.return), { force: true });
    repo.implement(run, impl);
    // The path relative to the repository names the same await as the absolute one briefs give.
    repo.receipt(relative(repo.root, impl.return));
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
    assert.deepEqual(state.lanes.filter((l) => !l.integration).map((l) => l.stage), Array(6).fill('validate'));
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
