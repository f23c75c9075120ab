// The registrations docs/mcp.md documents, run through the real harness command lines (pinned in
// tools/harness/package.json; make test-harness): Claude Code adds abcd and reports it connected,
// from the user scope, from a project .mcp.json and over HTTP; Codex reads the documented
// config.toml with its own loader; Gemini CLI reports abcd connected from the documented
// settings.json. abcd stands in for the command each snippet names; the snippets themselves are
// read from the page, so the page cannot drift from what was tested.
import { suite, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseTOML } from 'smol-toml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bin, makeWorld, root, serveHTTP, toolsDir, verbs } from '../mcp/lib.mjs';

const page = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8');

// snippet returns the fenced block that follows <!-- snippet: name --> on the page.
function snippet(name) {
  const m = new RegExp(`<!-- snippet: ${name.replace('.', '\\.')} -->\\s*\`\`\`(\\w+)\\n([\\s\\S]*?)\`\`\``).exec(page);
  assert.ok(m, `docs/mcp.md has the snippet ${name}`);
  return { lang: m[1], text: m[2] };
}

// argv splits a one-line shell command (the snippets quote nothing).
function argv(sh) {
  const words = sh.trim().split(/\s+/);
  assert.ok(!words.some((w) => /["'$`\\]/.test(w)), `a snippet needs no shell quoting: ${sh}`);
  return words;
}

const harness = (name) => join(toolsDir, 'harness', 'node_modules', '.bin', name);

// run starts a harness command and resolves with its exit status and output; the tests run side by
// side, so nothing here blocks.
function run(world, cmd, args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: world.repo, env: { ...world.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${cmd} ${args.join(' ')} took over 90s`)); }, 90_000);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}

// withAbcd replaces the command abcd after `--` with the built binary.
function withAbcd(words) {
  const dash = words.indexOf('--');
  assert.ok(dash > 0 && words[dash + 1] === 'abcd', `the snippet runs abcd after --: ${words.join(' ')}`);
  return [...words.slice(0, dash + 1), bin, ...words.slice(dash + 2)];
}

function claude(world, words) {
  assert.equal(words[0], 'claude');
  return run(world, harness('claude'), words.slice(1));
}

// The harnesses are slow to start; their tests run side by side, each in its own world.
suite('registrations from docs/mcp.md', { concurrency: true }, () => {
  test('Claude Code: claude mcp add --scope user, then claude mcp list reports abcd connected', async () => {
    const world = makeWorld();
    try {
      const add = await claude(world, withAbcd(argv(snippet('claude-mcp-add').text)));
      assert.equal(add.status, 0, add.stdout + add.stderr);
      const list = await claude(world, ['claude', 'mcp', 'list']);
      assert.equal(list.status, 0, list.stdout + list.stderr);
      assert.match(list.stdout, /abcd: .*abcd mcp serve - ✔ Connected/, list.stdout);
    } finally {
      world.cleanup();
    }
  });

  test('Claude Code: the project .mcp.json is what claude mcp add --scope project writes, and it connects once approved', async () => {
    const world = makeWorld();
    try {
      const add = await claude(world, withAbcd(argv(snippet('claude-mcp-add-project').text)));
      assert.equal(add.status, 0, add.stdout + add.stderr);
      const written = JSON.parse(readFileSync(join(world.repo, '.mcp.json'), 'utf8'));
      const documented = JSON.parse(snippet('mcp.json').text);
      documented.mcpServers.abcd.command = bin;
      assert.deepEqual(written, documented, 'docs/mcp.md shows the .mcp.json Claude Code writes');

      const pending = await claude(world, ['claude', 'mcp', 'list']);
      assert.match(pending.stdout, /abcd: .* - ⏸ Pending approval/, 'a project server waits for the person to approve it');
      // The person's approval, as Claude Code records it when they trust the folder and accept the server.
      const state = join(world.userHome, '.claude.json');
      const json = JSON.parse(readFileSync(state, 'utf8'));
      json.projects = { ...(json.projects ?? {}), [world.repo]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: ['abcd'] } };
      writeFileSync(state, JSON.stringify(json));
      const list = await claude(world, ['claude', 'mcp', 'list']);
      assert.equal(list.status, 0, list.stdout + list.stderr);
      assert.match(list.stdout, /abcd: .*abcd mcp serve - ✔ Connected/, list.stdout);
    } finally {
      world.cleanup();
    }
  });

  test('Claude Code: claude mcp add --transport http reaches abcd mcp serve --http', async () => {
    const world = makeWorld();
    const server = await serveHTTP(world);
    try {
      const words = argv(snippet('claude-mcp-add-http').text);
      const at = words.findIndex((w) => /^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(w));
      assert.ok(at > 0, 'the snippet names a loopback /mcp URL');
      words[at] = server.url;
      const add = await claude(world, words);
      assert.equal(add.status, 0, add.stdout + add.stderr);
      const list = await claude(world, ['claude', 'mcp', 'list']);
      assert.match(list.stdout, /abcd: http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) - ✔ Connected/, list.stdout);
    } finally {
      await server.stop();
      world.cleanup();
    }
  });

  test('Codex: the documented config.toml is read by codex itself, and its command serves every tool', async () => {
    const world = makeWorld();
    const codexHome = join(world.userHome, '.codex');
    mkdirSync(codexHome);
    try {
      const { lang, text } = snippet('codex-config.toml');
      assert.equal(lang, 'toml');
      const config = parseTOML(text);
      const server = config.mcp_servers?.abcd;
      assert.deepEqual(Object.keys(config), ['mcp_servers']);
      assert.equal(server.command, 'abcd');
      assert.deepEqual(server.args, ['mcp', 'serve']);
      writeFileSync(join(codexHome, 'config.toml'), text.replace('command = "abcd"', `command = ${JSON.stringify(bin)}`));
      const got = await run(world, harness('codex'), ['mcp', 'get', 'abcd', '--json'], { CODEX_HOME: codexHome });
      assert.equal(got.status, 0, got.stdout + got.stderr);
      const parsed = JSON.parse(got.stdout);
      assert.equal(parsed.enabled, true);
      assert.deepEqual(parsed.transport, { ...parsed.transport, type: 'stdio', command: bin, args: ['mcp', 'serve'] });
      assert.equal(parsed.startup_timeout_sec, server.startup_timeout_sec);
      assert.equal(parsed.tool_timeout_sec, server.tool_timeout_sec);

      // codex mcp add writes the same command and arguments.
      const addHome = join(world.userHome, '.codex-add');
      mkdirSync(addHome);
      const add = await run(world, harness('codex'), ['mcp', 'add', 'abcd', '--', bin, 'mcp', 'serve'], { CODEX_HOME: addHome });
      assert.equal(add.status, 0, add.stdout + add.stderr);
      const added = parseTOML(readFileSync(join(addHome, 'config.toml'), 'utf8')).mcp_servers.abcd;
      assert.deepEqual([added.command, added.args], [bin, server.args]);

      // Codex connects only when a model session starts; the same command line, started the way a
      // harness starts it, completes the handshake and lists every tool.
      const client = new Client({ name: 'codex-config-check', version: '1' });
      await client.connect(new StdioClientTransport({ command: bin, args: parsed.transport.args, cwd: world.repo, env: world.env, stderr: 'ignore' }));
      const { tools } = await client.listTools();
      await client.close();
      assert.deepEqual(tools.map((t) => t.name), verbs);
    } finally {
      world.cleanup();
    }
  });

  test('Gemini CLI: the documented settings.json connects, over stdio and over HTTP', async () => {
    const world = makeWorld();
    const server = await serveHTTP(world);
    try {
      const { lang, text } = snippet('gemini-settings.json');
      assert.equal(lang, 'json');
      const settings = JSON.parse(text);
      assert.equal(settings.mcpServers.abcd.command, 'abcd');
      assert.deepEqual(settings.mcpServers.abcd.args, ['mcp', 'serve']);
      settings.mcpServers.abcd.command = bin;
      mkdirSync(join(world.repo, '.gemini'));
      writeFileSync(join(world.repo, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
      // The person trusts the repository folder, as Gemini CLI asks them to the first time.
      mkdirSync(join(world.userHome, '.gemini'));
      writeFileSync(join(world.userHome, '.gemini', 'trustedFolders.json'), JSON.stringify({ [world.repo]: 'TRUST_FOLDER' }));
      const list = await run(world, harness('gemini'), ['mcp', 'list']);
      assert.equal(list.status, 0, list.stdout + list.stderr);
      assert.match(list.stdout + list.stderr, /✓ abcd: .*abcd mcp serve \(stdio\) - Connected/, list.stdout + list.stderr);

      settings.mcpServers.abcd = { httpUrl: server.url };
      writeFileSync(join(world.repo, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
      const http = await run(world, harness('gemini'), ['mcp', 'list']);
      assert.match(http.stdout + http.stderr, /✓ abcd: http:\/\/127\.0\.0\.1:\d+\/mcp \(http\) - Connected/, http.stdout + http.stderr);

      // gemini mcp add writes the same command and arguments as the snippet.
      const fresh = makeWorld({ record: false });
      try {
        const add = await run(fresh, harness('gemini'), ['mcp', 'add', '--scope', 'project', 'abcd', bin, 'mcp', 'serve']);
        assert.equal(add.status, 0, add.stdout + add.stderr);
        const written = JSON.parse(readFileSync(join(fresh.repo, '.gemini', 'settings.json'), 'utf8')).mcpServers.abcd;
        assert.deepEqual([written.command, written.args], [bin, ['mcp', 'serve']]);
      } finally {
        fresh.cleanup();
      }
    } finally {
      await server.stop();
      world.cleanup();
    }
  });
});
