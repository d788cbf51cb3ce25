// Choosing and checking the Python that runs the Doublet server. No VS Code here:
// these functions are unit-tested on their own.

export const MINIMUM: [number, number] = [3, 10];

/** "3.11" (what `python -c 'import sys; print(...)'` prints) as [3, 11], or undefined. */
export function parseVersion(output: string): [number, number] | undefined {
  const match = /(\d+)\.(\d+)/.exec(output.trim());
  if (!match) {
    return undefined;
  }
  return [Number(match[1]), Number(match[2])];
}

export function isSupported(version: [number, number] | undefined): boolean {
  if (!version) {
    return false;
  }
  const [major, minor] = version;
  return major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);
}

/**
 * The interpreters to try, in order: the user's setting, then the Python
 * extension's active interpreter, then the usual commands on PATH.
 */
export function candidates(setting: string | undefined, pythonExtension: string | undefined, windows: boolean): string[] {
  const found: string[] = [];
  for (const value of [setting, pythonExtension]) {
    if (value && value.trim() && !found.includes(value.trim())) {
      found.push(value.trim());
    }
  }
  const defaults = windows ? ['py', 'python', 'python3'] : ['python3', 'python'];
  for (const command of defaults) {
    if (!found.includes(command)) {
      found.push(command);
    }
  }
  return found;
}

export function tooOldMessage(command: string, version: [number, number] | undefined): string {
  const shown = version ? `${version[0]}.${version[1]}` : 'an unknown version';
  return (
    `Doublet needs Python ${MINIMUM[0]}.${MINIMUM[1]} or newer; "${command}" is ${shown}. ` +
    'Install a newer Python, or point the "doublet.python.path" setting at one.'
  );
}

export const MISSING_MESSAGE =
  'Doublet needs Python 3.10 or newer and could not find one. Install Python ' +
  '(python.org, or your system\'s package manager), or set "doublet.python.path" to its path.';
