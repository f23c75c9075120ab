// The differential test of the validator the MCP door runs: abcd's own JSON Schema subset
// (frontdoors/internal/jsonschema) and ajv (draft 2020-12, with ajv-formats, as every other test
// here reads the schemas) judge the same instances of every schema published in schemas/v1, and must
// reach the same verdict on every one. The instances come from
// frontdoors/internal/jsonschema/differential: for each schema a valid instance and mutations that
// break each keyword it uses (a wrong type, a missing required member, an extra member, a value
// outside an enum, a pattern or format miss, lengths, bounds, item counts, duplicates), generated from
// the schema alone, deterministically, each carrying abcd's verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const schemaDir = join(root, 'schemas', 'v1');

const gen = spawnSync('go', ['run', './frontdoors/internal/jsonschema/differential', schemaDir], {
  cwd: root, encoding: 'utf8', maxBuffer: 256 << 20,
});
assert.equal(gen.status, 0, `the case generator failed: ${gen.stderr}`);
const cases = JSON.parse(gen.stdout);

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const files = readdirSync(schemaDir).filter((f) => f.endsWith('.schema.json')).sort();
const validators = new Map();
for (const f of files) {
  const schema = JSON.parse(readFileSync(join(schemaDir, f), 'utf8'));
  validators.set(f, ajv.compile(schema));
}

test('every published schema has instances, valid and not', () => {
  for (const f of files) {
    const mine = cases.filter((c) => c.schema === f);
    assert.ok(mine.some((c) => c.intended === true), `${f}: no valid instance`);
    assert.ok(mine.some((c) => c.intended === false), `${f}: no instance built to fail`);
  }
  assert.ok(cases.filter((c) => !c.ours).length > 1000, 'the mutations refuse');
});

test('ajv and abcd agree on every verdict', () => {
  const disagree = [];
  for (const c of cases) {
    const validate = validators.get(c.schema);
    assert.ok(validate, `${c.schema} is not in schemas/v1`);
    const theirs = validate(JSON.parse(c.instance));
    if (theirs !== c.ours) {
      disagree.push(`${c.schema} ${c.case}: ajv ${theirs ? 'accepts' : 'refuses'}, abcd ${c.ours ? 'accepts' : `refuses (${c.why})`}: ${c.instance.slice(0, 200)}`);
    }
    if (c.intended !== undefined && theirs !== c.intended) {
      disagree.push(`${c.schema} ${c.case}: built to be ${c.intended ? 'valid' : 'invalid'}, ajv ${theirs ? 'accepts' : 'refuses'} it`);
    }
  }
  assert.deepEqual(disagree, [], `${disagree.length} of ${cases.length} verdicts differ`);
});
