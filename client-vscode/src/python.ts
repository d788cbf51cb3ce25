// Finding a Python that can run the Doublet server, and the server's packages
// for it without a manual pip step: the libraries bundled in the extension (started
// through python/launch.py, which checks that they fit), or, for an interpreter they
// do not fit, a private environment made with pip.

import { ChildProcess, execFile, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { DOES_NOT_FIT, Interpreter, LaunchReport, PROBE, parseLaunchReport, parseProbe, serverEnvironment } from './logic/bundle';
import { MISSING_MESSAGE, candidates, isSupported, tooOldMessage } from './logic/python';

function run(command: string, args: string[], timeout = 20000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(Object.assign(error, { stdout, stderr }));
      } else {
        resolve({ stdout, stderr });
      }
    });
  });
}

/** The Python extension's active interpreter, if that extension is installed. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension('ms-python.python');
  if (!extension) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const active = api?.environments?.getActiveEnvironmentPath?.(resource);
    return active?.path;
  } catch {
    return undefined;
  }
}

export class PythonNotFound extends Error {}

/** An interpreter found, and what it said about itself. */
export interface FoundPython {
  command: string;
  info: Interpreter;
}

/** The first candidate interpreter that is Python 3.10 or newer. */
export async function findPython(output: vscode.OutputChannel): Promise<FoundPython> {
  const setting = vscode.workspace.getConfiguration('doublet').get<string>('python.path');
  const tried: string[] = [];
  for (const command of candidates(setting, await pythonExtensionInterpreter(), process.platform === 'win32')) {
    try {
      const { stdout } = await run(command, ['-c', PROBE]);
      const info = parseProbe(stdout);
      const version = info?.version;
      if (info && isSupported(version)) {
        output.appendLine(`Python: ${command} (${info.version[0]}.${info.version[1]})`);
        return { command, info };
      }
      tried.push(tooOldMessage(command, version));
    } catch {
      tried.push(`"${command}" could not be run`);
    }
  }
  output.appendLine(`No usable Python: ${tried.join('; ')}`);
  const tooOld = tried.find((t) => t.startsWith('Doublet needs'));
  throw new PythonNotFound(tooOld ?? MISSING_MESSAGE);
}

/** A server started from the bundled libraries, or why it was not. */
export type Launch =
  | { kind: 'started'; process: ChildProcess; report: LaunchReport & { ok: true } }
  | { kind: 'does-not-fit'; reason: string }
  | { kind: 'not-run'; reason: string };

/** How long launch.py may take to say whether the bundled libraries fit. */
const LAUNCH_TIMEOUT_MS = 30000;

/**
 * Starts `command -S python/launch.py`: the server itself when the libraries bundled in
 * the extension fit that interpreter (one Python start, no probe before it). Its first
 * line on stderr says which; everything after it goes to the output channel.
 */
export function launchBundled(extensionPath: string, command: string, output: vscode.OutputChannel): Promise<Launch> {
  const script = path.join(extensionPath, 'python', 'launch.py');
  if (!fs.existsSync(path.join(extensionPath, 'bundled', 'libs', 'manifest.json'))) {
    return Promise.resolve({ kind: 'does-not-fit', reason: 'this build of the extension has no bundled server libraries' });
  }
  return new Promise((resolve) => {
    let settled = false;
    let firstLine: string | undefined;
    let pending = '';
    const child = spawn(command, ['-S', script, command], { env: serverEnvironment(process.env), stdio: 'pipe' });
    const settle = (launch: Launch) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(launch);
      }
    };
    const timer = setTimeout(() => {
      child.kill();
      settle({ kind: 'not-run', reason: `"${command}" did not start within ${LAUNCH_TIMEOUT_MS / 1000} s` });
    }, LAUNCH_TIMEOUT_MS);
    child.on('error', (error) => settle({ kind: 'not-run', reason: `"${command}" could not be run (${error.message})` }));
    child.on('exit', (code) => {
      const report = firstLine === undefined ? undefined : parseLaunchReport(firstLine);
      if (report && !report.ok && code === DOES_NOT_FIT) {
        settle({ kind: 'does-not-fit', reason: report.reason });
      } else {
        settle({ kind: 'not-run', reason: `"${command}" exited (status ${code}) before the server started` });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (firstLine !== undefined) {
        output.append(text);
        return;
      }
      pending += text;
      const end = pending.indexOf('\n');
      if (end < 0) {
        return;
      }
      firstLine = pending.slice(0, end).replace(/\r$/, '');
      const rest = pending.slice(end + 1);
      const report = parseLaunchReport(firstLine);
      if (!report) {
        output.appendLine(firstLine); // not the launcher speaking: a Python that could not run it
      }
      if (rest) {
        output.append(rest);
      }
      if (report?.ok) {
        settle({ kind: 'started', process: child, report });
      }
    });
  });
}

function venvPython(venv: string): string {
  return process.platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

function bundledWheel(extensionPath: string): string | undefined {
  const folder = path.join(extensionPath, 'bundled');
  if (!fs.existsSync(folder)) {
    return undefined;
  }
  const wheel = fs.readdirSync(folder).find((name) => name.startsWith('doublet-') && name.endsWith('.whl'));
  return wheel ? path.join(folder, wheel) : undefined;
}

async function hasDoublet(python: string, version: string): Promise<boolean> {
  try {
    const { stdout } = await run(python, ['-c', 'import doublet; print(doublet.__version__)']);
    return stdout.trim() === version;
  } catch {
    return false;
  }
}

/**
 * The Python of a private environment in the extension's storage with this version of
 * Doublet, created once with pip from the bundled wheel (this needs the package index):
 * for an interpreter the bundled libraries do not fit (`reason` says why).
 */
export async function privateEnvironment(
  context: vscode.ExtensionContext,
  found: FoundPython,
  reason: string,
  output: vscode.OutputChannel,
): Promise<string> {
  const version: string = context.extension.packageJSON.version;
  const python = found.command;
  const venv = path.join(context.globalStorageUri.fsPath, `server-${version}`);
  const inVenv = venvPython(venv);
  output.appendLine(`No bundled server libraries for this Python: ${reason}.`);
  if (fs.existsSync(inVenv) && (await hasDoublet(inVenv, version))) {
    output.appendLine(`Server: Doublet ${version} in ${venv}`);
    return inVenv;
  }
  const wheel = bundledWheel(context.extensionPath);
  if (!wheel) {
    throw new Error(`Doublet ${version} is not installed for ${python}, and ${reason}.`);
  }
  output.appendLine(`Installing the server with pip into a private environment instead (once; this needs the package index).`);
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Doublet: installing its server (first start only)' },
      async (progress) => {
        fs.mkdirSync(path.dirname(venv), { recursive: true });
        progress.report({ message: 'creating a Python environment…' });
        output.appendLine(`Creating ${venv} with ${python}`);
        await run(python, ['-m', 'venv', venv], 120000);
        progress.report({ message: 'installing packages…' });
        output.appendLine(`Installing ${wheel}`);
        const { stdout, stderr } = await run(
          inVenv,
          ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel],
          600000,
        );
        output.append(stdout);
        output.append(stderr);
      },
    );
  } catch (error) {
    const failure = error as Error & { stdout?: string; stderr?: string };
    output.append(failure.stdout ?? '');
    output.append(failure.stderr ?? '');
    throw new Error(
      `installing its server with pip into ${venv} failed (see Output: Doublet). It was needed because ` +
        `${reason}: set "doublet.python.path" to a Python the bundled libraries fit, which needs no installation.`,
    );
  }
  if (!(await hasDoublet(inVenv, version))) {
    throw new Error(`Installing the Doublet server into ${venv} failed; see Output: Doublet.`);
  }
  return inVenv;
}
