// The repository as a Claude Code plugin, through the Claude Code command line pinned in
// tools/harness/package.json: `claude plugin validate` passes on the repository (strict: warnings
// fail too) and lists what the plugin provides; the repository is added as a marketplace and the
// plugin installed from it, and Claude Code's own inventory names the roster's agents and the six
// commands; loaded with --plugin-dir in a repository, the MCP server the plugin registers connects.
import { suite, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { bin, makeWorld, root, toolsDir } from '../mcp/lib.mjs';

const claude = join(toolsDir, 'harness', 'node_modules', '.bin', 'claude');
const agents = readdirSync(join(root, 'agents')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();
const commands = readdirSync(join(root, 'commands')).map((f) => f.slice(0, -3)).sort();
const page = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8');

// run starts claude in the world with the built binary first on PATH, as `abcd`.
function run(world, args) {
  const binDir = join(world.dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(claude, args, {
      cwd: world.repo,
      env: { ...world.env, PATH: `${binDir}:${world.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`claude ${args.join(' ')} took over 90s`)); }, 90_000);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}

// linkAbcd puts the built binary on the world's PATH as abcd, the name the plugin's server, hooks
// and commands run.
function linkAbcd(world) {
  const binDir = join(world.dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  symlinkSync(bin, join(binDir, 'abcd'));
}

suite('the Claude Code plugin', { concurrency: true }, () => {
  test('claude plugin validate --strict passes on the manifest and lists every part', async () => {
    const world = makeWorld({ record: false });
    try {
      const res = await run(world, ['plugin', 'validate', join(root, '.claude-plugin', 'plugin.json'), '--strict', '--json']);
      assert.equal(res.status, 0, res.stdout + res.stderr);
      const report = JSON.parse(res.stdout);
      assert.equal(report.success, true);
      assert.deepEqual(report.manifest.errors, []);
      assert.deepEqual(report.manifest.warnings, []);
      assert.deepEqual(report.provides.agents, agents.map((a) => `abcd:${a}`));
      assert.deepEqual(report.provides.commands, commands.map((c) => `abcd:${c}`));
      assert.deepEqual(report.provides.mcpServers.map((s) => [s.name, s.target, s.args]), [['abcd', 'abcd', ['mcp', 'serve']]]);
      assert.deepEqual(report.provides.hooks.map((h) => `${h.event} ${h.matcher} ${h.command}`).sort(),
        ['PreToolUse Bash|Write|Edit|MultiEdit|NotebookEdit abcd guard hook', 'SessionEnd undefined abcd history hook --harness claude',
          'SessionStart startup|resume|clear|compact abcd status', 'SubagentStop undefined abcd history hook --harness claude', 'UserPromptSubmit undefined abcd rules hook']);

      // The repository root: the marketplace manifest beside it validates too.
      const market = await run(world, ['plugin', 'validate', root, '--strict']);
      assert.equal(market.status, 0, market.stdout + market.stderr);
      assert.match(market.stdout, /Validation passed/);
    } finally {
      world.cleanup();
    }
  });

  test("docs/mcp.md's install lines add the repository as a marketplace and install the plugin: its agents and commands", async () => {
    const world = makeWorld({ record: false });
    try {
      const m = /<!-- snippet: claude-plugin-install -->\s*```sh\n([\s\S]*?)```/.exec(page);
      assert.ok(m, 'docs/mcp.md has the snippet claude-plugin-install');
      const lines = m[1].trim().split('\n').map((l) => l.trim().split(/\s+/));
      assert.deepEqual(lines.map((w) => w.slice(0, 3).join(' ')), ['claude plugin marketplace', 'claude plugin install']);
      for (const words of lines) {
        const args = words.slice(1).map((w) => (w === '/path/to/abcd' ? root : w));
        const res = await run(world, args);
        assert.equal(res.status, 0, `${words.join(' ')}: ${res.stdout}${res.stderr}`);
      }
      const details = await run(world, ['plugin', 'details', 'abcd']);
      assert.equal(details.status, 0, details.stdout + details.stderr);
      assert.match(details.stdout, new RegExp(`Agents \\(${agents.length}\\)\\s+${agents.join(', ')}`));
      for (const c of commands) assert.match(details.stdout, new RegExp(`\\b${c}\\b`), `the inventory names the command ${c}`);
      assert.match(details.stdout, /Hooks \(5\)\s+SessionStart, UserPromptSubmit, PreToolUse, SubagentStop, SessionEnd/);
      assert.match(details.stdout, /MCP servers \(1\)\s+abcd/);
    } finally {
      world.cleanup();
    }
  });

  test('loaded with --plugin-dir, the MCP server the plugin registers connects', async () => {
    const world = makeWorld();
    try {
      linkAbcd(world);
      const list = await run(world, ['--plugin-dir', root, 'mcp', 'list']);
      assert.equal(list.status, 0, list.stdout + list.stderr);
      assert.match(list.stdout, /plugin:abcd:abcd: abcd mcp serve - ✔ Connected/, list.stdout);
    } finally {
      world.cleanup();
    }
  });
});
