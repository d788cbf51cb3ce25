// How the extension learns about an interpreter and starts the server with it: the
// probe of an interpreter, what python/launch.py reports when it starts the server
// from the libraries bundled in the extension (bundled/libs, built by
// scripts/bundle_libs.py), and the server's environment. Whether the bundled
// libraries fit an interpreter is decided by launch.py alone. No VS Code here: these
// functions are unit-tested on their own.

/**
 * Run with `python -c` to learn what the interpreter is and whether it has Doublet.
 * Valid Python 2 as well, so that an old interpreter still says which version it is.
 */
export const PROBE = [
  'import json, sys',
  'try:',
  '    import doublet',
  '    d = getattr(doublet, "__version__", None)',
  'except Exception:',
  '    d = None',
  'print(json.dumps({"implementation": getattr(getattr(sys, "implementation", None), "name", "cpython"),',
  '  "version": list(sys.version_info[:2]), "doublet": d, "executable": sys.executable}))',
].join('\n');

/** What PROBE prints. */
export interface Interpreter {
  implementation: string; // "cpython", "pypy", ...
  version: [number, number];
  doublet: string | null; // the version of Doublet this interpreter imports, if any
  executable: string; // sys.executable: the interpreter itself, past launchers and shims (py, pyenv)
}

export function parseProbe(stdout: string): Interpreter | undefined {
  const line = stdout.trim().split(/\r?\n/).pop() ?? '';
  try {
    const value = JSON.parse(line);
    if (!Array.isArray(value.version) || value.version.length !== 2 || typeof value.implementation !== 'string') {
      return undefined;
    }
    return {
      implementation: value.implementation,
      version: [Number(value.version[0]), Number(value.version[1])],
      doublet: typeof value.doublet === 'string' ? value.doublet : null,
      executable: typeof value.executable === 'string' ? value.executable : '',
    };
  } catch {
    return undefined;
  }
}

/** How launch.py's first line on stderr starts. */
export const LAUNCH_PREFIX = 'doublet-launch: ';
/** launch.py's exit status when the bundled libraries do not fit the interpreter. */
export const DOES_NOT_FIT = 3;

/** What launch.py says about the interpreter it runs in, before it starts the server. */
export type LaunchReport =
  | { ok: true; python: string; executable: string; folders: string[] }
  | { ok: false; python: string; executable: string; reason: string };

/** launch.py's first line, or undefined when the line is not one. */
export function parseLaunchReport(line: string): LaunchReport | undefined {
  if (!line.startsWith(LAUNCH_PREFIX)) {
    return undefined;
  }
  try {
    const value = JSON.parse(line.slice(LAUNCH_PREFIX.length));
    const python = String(value.python ?? '');
    const executable = String(value.executable ?? '');
    if (value.ok === true && Array.isArray(value.folders) && value.folders.every((f: unknown) => typeof f === 'string')) {
      return { ok: true, python, executable, folders: value.folders };
    }
    if (value.ok === false && typeof value.reason === 'string') {
      return { ok: false, python, executable, reason: value.reason };
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The server's environment: the extension host's, unbuffered. launch.py puts the
 * bundled folders first on PYTHONPATH itself; the user's own PYTHONPATH stays after them.
 */
export function serverEnvironment(base: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  env.PYTHONUNBUFFERED = '1';
  return env;
}
