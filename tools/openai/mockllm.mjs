// A third-party OpenAI-compatible server for the provider tests: @dwmkerr/mock-llm, started on a free
// loopback port with rules that answer the shapes abcd asks for. Shared by the interop test and the
// Go benchmark driver (tools/bench/openai), which runs this file as a script.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
const main = join(root, 'tools', 'node_modules', '@dwmkerr', 'mock-llm', 'dist', 'main.js');

// The review reply every rule answers with: what a reviewer held to review_reply writes.
export const reply = { summary: 'One file, tested.', verdict: 'SHIP', findings: [] };
// The security reviewer's words differ: its reply approves.
export const securityReply = { summary: 'No new input reaches anything.', verdict: 'APPROVE', findings: [] };

const completion = (content) => JSON.stringify({
  id: 'chatcmpl-{{timestamp}}', object: 'chat.completion', created: 1, model: '{{jmes request body.model}}',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
});

// rules: the last match wins. Any model answers "ok" (the verification call); strict-review answers
// the reply; loose-review refuses response_format as a server without structured output does, and
// answers the reply once asked without it.
export function config({ chunkIntervalMs = 1, chunkSize = 64 } = {}) {
  const body = JSON.stringify(reply);
  return {
    streaming: { chunkSize, chunkIntervalMs },
    rules: [
      { path: '/v1/chat/completions', method: 'POST', match: '@', response: { status: 200, content: completion('ok') } },
      { path: '/v1/chat/completions', method: 'POST', match: "body.model == 'strict-review'", response: { status: 200, content: completion(body) } },
      { path: '/v1/chat/completions', method: 'POST', match: "body.model == 'loose-review' && !(body.response_format)", response: { status: 200, content: completion(body) } },
      { path: '/v1/chat/completions', method: 'POST', match: "body.model == 'loose-review' && !(body.response_format) && contains(body.messages[1].content, '# security-reviewer')", response: { status: 200, content: completion(JSON.stringify(securityReply)) } },
      { path: '/v1/chat/completions', method: 'POST', match: "body.model == 'loose-review' && body.response_format",
        response: { status: 400, content: JSON.stringify({ error: { message: "Invalid parameter: 'response_format' is not supported by this model.", type: 'invalid_request_error', code: null } }) } },
    ],
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// start runs mock-llm on 127.0.0.1 and resolves once it answers /health; stop() ends it and removes
// its configuration. Its own output is kept, for a test that scans it.
export async function start(opts = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'abcd-mock-llm-'));
  const file = join(dir, 'mock-llm.yaml');
  writeFileSync(file, JSON.stringify(config(opts))); // JSON is YAML
  const port = await freePort();
  const child = spawn(process.execPath, [main, '--config', file], {
    cwd: dir, env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mock-llm exited: ${output}`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`mock-llm did not answer within 20 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseURL: `${base}/v1`,
    output: () => output,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => { rmSync(dir, { recursive: true, force: true }); resolve(); });
      child.kill();
    }),
  };
}

// As a script: start the server, print its base URL on one line, run until stdin closes.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const chunkIntervalMs = Number(process.env.MOCK_CHUNK_INTERVAL_MS || '1');
  const server = await start({ chunkIntervalMs });
  process.stdout.write(server.baseURL + '\n');
  process.stdin.resume();
  process.stdin.on('end', async () => { await server.stop(); process.exit(0); });
}
