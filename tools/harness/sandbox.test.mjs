// Claude Code's own sandbox as `abcd ahoy sandbox` turns it on (docs/security.md, "Your harness's own
// sandbox"), through the real Claude Code pinned in tools/harness/package.json, headless against the
// loopback stand-in of Anthropic's API, in a repository with a run whose lanes have started and a
// second run beside it. The scripted model asks for Bash commands from a lane's worktree; Claude Code
// runs each inside its sandbox (bubblewrap on Linux), and the test reads what each did:
//
//   - writing inside the lane's worktree (in the lanes' folder, .abcd-lanes/<run>/<lane>) goes
//     through, so the refusals are the rules';
//   - writing the run's state, a lane's folder of briefs and returns, the other run's state, the
//     record, the guard file abcd has not written yet, the lane's .git file, the lanes' folder's
//     .gitignore and the settings file are refused, and each is unchanged byte for byte (or still
//     absent); so is a new name anywhere under .abcd/ (a forged run's state.json): .abcd is denied
//     whole, so nothing is made there and abcd lists no new run;
//   - writing .git's internals, and reading the person's SSH key and $ABCD_HOME, are refused.
//
// The block is written after the runs start and before their lanes' worktrees stand: it denies each
// lane's .git file ahead, so the step that makes the worktrees leaves it as it is.
//
// Claude Code's sandbox needs bubblewrap and socat on Linux; `.ci/run` installs them where missing.
// Where they are absent this test fails, naming them: a sandbox that cannot start proves nothing.
import { suite, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, makeWorld, runCLI, toolsDir } from '../mcp/lib.mjs';
import { anthropicBash } from './standins.mjs';

const claude = join(toolsDir, 'harness', 'node_modules', '.bin', 'claude');

function onPath(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

function run(w, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(claude, args, { cwd: w.repo, env: { ...w.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`claude took over 120s:\n${stdout}\n${stderr}`)); }, 120_000);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}

// toolResults are the Bash results Claude Code's stream reports, in order.
function toolResults(stdout) {
  const out = [];
  for (const line of stdout.split('\n').filter(Boolean)) {
    const ev = JSON.parse(line);
    if (ev.type !== 'user' || !Array.isArray(ev.message?.content)) continue;
    for (const b of ev.message.content) {
      if (b.type === 'tool_result') out.push({ error: b.is_error === true, text: typeof b.content === 'string' ? b.content : JSON.stringify(b.content) });
    }
  }
  return out;
}

suite("Claude Code's own sandbox, as abcd ahoy sandbox turns it on", () => {
  test('from a lane, a Bash write in its worktree goes through; the run\'s state, a forged run, another run, the record and .git are refused', async () => {
    assert.ok(process.platform !== 'linux' || (onPath('bwrap') && onPath('socat')),
      "Claude Code's sandbox needs bubblewrap and socat on Linux: apt-get install -y bubblewrap socat (.ci/run does)");
    const w = makeWorld();
    const api = { close: async () => {} };
    let standin = api;
    try {
      const binDir = join(w.dir, 'bin');
      mkdirSync(binDir, { recursive: true });
      symlinkSync(bin, join(binDir, 'abcd'));
      w.env = { ...w.env, PATH: `${binDir}:${w.env.PATH}`, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
      const runs = join(w.repo, '.abcd', '.work.local', 'run');
      // The world holds an implement run and a review run: the implement run's step starts its lanes.
      const runID = readdirSync(runs).find((r) => JSON.parse(readFileSync(join(runs, r, 'state.json'), 'utf8')).kind === 'spec');
      assert.ok(runID, `an implement run among ${readdirSync(runs)}`);
      const otherID = readdirSync(runs).find((r) => r !== runID);
      assert.ok(otherID, `another run beside ${runID}`);

      mkdirSync(join(w.userHome, '.ssh'), { recursive: true });
      writeFileSync(join(w.userHome, '.ssh', 'id_ed25519'), 'SSH-KEY-CANARY\n', { mode: 0o600 });
      writeFileSync(join(w.home, 'sandbox-canary'), 'ABCD-HOME-CANARY\n', { mode: 0o600 });

      const on = runCLI(w, ['ahoy', 'sandbox', '--json']);
      assert.equal(on.status, 0, on.stdout + on.stderr);
      assert.equal(JSON.parse(on.stdout).status, 'created');
      const settingsPath = join(w.repo, '.claude', 'settings.local.json');
      const blockBefore = readFileSync(settingsPath, 'utf8');

      const step = runCLI(w, ['implement', 'step', '--run', runID, '--json']);
      assert.equal(step.status, 0, step.stdout + step.stderr);
      const lanes = join(w.repo, '.abcd-lanes');
      const laneID = readdirSync(join(lanes, runID))[0];
      const lane = join(lanes, runID, laneID);
      const laneFolder = join(runs, runID, laneID);
      assert.ok(readdirSync(laneFolder).length > 0, `the lane's folder of briefs holds something: ${laneFolder}`);
      const deny = JSON.parse(readFileSync(settingsPath, 'utf8')).sandbox.filesystem.denyWrite;
      assert.equal(readFileSync(settingsPath, 'utf8'), blockBefore, "the block denied the lane's .git file before the step made the worktree");
      for (const want of ['.git', '.claude', '.abcd', '.abcd-lanes/.gitignore', `.abcd-lanes/${runID}/${laneID}/.git`]) {
        assert.ok(deny.includes(want), `the block denies ${want}: ${deny}`);
      }
      assert.ok(!deny.some((d) => d.startsWith('.abcd/') || d === '.abcd-lanes' || d === `.abcd-lanes/${runID}` || d === `.abcd-lanes/${runID}/${laneID}`),
        `nothing on the way to the worktrees, nor under .abcd/, is listed: ${deny}`);
      const runsBefore = readdirSync(runs).sort();
      const abcdBefore = readdirSync(join(w.repo, '.abcd')).sort();

      const files = {
        state: join(runs, runID, 'state.json'),
        other: join(runs, otherID, 'state.json'),
        record: join(w.repo, '.abcd', 'config.json'),
        laneGit: join(lane, '.git'),
        lanesIgnore: join(lanes, '.gitignore'),
        settings: settingsPath,
      };
      const before = Object.fromEntries(Object.entries(files).map(([k, p]) => [k, readFileSync(p)]));
      const briefs = readdirSync(laneFolder).sort();
      const guardPath = join(w.repo, '.abcd', 'guard.json');
      const guardBefore = existsSync(guardPath) ? readFileSync(guardPath) : null;

      // Each is spelled so Claude Code's own check of the command line does not see the path it
      // writes (it asks before a write to .git/... or a settings file written directly): what
      // refuses it is the sandbox.
      const abcd = '../../../.abcd';
      const commands = [
        `cd ${lane} && echo work > lane-work.txt && mkdir -p src && echo more > src/x.txt && echo WROTE-LANE`,
        `cd ${lane} && printf '{"forged":true}' > ${abcd}/.work.local/run/${runID}/state.json && echo WROTE-STATE`,
        `cd ${lane} && echo forged > ${abcd}/.work.local/run/${runID}/${laneID}/forged-return.json && echo WROTE-BRIEFS`,
        `cd ${lane} && cd ${abcd}/.work.local/run/${otherID} && printf '{"forged":true}' > state.json && echo WROTE-OTHER-RUN`,
        `cd ${lane} && cd ${abcd} && printf '{}' > config.json && echo WROTE-RECORD`,
        `cd ${lane} && cd ${abcd} && printf '{"rules":[]}' > guard.json && echo WROTE-GUARD`,
        `cd ${lane} && echo "gitdir: /tmp/forged" > .gi? && echo WROTE-LANE-GIT`,
        `cd ${lane} && mkdir ${abcd}/.work.local/run/run-2612310000009999 && printf '{"schema_version":2,"run":"run-2612310000009999"}' > ${abcd}/.work.local/run/run-2612310000009999/state.json; ls ${abcd}/.work.local/run/run-2612310000009999/state.json && echo WROTE-FORGED-RUN`,
        `cd ${lane} && echo x > ${abcd}/newfile && echo WROTE-NEW-ABCD`,
        `cd ${lane} && echo x > ../../.gitign?re && echo WROTE-LANES-IGNORE`,
        `cd ${w.repo} && cd .claude && printf "{}" > settings.local.j?on && echo WROTE-SETTINGS`,
        `cd ${join(w.repo, '.git', 'refs')} && cd heads && echo x > forged && echo WROTE-GIT`,
        `cat ${join(w.userHome, '.ssh', 'id_ed25519')}`,
        `cat ${join(w.home, 'sandbox-canary')}`,
      ];
      standin = await anthropicBash(commands);
      // Bash is allowed outright, so what refuses a command is the sandbox, not a permission prompt.
      const res = await run(w, ['-p', 'do the lane\'s work', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
        { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: 'sk-ant-dummy-key-for-the-stand-in' });
      assert.equal(res.status, 0, res.stdout.slice(-2000) + res.stderr);
      const got = toolResults(res.stdout);
      assert.equal(got.length, commands.length, res.stdout.slice(-3000));

      assert.ok(!got[0].error && got[0].text.includes('WROTE-LANE'), `the write in the lane's worktree: ${got[0].text}`);
      assert.equal(readFileSync(join(lane, 'src', 'x.txt'), 'utf8'), 'more\n');
      const refused = (i, what, marker) => assert.ok(got[i].error && /Read-only file system|Permission denied|Device or resource busy/.test(got[i].text) && !got[i].text.includes(marker),
        `${what}: ${got[i].text}`);
      refused(1, "the run's state", 'WROTE-STATE');
      refused(2, "the lane's folder of briefs and returns", 'WROTE-BRIEFS');
      refused(3, "the other run's state", 'WROTE-OTHER-RUN');
      refused(4, 'the record', 'WROTE-RECORD');
      refused(5, 'the guard file', 'WROTE-GUARD');
      refused(6, "the lane's .git file", 'WROTE-LANE-GIT');
      refused(7, "a forged run's state", 'WROTE-FORGED-RUN');
      refused(8, 'a new file under .abcd/', 'WROTE-NEW-ABCD');
      refused(9, "the lanes' folder's .gitignore", 'WROTE-LANES-IGNORE');
      refused(10, 'the settings file', 'WROTE-SETTINGS');
      refused(11, 'the .git write', 'WROTE-GIT');
      assert.deepEqual(readdirSync(runs).sort(), runsBefore, 'no run folder was made');
      assert.deepEqual(readdirSync(join(w.repo, '.abcd')).sort(), abcdBefore, 'nothing new under .abcd/');
      const status = runCLI(w, ['implement', 'status', '--json']);
      assert.equal(status.status, 0, status.stdout + status.stderr);
      assert.ok(!status.stdout.includes('run-2612310000009999'), `abcd lists no forged run: ${status.stdout}`);
      for (const [k, p] of Object.entries(files)) assert.deepEqual(readFileSync(p), before[k], `${k} (${p}) is unchanged`);
      assert.deepEqual(readdirSync(laneFolder).sort(), briefs, "the lane's folder holds what it held");
      assert.deepEqual(existsSync(guardPath) ? readFileSync(guardPath) : null, guardBefore, 'the guard file is as it was');
      assert.throws(() => readFileSync(join(w.repo, '.git', 'refs', 'heads', 'forged')), { code: 'ENOENT' });
      assert.ok(got[12].error && !got[12].text.includes('SSH-KEY-CANARY'), `the SSH key read: ${got[12].text}`);
      assert.ok(got[13].error && !got[13].text.includes('ABCD-HOME-CANARY'), `the $ABCD_HOME read: ${got[13].text}`);
    } finally {
      await standin.close();
      w.cleanup();
    }
  });
});
