// The Claude Code plugin this repository is, checked without Claude Code (make test-harness runs
// `claude plugin validate` and installs it): the manifest registers the server the built binary
// serves, with the roster and the driver as its prompts; every command's front matter reads the
// same in any YAML reader and names only tools abcd serves, and its shell lines run; the hooks run
// as Claude Code runs them: abcd status at session start, and the guard refusing a destructive
// Bash command and letting an everyday one through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bin, makeWorld, root, verbs } from './lib.mjs';

const read = (...p) => readFileSync(join(root, ...p), 'utf8');
const manifest = JSON.parse(read('.claude-plugin', 'plugin.json'));
const hooks = JSON.parse(read('hooks', 'hooks.json')).hooks;
const agents = readdirSync(join(root, 'agents')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).sort();

// abcdCommand runs a hook's or a command's shell line with the built binary standing in for abcd.
function abcdCommand(world, line, input = '') {
  const words = line.trim().split(/\s+/);
  assert.equal(words[0], 'abcd', `the line runs abcd: ${line}`);
  return spawnSync(bin, words.slice(1), { cwd: world.repo, env: world.env, input, encoding: 'utf8' });
}

// frontMatter reads a command's front matter strictly: one `key: value` per line, a value holding
// ": " or starting with [ { " ' only when quoted, so every YAML reader reads the same string.
function frontMatter(file, text) {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(m, `${file} opens with front matter`);
  const out = {};
  for (const line of m[1].split('\n')) {
    const kv = /^([a-z-]+): (.+)$/.exec(line);
    assert.ok(kv, `${file}: "${line}" is key: value`);
    let value = kv[2];
    if (value.startsWith('"')) {
      value = JSON.parse(value);
    } else {
      assert.ok(!value.includes(': ') && !/^[[{'&*!|>%@`#-]/.test(value), `${file}: ${kv[1]} needs quotes to read as text: ${value}`);
    }
    assert.ok(['description', 'argument-hint', 'allowed-tools'].includes(kv[1]), `${file}: ${kv[1]} is a command key`);
    out[kv[1]] = value;
  }
  assert.ok(out.description?.length > 10, `${file} has a description`);
  return { meta: out, body: text.slice(m[0].length) };
}

test('the manifest registers abcd mcp serve, and the server it starts offers every verb, the roster and the driver', async () => {
  assert.equal(manifest.name, 'abcd');
  assert.match(manifest.version, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(manifest.mcpServers, { abcd: { command: 'abcd', args: ['mcp', 'serve'] } });
  const market = JSON.parse(read('.claude-plugin', 'marketplace.json'));
  assert.deepEqual(market.plugins.map((p) => [p.name, p.source]), [['abcd', './']], 'the repository is its own marketplace');

  const world = makeWorld();
  const client = new Client({ name: 'plugin-check', version: '1' });
  try {
    const server = manifest.mcpServers.abcd;
    await client.connect(new StdioClientTransport({ command: bin, args: server.args, cwd: world.repo, env: world.env, stderr: 'ignore' }));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), verbs);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['drive', ...agents], 'the driver and one prompt per agents/*.md');
    for (const p of prompts) assert.ok(p.arguments.every((a) => a.required), `${p.name}: its argument is required`);
  } finally {
    await client.close();
    world.cleanup();
  }
});

test('every command reads the same in any YAML reader, names only served tools, and its shell lines run', () => {
  const files = readdirSync(join(root, 'commands')).sort();
  assert.deepEqual(files, ['audit.md', 'build.md', 'capture.md', 'intent.md', 'review.md', 'status.md']);
  const world = makeWorld();
  try {
    for (const file of files) {
      const { meta, body } = frontMatter(file, read('commands', file));
      const named = [...body.matchAll(/[Cc]all (?:the abcd MCP tool )?([a-z]+(?:_[a-z]+)*) with/g)].map((m) => m[1]);
      assert.ok(named.length > 0 || body.includes('!`abcd'), `${file} calls a tool or runs abcd`);
      for (const tool of named) assert.ok(verbs.includes(tool), `${file} names ${tool}, which abcd does not serve`);
      for (const [, line] of body.matchAll(/!`([^`]+)`/g)) {
        assert.ok(meta['allowed-tools']?.includes(`Bash(${line})`), `${file} allows the line it runs: ${line}`);
        const r = abcdCommand(world, line);
        assert.equal(r.status, 0, `${file}: ${line}: ${r.stderr}`);
      }
      if (body.includes('$ARGUMENTS')) assert.ok(meta['argument-hint'], `${file} says what its argument is`);
    }
  } finally {
    world.cleanup();
  }
});

test('the hooks: abcd status at session start, the rules on every prompt, and the guard on every Bash call', () => {
  assert.deepEqual(Object.keys(hooks).sort(), ['PreToolUse', 'SessionEnd', 'SessionStart', 'SubagentStop', 'UserPromptSubmit']);
  for (const event of ['SubagentStop', 'SessionEnd']) {
    assert.equal(hooks[event][0].hooks[0].command, 'abcd history hook --harness claude', `${event}: the hook docs/history.md documents`);
  }
  const world = makeWorld();
  try {
    const [start] = hooks.SessionStart;
    assert.match(start.matcher, /startup/);
    const status = abcdCommand(world, start.hooks[0].command);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /^next:/m, 'the status says what to do next');

    const [guard] = hooks.PreToolUse;
    assert.equal(guard.matcher, 'Bash|Write|Edit|MultiEdit|NotebookEdit', 'the shell and the file tools, as docs/guard.md says');
    assert.equal(guard.hooks[0].command, 'abcd guard hook', 'the hook docs/guard.md documents');
    const payload = (command) => JSON.stringify({ session_id: 's', transcript_path: join(world.dir, 't.jsonl'), cwd: world.repo,
      hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
    const denied = abcdCommand(world, guard.hooks[0].command, payload('rm -rf /'));
    assert.equal(denied.status, 0, denied.stderr);
    const out = JSON.parse(denied.stdout).hookSpecificOutput;
    assert.equal(out.permissionDecision, 'deny');
    assert.match(out.permissionDecisionReason, /rm/);
    const allowed = abcdCommand(world, guard.hooks[0].command, payload('git status'));
    assert.equal(allowed.status, 0, allowed.stderr);
    assert.equal(allowed.stdout, '', 'an everyday command gets no answer');
    const write = (file) => JSON.stringify({ session_id: 's', transcript_path: join(world.dir, 't.jsonl'), cwd: world.repo,
      hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(world.repo, file), content: '{}' } });
    const guardWrite = abcdCommand(world, guard.hooks[0].command, write('.abcd/guard.json'));
    assert.equal(guardWrite.status, 0, guardWrite.stderr);
    assert.equal(JSON.parse(guardWrite.stdout).hookSpecificOutput.permissionDecision, 'deny', 'a Write of the guard file');
    const codeWrite = abcdCommand(world, guard.hooks[0].command, write('hello.txt'));
    assert.equal(codeWrite.status, 0, codeWrite.stderr);
    assert.equal(codeWrite.stdout, '', 'a Write of the code gets no answer');

    const [prompt] = hooks.UserPromptSubmit;
    assert.equal(prompt.matcher, undefined, 'every prompt');
    assert.equal(prompt.hooks[0].command, 'abcd rules hook', 'the hook docs/rules.md documents');
    const submit = (text) => JSON.stringify({ session_id: 's', transcript_path: join(world.dir, 't.jsonl'), cwd: world.repo,
      permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt: text });
    const injected = abcdCommand(world, prompt.hooks[0].command, submit('commit this and git push --force'));
    assert.equal(injected.status, 0, injected.stderr);
    const ctx = JSON.parse(injected.stdout).hookSpecificOutput;
    assert.equal(ctx.hookEventName, 'UserPromptSubmit');
    assert.match(ctx.additionalContext, /\[committing\] recalled by "commit", "push"/);
    assert.match(ctx.additionalContext, /rule git-push-force/);
    const quiet = abcdCommand(world, prompt.hooks[0].command, submit('hello'));
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.equal(quiet.stdout, '', 'a prompt no rule matches gets no answer');
  } finally {
    world.cleanup();
  }
});
