#!/usr/bin/env node
// review-digest: the story of an abcd run as a pull-request comment body (GitHub markdown).
//
//   abcd implement record --markdown --json | node review-digest.mjs [--schemas DIR] > comment.md
//   gh pr comment --body-file comment.md
//
// It reads only `abcd implement record --markdown --json`, validated against the published schema
// implement_record.result (v1) first. The story is abcd's own telling (`markdown`: the lane graph as a
// Mermaid block, every step, every round's verdicts and findings, the fallbacks, the audit per
// criterion), in which what the agents wrote is already quoted in fences no line of it can close;
// the digest adds the verdict counts by route and by role, the lanes that need a person, and a marker
// a bot can find its own comment by.
import { main, runAsScript } from '../contract.mjs';

// cell makes text safe inside a table cell: one line, no pipe, no markup.
const cell = (s) => String(s).replace(/\s+/g, ' ').replace(/[|\\`*_[\]<>#!~]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`));

export function digest(doc) {
  if (typeof doc.markdown !== 'string' || doc.markdown === '') {
    throw new Error('the record carries no story: run `abcd implement record --markdown --json`');
  }
  const { run } = doc;
  const lines = [doc.markdown.trimEnd(), ''];
  lines.push('| verdicts by route | total | passed | failed |', '|---|---|---|---|');
  for (const c of doc.by_route) lines.push(`| ${cell(c.name)} | ${c.total} | ${c.passed} | ${c.failed} |`);
  lines.push('', '| verdicts by role | total | passed | failed |', '|---|---|---|---|');
  for (const c of doc.by_role) lines.push(`| ${cell(c.name)} | ${c.total} | ${c.passed} | ${c.failed} |`);
  const handedBack = run.lanes.filter((l) => l.stage === 'handed-back');
  if (handedBack.length > 0) {
    lines.push('', `**Handed back:** ${handedBack.map((l) => cell(l.id)).join(', ')}: their findings need a person.`);
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
