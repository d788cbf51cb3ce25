// Which of the candidate interpreters runs the server with the bundled libraries.
// Candidates are tried in order because a Python the bundle does not fit (PyPy, a
// too new CPython, a free-threaded build) is often found before one it fits; only
// when it fits none does the extension fall back on a Python with Doublet installed,
// or on pip. No VS Code here: this is unit-tested on its own.

/** A candidate that was not started: the bundle does not fit it, or it did not run. */
export interface NotStarted {
  kind: 'does-not-fit' | 'not-run';
  reason: string;
}

/** The first candidate started, or why none was. */
export type FirstFit<S> = { command: string; started: S } | { refused: Map<string, NotStarted> };

/**
 * Tries `launch` on each command in order and stops at the first that starts, so that
 * at most one server runs; the others, tried before it, are kept with their reasons.
 */
export async function firstFit<L extends { kind: 'started' } | NotStarted>(
  commands: string[],
  launch: (command: string) => Promise<L>,
): Promise<FirstFit<Extract<L, { kind: 'started' }>>> {
  const refused = new Map<string, NotStarted>();
  for (const command of commands) {
    const outcome = await launch(command);
    if (outcome.kind === 'started') {
      return { command, started: outcome as Extract<L, { kind: 'started' }> };
    }
    refused.set(command, outcome as NotStarted);
  }
  return { refused };
}

/**
 * Why the bundle was not used, for the message of the fallback that runs `fallback`:
 * that Python's own reason when it was tried, else the first reason that the bundle does
 * not fit (a Python ran and said why), else the first Python that could not run.
 */
export function whyNotBundled(refused: Map<string, NotStarted>, fallback: string): string {
  const own = refused.get(fallback);
  if (own) {
    return own.reason;
  }
  const all = [...refused.values()];
  const first = all.find((r) => r.kind === 'does-not-fit') ?? all[0];
  return first?.reason ?? 'no Python could run the bundled server libraries';
}
