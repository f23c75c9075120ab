// Shared by the MCP interop tests: temporary repositories, the built binary, sample inputs drawn
// from each tool's published inputSchema, and abcd mcp serve over HTTP.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
export const toolsDir = join(root, 'tools');
export const bin = process.env.ABCD_BIN || join(root, 'bin', 'abcd');
export const index = JSON.parse(readFileSync(join(root, 'schemas', 'v1', 'index.json'), 'utf8'));

// The verbs the published index names, sorted: the tool list must be exactly these.
export const verbs = [...new Set(index.schemas.filter((e) => e.verb).map((e) => e.verb))].sort();

// A world is a temporary machine: a git repository holding a record (an intent planned with its
// spec open and filled in, an issue, a decision) and an implement run and a review run, an
// ABCD_HOME and a HOME.
export function makeWorld({ record = true } = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'abcd-mcp-interop-')));
  const repo = join(dir, 'repo');
  const home = join(dir, 'abcd-home');
  const userHome = join(dir, 'home');
  mkdirSync(repo);
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(userHome);
  const env = {
    PATH: process.env.PATH, HOME: userHome, ABCD_HOME: home, NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'abcd interop', GIT_AUTHOR_EMAIL: 'interop@abcd.invalid',
    GIT_COMMITTER_NAME: 'abcd interop', GIT_COMMITTER_EMAIL: 'interop@abcd.invalid',
  };
  const world = { dir, repo, home, userHome, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  must(spawnSync('git', ['init', '-q'], { cwd: repo, env }), 'git init');
  if (record) {
    for (const args of [
      ['ahoy', 'install', '--yes'],
      ['intent', 'new', 'First intent'],
      ['capture', 'Something noticed', '--severity', 'major'],
      ['decision', 'new', 'A ruling'],
      ['intent', 'plan', 'first'],
    ]) {
      must(runCLI(world, args), `abcd ${args.join(' ')}`);
    }
    fillPlaceholders(join(repo, '.abcd', 'development'));
    const git = (...args) => must(spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' }), `git ${args.join(' ')}`);
    git('add', '-A');
    git('commit', '-q', '-m', 'the record');
    writeFileSync(join(repo, 'hello.txt'), 'hello\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'hello');
    must(runCLI(world, ['implement', 'start', 'first']), 'abcd implement start');
    must(runCLI(world, ['review', '--base', 'HEAD~1']), 'abcd review');
    // A Claude Code session that ran in this repository, kept in its history.
    const transcript = join(dir, 'session.jsonl');
    writeFileSync(transcript, readFileSync(sessionFixture, 'utf8').replaceAll('"cwd":"/home/ada/proj"', `"cwd":${JSON.stringify(repo)}`));
    must(runCLI(world, ['history', 'capture', transcript, '--harness', 'claude']), 'abcd history capture');
  }
  return world;
}

// The history domain's own Claude Code transcript; its session id names it in history_show.
const sessionFixture = join(root, 'domain', 'history', 'testdata', 'harness', 'claude-session.jsonl');
const sessionID = 'd3270867-c4f3-4be1-b218-4d97aa877406';

// fillPlaceholders writes into a record what a person would: a step list, an acceptance criterion,
// no open question, and a sentence everywhere else.
export function fillPlaceholders(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { fillPlaceholders(p); continue; }
    if (!name.endsWith('.md')) continue;
    const text = readFileSync(p, 'utf8').replace(/<!-- fill: (.*?) -->/g, (_, hint) => {
      if (hint.includes('numbered list')) return '1. Write the greeting.\n2. Test the greeting.';
      if (hint.includes('ac-1:') || hint.includes('ac-N')) return '- ac-1: Given a person, when they run hello, then it greets them.';
      if (hint.includes('[ ] question')) return '';
      return 'Filled in for the test.';
    });
    writeFileSync(p, text);
  }
}

function must(res, what) {
  if (res.status !== 0) throw new Error(`${what} failed (${res.status}): ${res.stdout}${res.stderr}`);
  return res;
}

export function runCLI(world, args) {
  return spawnSync(bin, args, { cwd: world.repo, env: world.env, encoding: 'utf8', input: '' });
}

// Slug fragments of the world's records, for reference fields.
const refSamples = ['first', 'something', 'ruling'];

// Inputs for tools whose interesting cases a generator cannot guess (the Go tests use the same).
const explicitSamples = {
  schema_show: [{ name: 'refusal' }, { name: 'https://schemas.abcd.dev/v1/status.result.schema.json' }, { name: 'no_such_schema' }],
  config_show: [{ key: 'no.such.key' }],
  ahoy_install: [{ yes: true }],
  history_show: [{ session: sessionID }, { session: sessionID, raw: true }],
};

// generate makes the smallest value a schema accepts, or undefined when it cannot tell.
function generate(schema) {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.oneOf)) return generate(schema.oneOf[0]);
  switch (schema.type) {
    case 'object': {
      const out = {};
      for (const name of schema.required ?? []) {
        const v = generate(schema.properties?.[name] ?? {});
        if (v === undefined) return undefined;
        out[name] = v;
      }
      return out;
    }
    case 'string': {
      if (schema.format) return undefined;
      const v = 'a'.repeat(Math.max(1, schema.minLength ?? 1));
      // A pattern the plain string does not match is one the generator cannot satisfy.
      if (schema.pattern && !new RegExp(schema.pattern, 'u').test(v)) return undefined;
      return v;
    }
    case 'integer': case 'number': return schema.minimum ?? 1;
    case 'boolean': return false;
    case 'array': return [];
  }
  return undefined;
}

// samplesFor is every input a tool is called with: the minimal input its inputSchema implies, that
// input with each reference field naming the world's records, and the explicit samples.
export function samplesFor(tool) {
  const out = [];
  const minimal = generate(tool.inputSchema);
  if (minimal !== undefined) {
    out.push(minimal);
    for (const field of ['ref', 'intent']) {
      if (!tool.inputSchema.properties?.[field]) continue;
      for (const ref of refSamples) out.push({ ...minimal, [field]: ref });
    }
  }
  out.push(...(explicitSamples[tool.name] ?? []));
  if (out.length === 0) throw new Error(`tool ${tool.name} has a required input no generator can fill: add it to explicitSamples`);
  return out;
}

// serveHTTP starts abcd mcp serve --http on a free loopback port and resolves with its URL.
export function serveHTTP(world) {
  const child = spawn(bin, ['mcp', 'serve', '--http', '127.0.0.1:0'], { cwd: world.repo, env: world.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within 10s: ${stderr}`)), 10_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving \d+ tools at (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          stop: () => new Promise((done) => {
            child.once('exit', () => done({ stdout, stderr }));
            child.kill('SIGINT');
          }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`abcd mcp serve --http exited ${code}: ${stderr}`)));
  });
}

// checkRefusal holds an error result to the refusal document it carries as text.
export function refusalOf(result) {
  const doc = JSON.parse(result.content[0].text);
  for (const k of ['kind', 'code', 'what', 'why', 'remedy', 'exit_code']) {
    if (!(k in doc)) throw new Error(`refusal document lacks ${k}: ${result.content[0].text}`);
  }
  return doc;
}
