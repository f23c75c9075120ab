// lint-annotations on a real record: the built binary's `lint --json`, validated by ajv against
// the published lint.result, becomes one GitHub Actions workflow command per finding (escaped as
// GitHub reads them) and a notice, exiting 1 on an error-level finding as abcd lint does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Repo, extension, schemaDir } from '../testrun.mjs';

const script = fileURLToPath(new URL('./lint-annotations.mjs', import.meta.url));

// unescape reads a workflow command's value back the way GitHub does.
const unescape = (s) => s.replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');

test('every finding of a real lint becomes an annotation on its file and line, and errors fail the step', () => {
  const repo = new Repo();
  try {
    // A draft intent with placeholders left (warnings), and a spec whose step builds on a step
    // that does not exist (an error).
    const created = repo.json('intent', 'new', 'Greet, politely: 100% of people').record;
    const spec = repo.json('spec', 'new', '--intent', created.id, 'Greet').record;
    const specText = readFileSync(join(repo.root, spec.path), 'utf8');
    repo.write(spec.path, specText.replace(/<!-- fill: a numbered list[^>]*-->/, '1. Write it.\n2. (after 7) Wire it.'));
    const lint = repo.abcd('lint', '--json');
    assert.equal(lint.status, 1, 'abcd lint exits 1 on an error');
    const doc = JSON.parse(lint.stdout);
    assert.ok(doc.errors > 0 && doc.warnings > 0, lint.stdout);

    for (const args of [[], ['--schemas', schemaDir]]) {
      const res = extension(script, lint.stdout, ...args);
      assert.equal(res.status, 1, res.stderr);
      const lines = res.stdout.trimEnd().split('\n');
      assert.equal(lines.length, doc.findings.length + 1);
      doc.findings.forEach((f, i) => {
        const m = /^::(error|warning) (.*?)::(.*)$/.exec(lines[i]);
        assert.ok(m, lines[i]);
        assert.equal(m[1], f.level);
        const props = Object.fromEntries(m[2].split(',').map((kv) => kv.split('=')).map(([k, v]) => [k, unescape(v)]));
        assert.equal(props.file, f.file);
        assert.equal(props.title, `abcd lint ${f.code}`);
        if (f.line > 0) assert.equal(Number(props.line), f.line);
        assert.equal(unescape(m[3]), `${f.message}. Remedy: ${f.remedy}`);
        assert.ok(!m[3].includes('\n'));
      });
      assert.equal(lines.at(-1), `::notice title=abcd lint::${doc.checked} records checked: ${doc.errors} errors, ${doc.warnings} warnings`);
    }
  } finally {
    repo.close();
  }
});

test('a clean record annotates nothing but the notice and passes; a refusal and a broken document do not', () => {
  const repo = new Repo();
  try {
    const lint = repo.abcd('lint', '--json');
    assert.equal(lint.status, 0);
    const res = extension(script, lint.stdout);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stdout, '::notice title=abcd lint::0 records checked: 0 errors, 0 warnings\n');

    const broken = extension(script, JSON.stringify({ checked: 1, errors: 0, warnings: 0, findings: [{ level: 'fatal' }] }), '--schemas', schemaDir);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /is not a lint\.result document/);

    const refusal = repo.abcd('intent', 'show', 'nothing-by-that-name', '--json');
    assert.equal(refusal.status, 2);
    const passed = extension(script, refusal.stdout);
    assert.equal(passed.status, 2);
    assert.match(passed.stderr, /^abcd refused/);
  } finally {
    repo.close();
  }
});
