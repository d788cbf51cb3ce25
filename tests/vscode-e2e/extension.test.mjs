// End-to-end tests of Doublet's VS Code extension in a real VS Code workbench
// (code-server + headless chromium, see README.md and harness.mjs):
//
//   bash tests/vscode-e2e/setup.sh && make vsix
//   node --test tests/vscode-e2e/extension.test.mjs
//
// Each session installs the built .vsix (client-vscode/doublet-<version>.vsix, or
// $DOUBLET_VSIX) into a fresh code-server, opens a fresh copy of examples/ and drives
// the workbench like a user. Every step saves test-artifacts/vscode/ext-*.png.
//
// Most sessions point doublet.python.path at the repository's .venv (Doublet installed
// in editable mode, the right version: the extension uses it as is). One session has no
// Python setting and only a python3 without Doublet on PATH, so that the real first start
// runs once: private venv in the extension's storage + pip install of the bundled wheel
// (its dependencies come from PyPI, or pip's cache).

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
const VSIX = path.resolve(process.env.DOUBLET_VSIX || path.join(REPO_ROOT, 'client-vscode', `doublet-${VERSION}.vsix`));
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
async function session(name, { settings = { 'doublet.python.path': VENV_PYTHON }, env, serviceWorkers } = {}, fn) {
  const ws = await copyExamples(name);
  let n = 0;
  return withVSCode({ name: `ext-${name}`, folder: ws, vsix: [VSIX], settings, env, serviceWorkers }, async ({ server, wb }) => {
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
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes('-m doublet serve');
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

// Needs pip to reach the package index (or its cache) for the server's dependencies.
// DOUBLET_E2E_SKIP_FIRST_START=1 skips it, saying so, on a machine that cannot.
const skipFirstStart = process.env.DOUBLET_E2E_SKIP_FIRST_START === '1' && 'DOUBLET_E2E_SKIP_FIRST_START=1 (no package index here)';

test('first start without Doublet installed: private venv + pip install of the bundled wheel', { timeout: 600_000, skip: skipFirstStart }, async () => {
  // PATH without the repository's .venv (or any venv): python3 is the system/pyenv one.
  const PATH = process.env.PATH.split(':').filter((d) => d && !/[/\\]\.?venv[/\\]/.test(d) && !process.env.VIRTUAL_ENV?.startsWith(d)).join(':');
  const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2]); import doublet'], { encoding: 'utf8', env: { ...process.env, PATH, VIRTUAL_ENV: '' } });
  assert.match(probe.stdout, /^3\.(1\d|[2-9]\d)/, `python3 on PATH is 3.10+: ${probe.stdout} ${probe.stderr}`);
  assert.match(probe.stderr, /No module named 'doublet'/, 'python3 on PATH has no Doublet, so the extension must install it');

  const t0 = Date.now();
  await session('first-start', { settings: {}, env: { PATH, VIRTUAL_ENV: '' } }, async ({ server, wb, shot }) => {
    await server.waitForActivation(EXT_ID);
    const note = await wb.waitForNotification('Doublet: installing its server (first start only)', { timeout: 60_000 });
    assert.equal(note.severity, 'info');
    await shot('installing');
    await wb.openFile(ESSAY);
    const row = plantedRow(await wb.waitForProblems((ps) => plantedRow(ps), { timeout: 540_000 }));
    console.log(`# first start: warning ${Date.now() - t0} ms after start`);
    assert.ok(row.message.startsWith(MESSAGE_START), row.message);
    assert.equal(row.line, ESSAY_LINES[0]);
    await shot('installed-warning');

    const venv = path.join(server.userDataDir, 'User', 'globalStorage', EXT_ID, `server-${VERSION}`);
    assert.ok(fs.existsSync(path.join(venv, 'bin', 'python')), `private environment ${venv}`);
    const channel = server.outputChannel('Doublet');
    assert.match(channel, /^Python: python3 \(3\.\d+\)$/m);
    assert.ok(channel.includes(`Creating ${venv} with python3`), channel);
    assert.match(channel, new RegExp(`Installing .*bundled[/\\\\]doublet-${VERSION.replace(/\./g, '\\.')}-py3-none-any\\.whl`));
    assert.match(channel, new RegExp(`Successfully installed .*doublet-${VERSION.replace(/\./g, '\\.')}`));
    const pids = doubletServers(server);
    assert.equal(pids.length, 1);
    const cmd = fs.readFileSync(`/proc/${pids[0]}/cmdline`, 'utf8').split('\0');
    assert.equal(cmd[0], path.join(venv, 'bin', 'python'), `the server runs from the private environment: ${cmd.join(' ')}`);
    const status = await doubletStatus(wb);
    assert.equal(status?.text, `Doublet: ${documentCount} documents`);
    await waitFor(async () => !(await wb.notifications()).some((n) => n.message.includes('installing its server')), {
      timeout: 10_000,
      what: 'the progress notification to close',
    });
  });
  console.log(`# first-start session: ${Date.now() - t0} ms`);
});
