#!/usr/bin/env node
// lint-annotations: `abcd lint --json` as GitHub Actions annotations, one workflow command per
// finding, so each shows on the file and line it is about in a pull request.
//
//   abcd lint --json | node lint-annotations.mjs [--schemas DIR]
//
// It reads only that document, validated against the published schema lint.result (v1) first,
// and exits 1 when abcd found an error-level problem, as `abcd lint` does.
import { main, runAsScript } from '../contract.mjs';

// GitHub's workflow-command escaping: a message escapes %, CR and LF; a property value also : and ,.
const data = (s) => String(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const property = (s) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

export function annotations(doc) {
  const out = [];
  for (const f of doc.findings) {
    const props = [`file=${property(f.file)}`];
    if (f.line > 0) props.push(`line=${f.line}`);
    props.push(`title=${property(`abcd lint ${f.code}`)}`);
    out.push(`::${f.level === 'error' ? 'error' : 'warning'} ${props.join(',')}::${data(`${f.message}. Remedy: ${f.remedy}`)}`);
  }
  out.push(`::notice title=abcd lint::${data(`${doc.checked} records checked: ${doc.errors} errors, ${doc.warnings} warnings`)}`);
  return `${out.join('\n')}\n`;
}

if (runAsScript(import.meta.url)) main('lint.result', annotations, { exitFor: (doc) => (doc.errors > 0 ? 1 : 0) });
