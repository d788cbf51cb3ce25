// Finding a Python that can run the Doublet server, and the server's packages
// for it without a manual pip step: the libraries bundled in the extension, or,
// for an interpreter they do not fit, a private environment made with pip.

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Interpreter, PROBE, chooseBundle, parseManifest, parseProbe } from './logic/bundle';
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

/** How to run `-m doublet serve`: which Python, and folders to put first on its PYTHONPATH. */
export interface ServerPython {
  python: string;
  pythonPath?: string[];
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
 * How to run the server with the Python found: as it is if it already has this
 * version of Doublet; else with the libraries bundled in the extension, if they
 * fit it (CPython version, platform); else from a private environment in the
 * extension's storage, created once with pip from the bundled wheel (this needs
 * the package index).
 */
export async function serverPython(
  context: vscode.ExtensionContext,
  found: FoundPython,
  output: vscode.OutputChannel,
): Promise<ServerPython> {
  const version: string = context.extension.packageJSON.version;
  const python = found.command;
  if (found.info.doublet === version) {
    output.appendLine(`Server: Doublet ${version} installed for ${python}`);
    return { python };
  }
  const libs = path.join(context.extensionPath, 'bundled', 'libs');
  let manifestText: string | undefined;
  try {
    manifestText = fs.readFileSync(path.join(libs, 'manifest.json'), 'utf8');
  } catch {
    manifestText = undefined;
  }
  const choice = chooseBundle(manifestText === undefined ? undefined : parseManifest(manifestText), found.info, python);
  if ('folders' in choice) {
    const pythonPath = choice.folders.map((folder) => path.join(libs, folder));
    // The interpreter itself rather than a launcher or shim in front of it (py, pyenv): one
    // process less to start; the same Python, whose version chose the folders.
    const executable = found.info.executable;
    const interpreter = executable && path.isAbsolute(executable) && fs.existsSync(executable) ? executable : python;
    output.appendLine(`Server: Doublet ${version} run by ${interpreter} with the libraries bundled in the extension (${pythonPath.join(path.delimiter)})`);
    return { python: interpreter, pythonPath };
  }

  const venv = path.join(context.globalStorageUri.fsPath, `server-${version}`);
  const inVenv = venvPython(venv);
  output.appendLine(`No bundled server libraries for this Python: ${choice.reason}.`);
  if (fs.existsSync(inVenv) && (await hasDoublet(inVenv, version))) {
    output.appendLine(`Server: Doublet ${version} in ${venv}`);
    return { python: inVenv };
  }
  const wheel = bundledWheel(context.extensionPath);
  if (!wheel) {
    throw new Error(`Doublet ${version} is not installed for ${python}, and ${choice.reason}.`);
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
        `${choice.reason}: set "doublet.python.path" to a Python the bundled libraries fit, which needs no installation.`,
    );
  }
  if (!(await hasDoublet(inVenv, version))) {
    throw new Error(`Installing the Doublet server into ${venv} failed; see Output: Doublet.`);
  }
  return { python: inVenv };
}
