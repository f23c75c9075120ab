// The drive prompt, followed by a scripted MCP client (the official SDK v1 client over stdio) that
// does exactly what the prompt's text says: the tool calls it makes are the ones the text spells out,
// with the arguments the text gives; it starts one scripted agent per open await, all at once, gives
// each role's agent its prompt with the brief, hands every return back, and repeats until the run is
// finished, then reads the record. The run has a step that builds on two others and one failed
// review round, so the text has to carry a harness through a fix and the integration audit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bin, makeWorld, root } from './lib.mjs';

const intentID = 'itd-2611300000000001';
const specID = 'spc-2611300000000002';

function git(dir, env, ...args) {
  const r = spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function write(path, body) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, body);
}

// A repository with abcd set up, a planned intent with two criteria and its open spec of three
// steps, the third after the first two.
function setUp(world) {
  git(world.repo, world.env, 'checkout', '-q', '-b', 'main');
  git(world.repo, world.env, 'commit', '-q', '--allow-empty', '-m', 'base');
  const r = spawnSync(bin, ['ahoy', 'install', '--yes'], { cwd: world.repo, env: world.env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  write(join(world.repo, '.abcd/config.json'), JSON.stringify({ schema_version: 1, setup_version: 1, build: { dod: 'true' } }));
  write(join(world.repo, `.abcd/development/intents/planned/${intentID}-greet.md`),
    `---\nid: ${intentID}\ntype: intent\ntitle: "Greet"\nlifecycle: planned\nkind: standalone\nseverity: major\ncreated: 2026-11-30\n---\n\n` +
    '## Press Release\n\nIt greets.\n\n## Acceptance Criteria\n\n- ac-1: Given a name, when I run hello, then it greets that name.\n' +
    '- ac-2: Given no name, when I run hello, then it greets the world.\n\n## Open Questions\n\nNone.\n\n## Audit Notes\n\nNone yet.\n');
  write(join(world.repo, `.abcd/development/specs/open/${specID}-greet.md`),
    `---\nid: ${specID}\ntype: spec\ntitle: "Greet"\nlifecycle: open\nimplements: ${intentID}\ncreated: 2026-11-30\n---\n\n## Steps\n\n` +
    '1. Write the greeting.\n2. Read the name.\n3. (after 1, 2) Wire the command.\n');
  git(world.repo, world.env, 'add', '-A');
  git(world.repo, world.env, 'commit', '-q', '-m', 'record');
}

// calls reads the tool calls the driver text spells out: "call <tool> with {...}".
function calls(text) {
  const out = [];
  for (const m of text.matchAll(/call (\w+) with (\{[^}]*\})/gi)) out.push({ tool: m[1], args: m[2] });
  return out;
}

test('a scripted harness that follows the drive prompt finishes a run with a dependent step and a fixed round', async () => {
  const world = makeWorld({ record: false });
  const client = new Client({ name: 'scripted-harness', version: '1' });
  try {
    setUp(world);
    await client.connect(new StdioClientTransport({ command: bin, args: ['mcp', 'serve'], cwd: world.repo, env: world.env, stderr: 'ignore' }));
    assert.ok(client.getServerCapabilities().prompts, 'the prompts capability is declared');
    const { prompts } = await client.listPrompts();
    const roster = readFileSync(join(root, 'agents', 'ruthless-reviewer.md'), 'utf8');
    assert.ok(prompts.some((p) => p.name === 'drive'));

    const drive = await client.getPrompt({ name: 'drive', arguments: { spec: specID } });
    const text = drive.messages[0].content.text;
    const spelled = calls(text);
    const said = (tool) => {
      const c = spelled.find((s) => s.tool === tool);
      assert.ok(c, `the driver text tells the harness to call ${tool}`);
      return c.args;
    };
    // Every call is made with the arguments the text spells, its placeholders filled in.
    const called = [];
    const call = async (tool, fill = {}) => {
      let args = said(tool);
      for (const [hole, value] of Object.entries(fill)) args = args.replace(hole, value);
      const res = await client.callTool({ name: tool, arguments: JSON.parse(args) });
      called.push(tool);
      return res;
    };

    // 1. Start the run.
    const started = await call('implement_start');
    assert.ok(!started.isError, started.content[0].text);
    const run = started.structuredContent.run.run;
    const handed = new Set();
    let seq = 0;
    let failedOnce = false;
    let finished = false;
    for (let step = 0; step < 30 && !finished; step++) {
      // 2. implement_step: the open awaits.
      const stepped = await call('implement_step', { '<the run id>': run });
      assert.ok(!stepped.isError, stepped.content[0].text);
      const view = stepped.structuredContent.run;
      if (view.finished) { finished = true; break; }
      const open = view.awaits.filter((a) => !handed.has(a.id));
      assert.ok(open.length > 0, 'an unfinished run has an await open');
      // 3. One fresh agent per open await, all at once; each given only its brief (the role's
      // prompt, for the roster's agents).
      await Promise.all(open.map(async (a) => {
        handed.add(a.id);
        assert.ok(isAbsolute(a.brief) && isAbsolute(a.return));
        const brief = readFileSync(a.brief, 'utf8');
        if (a.role === 'implementer') {
          const checkout = /Work only in your own checkout, `([^`]+)`/.exec(brief)[1];
          const branch = git(checkout, world.env, 'symbolic-ref', '--short', 'HEAD');
          seq++;
          writeFileSync(join(checkout, `${a.lane}-${seq}.txt`), `${a.lane} ${a.kind}\n`);
          git(checkout, world.env, 'add', '-A');
          git(checkout, world.env, 'commit', '-q', '-m', `${a.lane} ${a.kind}`);
          const laneDir = dirname(dirname(a.return));
          write(join(laneDir, `dod-${seq}.txt`), 'ok\n');
          write(join(laneDir, `report-${seq}.md`), 'Did it.\n');
          write(a.return, JSON.stringify({ schema_version: 1, run, lane: a.lane, branch, commits: [git(checkout, world.env, 'rev-parse', 'HEAD')],
            dod: { command: 'true', exit_code: 0, output: `dod-${seq}.txt` }, report: `report-${seq}.md`, model: 'scripted' }));
          return;
        }
        const agent = await client.getPrompt({ name: a.role, arguments: { brief: a.brief } });
        const said = agent.messages[0].content.text;
        assert.ok(said.includes(a.brief), `the ${a.role} prompt names its brief`);
        if (a.role === 'ruthless-reviewer') assert.ok(said.startsWith(roster.slice(roster.indexOf('\n---\n') + 5).trim()), 'the definition comes first');
        if (a.role === 'intent-auditor') {
          write(a.return, JSON.stringify({ schema_version: 1, intent: intentID, summary: 'Audited.',
            verdicts: ['ac-1', 'ac-2'].map((criterion) => ({ criterion, verdict: 'MET', evidence: 'the merged branch', concerns: '' })) }));
          return;
        }
        const fail = a.role === 'ruthless-reviewer' && a.lane === 'lane-1' && !failedOnce;
        if (fail) failedOnce = true;
        const word = fail ? 'FIX FIRST' : a.role === 'ruthless-reviewer' ? 'SHIP' : 'APPROVE';
        write(a.return, `Read it.\n\n## Verdict\n\n${word}\n${fail ? '\n### F1. No test\n- Fix: add one.\n' : ''}`);
      }));
      // 4. Hand every return back.
      for (const a of open) {
        const res = await call('implement_receipt', { '<await.return>': a.return });
        assert.ok(!res.isError, res.content[0].text);
      }
    }
    assert.ok(finished, 'the run finished');

    // 6. The record.
    const record = await call('implement_record', { '<the run id>': run });
    const story = record.structuredContent;
    assert.deepEqual(story.by_route, [{ name: 'host', total: 9, passed: 8, failed: 1 }]);
    assert.equal(story.implementations.length, 4, 'three lanes and one fix');
    assert.ok(story.verdicts.some((v) => v.role === 'intent-auditor' && v.lane === 'integration'));
    assert.deepEqual([...new Set(called)].sort(), ['implement_receipt', 'implement_record', 'implement_start', 'implement_step']);
    for (const tool of called) assert.ok(spelled.some((s) => s.tool === tool), `${tool} is a call the text spells out`);
    const merged = git(world.repo, world.env, 'ls-tree', '--name-only', `abcd/${run}/integration`);
    for (const lane of ['lane-1', 'lane-2', 'lane-3']) assert.match(merged, new RegExp(`${lane}-\\d+\\.txt`));
  } finally {
    await client.close();
    world.cleanup();
  }
});
