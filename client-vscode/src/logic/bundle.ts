// The server's Python libraries bundled in the extension (bundled/libs, built by
// scripts/bundle_libs.py): whether they fit an interpreter, which folders go on
// its path, and the environment the server starts with. No VS Code here: these
// functions are unit-tested on their own.

/**
 * Run with `python -c` to learn what the interpreter is. Valid Python 2 as well,
 * so that an old interpreter still says which version it is.
 */
export const PROBE = [
  'import json, platform, sys, sysconfig',
  'try:',
  '    import doublet',
  '    d = getattr(doublet, "__version__", None)',
  'except Exception:',
  '    d = None',
  'libc = platform.libc_ver() if sys.platform.startswith("linux") else ("", "")',
  'print(json.dumps({"implementation": getattr(getattr(sys, "implementation", None), "name", platform.python_implementation().lower()),',
  '  "version": list(sys.version_info[:2]), "freeThreaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),',
  '  "platform": sys.platform, "machine": platform.machine(), "bits": 64 if sys.maxsize > 2 ** 32 else 32,',
  '  "libc": list(libc), "doublet": d, "executable": sys.executable}))',
].join('\n');

/** What PROBE prints. */
export interface Interpreter {
  implementation: string; // "cpython", "pypy", ...
  version: [number, number];
  freeThreaded: boolean;
  platform: string; // sys.platform: "linux", "darwin", "win32"
  machine: string; // platform.machine(): "x86_64", "AMD64", "arm64", "aarch64"
  bits: number;
  libc: [string, string]; // ["glibc", "2.36"] on Linux with glibc, else ["", ""]
  doublet: string | null; // the version of Doublet this interpreter imports, if any
  executable: string; // sys.executable: the interpreter itself, past launchers and shims (py, pyenv)
}

/** bundled/libs/manifest.json, written by scripts/bundle_libs.py build. */
export interface Manifest {
  platform: string; // VS Code's name of the platform: "linux-x64", "win32-x64", ...
  sys_platform: string;
  machines: string[];
  glibc?: string; // the oldest glibc the compiled wheels accept (Linux)
  pythons: string[]; // "3.10", "3.11", ...: each has a folder cp310, cp311, ...
  common: string; // the folder of what every version shares
  doublet?: string;
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
      freeThreaded: !!value.freeThreaded,
      platform: String(value.platform ?? ''),
      machine: String(value.machine ?? ''),
      bits: Number(value.bits ?? 64),
      libc: Array.isArray(value.libc) && value.libc.length === 2 ? [String(value.libc[0]), String(value.libc[1])] : ['', ''],
      doublet: typeof value.doublet === 'string' ? value.doublet : null,
      executable: typeof value.executable === 'string' ? value.executable : '',
    };
  } catch {
    return undefined;
  }
}

export function parseManifest(text: string): Manifest | undefined {
  try {
    const value = JSON.parse(text);
    const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (typeof value.platform !== 'string' || typeof value.sys_platform !== 'string' || !strings(value.machines) || !strings(value.pythons)) {
      return undefined;
    }
    return {
      platform: value.platform,
      sys_platform: value.sys_platform,
      machines: value.machines,
      glibc: typeof value.glibc === 'string' ? value.glibc : undefined,
      pythons: value.pythons,
      common: typeof value.common === 'string' ? value.common : 'common',
      doublet: typeof value.doublet === 'string' ? value.doublet : undefined,
    };
  } catch {
    return undefined;
  }
}

/** "cp311" for CPython 3.11: the folder of its version-specific libraries. */
export function folderFor(version: [number, number]): string {
  return `cp${version[0]}${version[1]}`;
}

/** -1, 0 or 1 as dotted version a is older than, the same as or newer than b ("2.28" < "2.36"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) {
      return d < 0 ? -1 : 1;
    }
  }
  return 0;
}

function listVersions(pythons: string[]): string {
  return pythons.length > 2 ? `${pythons[0]} to ${pythons[pythons.length - 1]}` : pythons.join(' and ');
}

export type Choice = { folders: string[] } | { reason: string };

/**
 * The folders of bundled/libs that run the server with this interpreter, first
 * on the path first: its version's folder, then the common one. Or why none fit.
 */
export function chooseBundle(manifest: Manifest | undefined, python: Interpreter, command: string): Choice {
  if (!manifest) {
    return { reason: 'this build of the extension has no bundled server libraries' };
  }
  const shown = `${python.version[0]}.${python.version[1]}`;
  const offered = `the extension bundles the server's libraries for CPython ${listVersions(manifest.pythons)} on ${manifest.platform}`;
  if (python.implementation !== 'cpython') {
    return { reason: `"${command}" is ${python.implementation} ${shown}, and ${offered}` };
  }
  if (python.freeThreaded) {
    return { reason: `"${command}" is a free-threaded build of CPython ${shown}, and ${offered} (standard builds)` };
  }
  if (python.platform !== manifest.sys_platform || !manifest.machines.includes(python.machine) || python.bits !== 64) {
    return { reason: `"${command}" runs on ${python.platform} ${python.machine} (${python.bits}-bit), and ${offered}` };
  }
  if (manifest.glibc && python.platform === 'linux') {
    const [libc, libcVersion] = python.libc;
    if (libc !== 'glibc' || compareVersions(libcVersion, manifest.glibc) < 0) {
      const found = libc ? `${libc} ${libcVersion}` : 'a C library other than glibc';
      return { reason: `"${command}" uses ${found}, and the bundled libraries need glibc ${manifest.glibc} or newer` };
    }
  }
  if (!manifest.pythons.includes(shown)) {
    return { reason: `"${command}" is CPython ${shown}, and ${offered}` };
  }
  return { folders: [folderFor(python.version), manifest.common] };
}

/**
 * The server's arguments. With the bundled libraries, also -S: no site-packages, so that
 * nothing installed for that Python is imported instead of or beside them (seen: pygments
 * looking for plugin lexers through the entry points of every installed distribution,
 * 0.7 s with a big site-packages, and importing IPython's).
 */
export function serverArgs(pythonPath: string[] | undefined): string[] {
  return [...(pythonPath && pythonPath.length ? ['-S'] : []), '-m', 'doublet', 'serve'];
}

/**
 * The server's environment: the extension host's, unbuffered, with the bundled
 * folders (absolute paths) first on PYTHONPATH when given. The user's own
 * PYTHONPATH stays, after them.
 */
export function serverEnvironment(
  base: Record<string, string | undefined>,
  pythonPath: string[] | undefined,
  delimiter: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  env.PYTHONUNBUFFERED = '1';
  if (pythonPath && pythonPath.length) {
    const key = Object.keys(env).find((k) => k.toUpperCase() === 'PYTHONPATH') ?? 'PYTHONPATH';
    const existing = env[key];
    delete env[key];
    env.PYTHONPATH = [...pythonPath, ...(existing ? [existing] : [])].join(delimiter);
  }
  return env;
}
