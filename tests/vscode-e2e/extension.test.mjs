// End-to-end tests of Doublet's VS Code extension in a real VS Code workbench
// (code-server + headless chromium, see README.md and harness.mjs):
//
//   bash tests/vscode-e2e/setup.sh && make vsix
//   node --test tests/vscode-e2e/extension.test.mjs
//
// Each session installs the built .vsix (client-vscode/doublet-<platform>-<version>.vsix,
// e.g. doublet-linux-x64-0.1.0.vsix, or $DOUBLET_VSIX) into a fresh code-server, opens a
// fresh copy of examples/ and drives the workbench like a user. Every step saves
// test-artifacts/vscode/ext-*.png.
//
// Most sessions point doublet.python.path at the repository's .venv (Doublet installed
// in editable mode, the right version: the extension uses it as is). The first-start
// sessions have no Doublet for their Python and no package index (pip's index, find-links
// and configuration all point at a port that refuses): the extension must run the server
// from the libraries bundled in the .vsix, within 3 s of the workbench being up.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  REPO_ROOT,
  descendants,
  ensureInstalled,
  leftoverProcesses,
  setWorkspaceSettings,
  waitFor,
  withVSCode,
} from './harness.mjs';

const EXT_ID = 'doublet.doublet';
const VERSION = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'client-vscode', 'package.json'), 'utf8')).version;
// VS Code's platform names (vsce package --target) are Node's platform and arch.
const PLATFORM = `${process.platform}-${process.arch}`;
const VSIX = path.resolve(process.env.DOUBLET_VSIX || path.join(REPO_ROOT, 'client-vscode', `doublet-${PLATFORM}-${VERSION}.vsix`));
const VENV_PYTHON = path.join(REPO_ROOT, '.venv', 'bin', 'python');
const EXAMPLES = path.join(REPO_ROOT, 'examples');

const ESSAY = 'essays/amira-haddad.txt';
const SOURCE = 'sources/hives-above-the-traffic.md';
const CHLOE = 'essays/chloe-martin.md';
// tests/data/examples-expected.md: amira-haddad.txt lines 13–22 copy hives-above-the-traffic.md lines 23–30.
const ESSAY_LINES = [13, 22];
const SOURCE_LINES = [23, 30];
const MESSAGE_START = `Matches ${SOURCE} lines ${SOURCE_LINES[0]}–${SOURCE_LINES[1]} (`;
const FIRST_WORDS = 'The first wave of modern city beekeeping';

let tmp;
let documentCount;

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const isEssay = (file) => !!file && file.endsWith(`${path.sep}${ESSAY.split('/').join(path.sep)}`);
/** The planted warning: the essay's passage that copies the source, as a Problems row. */
const plantedRow = (rows) => rows.find((r) => isEssay(r.file) && r.source === 'doublet' && r.message?.startsWith(`Matches ${SOURCE} `));

before(async () => {
  ensureInstalled();
  assert.ok(fs.existsSync(VSIX), `${VSIX} is missing: build it with  make vsix`);
  const r = spawnSync(VENV_PYTHON, ['-c', 'import doublet; print(doublet.__version__)'], { encoding: 'utf8' });
  assert.equal((r.stdout || '').trim(), VERSION, `${VENV_PYTHON} must have Doublet ${VERSION} installed (make test-python does it): ${r.stderr}`);
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'doublet-vscode-ext-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true })); // also on Ctrl+C
  documentCount = countFiles(EXAMPLES);
});

after(async () => {
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

function countFiles(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    n += e.isDirectory() ? countFiles(path.join(dir, e.name)) : 1;
  }
  return n;
}

/** A fresh copy of examples/ as a clean checkout has it (no .doublet/ index from `make demo`). */
async function copyExamples(name) {
  const ws = path.join(tmp, name, 'examples');
  await fsp.cp(EXAMPLES, ws, { recursive: true, filter: (src) => path.basename(src) !== '.doublet' });
  return ws;
}

/**
 * One code-server + workbench session on a fresh copy of the examples, with the .vsix
 * installed. fn gets ({server, wb, ws, shot, step}): shot(label) saves ext-<name>-NN-<label>.png;
 * step(t, title, fn) runs a subtest that saves ext-<name>-<title>-FAILED.png when it fails.
 */
async function session(name, { settings = { 'doublet.python.path': VENV_PYTHON }, env, serviceWorkers, openFile } = {}, fn) {
  const ws = await copyExamples(name);
  let n = 0;
  const options = { name: `ext-${name}`, folder: ws, vsix: [VSIX], settings, env, serviceWorkers, openFile: openFile && path.join(ws, openFile) };
  return withVSCode(options, async ({ server, wb }) => {
    const shot = (label) => wb.screenshot(`ext-${name}-${String(++n).padStart(2, '0')}-${label}`);
    const step = (t, title, body) =>
      t.test(title, async () => {
        try {
          await body();
        } catch (e) {
          await wb.screenshot(`ext-${name}-${title.replace(/\W+/g, '-').slice(0, 40)}-FAILED`).catch(() => {});
          throw e;
        }
      });
    return fn({ server, wb, ws, shot, step });
  });
}

/** Opens the essay and waits for the extension to flag the copied paragraph. */
async function openEssay(server, wb, { timeout = 60_000 } = {}) {
  await wb.openFile(ESSAY);
  await server.waitForActivation(EXT_ID, { timeout });
  const rows = await wb.waitForProblems((ps) => plantedRow(ps), { timeout });
  return plantedRow(rows);
}

/** PIDs of the `python -m doublet serve` processes started under this code-server. */
function doubletServers(server) {
  return descendants(server.proc.pid).filter((pid) => {
    try {
      // `-m doublet serve`, or python/launch.py (which becomes the server) for the bundled libraries
      return /-m doublet serve|\/python\/launch\.py /.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      return false;
    }
  });
}

/** Per editor group: tabs, the active tab, the lines on screen, lines with selection / extension decorations. */
async function editorGroups(wb) {
  return wb.page.$$eval('.part.editor .editor-group-container', (groups) =>
    groups.map((g) => {
      const ed = g.querySelector('.monaco-editor');
      const lineAt = new Map(
        ed ? [...ed.querySelectorAll('.margin-view-overlays > div')].map((d) => [parseFloat(d.style.top), Number(d.querySelector('.line-numbers')?.textContent)]) : [],
      );
      const linesWith = (sel) =>
        ed
          ? [...new Set([...ed.querySelectorAll('.view-overlays > div')].filter((row) => row.querySelector(sel)).map((row) => lineAt.get(parseFloat(row.style.top))))]
              .filter(Boolean)
              .sort((a, b) => a - b)
          : [];
      return {
        active: g.classList.contains('active'),
        tabs: [...g.querySelectorAll('.tab')].map((t) => t.getAttribute('aria-label') || ''),
        activeTab: g.querySelector('.tab.active')?.getAttribute('aria-label') || '',
        visible: [...lineAt.values()].filter(Boolean).sort((a, b) => a - b),
        selected: linesWith('.selected-text'),
        highlighted: linesWith('[class*="ced-"]'),
      };
    }),
  );
}

/** Rows of a view of the side bar, by its title: [{text, ariaLabel, level}]. */
async function viewRows(wb, title) {
  return wb.page.$$eval(
    '.part.sidebar .pane',
    (panes, title) => {
      const pane = panes.find((p) => (p.querySelector('.pane-header')?.innerText || '').trim().toLowerCase().startsWith(title.toLowerCase()));
      if (!pane) return null;
      return [...pane.querySelectorAll('.pane-body .monaco-list-row')].map((r) => ({
        text: r.innerText.trim(),
        ariaLabel: r.getAttribute('aria-label') || '',
        level: Number(r.getAttribute('aria-level')),
      }));
    },
    title,
  );
}

const selectionStatus = async (wb) => (await wb.statusBarItems()).find((i) => i.id === 'status.editor.selection')?.text || '';
const doubletStatus = async (wb) => (await wb.statusBarItems()).find((i) => i.id === EXT_ID);

// ---------------------------------------------------------------------------------------

test('the .vsix in a real workbench: warning, hover, status bar, Similar Passages, Compare with Match, report', { timeout: 180_000 }, async (t) => {
  const t0 = Date.now();
  await session('main', { serviceWorkers: 'allow' /* the report is a webview */ }, async ({ server, wb, shot, step }) => {
    await step(t, 'the .vsix installs into a fresh code-server and activates', async () => {
      const installed = fs.readdirSync(server.extensionsDir).filter((d) => d.startsWith(`${EXT_ID}-`));
      assert.deepEqual(installed, [`${EXT_ID}-${VERSION}`], `installed extensions: ${fs.readdirSync(server.extensionsDir)}`);
      const dir = path.join(server.extensionsDir, installed[0]);
      assert.ok(fs.readdirSync(path.join(dir, 'bundled')).some((f) => /^doublet-.*\.whl$/.test(f)), 'the .vsix bundles the server wheel');
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'bundled', 'libs', 'manifest.json'), 'utf8'));
      assert.equal(manifest.platform, PLATFORM, 'the .vsix bundles the libraries of this platform');
      for (const v of manifest.pythons) assert.ok(fs.existsSync(path.join(dir, 'bundled', 'libs', `cp${v.replace('.', '')}`)), `libraries for CPython ${v}`);
      assert.ok(fs.existsSync(path.join(dir, 'bundled', 'libs', 'common', 'doublet', '__init__.py')), 'the server itself is in the bundle');
      await server.waitForActivation(EXT_ID); // onStartupFinished
      await shot('activated');
    });

    await step(t, '1. the copied paragraph is flagged in the editor and the Problems panel', async () => {
      const row = await openEssay(server, wb);
      assert.equal(row.severity, 'warning');
      assert.equal(row.code, 'shared-passage');
      assert.equal(row.line, ESSAY_LINES[0]);
      assert.equal(row.col, 1);
      assert.ok(row.message.startsWith(MESSAGE_START), `message names ${SOURCE} lines 23–30: ${row.message}`);
      assert.match(row.message, /verbatim, 100% exact\)$/);
      assert.equal(row.related.length, 1, `one related location: ${JSON.stringify(row.related)}`);
      assert.deepEqual([row.related[0].file, row.related[0].line], [path.basename(SOURCE), SOURCE_LINES[0]]);
      // The independent part of the essay is not flagged; the edited copy in Chloe's essay is (lines 24–33).
      const rows = await wb.problems();
      const essayRows = rows.filter((r) => isEssay(r.file) && r.source === 'doublet');
      assert.deepEqual(essayRows.map((r) => r.line).sort((a, b) => a - b), [13, 24], `essay rows: ${JSON.stringify(essayRows)}`);
      assert.ok(essayRows.find((r) => r.line === 24).message.startsWith(`Matches ${CHLOE} `));

      await wb.focusEditor();
      const squiggled = await waitFor(
        async () => {
          const lines = (await wb.decorations()).filter((d) => d.kind === 'squiggly-warning').map((d) => d.line);
          return lines.includes(ESSAY_LINES[0]) ? [...new Set(lines)] : null;
        },
        { timeout: 10_000, what: 'a warning squiggle on line 13' },
      );
      for (const line of range(...ESSAY_LINES)) assert.ok(squiggled.includes(line), `squiggle on line ${line}: ${squiggled}`);
      for (const line of [...range(1, 12), 23]) assert.ok(!squiggled.includes(line), `no squiggle on line ${line}: ${squiggled}`);
      const counts = await wb.problemCounts();
      assert.deepEqual([counts.errors, counts.warnings], [0, 2], `status bar problem counts: ${counts.text}`);
      await shot('warning-and-problems');
    });

    await step(t, '6a. hovering the squiggle shows the matching passage', async () => {
      const hover = await wb.hoverAt(15, 10);
      assert.match(hover, new RegExp(`Doublet[\\s\\S]*matches ${SOURCE} lines 23–30`));
      assert.ok(hover.includes(FIRST_WORDS), `the hover quotes the source passage: ${hover}`);
      assert.ok(hover.includes(`Open ${SOURCE}`), `the hover links to the source: ${hover}`);
      await shot('hover');
      await wb.hideHover();
    });

    await step(t, '5a. the status bar shows the number of documents indexed', async () => {
      const item = await waitFor(async () => {
        const s = await doubletStatus(wb);
        return s && /Doublet: \d+ documents/.test(s.text) ? s : null;
      }, { what: 'the Doublet status bar item' });
      assert.equal(item.text, `Doublet: ${documentCount} documents`, `every file of examples/ is a document: ${JSON.stringify(item)}`);
      assert.match(item.ariaLabel, /ready/);
      await shot('status-bar');
    });

    await step(t, '2. Find Similar Passages lists the matches in the Similar Passages view', async () => {
      await wb.runCommand('Doublet: Find Similar Passages');
      const rows = await waitFor(async () => {
        const r = await viewRows(wb, 'Similar Passages');
        return r && r.some((x) => x.text.startsWith(SOURCE)) ? r : null;
      }, { timeout: 20_000, what: 'rows in the Similar Passages view' });
      const groups = rows.filter((r) => r.level === 1).map((r) => r.text);
      assert.equal(groups.length, 2, `two groups: ${JSON.stringify(rows)}`);
      for (const other of [SOURCE, CHLOE]) {
        assert.ok(groups.some((g) => new RegExp(`^${other} \\(1 passage, \\d+ characters\\)`).test(g)), `${other}: ${groups}`);
      }
      // the files that share the most characters come first
      const shared = groups.map((g) => Number(/(\d+) characters/.exec(g)[1]));
      assert.ok(shared[0] >= shared[1], `ordered by characters shared: ${groups}`);
      const passages = rows.filter((r) => r.level === 2);
      assert.equal(passages.length, 2, `two passages: ${JSON.stringify(rows)}`);
      const copied = passages.find((r) => r.text.startsWith('lines 13–22 ~ lines 23–30 · verbatim, 100% exact'));
      assert.ok(copied, JSON.stringify(passages));
      assert.ok(copied.text.includes(FIRST_WORDS), 'the passage row shows the other file\'s excerpt');
      await shot('similar-passages');

      // Clicking a passage opens the other file at the matching passage.
      await wb.page
        .locator('.part.sidebar .pane')
        .filter({ has: wb.page.locator('.pane-header', { hasText: 'Similar Passages' }) })
        .locator('.pane-body .monaco-list-row[aria-level="2"]')
        .filter({ hasText: 'lines 13–22 ~ lines 23–30' })
        .first()
        .click();
      await wb.page.waitForSelector(`.part.editor .tab.active[aria-label*="${path.basename(SOURCE)}"]`);
      const sel = await waitFor(async () => {
        const s = await selectionStatus(wb);
        return /selected/.test(s) ? s : null;
      }, { timeout: 10_000, what: 'a selection in the opened source' });
      assert.match(sel, /^Ln 30, Col \d+ \(\d+ selected\)/);
      const [group] = (await editorGroups(wb)).filter((g) => g.active);
      for (const line of range(...SOURCE_LINES)) assert.ok(group.visible.includes(line), `source line ${line} on screen: ${group.visible}`);
      await shot('passage-opened');
    });

    await step(t, '3. Compare with Match opens both passages side by side', async () => {
      await wb.openFile(ESSAY);
      await wb.goTo(15, 3);
      await wb.runCommand('Doublet: Compare with Match');
      const groups = await waitFor(async () => {
        const gs = await editorGroups(wb);
        return gs.length === 2 && gs[1].activeTab.includes(path.basename(SOURCE)) && gs[1].highlighted.length ? gs : null;
      }, { timeout: 15_000, what: 'two editor groups, the source on the right with its passage highlighted' });
      const [left, right] = groups;
      assert.ok(left.activeTab.includes(path.basename(ESSAY)), `left: ${left.activeTab}`);
      for (const line of range(...ESSAY_LINES)) {
        assert.ok(left.visible.includes(line), `essay line ${line} on screen: ${left.visible}`);
        assert.ok(left.selected.includes(line), `essay line ${line} selected: ${left.selected}`);
        assert.ok(left.highlighted.includes(line), `essay line ${line} highlighted: ${left.highlighted}`);
      }
      for (const line of range(...SOURCE_LINES)) {
        assert.ok(right.visible.includes(line), `source line ${line} on screen: ${right.visible}`);
        assert.ok(right.selected.includes(line), `source line ${line} selected: ${right.selected}`);
        assert.ok(right.highlighted.includes(line), `source line ${line} highlighted: ${right.highlighted}`);
      }
      assert.ok(!right.highlighted.includes(SOURCE_LINES[0] - 1) && !right.highlighted.includes(SOURCE_LINES[1] + 1), `only the passage: ${right.highlighted}`);
      assert.match(await selectionStatus(wb), /\(\d+ selected\)/);
      await shot('compare');
    });

    await step(t, '5b. Show Workspace Report lists the planted pair', async () => {
      // The page of `doublet report` (one renderer), sent by the server and shown as it is.
      await wb.runCommand('Doublet: Show Workspace Report');
      await wb.page.waitForSelector('.part.editor .tab.active[aria-label*="Doublet: Workspace Report"]');
      const frame = await waitFor(async () => {
        for (const frame of wb.page.frames()) {
          if (await frame.evaluate(() => !!document.querySelector('#pairs tbody tr')).catch(() => false)) return frame;
        }
        const errors = (await wb.notifications()).filter((n) => n.severity === 'error');
        if (errors.length) throw Object.assign(new Error(`webview error: ${JSON.stringify(errors)}`), { fatal: true });
        return null;
      }, { timeout: 20_000, what: 'the report webview drawing its table of pairs' });
      const cells = () => frame.$$eval('#pairs tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.innerText.trim())));
      const isPlanted = (row) => [row[1], row[2]].sort().join(' ') === [ESSAY, SOURCE].sort().join(' ');
      const rows = await cells();
      assert.equal(await frame.locator('#stat-documents').innerText(), String(documentCount));
      assert.equal(await frame.locator('#stat-pairs').innerText(), String(rows.length));
      const similarities = rows.map((r) => parseInt(r[3], 10));
      assert.deepEqual(similarities, [...similarities].sort((x, y) => y - x), `ranked best first: ${JSON.stringify(rows)}`);
      assert.ok(rows.some(isPlanted), `the report lists the planted pair: ${JSON.stringify(rows)}`);
      await shot('report');

      // The page's own name filter: the source's name leaves the planted pair as the first row.
      await frame.locator('#filter-name').fill(path.basename(SOURCE, '.md'));
      const [first, ...others] = await waitFor(async () => {
        const r = await cells();
        return r.length && r.every(isPlanted) ? r : null;
      }, { timeout: 5_000, what: 'the planted pair as the first row once filtered' });
      assert.deepEqual(others, []);
      assert.deepEqual(first.slice(4, 6), ['verbatim', '1'], `the planted pair's row: one verbatim passage: ${first}`);

      // Clicking it (its rank, an in-page link: #/pair/N) shows both texts, the passage marked on each side.
      await frame.locator('#pairs tbody tr').first().locator('a.open-pair').click();
      await frame.locator('#pair-view').waitFor({ timeout: 5_000 });
      const heads = await frame.$$eval('#pair-view .pair-head h2', (hs) => hs.map((h) => h.innerText.trim()));
      assert.deepEqual([...heads].sort(), [ESSAY, SOURCE].sort());
      for (const side of ['#side-a', '#side-b']) {
        const marked = await frame.$$eval(`${side} mark`, (ms) => ms.map((m) => m.textContent).join(' '));
        assert.ok(marked.replace(/\s+/g, ' ').startsWith(FIRST_WORDS), `${side}: the planted passage is marked: ${marked.slice(0, 80)}`);
      }
      await shot('report-pair');
      await frame.locator('#pair-view a', { hasText: 'Overview' }).click();
      await frame.locator('#overview #pairs').waitFor({ timeout: 5_000 });
    });

    assert.deepEqual(wb.consoleErrors.filter((e) => /doublet/i.test(e)), [], 'no browser console error about Doublet');
  });
  console.log(`# main session: ${Date.now() - t0} ms`);
  assert.deepEqual(leftoverProcesses(), [], 'no process left');
});

test('4. doublet.minLength changed in the Settings UI applies without a restart', { timeout: 120_000 }, async (t) => {
  await session('settings', {}, async ({ server, wb, ws, shot, step }) => {
    await openEssay(server, wb);
    const pids = doubletServers(server);
    assert.equal(pids.length, 1, 'one doublet server');
    const gone = () => wb.waitForProblems((ps) => !ps.some((r) => isEssay(r.file) && r.source === 'doublet'), { timeout: 20_000 });
    const back = (timeout = 20_000) => wb.waitForProblems((ps) => plantedRow(ps), { timeout });

    await step(t, 'minLength 2000 removes the warning', async () => {
      await wb.setSettingViaUI('doublet.minLength', 2000);
      assert.equal(server.readSettings()['doublet.minLength'], 2000);
      await gone();
      await wb.focusEditor();
      const squiggles = (await wb.decorations()).filter((d) => d.kind.startsWith('squiggly'));
      assert.deepEqual(squiggles, [], 'no squiggle left in the essay');
      await shot('min-length-2000');
    });

    await step(t, 'clearing minLength (back to its default) brings the warning back', async () => {
      await wb.setSettingViaUI('doublet.minLength', null);
      assert.ok(!('doublet.minLength' in server.readSettings()), 'the setting is removed');
      try {
        await back(10_000);
      } finally {
        await shot('min-length-reset');
      }
    });

    await step(t, 'minLength 2000 again removes it again', async () => {
      await wb.setSettingViaUI('doublet.minLength', 2000);
      await gone();
    });

    await step(t, 'minLength 80 (doublet.toml\'s default) brings it back', async () => {
      await wb.setSettingViaUI('doublet.minLength', 80);
      const row = plantedRow(await back());
      assert.ok(row.message.startsWith(MESSAGE_START));
      await shot('min-length-80');
    });

    await step(t, 'the workspace setting works the same way (and wins over the user setting)', async () => {
      await setWorkspaceSettings(ws, { 'doublet.minLength': 2000 });
      await gone();
      await shot('workspace-min-length-2000');
      await setWorkspaceSettings(ws, { 'doublet.minLength': 80 });
      await back();
      await shot('workspace-min-length-80');
    });

    await step(t, 'no restart: the same server process, started once', async () => {
      assert.deepEqual(doubletServers(server), pids, 'the doublet server process was not restarted');
      const starts = server.outputChannel('Doublet').split('\n').filter((l) => l.startsWith('Python: '));
      assert.equal(starts.length, 1, `the extension found Python once: ${starts}`);
    });
  });
});

test('6b. the quick fix "ignore this match" removes the warning and writes doublet.toml', { timeout: 120_000 }, async () => {
  await session('ignore', {}, async ({ server, wb, ws, shot }) => {
    await openEssay(server, wb);
    const rows = wb.page.locator('.action-widget .monaco-list-row');
    // Ctrl+. pressed before the editor has the code actions shows nothing (seen once in
    // CI with the light bulb already drawn): ask again, a bounded number of times.
    for (let attempt = 1; ; attempt++) {
      await wb.goTo(15, 3);
      await wb.page.keyboard.press('Control+.');
      try {
        await rows.first().waitFor({ state: 'visible', timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await wb.page.keyboard.press('Escape');
      }
    }
    const titles = await rows.evaluateAll((rs) => rs.map((r) => (r.getAttribute('aria-label') || '').replace(/, Quick Fix$/, '')));
    for (const title of [
      `Doublet: open the matching passage in ${SOURCE}`,
      `Doublet: compare with ${SOURCE} side by side`,
      'Doublet: ignore this match',
      `Doublet: treat ${SOURCE} as a reference`,
    ]) {
      assert.ok(titles.includes(title), `quick fix "${title}" offered: ${JSON.stringify(titles)}`);
    }
    await shot('quick-fixes');
    await wb.page.locator('.action-widget .monaco-list-row[aria-label^="Doublet: ignore this match"]').click();

    const after = await wb.waitForProblems((ps) => !plantedRow(ps) && ps.some((r) => isEssay(r.file) && r.source === 'doublet'), { timeout: 20_000 });
    assert.deepEqual(after.filter((r) => isEssay(r.file)).map((r) => r.line), [24], 'only the match with Chloe\'s essay is left');
    await wb.focusEditor();
    const squiggled = (await wb.decorations()).filter((d) => d.kind === 'squiggly-warning').map((d) => d.line);
    assert.ok(!squiggled.includes(13), `no squiggle on line 13: ${squiggled}`);

    const toml = fs.readFileSync(path.join(ws, 'doublet.toml'), 'utf8');
    assert.match(toml, /\[\[ignore\]\]/);
    assert.match(toml, new RegExp(`a = "${ESSAY}"`));
    assert.match(toml, new RegExp(`b = "${SOURCE}"`));
    assert.match(toml, /digest = "[^"]+"/);
    await shot('ignored');

    // The pair is ignored from the other side too: Find Similar Passages on the source finds
    // nothing (its only match was the essay), and it has no warning about the essay.
    await wb.openFile(SOURCE);
    await wb.clearNotifications();
    await wb.runCommand('Doublet: Find Similar Passages');
    await wb.waitForNotification('Doublet: no similar passages found.', { timeout: 15_000 });
    const problems = await wb.problems();
    assert.ok(!problems.some((r) => r.file?.endsWith(path.basename(SOURCE)) && r.message?.includes(ESSAY)), `no warning in the source about the essay: ${JSON.stringify(problems)}`);
    await shot('ignored-other-side');
  });
});

/** What a diagnostic's severity in settings is called in the Problems panel. */
const SHOWN_AS = { error: 'error', warning: 'warning', information: 'info', hint: 'hint' };
/** A Problems row's kind of match, from its message: "… (N characters, KIND, …". */
const kindOf = (row) => /\(\d+ characters, (verbatim|edited|paraphrased),/.exec(row.message)?.[1];

test('7. checkFrequency "manual" with Check Document, severityByKind, and ignore marks typed in the essay', { timeout: 150_000 }, async (t) => {
  const severityByKind = { verbatim: 'error', edited: 'information', paraphrased: 'hint' };
  const settings = { 'doublet.python.path': VENV_PYTHON, 'doublet.checkFrequency': 'manual', 'doublet.severityByKind': severityByKind };
  await session('conventions', { settings }, async ({ server, wb, shot, step }) => {
    const essayRows = (ps) => ps.filter((r) => isEssay(r.file) && r.source === 'doublet');

    await step(t, 'manual: opening the essay checks nothing', async () => {
      await wb.openFile(ESSAY);
      await server.waitForActivation(EXT_ID);
      await waitFor(async () => {
        const s = await doubletStatus(wb);
        return s && /Doublet: \d+ documents/.test(s.text) ? s : null;
      }, { what: 'the index to be built' });
      await wb.page.waitForTimeout(2000); // what an edit-frequency check would have shown by now
      assert.deepEqual(essayRows(await wb.problems()), [], 'no diagnostics before Check Document');
    });

    await step(t, 'Doublet: Check Document shows the matches, each with the severity of its kind', async () => {
      await wb.runCommand('Doublet: Check Document');
      const rows = essayRows(await wb.waitForProblems((ps) => plantedRow(ps) && essayRows(ps).length >= 2, { timeout: 20_000 }));
      for (const row of rows) {
        const kind = kindOf(row);
        assert.ok(kind, `a kind in "${row.message}"`);
        assert.equal(row.severity, SHOWN_AS[severityByKind[kind]], `${kind} shown as ${severityByKind[kind]}: ${row.message}`);
      }
      assert.ok(rows.some((r) => r.severity !== 'warning'), 'severityByKind changed how they are shown');
      await shot('checked');
    });

    await step(t, 'ignore marks around the copied paragraph, then Check Document: its match is gone', async () => {
      // The blank lines around it (12 and 23) become the marks: no line moves.
      await wb.goTo(ESSAY_LINES[1] + 1, 1);
      await wb.type('doublet: ignore-end');
      await wb.goTo(ESSAY_LINES[0] - 1, 1);
      await wb.type('doublet: ignore-start');
      await wb.save();
      await wb.page.waitForTimeout(1500);
      assert.ok(plantedRow(await wb.problems()), 'manual: saving did not check it again');
      await wb.runCommand('Doublet: Check Document');
      const rows = essayRows(await wb.waitForProblems((ps) => !plantedRow(ps) && essayRows(ps).length > 0, { timeout: 20_000 }));
      assert.deepEqual(rows.map((r) => r.line), [24], 'only the match with Chloe\'s essay, after the marks, is left');
      await shot('ignore-marks');
    });
  });
});

test('8. a multi-root workspace: an index per folder, and nothing matched across folders', { timeout: 150_000 }, async (t) => {
  // Two folders: the examples, and notes/ with a copy of the essay and of its source.
  const examples = await copyExamples('multi-root');
  const notes = path.join(path.dirname(examples), 'notes');
  await fsp.mkdir(notes);
  await fsp.copyFile(path.join(EXAMPLES, SOURCE), path.join(notes, 'one.md'));
  await fsp.copyFile(path.join(EXAMPLES, ESSAY), path.join(notes, 'two.txt'));
  // and a copy of the essay beside the two folders, in neither
  const loose = path.join(path.dirname(examples), 'loose.txt');
  await fsp.copyFile(path.join(EXAMPLES, ESSAY), loose);
  const workspace = path.join(path.dirname(examples), 'both.code-workspace');
  await fsp.writeFile(workspace, JSON.stringify({ folders: [{ path: 'examples' }, { path: 'notes' }] }));
  const options = { name: 'ext-multi-root', folder: workspace, vsix: [VSIX], settings: { 'doublet.python.path': VENV_PYTHON }, openFile: path.join(examples, ESSAY) };
  await withVSCode(options, async ({ server, wb }) => {
    const shot = (label) => wb.screenshot(`ext-multi-root-${label}`);
    const inNotes = (file) => !!file && file.startsWith(notes + path.sep);

    await step(t, wb, 'the essay in the examples matches the examples\' source, not its copy in notes/', async () => {
      await server.waitForActivation(EXT_ID);
      const rows = await wb.waitForProblems((ps) => plantedRow(ps), { timeout: 60_000 });
      const essay = rows.filter((r) => isEssay(r.file) && r.source === 'doublet');
      assert.ok(plantedRow(rows).message.startsWith(MESSAGE_START), plantedRow(rows).message);
      // (the Problems panel names a related location by its path in its own folder)
      assert.ok(!essay.some((r) => /one\.md|two\.txt/.test(r.message) || r.related.some((x) => /one\.md|two\.txt/.test(x.file))), JSON.stringify(essay));
    });

    await step(t, wb, 'the copy in notes/ matches notes/one.md, with its own folder\'s names', async () => {
      await wb.openFile('two.txt');
      const rows = await wb.waitForProblems((ps) => ps.some((r) => inNotes(r.file) && r.source === 'doublet'), { timeout: 30_000 });
      const copy = rows.filter((r) => inNotes(r.file) && r.source === 'doublet');
      assert.ok(copy.some((r) => r.message.startsWith(`Matches one.md lines ${SOURCE_LINES[0]}–${SOURCE_LINES[1]} (`)), JSON.stringify(copy));
      const related = copy.flatMap((r) => r.related.map((x) => x.file));
      assert.ok(related.length && related.every((f) => f === 'one.md' || inNotes(f)), `related information in notes/ only: ${JSON.stringify(copy)}`);
      await shot('notes');
    });

    await step(t, wb, 'the status bar counts the documents of both folders', async () => {
      const status = await waitFor(async () => {
        const s = await doubletStatus(wb);
        return s && /Doublet: \d+ documents/.test(s.text) ? s : null;
      }, { what: 'the Doublet status bar item' });
      assert.equal(status.text, `Doublet: ${documentCount + 2} documents`);
    });

    await step(t, wb, 'a file outside both folders is not checked, and Find Similar Passages says so', async () => {
      await wb.openFile(loose); // by its absolute path in Quick Open
      await wb.clearNotifications();
      await wb.runCommand('Doublet: Find Similar Passages');
      await wb.waitForNotification('Doublet: loose.txt is outside every workspace folder; only files inside a folder are checked', { timeout: 20_000 });
      await wb.page.waitForTimeout(1000); // the extension's own message would follow the answer at once
      const shown = (await wb.notifications()).map((n) => n.message);
      assert.ok(!shown.some((m) => m.includes('no similar passages found')), `not "nothing found", as if it had been compared: ${JSON.stringify(shown)}`);
      const problems = await wb.problems();
      assert.ok(!problems.some((r) => r.file?.endsWith('loose.txt') && r.source === 'doublet'), JSON.stringify(problems));
      await shot('outside');
    });
  });
});

/** A subtest that saves a screenshot when it fails (session()'s step, for withVSCode used directly). */
function step(t, wb, title, body) {
  return t.test(title, async () => {
    try {
      await body();
    } catch (e) {
      await wb.screenshot(`ext-${title.replace(/\W+/g, '-').slice(0, 40)}-FAILED`).catch(() => {});
      throw e;
    }
  });
}

// ---------------------------------------------------------------------------------------
// First start: a Python without Doublet, and no package index.

const REFUSED = 'http://127.0.0.1:9/'; // the discard port: nothing listens, connections are refused
const NO_INDEX_ENV = {
  PIP_CONFIG_FILE: os.devnull, // no pip.conf (this machine's names local wheel folders and indexes)
  PIP_NO_INDEX: '1',
  PIP_INDEX_URL: `${REFUSED}simple/`,
  PIP_EXTRA_INDEX_URL: `${REFUSED}simple/`,
  PIP_FIND_LINKS: REFUSED,
  PIP_RETRIES: '0',
  PIP_TIMEOUT: '5',
};
/**
 * What the issue asks of a first start: the first warning within 3 s of the workbench being up.
 * DOUBLET_E2E_FIRST_WARNING_MS changes it, for a machine much slower or busier than a 2-core one.
 */
const FIRST_WARNING_MS = Number(process.env.DOUBLET_E2E_FIRST_WARNING_MS || 3000);

/** PATH without the repository's .venv (or any venv). */
function pathWithoutVenvs() {
  return process.env.PATH.split(':').filter((d) => d && !/[/\\]\.?venv[/\\]/.test(d) && !process.env.VIRTUAL_ENV?.startsWith(d)).join(':');
}

/** Checks that python3 (run with env) is CPython 3.10+ without Doublet and that pip cannot install anything. */
function assertNoDoubletNoIndex(env) {
  const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2]); print(sys.executable); import doublet'], { encoding: 'utf8', env });
  assert.match(probe.stdout, /^3\.(1\d|[2-9]\d)\n/, `python3 is 3.10+: ${probe.stdout} ${probe.stderr}`);
  assert.match(probe.stderr, /No module named 'doublet'/, 'python3 has no Doublet, so the extension cannot use it as it is');
  const dest = fs.mkdtempSync(path.join(tmp, 'pip-'));
  const pip = spawnSync('python3', ['-m', 'pip', 'download', '--no-deps', '--dest', dest, 'pygls'], { encoding: 'utf8', env, timeout: 60_000 });
  assert.notEqual(pip.status, 0, `pip must not reach a package index here: ${pip.stdout}`);
  assert.deepEqual(fs.readdirSync(dest), [], 'pip downloaded nothing');
  const [version, executable] = probe.stdout.trim().split('\n');
  return { version, executable };
}

/**
 * Milliseconds from the workbench being up (wb.readyAt) to the first warning counted in the
 * status bar. An observer in the page notes the moment; asking the page every few
 * milliseconds instead would take CPU from what is being measured, on a 2-core machine.
 */
async function timeToFirstWarning(wb) {
  await wb.page.evaluate(() => {
    const warned = () => {
      const counts = document.querySelector('.part.statusbar #status\\.problems')?.innerText.match(/\d+/g) || [];
      return Number(counts[1] || 0) > 0;
    };
    window.__doubletFirstWarning = warned() ? Date.now() : 0;
    if (window.__doubletFirstWarning) return;
    const observer = new MutationObserver(() => {
      if (warned()) {
        window.__doubletFirstWarning = Date.now();
        observer.disconnect();
      }
    });
    observer.observe(document.querySelector('.part.statusbar'), { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const at = await waitFor(() => wb.page.evaluate(() => window.__doubletFirstWarning || null), { timeout: 120_000, interval: 500, what: 'a first warning' });
  return at - wb.readyAt;
}

/** The one `-m doublet serve` process: its command line, environment, mapped files and executable. */
function serverProcess(server) {
  const pids = doubletServers(server);
  assert.equal(pids.length, 1, 'one doublet server');
  const read = (what) => fs.readFileSync(`/proc/${pids[0]}/${what}`, 'utf8');
  const env = Object.fromEntries(read('environ').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return { cmdline: read('cmdline').split('\0').filter(Boolean), env, maps: read('maps'), exe: fs.readlinkSync(`/proc/${pids[0]}/exe`) };
}

/**
 * A first start as a user has it: no Python setting, python3 on PATH (from binDir if given)
 * without Doublet, no package index, and a fresh temporary folder (no caches, e.g. jieba's).
 * Returns the time to the first warning; checks the server runs from the bundled libraries of
 * python3's version.
 */
async function firstStart(name, { binDir } = {}) {
  const PATH = binDir ? `${binDir}:${pathWithoutVenvs()}` : pathWithoutVenvs();
  const TMPDIR = fs.mkdtempSync(path.join(tmp, `${name}-tmp-`));
  const env = { PATH, VIRTUAL_ENV: '', TMPDIR, ...NO_INDEX_ENV };
  const { version, executable } = assertNoDoubletNoIndex({ ...process.env, ...env });
  let elapsed;
  // The essay is open as the workbench starts (as an editor left open last time is), so
  // that the time measured is the extension's and the server's, not the test's typing.
  await session(name, { settings: {}, env, openFile: ESSAY }, async ({ server, wb, shot }) => {
    elapsed = await timeToFirstWarning(wb);
    await wb.page.waitForSelector(`.part.editor .tab.active[aria-label*="${path.basename(ESSAY)}"]`, { timeout: 5000 });
    const activated = server.exthostLog().match(/^(\S+ \S+) .*_doActivateExtension doublet\.doublet/m)?.[1];
    console.log(`# ${name} (python3 is ${version}): first warning ${elapsed} ms after the workbench was up` +
      ` (the extension activated at ${activated ? Date.parse(activated.replace(' ', 'T')) - wb.readyAt : '?'} ms)` +
      `; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
    const row = plantedRow(await wb.waitForProblems((ps) => plantedRow(ps), { timeout: 30_000 }));
    assert.ok(row.message.startsWith(MESSAGE_START), row.message);
    assert.equal(row.line, ESSAY_LINES[0]);
    await shot('first-warning');

    // From the bundle: no private environment, no pip, no progress notification.
    const dir = path.join(server.extensionsDir, `${EXT_ID}-${VERSION}`);
    const libs = path.join(dir, 'bundled', 'libs');
    const folders = `${path.join(libs, `cp${version.replace('.', '')}`)}:${path.join(libs, 'common')}`;
    const channel = server.outputChannel('Doublet');
    assert.ok(channel.split('\n').includes(`Python: python3 (${version})`), channel);
    assert.ok(channel.includes(`Server: Doublet ${VERSION} run by ${executable} with the libraries bundled in the extension (${folders})`), channel);
    assert.doesNotMatch(channel, /No bundled server libraries|Creating .*server-|Installing .*\.whl/);
    assert.ok(!fs.existsSync(path.join(server.userDataDir, 'User', 'globalStorage', EXT_ID, `server-${VERSION}`)), 'no private environment');
    assert.ok(!(await wb.notifications()).some((n) => n.message.includes('installing')), 'no installation notification');
    const proc = serverProcess(server);
    // One Python start: python/launch.py checks that the bundled libraries fit and becomes the server.
    // argv[0] is python3 as spawned, or the interpreter's path when a pyenv shim exec'd it
    assert.ok(['python3', executable].includes(proc.cmdline[0]), proc.cmdline[0]);
    assert.deepEqual(proc.cmdline.slice(1), ['-S', path.join(dir, 'python', 'launch.py'), 'python3'], 'python3 run once, without site-packages');
    assert.equal(fs.realpathSync(proc.exe), fs.realpathSync(executable));
    assert.ok(!channel.includes('doublet-launch:'), 'the launcher\'s report is read by the extension, not shown');
    assert.ok(proc.maps.includes(`${folders.split(':')[0]}/numpy/`), 'numpy\'s compiled modules are loaded from the bundle');
    const status = await waitFor(async () => {
      const s = await doubletStatus(wb);
      return s && /Doublet: \d+ documents/.test(s.text) ? s : null;
    }, { what: 'the Doublet status bar item' });
    assert.equal(status.text, `Doublet: ${documentCount} documents`);
  });
  return elapsed;
}

test('first start without Doublet installed and no package index: the server runs from the .vsix at once', { timeout: 180_000 }, async () => {
  const elapsed = await firstStart('first-start');
  assert.ok(elapsed < FIRST_WARNING_MS, `first warning ${elapsed} ms after the workbench was up; the target is under ${FIRST_WARNING_MS} ms`);
});

// Other CPython versions than python3's, where this machine has them (pyenv's), as python3
// on PATH: the oldest supported (its own numpy, tomli, exceptiongroup) and the newest here.
// Correctness only: the time is asserted once, above.
const PYENV = path.join(process.env.PYENV_ROOT || path.join(os.homedir(), '.pyenv'), 'versions');
const otherPythons = ['3.10', '3.13']
  .map((v) => (fs.existsSync(PYENV) ? fs.readdirSync(PYENV).filter((d) => d.startsWith(`${v}.`)).sort().pop() : undefined))
  .filter(Boolean)
  .map((d) => path.join(PYENV, d, 'bin'));

test('first start with other CPython versions: the bundled libraries of that version', { timeout: 240_000, skip: !otherPythons.length && 'no other CPython here (pyenv)' }, async () => {
  for (const binDir of otherPythons) {
    await firstStart(`first-start-${path.basename(path.dirname(binDir))}`, { binDir });
  }
});
