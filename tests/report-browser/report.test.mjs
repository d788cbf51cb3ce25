// The HTML report as a teacher looks at it: `doublet report` on the Clough &
// Stevenson answers, the file opened from disk in headless Chromium (Debian's,
// driven by playwright-core from the VS Code harness's tools: bash
// tests/vscode-e2e/setup.sh installs them). Screenshots go to
// test-artifacts/report/.
//
//   node --test tests/report-browser/report.test.mjs

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, ensureInstalled, launchBrowser } from '../vscode-e2e/harness.mjs';

const DOUBLET = path.join(REPO_ROOT, '.venv', 'bin', 'doublet');
const CORPUS = path.join(REPO_ROOT, 'tests', 'data', 'clough-stevenson');
const ARTIFACTS = process.env.DOUBLET_REPORT_ARTIFACTS || path.join(REPO_ROOT, 'test-artifacts', 'report');

let workDir, folder, reportFile, scan, browser, page;
const problems = []; // console errors and uncaught exceptions of the page

function doublet(...args) {
  const run = spawnSync(DOUBLET, args, { encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, `doublet ${args.join(' ')} failed: ${run.stderr}`);
  return run;
}

before(async () => {
  ensureInstalled();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doublet-report-'));
  folder = path.join(workDir, 'answers');
  fs.mkdirSync(folder);
  for (const name of fs.readdirSync(CORPUS).filter((n) => n.endsWith('.txt'))) {
    fs.copyFileSync(path.join(CORPUS, name), path.join(folder, name));
  }
  reportFile = path.join(workDir, 'report.html');
  doublet('report', folder, '-o', reportFile, '--no-progress', '--no-index');
  scan = JSON.parse(doublet('scan', folder, '--format', 'json', '--no-progress', '--no-index').stdout);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:') && !request.url().startsWith('data:')) problems.push(`network: ${request.url()}`);
  });
  await page.goto(pathToFileURL(reportFile).href);
  await page.waitForSelector('#pairs tbody tr');
});

after(async () => {
  await browser?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

const shot = (name) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
const pathOf = (id) => scan.documents[id].path.split('/').pop();

test('the overview lists the top pair first, draws the histogram and the clusters', async () => {
  await shot('overview');
  const first = page.locator('#pairs tbody tr').first();
  assert.equal(await first.getAttribute('data-rank'), '1');
  const cells = await first.locator('td').allInnerTexts();
  const top = scan.pairs[0];
  assert.ok(cells[1].endsWith(pathOf(top.a)), `${cells[1]} is not ${pathOf(top.a)}`);
  assert.ok(cells[2].endsWith(pathOf(top.b)), `${cells[2]} is not ${pathOf(top.b)}`);
  assert.equal(cells[3], `${Math.round(100 * top.similarity)}%`);
  assert.equal(await page.locator('#stat-pairs').innerText(), String(scan.pairs.length));
  assert.ok((await page.locator('#histogram rect.bar').count()) === 20);
  assert.equal(await page.locator('#histogram line.threshold').count(), 1);
  // the original of each task and its copies are one cluster at the default threshold
  assert.ok((await page.locator('#graph circle').count()) >= 10, 'the cluster graph has nodes');
  assert.ok((await page.locator('#graph line').count()) >= 5, 'the cluster graph has edges');
  assert.ok((await page.locator('.heatmap').count()) === 0, 'no heatmap for 95 documents');
  await page.locator('#clusters-area').scrollIntoViewIfNeeded();
  await shot('clusters');
  assert.deepEqual(problems, []);
});

test('filters hide pairs, and the threshold moves the histogram and clusters', async () => {
  const rows = () => page.locator('#pairs tbody tr').count();
  const expected = scan.pairs.filter((p) => p.similarity >= 0.9).length;
  await page.fill('#filter-score', '0.9');
  await page.dispatchEvent('#filter-score', 'change');
  assert.equal(await rows(), Math.min(expected, 100));
  assert.ok(expected < scan.pairs.length);
  await page.fill('#filter-score', '0');
  await page.dispatchEvent('#filter-score', 'change');
  await page.fill('#filter-name', 'taske');
  const named = scan.pairs.filter((p) => (scan.documents[p.a].path + scan.documents[p.b].path).includes('taske')).length;
  assert.equal(await rows(), Math.min(named, 100));
  assert.ok(named < scan.pairs.length && named > 0);
  await page.fill('#filter-name', '');
  await page.selectOption('#filter-kind', 'paraphrased');
  const reworded = scan.pairs.filter((p) => p.passages.some((q) => q.kind === 'paraphrased')).length;
  assert.equal(await rows(), Math.min(reworded, 100));
  await page.selectOption('#filter-kind', '');
  // sorting: a click on "Longest" puts the longest passage first
  await page.click('th[data-key="longest"]');
  const longest = Math.max(...scan.pairs.map((p) => p.longest));
  assert.equal(await page.locator('#pairs tbody tr').first().locator('td').nth(6).innerText(), String(longest));
  await page.click('th[data-key="rank"]');
  // the threshold slider: at 100% no cluster is left, at 0% every pair links
  const before = await page.locator('#graph circle').count();
  await page.locator('#threshold').fill('1');
  assert.ok((await page.locator('#graph circle').count()) < before);
  assert.equal(await page.locator('#stat-above').innerText(), String(scan.pairs.filter((p) => p.similarity >= 1).length));
  await page.locator('#threshold').fill('0.5');
  assert.deepEqual(problems, []);
});

test('a pair shows both sides with the same passages, and a click brings the other side to it', async () => {
  await page.locator('#pairs tbody tr').first().locator('td.score').click();
  await page.waitForSelector('#pair-view');
  const marks = async (side) => new Set(await page.locator(`#side-${side} mark`).evaluateAll((ms) => ms.map((m) => m.dataset.p)));
  const [a, b] = [await marks('a'), await marks('b')];
  assert.ok(a.size > 0, 'passages are highlighted');
  assert.deepEqual([...a].sort(), [...b].sort(), 'the same passages on both sides');
  assert.equal(a.size, scan.pairs[0].passages.length);
  // the highlighted text on A is the passage's text
  const passage = scan.pairs[0].passages[0];
  const text = fs.readFileSync(path.join(workDir, 'answers', pathOf(scan.pairs[0].a)), 'utf8');
  const shown = (await page.locator('#side-a mark[data-p="0"]').allTextContents()).join('');
  assert.equal(shown, text.slice(passage.a.start, passage.a.end));
  // a colour per passage, the same on both sides
  const colourA = await page.locator('#side-a mark[data-p="0"]').first().evaluate((m) => getComputedStyle(m).backgroundColor);
  const colourB = await page.locator('#side-b mark[data-p="0"]').first().evaluate((m) => getComputedStyle(m).backgroundColor);
  assert.equal(colourA, colourB);
  await page.locator('#side-a mark[data-p="0"]').first().click();
  assert.ok((await page.locator('#side-b mark.flash').count()) > 0, 'the other side is flashed');
  await shot('pair');
  assert.deepEqual(problems, []);
});

test('a long pair scrolls the other side to the clicked passage', async () => {
  // the pair with a passage furthest into B: clicking it on A must scroll B
  let best = null;
  scan.pairs.forEach((p, i) => p.passages.forEach((q, j) => {
    if (!best || q.b.start > best.start) best = { rank: i + 1, index: j, start: q.b.start };
  }));
  await page.goto(`${pathToFileURL(reportFile).href}#/pair/${best.rank}`);
  await page.waitForSelector('#pair-view');
  await page.setViewportSize({ width: 1400, height: 500 });
  await page.evaluate(() => { document.getElementById('side-b').scrollTop = 0; });
  await page.locator(`#side-a mark[data-p="${best.index}"]`).first().click();
  const scrolled = await page.evaluate(() => document.getElementById('side-b').scrollTop);
  const needed = await page.evaluate(() => document.getElementById('side-b').scrollHeight > document.getElementById('side-b').clientHeight);
  if (needed) assert.ok(scrolled > 0, 'side B scrolled to the passage');
  await page.setViewportSize({ width: 1400, height: 1000 });
  assert.deepEqual(problems, []);
});

test('a document lists all its partners', async () => {
  const id = scan.pairs[0].a;
  await page.goto(`${pathToFileURL(reportFile).href}#/doc/${id}`);
  await page.waitForSelector('#doc-view');
  const partners = scan.pairs.filter((p) => p.a === id || p.b === id).length;
  assert.equal(await page.locator('#partners tbody tr').count(), partners);
  await shot('document');
  // and prints as a clean page: no controls, no header
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('header.top').isVisible(), false);
  await page.emulateMedia({ media: 'screen' });
  assert.deepEqual(problems, []);
});

test('text given to everyone (a template) is greyed, not marked', async () => {
  const folder = path.join(workDir, 'course');
  fs.mkdirSync(folder);
  const assignment = 'Question one. Explain in your own words how a search engine ranks the documents it finds for a query, and what the weight of a term is. ';
  const shared = 'The vector space model represents documents as vectors of terms, and the weight of each term says how much it tells about the document; the cosine of two vectors says how alike two documents are. ';
  fs.writeFileSync(path.join(folder, 'doublet.toml'), 'templates = ["assignment.txt"]\n');
  fs.writeFileSync(path.join(folder, 'assignment.txt'), assignment);
  fs.writeFileSync(path.join(folder, 'ana.txt'), `${assignment}\n\n${shared.repeat(2)}`);
  fs.writeFileSync(path.join(folder, 'ben.txt'), `${shared.repeat(2)}\n\n${assignment}`);
  const file = path.join(workDir, 'course.html');
  doublet('report', folder, '-o', file, '--no-progress', '--no-index');
  await page.goto(`${pathToFileURL(file).href}#/pair/1`);
  await page.waitForSelector('#pair-view');
  for (const side of ['a', 'b']) {
    const grey = (await page.locator(`#side-${side} .given`).allTextContents()).join('');
    assert.ok(grey.includes('search engine ranks'), `side ${side} greys the assignment: ${grey}`);
    const marked = (await page.locator(`#side-${side} mark`).allTextContents()).join('');
    assert.ok(!marked.includes('search engine ranks'), 'the assignment is not a passage');
  }
  await shot('pair-template');
  assert.deepEqual(problems, []);
});

test("a submission (one author's documents) lists its partners once each", async () => {
  const folder = path.join(workDir, 'groups');
  const shared = fs.readFileSync(path.join(CORPUS, 'orig_taska.txt'), 'utf8');
  const other = fs.readFileSync(path.join(CORPUS, 'orig_taskb.txt'), 'utf8');
  fs.mkdirSync(path.join(folder, 'alice'), { recursive: true });
  fs.mkdirSync(path.join(folder, 'bob'));
  fs.writeFileSync(path.join(folder, 'doublet.toml'), 'groups = "top-level"\n');
  fs.writeFileSync(path.join(folder, 'alice', 'draft.txt'), shared);
  fs.writeFileSync(path.join(folder, 'alice', 'final.txt'), `${shared}\n${other}`);
  fs.writeFileSync(path.join(folder, 'bob', 'essay.txt'), `${other}\n${shared}`);
  const file = path.join(workDir, 'groups.html');
  doublet('report', folder, '-o', file, '--no-progress', '--no-index');
  await page.goto(`${pathToFileURL(file).href}#/doc/0`);
  await page.waitForSelector('#submission-view');
  assert.match(await page.locator('#submission-view h2').innerText(), /alice: 2 documents/);
  const rows = await page.locator('#submission-partners tbody tr td:first-child').allInnerTexts();
  assert.deepEqual(rows, ['bob'], 'bob once, though both of alice\'s documents pair with him');
  await shot('submission');
  assert.deepEqual(problems, []);
});

test('a warning of the scan stands at the top of the overview', async () => {
  assert.equal(await page.locator('.warning').count(), 0);
  const warned = path.join(workDir, 'warned.html');
  doublet('report', folder, '-o', warned, '--no-progress', '--no-index', '--noise', '1');
  const other = await browser.newPage();
  try {
    await other.goto(pathToFileURL(warned).href);
    const text = await other.locator('#overview .warning').innerText();
    assert.match(text, /^Warning: \d+% of the prose documents' fingerprints .* prose\.noise = 1 is too short/);
  } finally {
    await other.close();
  }
});

