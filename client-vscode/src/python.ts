// Finding a Python that can run the Doublet server, and making the server's
// package available in it without a manual pip step.

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { MISSING_MESSAGE, candidates, isSupported, parseVersion, tooOldMessage } from './logic/python';

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

/** The first candidate interpreter that is Python 3.10 or newer. */
export async function findPython(output: vscode.OutputChannel): Promise<string> {
  const setting = vscode.workspace.getConfiguration('doublet').get<string>('python.path');
  const tried: string[] = [];
  for (const command of candidates(setting, await pythonExtensionInterpreter(), process.platform === 'win32')) {
    try {
      const { stdout } = await run(command, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
      const version = parseVersion(stdout);
      if (isSupported(version)) {
        output.appendLine(`Python: ${command} (${stdout.trim()})`);
        return command;
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
 * A Python that can run `-m doublet serve`: the given one if it already has this
 * version of Doublet, else a private environment in the extension's storage,
 * created once from the wheel bundled in the extension.
 */
export async function serverPython(
  context: vscode.ExtensionContext,
  python: string,
  output: vscode.OutputChannel,
): Promise<string> {
  const version: string = context.extension.packageJSON.version;
  if (await hasDoublet(python, version)) {
    return python;
  }
  const venv = path.join(context.globalStorageUri.fsPath, `server-${version}`);
  const inVenv = venvPython(venv);
  if (fs.existsSync(inVenv) && (await hasDoublet(inVenv, version))) {
    return inVenv;
  }
  const wheel = bundledWheel(context.extensionPath);
  if (!wheel) {
    throw new Error(`Doublet ${version} is not installed for ${python}, and this build of the extension has no bundled server.`);
  }
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
  if (!(await hasDoublet(inVenv, version))) {
    throw new Error(`Installing the Doublet server into ${venv} failed; see Output: Doublet.`);
  }
  return inVenv;
}
