// What every example extension does before it trusts a document abcd printed: read it as JSON,
// and validate it against the published schema it claims to be (by $id, v1) with ajv, a validator
// that is not abcd's. A refusal document is abcd saying no, not a result: it is recognised and
// handed back as one. Nothing here imports abcd's code; the schemas come from the abcd binary
// (`abcd schema show NAME --json`) or from a folder of the published files.
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// The major version an extension is written against: a v2 schema is a different contract.
export const namespace = 'https://schemas.abcd.dev/v1/';

// schemaSource reads published schemas by name: from dir when given, else from the abcd binary
// (ABCD, default `abcd` on PATH), which serves the schemas of exactly the version that ran.
export function schemaSource({ dir = '', abcd = process.env.ABCD || 'abcd' } = {}) {
  return (name) => {
    if (dir) return JSON.parse(readFileSync(join(dir, `${name}.schema.json`), 'utf8'));
    const r = spawnSync(abcd, ['schema', 'show', name, '--json'], { encoding: 'utf8' });
    if (r.error) throw new ContractError(`cannot run ${abcd} to read the schema ${name}: ${r.error.message}`);
    if (r.status !== 0) throw new ContractError(`${abcd} schema show ${name} exited ${r.status}: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout).schema;
  };
}

export class ContractError extends Error {}

// Refused is abcd's refusal, carried to the caller intact.
export class Refused extends Error {
  constructor(doc) {
    super(`abcd refused (${doc.code}): ${doc.what ? `${doc.what}: ` : ''}${doc.why}\nremedy: ${doc.remedy}`);
    this.doc = doc;
  }
}

// read parses text as the one document of `name` (such as implement_record.result) and returns it
// once ajv says it is one; a refusal throws Refused, anything else ContractError.
export function read(text, name, schemaOf) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ContractError(`the input is not one JSON document: ${err.message}`);
  }
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const check = (schemaName) => {
    const schema = schemaOf(schemaName);
    if (schema.$id !== `${namespace}${schemaName}.schema.json`) {
      throw new ContractError(`the schema ${schemaName} has $id ${schema.$id}, not one of ${namespace}: this extension reads v1`);
    }
    const validate = ajv.compile(schema);
    return validate(doc) ? null : ajv.errorsText(validate.errors);
  };
  if (doc && typeof doc === 'object' && doc.kind && doc.code && doc.remedy !== undefined) {
    const problem = check('refusal');
    if (problem === null) throw new Refused(doc);
  }
  const problem = check(name);
  if (problem !== null) throw new ContractError(`the input is not a ${name} document: ${problem}`);
  return doc;
}

// main runs an extension: stdin (or the file named) through read, then render to stdout. Exit 0
// with the output; 2 when abcd refused (its refusal on stderr); 1 when the input breaks the
// contract. exitFor lets an extension choose a code for a valid document (lint's errors).
export function main(name, render, { argv = process.argv.slice(2), exitFor = () => 0 } = {}) {
  let dir = '';
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--schemas') dir = argv[++i] ?? '';
    else files.push(argv[i]);
  }
  try {
    const text = readFileSync(files[0] ?? 0, 'utf8');
    const doc = read(text, name, schemaSource({ dir }));
    process.stdout.write(render(doc));
    process.exitCode = exitFor(doc);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exitCode = err instanceof Refused ? 2 : 1;
  }
}

// runAsScript says whether the module at url is the script node was started with (rather than
// imported, as the tests import it).
export function runAsScript(url) {
  return process.argv[1] !== undefined && url === pathToFileURL(realpathSync(process.argv[1])).href;
}
