// Claude Code's own sandbox as `abcd ahoy sandbox` turns it on (docs/security.md, "Your harness's own
// sandbox"), through the real Claude Code pinned in tools/harness/package.json, headless against the
// loopback stand-in of Anthropic's API, in a repository with a run whose lanes have started. The
// scripted model asks for Bash commands from a lane's worktree; Claude Code runs each inside its
// sandbox (bubblewrap on Linux), and the test reads what each did:
//
//   - writing the run's state (../../state.json from the lane) is refused, and state.json is unchanged;
//   - writing .git's internals, and reading the person's SSH key and $ABCD_HOME, are refused;
//   - a write in the repository outside .abcd/ and .git/ goes through, so the refusals are the rules'.
//
// Claude Code's sandbox needs bubblewrap and socat on Linux; `.ci/run` installs them where missing.
// Where they are absent this test fails, naming them: a sandbox that cannot start proves nothing.
import { suite, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
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
  test('a Bash command writing the run\'s state from a lane is refused; so are .git, the SSH key and $ABCD_HOME', async () => {
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
      const step = runCLI(w, ['implement', 'step', '--run', runID, '--json']);
      assert.equal(step.status, 0, step.stdout + step.stderr);
      const lane = join(runs, runID, 'worktrees', readdirSync(join(runs, runID, 'worktrees'))[0]);
      const statePath = join(runs, runID, 'state.json');
      const stateBefore = readFileSync(statePath);

      mkdirSync(join(w.userHome, '.ssh'), { recursive: true });
      writeFileSync(join(w.userHome, '.ssh', 'id_ed25519'), 'SSH-KEY-CANARY\n', { mode: 0o600 });
      writeFileSync(join(w.home, 'sandbox-canary'), 'ABCD-HOME-CANARY\n', { mode: 0o600 });

      const on = runCLI(w, ['ahoy', 'sandbox', '--json']);
      assert.equal(on.status, 0, on.stdout + on.stderr);
      assert.equal(JSON.parse(on.stdout).status, 'created');

      const commands = [
        `cd ${lane} && printf '{"forged":true}' > ../../state.json && echo WROTE-STATE`,
        // Spelled so Claude Code's own check of the command line does not see the path (it asks for
        // .git/... written directly): what refuses it is the sandbox.
        `cd ${join(w.repo, '.git', 'refs')} && cd heads && echo x > forged && echo WROTE-GIT`,
        `cat ${join(w.userHome, '.ssh', 'id_ed25519')}`,
        `cat ${join(w.home, 'sandbox-canary')}`,
        `echo fine > ${join(w.repo, 'scratch.txt')} && echo WROTE-SCRATCH`,
      ];
      standin = await anthropicBash(commands);
      // Bash is allowed outright, so what refuses a command is the sandbox, not a permission prompt.
      const res = await run(w, ['-p', 'do the lane\'s work', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
        { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: 'sk-ant-dummy-key-for-the-stand-in' });
      assert.equal(res.status, 0, res.stdout.slice(-2000) + res.stderr);
      const got = toolResults(res.stdout);
      assert.equal(got.length, commands.length, res.stdout.slice(-3000));

      assert.ok(got[0].error && /Read-only file system/.test(got[0].text) && !got[0].text.includes('WROTE-STATE'), `the state write: ${got[0].text}`);
      assert.deepEqual(readFileSync(statePath), stateBefore, "the run's state is unchanged");
      assert.ok(got[1].error && /Read-only file system|Permission denied/.test(got[1].text) && !got[1].text.includes('WROTE-GIT'), `the .git write: ${got[1].text}`);
      assert.throws(() => readFileSync(join(w.repo, '.git', 'refs', 'heads', 'forged')), { code: 'ENOENT' });
      assert.ok(got[2].error && !got[2].text.includes('SSH-KEY-CANARY'), `the SSH key read: ${got[2].text}`);
      assert.ok(got[3].error && !got[3].text.includes('ABCD-HOME-CANARY'), `the $ABCD_HOME read: ${got[3].text}`);
      assert.ok(!got[4].error && got[4].text.includes('WROTE-SCRATCH'), `the write outside .abcd/ and .git/: ${got[4].text}`);
      assert.equal(readFileSync(join(w.repo, 'scratch.txt'), 'utf8'), 'fine\n');
    } finally {
      await standin.close();
      w.cleanup();
    }
  });
});
