// Self-test of the VS Code E2E harness, without Doublet's extension:
//   bash tests/vscode-e2e/setup.sh && node tests/vscode-e2e/selftest.mjs
// Packs fixtures/sample-ext into a .vsix, installs it into a fresh code-server,
// opens a workspace and a file in headless chromium, runs "Sample: Say Hello"
// from the command palette and checks the notification, the Problems panel, the
// status bar count, the squiggle and decoration, hovers, a settings change and the
// extension's output channel; then checks that a failing test is cleaned up too.
// Screenshots land in test-artifacts/vscode/selftest-*.png. Exit code 0 = pass.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  ARTIFACTS_DIR,
  E2E_DIR,
  ensureInstalled,
  leftoverProcesses,
  packVsix,
  setWorkspaceSettings,
  waitFor,
  withVSCode,
} from './harness.mjs';

const EXT_ID = 'doublet-e2e.sample-ext';
let tmp;
let vsix;
let workspace;
let extraBin;

before(async () => {
  ensureInstalled();
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'doublet-vscode-selftest-'));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true })); // also on Ctrl+C
  vsix = await packVsix(path.join(E2E_DIR, 'fixtures', 'sample-ext'), path.join(tmp, 'sample-ext.vsix'), {
    extraArgs: ['--no-dependencies'],
  });
  extraBin = path.join(tmp, 'bin');
  await fsp.mkdir(extraBin);
  workspace = path.join(tmp, 'workspace');
  await fsp.mkdir(path.join(workspace, 'notes'), { recursive: true });
  await fsp.writeFile(path.join(workspace, 'hello.txt'), 'hello world\nsecond line\nthird line\n');
  await fsp.writeFile(path.join(workspace, 'notes', 'other.txt'), 'another file\n');
});

after(async () => {
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

test('sample extension: palette command, notification, Problems panel, hover, decoration, setting', async () => {
  const t0 = Date.now();
  await withVSCode({
    name: 'selftest',
    folder: workspace,
    vsix: [vsix],
    settings: { 'sample.greeting': 'Hi' }, // user settings in place before start
    env: { DOUBLET_E2E_MARK: 'mark-42', PATH: `${extraBin}:${process.env.PATH}` }, // reaches the extension host
  }, async ({ server, wb }) => {
    console.log(`# workbench up ${Date.now() - t0} ms after start`);
    await wb.openFile('hello.txt');
    await server.waitForActivation(EXT_ID); // onLanguage:plaintext
    await wb.screenshot('selftest-01-file-open');

    const before = await wb.problems();
    assert.deepEqual(before.filter((r) => r.source === 'sample'), [], 'no sample diagnostic before the command');

    await wb.runCommand('Sample: Say Hello');
    const note = await wb.waitForNotification('Hi from the sample extension!');
    assert.equal(note.severity, 'info');

    const rows = await wb.waitForProblems((ps) => ps.some((r) => r.source === 'sample'));
    const row = rows.find((r) => r.source === 'sample');
    assert.equal(row.severity, 'warning');
    assert.equal(row.message, 'Hi diagnostic from the sample extension');
    assert.equal(row.code, 'SAMPLE001');
    assert.equal(row.line, 1);
    assert.equal(row.col, 1);
    assert.ok(row.file.endsWith(`${path.sep}hello.txt`), `problem is on hello.txt: ${row.file}`);
    assert.deepEqual(
      { errors: (await wb.problemCounts()).errors, warnings: (await wb.problemCounts()).warnings },
      { errors: 0, warnings: 1 },
    );

    const decos = await wb.decorations();
    assert.ok(decos.some((d) => d.line === 1 && d.kind === 'squiggly-warning'), `warning squiggle on line 1: ${JSON.stringify(decos)}`);
    assert.ok(decos.some((d) => d.line === 1 && d.kind === 'overlay' && d.classes.includes('ced-')), 'background decoration on line 1');
    assert.ok(decos.some((d) => d.line === 1 && d.kind === 'inline' && /sample decoration/.test(d.text)), 'after-text decoration on line 1');
    assert.ok(!decos.some((d) => d.line === 2 && d.kind.startsWith('squiggly')), 'no squiggle on line 2');
    await wb.screenshot('selftest-02-problems');

    const lines = await wb.visibleLines();
    assert.deepEqual(lines.slice(0, 2), [{ line: 1, text: 'hello world' }, { line: 2, text: 'second line' }]);

    const hover2 = await wb.hoverAt(2, 3);
    assert.match(hover2, /Sample hover/);
    assert.match(hover2, /second/);
    const hover1 = await wb.hoverOnText('world');
    assert.match(hover1, /Sample hover/);
    assert.match(hover1, /Hi diagnostic from the sample extension/, 'the hover on line 1 shows the diagnostic too');
    await wb.screenshot('selftest-03-hover');
    await wb.hideHover();

    // Settings changes reach the running extension host: user scope through the
    // Settings editor, workspace scope through <folder>/.vscode/settings.json.
    const greet = async (word) => {
      await wb.clearNotifications();
      await waitFor(
        async () => {
          await wb.runCommand('Sample: Say Hello');
          return wb.waitForNotification(`${word} from the sample extension!`, { timeout: 2000 }).catch(() => null);
        },
        { timeout: 20_000, interval: 500, what: `the greeting "${word}"` },
      );
      await wb.waitForProblems((ps) => ps.some((r) => r.message === `${word} diagnostic from the sample extension`));
    };
    await wb.setSettingViaUI('sample.greeting', 'Howdy');
    assert.equal(server.readSettings()['sample.greeting'], 'Howdy');
    await greet('Howdy');
    await wb.screenshot('selftest-04-user-setting');
    await setWorkspaceSettings(workspace, { 'sample.greeting': 'Bonjour' });
    await greet('Bonjour');
    await wb.screenshot('selftest-05-workspace-setting');
    await fsp.rm(path.join(workspace, '.vscode'), { recursive: true, force: true });
    await greet('Howdy');

    const channel = server.outputChannel('Sample');
    assert.match(channel, /sample-ext activated/);
    assert.match(channel, /DOUBLET_E2E_MARK=mark-42/);
    assert.match(channel, new RegExp(`PATH=.*${extraBin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`), 'PATH given to the harness reaches the extension host');
    assert.deepEqual(wb.consoleErrors.filter((e) => /sample/i.test(e)), []);
  });
  console.log(`# sample-extension test: ${Date.now() - t0} ms`);
  for (const f of ['selftest-01-file-open', 'selftest-02-problems', 'selftest-03-hover', 'selftest-04-user-setting', 'selftest-05-workspace-setting']) {
    assert.ok(fs.existsSync(path.join(ARTIFACTS_DIR, `${f}.png`)), `${f}.png saved`);
  }
  assert.deepEqual(leftoverProcesses(), [], 'no process left after a passing test');
});

test('a failing test still tears everything down and saves a screenshot and logs', async () => {
  const failedPng = path.join(ARTIFACTS_DIR, 'selftest-teardown-FAILED.png');
  const failedLogs = path.join(ARTIFACTS_DIR, 'selftest-teardown-FAILED-logs');
  await fsp.rm(failedPng, { force: true });
  await fsp.rm(failedLogs, { recursive: true, force: true });
  let runDir;
  await assert.rejects(
    withVSCode({ name: 'selftest-teardown', folder: workspace }, async ({ server, wb }) => {
      runDir = server.runDir;
      await wb.runCommand('No Such Command: Anywhere', { timeout: 2000 });
    }),
    /not found in the palette/,
  );
  assert.ok(fs.existsSync(failedPng), 'failure screenshot saved');
  assert.ok(fs.existsSync(path.join(failedLogs, 'code-server.log')), 'code-server log saved');
  assert.ok(runDir && !fs.existsSync(runDir), 'run folder removed');
  assert.deepEqual(leftoverProcesses(), [], 'no process left after a failing test');
  // These two files are the expected output of this test, not a real failure.
  await fsp.rm(failedPng, { force: true });
  await fsp.rm(failedLogs, { recursive: true, force: true });
});
