#!/usr/bin/env node
// review-digest: the story of an abcd run as a pull-request comment body (GitHub markdown).
//
//   abcd implement record --json | node review-digest.mjs [--schemas DIR] > comment.md
//   gh pr comment --body-file comment.md
//
// It reads only `abcd implement record --json`, validated against the published schema
// implement_record.result (v1) first. What the agents wrote (findings) is untrusted text: it is
// quoted in fences no line of it can close, so it cannot mention anyone or render as markup.
import { main, runAsScript } from '../contract.mjs';

// fence returns a code fence longer than any run of backticks in text.
function fence(text) {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

// cell makes text safe inside a table cell: one line, no pipe.
const cell = (s) => String(s).replace(/\s+/g, ' ').replace(/\|/g, '\\|');

const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export function digest(doc) {
  const { run } = doc;
  const lines = [];
  const what = run.kind === 'spec' ? `spec ${run.spec} (intent ${run.intent})` : run.kind === 'audit' ? `audit of ${run.intent}` : `${run.kind}`;
  lines.push(`### abcd run \`${run.run}\`: ${what}, ${run.finished ? 'finished' : 'in progress'}`, '');
  const lanes = run.lanes.filter((l) => !l.integration);
  const failed = doc.verdicts.filter((v) => !v.pass);
  const passed = doc.verdicts.length - failed.length;
  lines.push(`${count(lanes.length, 'lane', 'lanes')}, ${count(doc.implementations.length, 'implementation', 'implementations')}, ` +
    `${count(doc.verdicts.length, 'verdict', 'verdicts')} (${passed} passed, ${failed.length} failed), ${count(doc.fallbacks.length, 'fallback', 'fallbacks')}.`, '');
  lines.push('| lane | step | stage | rounds | failed rounds | branch |', '|---|---|---|---|---|---|');
  for (const l of run.lanes) {
    lines.push(`| ${cell(l.id)} | ${l.integration ? 'the integration' : cell(`${l.step}. ${l.text}`)} | ${cell(l.stage)} | ${l.round} | ${l.failed} | \`${cell(l.branch)}\` |`);
  }
  lines.push('', '| verdicts by route | total | passed | failed |', '|---|---|---|---|');
  for (const c of doc.by_route) lines.push(`| ${cell(c.name)} | ${c.total} | ${c.passed} | ${c.failed} |`);
  lines.push('', '| verdicts by role | total | passed | failed |', '|---|---|---|---|');
  for (const c of doc.by_role) lines.push(`| ${cell(c.name)} | ${c.total} | ${c.passed} | ${c.failed} |`);
  if (failed.length > 0) {
    lines.push('', '<details><summary>Findings of the failed rounds</summary>', '');
    for (const v of failed) {
      const text = v.findings.trim() || '(no findings written)';
      const f = fence(text);
      lines.push(`**${cell(v.lane)}, round ${v.round}, ${cell(v.role)}: ${cell(v.word)}** (route ${cell(v.route)}, ran ${cell(v.ran)})`, '', `${f}text`, text, f, '');
    }
    lines.push('</details>');
  }
  const handedBack = run.lanes.filter((l) => l.stage === 'handed-back');
  if (handedBack.length > 0) {
    lines.push('', `**Handed back:** ${handedBack.map((l) => cell(l.id)).join(', ')}: their findings need a person.`);
  }
  if (doc.fallbacks.length > 0) {
    lines.push('', '| fallback | asked | reason | ran |', '|---|---|---|---|');
    for (const f of doc.fallbacks) lines.push(`| ${cell(f.lane)} round ${f.round} ${cell(f.role)} | ${cell(f.asked)} | ${cell(f.reason)} | ${cell(f.ran)} |`);
  }
  // What the run cost: its steps in all, then per route, role and lane; a step whose cost no one
  // reported or priced is counted apart, never guessed at.
  const spend = run.spend;
  const row = (what, s) => `| ${what} | ${s.steps} | ${s.usd.toFixed(2)} | ${s.unknown} | ${s.unmetered} | ${s.input} | ${s.output} | ${(s.wall_ms / 1000).toFixed(1)} |`;
  lines.push('', '| spent by | steps | USD | of unknown cost | unmetered | input tokens | output tokens | runners\' seconds |', '|---|---|---|---|---|---|---|---|');
  lines.push(row('the run', spend.run));
  for (const [what, rows] of [['route', spend.routes], ['role', spend.roles], ['lane', spend.lanes]]) {
    for (const r of rows) lines.push(row(`${what} ${cell(r.name)}`, r.spend));
  }
  lines.push('', `<!-- abcd review-digest ${run.run} -->`, '');
  return lines.join('\n');
}

if (runAsScript(import.meta.url)) main('implement_record.result', digest);
