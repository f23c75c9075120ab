#!/usr/bin/env node
// page.mjs opens a run's page (abcd implement record --html) in headless Chromium from a file URL
// with the network cut off, and prints what a person would see as one JSON document on stdout: the
// lanes drawn, the edges between them, the verdicts, whether any script ran, every request other
// than the page itself (there should be none), and axe-core's violations. It saves a screenshot in
// each colour scheme. The Go test that made the run (TestHarnessTheRunsPageInChromium) judges it.
//
//   node page.mjs PAGE.html SHOT-PREFIX CHROMIUM
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const [file, shots, browserPath] = process.argv.slice(2);
if (!file || !shots || !browserPath) {
  process.stderr.write('usage: node page.mjs PAGE.html SHOT-PREFIX CHROMIUM\n');
  process.exit(2);
}
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const url = pathToFileURL(file).href;

const args = ['--proxy-server=127.0.0.1:9', '--host-resolver-rules=MAP * ~NOTFOUND', '--disable-background-networking', '--no-first-run'];
if (process.getuid?.() === 0) args.push('--no-sandbox'); // Chromium refuses root without it
const browser = await puppeteer.launch({ executablePath: browserPath, headless: true, args });
try {
  const page = await browser.newPage();
  await page.setOfflineMode(true);
  const requests = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.url() === url) {
      req.continue();
      return;
    }
    requests.push(req.url());
    req.abort();
  });
  const consoleErrors = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  await page.setViewport({ width: 1100, height: 900 });
  await page.goto(url, { waitUntil: 'load' });
  const seen = await page.evaluate(() => ({
    title: document.title,
    lanes: [...document.querySelectorAll('svg g.node[data-lane]')].map((g) => ({
      id: g.dataset.lane, stage: g.dataset.stage, visible: g.getBoundingClientRect().width > 0,
      text: [...g.querySelectorAll('text')].map((t) => t.textContent),
    })),
    edges: [...document.querySelectorAll('svg path.edge')].map((p) => ({ from: p.dataset.from, to: p.dataset.to, merged: p.classList.contains('merged'), length: p.getTotalLength() })),
    verdicts: [...document.querySelectorAll('.verdict[data-verdict]')].map((v) => ({ lane: v.dataset.lane, role: v.dataset.role, verdict: v.dataset.verdict })),
    criteria: [...document.querySelectorAll('tr.criterion')].map((r) => ({ criterion: r.dataset.criterion, verdict: r.dataset.verdict })),
    steps: document.querySelectorAll('tr.step').length,
    scripts: document.scripts.length,
    background: getComputedStyle(document.body).backgroundColor,
  }));
  await page.screenshot({ path: `${shots}-light.png`, fullPage: true });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  seen.darkBackground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.screenshot({ path: `${shots}-dark.png`, fullPage: true });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
  // axe-core, evaluated by the DevTools protocol (the page's own policy lets no script in).
  await page.evaluate(axeSource);
  const axe = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ['violations'] }));
  seen.violations = axe.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  seen.requests = requests;
  seen.consoleErrors = consoleErrors;
  process.stdout.write(`${JSON.stringify(seen)}\n`);
} finally {
  await browser.close();
}
