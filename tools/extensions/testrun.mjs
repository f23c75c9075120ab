// For the extensions' tests: real documents from the built binary. A repository with abcd set up
// and a run driven to its end by scripted agents (the approach of tools/contract/loop.test.mjs):
// two lanes, the second after the first, the first failing one review round with a finding that
// holds a fence and a mention, then fixed; the auditor passes the integration.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = process.env.ABCD_BIN || join(root, 'bin', 'abcd');
export const schemaDir = join(root, 'schemas', 'v1');
export const hostileFinding = '### F1. The greeting is untested\n- What: nothing runs `greet`; @octocat should look\n```\nnot the end of the quote\n```\n- Fix: add a test.';

const intentID = 'itd-2611300000000001';
const specID = 'spc-2611300000000002';

export class Repo {
  constructor() {
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), 'abcd-ext-')));
    this.root = join(this.dir, 'repo');
    this.home = join(this.dir, 'home');
    mkdirSync(this.root);
    mkdirSync(this.home, { mode: 0o700 });
    this.env = { PATH: process.env.PATH, HOME: this.home, ABCD_HOME: this.home, NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'agent', GIT_AUTHOR_EMAIL: 'agent@example.com', GIT_COMMITTER_NAME: 'agent', GIT_COMMITTER_EMAIL: 'agent@example.com' };
    this.git(this.root, 'init', '-q', '-b', 'main');
    this.git(this.root, 'commit', '-q', '--allow-empty', '-m', 'base');
    assert.equal(this.abcd('ahoy', 'install', '--yes').status, 0);
  }
  close() { rmSync(this.dir, { recursive: true, force: true }); }
  write(path, body) {
    const p = path.startsWith('/') ? path : join(this.root, path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, body);
  }
  git(dir, ...args) {
    const r = spawnSync('git', args, { cwd: dir, env: this.env, encoding: 'utf8' });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  }
  // abcd runs the built binary; it returns { status, stdout, stderr }.
  abcd(...args) { return spawnSync(bin, args, { cwd: this.root, env: this.env, encoding: 'utf8', input: '' }); }
  json(...args) {
    const r = this.abcd(...args, '--json');
    assert.equal(r.status, 0, `abcd ${args.join(' ')}: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout);
  }

  // finishedRun drives a two-lane run to its end and returns its id.
  finishedRun() {
    this.write('.abcd/config.json', JSON.stringify({ schema_version: 1, setup_version: 1, build: { dod: 'true' } }));
    this.write(`.abcd/development/intents/planned/${intentID}-greet.md`,
      `---\nid: ${intentID}\ntype: intent\ntitle: "Greet"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n` +
      '## Press Release\n\nIt greets.\n\n## Acceptance Criteria\n\n- ac-1: Given a name, when I run hello, then it greets that name.\n\n' +
      '## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n');
    this.write(`.abcd/development/specs/open/${specID}-greet.md`,
      `---\nid: ${specID}\ntype: spec\ntitle: "Greet"\nlifecycle: open\nimplements: ${intentID}\ncreated: 2026-11-30\n---\n\n## Steps\n\n` +
      '1. Write the greeting.\n2. (after 1) Wire the command.\n');
    this.git(this.root, 'add', '-A');
    this.git(this.root, 'commit', '-q', '-m', 'record');
    const run = this.json('implement', 'start', specID).run.run;
    let failed = false;
    let seq = 0;
    for (let i = 0; i < 20; i++) {
      const view = this.json('implement', 'step', '--run', run).run;
      if (view.finished) return run;
      for (const a of view.awaits) {
        if (a.role === 'implementer') {
          const lane = view.lanes.find((l) => l.id === a.lane);
          seq++;
          writeFileSync(join(lane.worktree, `${a.lane}-${seq}.txt`), 'work\n');
          this.git(lane.worktree, 'add', '-A');
          this.git(lane.worktree, 'commit', '-q', '-m', `${a.lane} ${a.kind}`);
          const laneDir = dirname(dirname(a.return));
          this.write(join(laneDir, `dod-${seq}.txt`), 'ok\n');
          this.write(join(laneDir, `report-${seq}.md`), 'Done.\n');
          this.write(a.return, JSON.stringify({ schema_version: 1, run, lane: a.lane, branch: lane.branch,
            commits: [this.git(lane.worktree, 'rev-parse', 'HEAD')], dod: { command: 'true', exit_code: 0, output: `dod-${seq}.txt` },
            report: `report-${seq}.md`, model: 'scripted' }));
        } else if (a.role === 'intent-auditor') {
          this.write(a.return, JSON.stringify({ schema_version: 1, intent: intentID, summary: 'Audited.',
            verdicts: [{ criterion: 'ac-1', verdict: 'MET', evidence: 'lane-2', concerns: '' }] }));
        } else {
          const fail = a.role === 'ruthless-reviewer' && !failed;
          if (fail) failed = true;
          const word = fail ? 'FIX FIRST' : a.role === 'ruthless-reviewer' ? 'SHIP' : 'APPROVE';
          this.write(a.return, `Reviewed.\n\n## Verdict\n\n${word}\n${fail ? `\n${hostileFinding}\n` : ''}`);
        }
        const r = this.abcd('implement', 'receipt', a.return);
        assert.equal(r.status, 0, r.stdout + r.stderr);
      }
    }
    throw new Error('the run did not finish');
  }
}

// extension runs an extension script with input on stdin and abcd reachable as ABCD.
export function extension(script, input, ...args) {
  return spawnSync(process.execPath, [script, ...args], { input, encoding: 'utf8', env: { PATH: process.env.PATH, ABCD: bin } });
}
