// The HTML report in Firefox: the same file opened from disk in Debian's firefox-esr,
// driven over WebDriver BiDi by puppeteer-core (bash tests/report-browser/setup.sh
// installs both). The reader's main path only: the Chromium test covers the rest.
// Screenshots go to test-artifacts/report/.
//
//   node --test tests/report-browser/firefox.test.mjs

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '..', '..');
const DOUBLET = path.join(REPO_ROOT, '.venv', 'bin', 'doublet');
const CORPUS = path.join(REPO_ROOT, 'tests', 'data', 'clough-stevenson');
const ARTIFACTS = process.env.DOUBLET_REPORT_ARTIFACTS || path.join(REPO_ROOT, 'test-artifacts', 'report');
const FIREFOX = process.env.DOUBLET_FIREFOX || ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((p) => fs.existsSync(p));

let workDir, reportFile, scan, browser, page;
const problems = [];

before(async () => {
  assert.ok(FIREFOX, 'Firefox is not installed: run bash tests/report-browser/setup.sh');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doublet-report-ff-'));
  const folder = path.join(workDir, 'answers');
  fs.mkdirSync(folder);
  for (const name of fs.readdirSync(CORPUS).filter((n) => n.endsWith('.txt'))) {
    fs.copyFileSync(path.join(CORPUS, name), path.join(folder, name));
  }
  reportFile = path.join(workDir, 'report.html');
  for (const args of [['report', folder, '-o', reportFile], ['scan', folder, '--format', 'json']]) {
    const run = spawnSync(DOUBLET, [...args, '--no-progress', '--no-index'], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    if (args[0] === 'scan') scan = JSON.parse(run.stdout);
  }
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    timeout: 60_000,
    extraPrefsFirefox: { 'browser.shell.checkDefaultBrowser': false, 'app.update.enabled': false },
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.goto(pathToFileURL(reportFile).href);
  await page.waitForSelector('#pairs tbody tr');
});

after(async () => {
  await browser?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

test('Firefox: the top pair first, a filter, both sides of a pair', async () => {
  await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-overview.png') });
  const first = await page.$eval('#pairs tbody tr', (row) => [row.dataset.rank, ...[...row.cells].map((c) => c.textContent)]);
  const top = scan.pairs[0];
  assert.equal(first[0], '1');
  assert.ok(first[2].endsWith(scan.documents[top.a].path.split('/').pop()));
  assert.ok(first[3].endsWith(scan.documents[top.b].path.split('/').pop()));
  assert.ok((await page.$$('#graph circle')).length >= 10, 'the cluster graph is drawn');
  // a filter hides pairs
  await page.$eval('#filter-score', (input) => { input.value = '0.9'; input.dispatchEvent(new Event('change')); });
  const expected = scan.pairs.filter((p) => p.similarity >= 0.9).length;
  assert.equal((await page.$$('#pairs tbody tr')).length, Math.min(expected, 100));
  // the top pair side by side: the same passages on both sides, linked
  await page.click('#pairs tbody tr td.score');
  await page.waitForSelector('#pair-view');
  const marks = (side) => page.$$eval(`#side-${side} mark`, (ms) => [...new Set(ms.map((m) => m.dataset.p))].sort());
  const [a, b] = [await marks('a'), await marks('b')];
  assert.ok(a.length > 0);
  assert.deepEqual(a, b);
  await page.click('#side-a mark[data-p="0"]');
  assert.ok((await page.$$('#side-b mark.flash')).length > 0, 'the other side is flashed');
  await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-pair.png') });
  assert.deepEqual(problems, []);
});
