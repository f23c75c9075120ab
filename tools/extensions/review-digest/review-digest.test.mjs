// review-digest on a real run: the built binary's `implement record --json`, validated by ajv
// against the published implement_record.result, becomes a pull-request comment body; a refusal
// is passed on as one; a document that breaks the schema is refused, whichever source of schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Repo, extension, hostileFinding, schemaDir } from '../testrun.mjs';

const script = fileURLToPath(new URL('./review-digest.mjs', import.meta.url));

test("a finished run becomes a comment: abcd's story with its lane graph, the verdict counts, the failed round quoted so it cannot escape", () => {
  const repo = new Repo();
  try {
    const run = repo.finishedRun();
    const record = repo.abcd('implement', 'record', '--run', run, '--markdown', '--json');
    assert.equal(record.status, 0, record.stderr);
    for (const args of [[], ['--schemas', schemaDir]]) {
      const res = extension(script, record.stdout, ...args);
      assert.equal(res.status, 0, res.stderr);
      const body = res.stdout;
      assert.match(body, new RegExp(`^### abcd run \`${run}\`: spec spc-2611300000000002 \\(intent itd-2611300000000001\\), finished`));
      assert.match(body, /2 lanes, 3 implementations, 7 verdicts \(6 passed, 1 failed\), 0 fallbacks\./);
      // The lane graph: lane-2 builds on lane-1, both merged into the integration.
      assert.match(body, /```mermaid\nflowchart LR\n/);
      assert.match(body, /\n {2}n0 --> n1\n/);
      assert.match(body, /\n {2}n1 -\.-> n2\n/);
      assert.match(body, /\| host \| 7 \| 6 \| 1 \|/);
      assert.match(body, /\| ruthless-reviewer \| 3 \| 2 \| 1 \|/);
      assert.match(body, /\*\*lane-1, round 1\*\*\n\n- ruthless-reviewer: \*\*FIX FIRST\*\* \(failed; host\)/);
      // What it cost: the host's steps, ten of them, of unknown cost, never a guessed figure.
      assert.match(body, /\| the run \| 10 \| 0\.00 \| 10 \| 0 \| 0 \| 0 \| 0\.0 \|/);
      assert.match(body, /\| route host \| 10 \| 0\.00 \| 10 \|/);
      assert.match(body, /\| role implementer \| 3 \| 0\.00 \| 3 \|/);
      // The finding holds a ``` line: the quote is opened with a longer fence, so the whole finding,
      // its mention included, stays inside it.
      const open = body.indexOf('````text\n');
      assert.ok(open > 0, 'a four-backtick fence');
      const close = body.indexOf('\n  ````\n', open);
      assert.ok(close > open, 'the fence is closed');
      assert.ok(body.slice(open, close).includes(hostileFinding.split('\n')[2]), 'the inner fence is quoted');
      assert.ok(body.slice(open, close).includes('@octocat'));
      assert.equal(body.split('@octocat').length, 2, 'the mention appears only inside the quote');
      assert.match(body, new RegExp(`<!-- abcd review-digest ${run} -->\\n$`));
    }
    // Without --markdown the record carries no story, and the digest says how to ask for it.
    const bare = repo.abcd('implement', 'record', '--run', run, '--json');
    const res = extension(script, bare.stdout);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /--markdown --json/);
    assert.equal(res.stdout, '');
  } finally {
    repo.close();
  }
});

test("abcd's refusal is passed on, and a document that breaks the schema is refused", () => {
  const repo = new Repo();
  try {
    const refused = repo.abcd('implement', 'record', '--run', 'run-2611300000000009', '--json');
    assert.equal(refused.status, 2);
    const res = extension(script, refused.stdout);
    assert.equal(res.status, 2);
    assert.match(res.stderr, /^abcd refused \(run_unknown\)/);
    assert.equal(res.stdout, '');

    const run = repo.finishedRun();
    const doc = JSON.parse(repo.abcd('implement', 'record', '--run', run, '--json').stdout);
    for (const [what, broken] of [
      ['no verdicts', { ...doc, verdicts: undefined }],
      ['a verdict without its word', { ...doc, verdicts: doc.verdicts.map(({ word, ...v }) => v) }],
      ['a member v1 does not have', { ...doc, extra: true }],
    ]) {
      const r = extension(script, JSON.stringify(broken), '--schemas', schemaDir);
      assert.equal(r.status, 1, what);
      assert.match(r.stderr, /is not a implement_record\.result document/, what);
      assert.equal(r.stdout, '', what);
    }
    const notJSON = extension(script, 'run finished\n');
    assert.equal(notJSON.status, 1);
    assert.match(notJSON.stderr, /not one JSON document/);
    const wrongDir = extension(script, JSON.stringify(doc), '--schemas', join(schemaDir, 'nope'));
    assert.equal(wrongDir.status, 1);
  } finally {
    repo.close();
  }
});
