// implement_run on a real run, its every step taken by a scripted Claude Code (tools/mcp/fakecli,
// the Go tests' fake CLI) as runner, driven by the official SDK clients against the built binary:
// - a 2026-07-28 client that declares the tasks extension (io.modelcontextprotocol/tasks) drives it
//   as a task with the extension's own requester (@modelcontextprotocol/ext-tasks on the v2 client,
//   @modelcontextprotocol/client 2.4.0): the call answered with a task, polled to the run's result,
//   and a second run cancelled, as Ctrl-C cancels one;
// - a 2025 client (the v1 SDK, handshake 2025-11-25) calls it as before: progress notifications as
//   the run goes, then the result of the blocking call.
// The v2 client alone cannot follow a task: its tools/call rejects resultType "task"; ext-tasks
// frames the task requests and sends them through rawDispatch, here a plain POST to the endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bin, fillPlaceholders, makeWorld, root, runCLI, serveHTTP } from './lib.mjs';

const PIN = '2026-07-28';
const canary = 'sk-ant-canary-5d1e0c7a9b3f4e21';
const impl = 'You run headless, as runner cc';
const answer = 'You run headless: how you answer';

// The scripted runner, built once for the file.
const fakeDir = mkdtempSync(join(tmpdir(), 'abcd-fakecli-'));
const fakeCLI = join(fakeDir, 'claude');
const built = spawnSync('go', ['build', '-o', fakeCLI, './tools/mcp/fakecli'], { cwd: root, encoding: 'utf8' });
if (built.status !== 0) throw new Error(`go build ./tools/mcp/fakecli: ${built.stderr}`);
process.on('exit', () => rmSync(fakeDir, { recursive: true, force: true }));

function ok(res, what) {
  if (res.status !== 0) throw new Error(`${what} exited ${res.status}: ${res.stdout}${res.stderr}`);
  return res;
}

// Claude Code's lines, as 2.1.x writes them.
const init = { type: 'system', subtype: 'init', cwd: '/w', session_id: 'sess-1', tools: ['Read', 'Edit', 'Bash'], model: 'claude-x', permissionMode: 'dontAsk', claude_code_version: '2.1.332' };
function resultLine(final, structured) {
  const ev = { type: 'result', subtype: 'success', is_error: false, result: final, num_turns: 2, total_cost_usd: 0.01,
    usage: { input_tokens: 100, output_tokens: 20 }, permission_denials: [], terminal_reason: 'completed', api_error_status: null, session_id: 'sess-1' };
  if (structured) ev.structured_output = structured;
  return JSON.stringify(ev);
}

// agents is a script in which every role does its part: each lane's implementer writes its file,
// each reviewer passes, the auditor finds the criterion met.
function agents(intent) {
  const review = { summary: 'Read the change.', verdict: 'SHIP', findings: [] };
  const security = { summary: 'Nothing to fear.', verdict: 'APPROVE', findings: [] };
  const audit = { schema_version: 1, intent, summary: 'The criterion is met.',
    verdicts: [{ criterion: 'ac-1', verdict: 'MET', evidence: 'DONE-1 and DONE-2 stand.', concerns: '' }] };
  return [
    { out: JSON.stringify(init) },
    { when: [impl, 'Write the greeting'], write: 'DONE-1', content: 'one\n' },
    { when: [impl, 'Test the greeting'], write: 'DONE-2', content: 'two\n' },
    { when: [impl], out: resultLine('Do the part\n\nWrote the part\'s file.') },
    { when: [answer, '# ruthless-reviewer:'], out: resultLine('', review) },
    { when: [answer, '# security-reviewer:'], out: resultLine('', security) },
    { when: [answer, '# intent-auditor:'], out: resultLine('', audit) },
  ];
}

// runnerWorld is a repository with a planned intent and its open spec of two steps, and a machine
// whose runners (the scripted CLI) take every role: cc the implementer, rv the reviewers and the
// auditor.
function runnerWorld() {
  const world = makeWorld({ record: false });
  ok(runCLI(world, ['ahoy', 'install', '--yes']), 'abcd ahoy install');
  const cfgPath = join(world.repo, '.abcd', 'config.json');
  const cfg = JSON.parse(readFileSync(cfgPath, 'utf8'));
  cfg.build = { dod: 'test -f DONE-1 || test -f DONE-2' };
  writeFileSync(cfgPath, JSON.stringify(cfg, null, 2) + '\n');
  const intent = JSON.parse(ok(runCLI(world, ['intent', 'new', 'Faster cold start', '--json']), 'intent new').stdout).record.id;
  const spec = JSON.parse(ok(runCLI(world, ['intent', 'plan', intent, '--json']), 'intent plan').stdout).spec.id;
  fillPlaceholders(join(world.repo, '.abcd', 'development'));
  const git = (...args) => ok(spawnSync('git', args, { cwd: world.repo, env: world.env, encoding: 'utf8' }), `git ${args.join(' ')}`).stdout;
  git('add', '-A');
  git('commit', '-q', '-m', 'the record');
  const block = (concurrency) => ({ cli: 'claude', executable: fakeCLI, version: '2.1.332', sandbox: 'off',
    credential_env: ['ANTHROPIC_API_KEY'], pass_env: ['FAKE_CLI_SCRIPT'], concurrency,
    limits: { wall_clock_s: 60, first_event_s: 30, silence_s: 30 } });
  const roles = { implementer: { runner: 'cc' } };
  for (const r of ['ruthless-reviewer', 'security-reviewer', 'intent-auditor']) roles[r] = { runner: 'rv' };
  writeFileSync(join(world.home, 'config.json'), JSON.stringify({ schema_version: 1, oracle: { runner: { cc: block(2), rv: block(4) }, roles } }), { mode: 0o600 });
  const script = join(world.dir, 'script.jsonl');
  world.env.FAKE_CLI_SCRIPT = script;
  world.env.ANTHROPIC_API_KEY = canary;
  const play = (directives) => writeFileSync(script, [{ session_start: 'claude' }, ...directives].map((d) => JSON.stringify(d)).join('\n') + '\n');
  return { ...world, intent, spec, git, play };
}

// rawDispatch sends one framed request as its own POST, with the headers 2026-07-28 mirrors from the
// body (ext-tasks adds Mcp-Name: the task id, for the tasks methods).
function rawDispatch(url) {
  let n = 0;
  return async (request, options = {}) => {
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PIN, 'Mcp-Method': request.method, ...(options.context?.headers ?? {}) };
    if (request.method === 'tools/call') headers['Mcp-Name'] = request.params.name;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: `raw-${++n}`, ...request }), signal: options.signal });
    const body = await res.json();
    return body.error ? { kind: 'error', error: body.error } : { kind: 'result', result: body.result };
  };
}

// taskSession is a v2 client pinned to 2026-07-28 over Streamable HTTP, with the extension's
// requester on it.
async function taskSession(url) {
  const client = new Client({ name: 'abcd-interop-tasks', version: '1.0.0' }, { versionNegotiation: { mode: { pin: PIN } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  assert.deepEqual(client.getServerCapabilities().extensions, { 'io.modelcontextprotocol/tasks': {} }, 'server/discover advertises the extension');
  const dispatch = rawDispatch(url);
  const session = createTaskSessionFromClient(client, {
    endpointId: 'abcd-interop', rawDispatch: dispatch,
    v2RequestFraming: { protocolVersion: PIN, clientInfo: { name: 'abcd-interop-tasks', version: '1.0.0' }, clientCapabilities: {} },
  });
  return { client, session, dispatch };
}

test(`SDK v2 client on ${PIN} with the tasks extension drives implement_run as a task to the run's end`, async () => {
  const world = runnerWorld();
  world.play(agents(world.intent));
  const server = await serveHTTP(world);
  const { client, session } = await taskSession(server.url);
  try {
    const execution = await session.callTool('implement_run', { spec: world.spec });
    assert.equal(execution.kind, 'task', 'implement_run answered with a task');
    const seen = [];
    const { outcome } = await execution.settle({ onEvent: (ev) => { if (ev.type === 'task') seen.push(ev.task); } });
    assert.equal(outcome.status, 'completed');
    const result = resultFromTaskOutcome(outcome);
    assert.equal(result.isError, undefined, result.content?.[0]?.text);
    assert.equal(result.structuredContent.ended, 'finished');
    assert.equal(result.structuredContent.routed, 7, 'two implementers, four reviews, one audit');
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent, 'the text block is the same JSON');
    assert.ok(seen.length >= 2, `the requester polled the working task: ${JSON.stringify(seen)}`);
    assert.equal(seen[0].status, 'working');
    const messages = seen.map((t) => t.statusMessage ?? '').join('\n');
    assert.match(messages, /lane-\d|run r/, 'the status message says what the run does');
    assert.ok(!messages.includes(canary), 'no credential in a status message');
  } finally {
    await session.close();
    await client.close();
    const out = await server.stop();
    assert.ok(!out.stderr.includes(canary));
    world.cleanup();
  }
});

test(`SDK v2 client on ${PIN} with the tasks extension cancels a running implement_run as Ctrl-C does`, async () => {
  const world = runnerWorld();
  world.play([{ out: JSON.stringify(init) }, { when: [impl], write: 'HALF', content: 'half\n' }, { hang: true }]);
  const server = await serveHTTP(world);
  const { client, session, dispatch } = await taskSession(server.url);
  try {
    const execution = await session.callTool('implement_run', { spec: world.spec });
    assert.equal(execution.kind, 'task');
    const taskId = execution.handle.taskId;
    for await (const ev of execution.updates()) {
      assert.equal(ev.type, 'task', `the run ended before it was cancelled: ${JSON.stringify(ev)}`);
      if ((ev.task.statusMessage ?? '').includes('runner cc is running')) break;
    }
    await execution.cancel();
    const outcome = await execution.result();
    assert.equal(outcome.status, 'cancelled');

    // The server's side of it, as the requester no longer polls: the task ends cancelled, with the
    // run's last word.
    let task;
    for (let i = 0; i < 600; i++) {
      const res = await dispatch({ method: 'tasks/get', params: { taskId, _meta: { 'io.modelcontextprotocol/protocolVersion': PIN,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } } }, { context: { headers: { 'Mcp-Name': taskId } } });
      assert.equal(res.kind, 'result', JSON.stringify(res));
      task = res.result;
      if (task.status !== 'working') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(task.status, 'cancelled');
    assert.match(task.statusMessage, /interrupted; the same command goes on with it/);
    assert.equal(task.result, undefined);
  } finally {
    await session.close();
    await client.close();
    await server.stop();
  }
  try {
    // The lane was put back: the same command goes on with the run and takes it to its end.
    world.play(agents(world.intent));
    const again = runCLI(world, ['implement', 'run', world.spec, '--json']);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).ended, 'finished');
    assert.match(again.stderr, /interrupted before, goes to runner cc again/);
  } finally {
    world.cleanup();
  }
});

test('SDK v1 client (handshake 2025-11-25) calls implement_run as before: progress notifications, then the blocking result', async () => {
  const world = runnerWorld();
  world.play(agents(world.intent));
  const transport = new V1StdioClientTransport({ command: bin, args: ['mcp', 'serve'], cwd: world.repo, env: world.env, stderr: 'pipe' });
  const client = new V1Client({ name: 'abcd-interop-v1-run', version: '1.0.0' });
  try {
    await client.connect(transport);
    assert.equal(client.getServerCapabilities().extensions, undefined, 'the handshake advertises no extension');
    const progress = [];
    const result = await client.callTool({ name: 'implement_run', arguments: { spec: world.spec } }, undefined,
      { onprogress: (p) => progress.push(p), timeout: 120_000 });
    assert.equal(result.isError, undefined, result.content?.[0]?.text);
    assert.equal(result.structuredContent.ended, 'finished');
    assert.equal(result.taskId, undefined);
    assert.ok(progress.length > 3, `progress notifications as the run went: ${progress.length}`);
    assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i + 1), 'numbered in order');
    const all = progress.map((p) => p.message).join('\n');
    assert.match(all, /lane-1 implementer: cc takes the step \(round 0\)/);
    assert.match(all, /: finished/);
    assert.ok(!all.includes(canary));
  } finally {
    await client.close();
    world.cleanup();
  }
});
