import * as assert from 'assert';
import { NotStarted, firstFit, whyNotBundled } from '../src/logic/firstFit';

type Started = { kind: 'started'; pid: number };

/** A launcher answering for each command what the table says, and recording the tries. */
function launcher(table: Record<string, Started | NotStarted>) {
  const tried: string[] = [];
  const launch = async (command: string): Promise<Started | NotStarted> => {
    tried.push(command);
    return table[command] ?? { kind: 'not-run', reason: `"${command}" could not be run (ENOENT)` };
  };
  return { tried, launch };
}

const pypy: NotStarted = { kind: 'does-not-fit', reason: '"/venv/bin/python" is PyPy 3.10' };
const newest: NotStarted = { kind: 'does-not-fit', reason: '"python3" is CPython 3.15' };

describe('the Python that runs the bundled server', () => {
  it('is the first candidate the bundle fits, past those it does not fit', async () => {
    const { tried, launch } = launcher({ '/venv/bin/python': pypy, python3: newest, python: { kind: 'started', pid: 7 } });
    const result = await firstFit(['/venv/bin/python', 'python3', 'python'], launch);
    assert.deepStrictEqual(result, { command: 'python', started: { kind: 'started', pid: 7 } });
    assert.deepStrictEqual(tried, ['/venv/bin/python', 'python3', 'python']);
  });

  it('starts one server only: candidates after the first that starts are not tried', async () => {
    const { tried, launch } = launcher({ python3: { kind: 'started', pid: 1 }, python: { kind: 'started', pid: 2 } });
    const result = await firstFit(['python3', 'python'], launch);
    assert.ok('started' in result && result.started.pid === 1);
    assert.deepStrictEqual(tried, ['python3']);
  });

  it('when the bundle fits none, keeps each refusal with its reason', async () => {
    const { launch } = launcher({ '/venv/bin/python': pypy, python3: newest });
    const result = await firstFit(['/venv/bin/python', 'python3', 'python'], launch);
    assert.ok('refused' in result);
    assert.deepStrictEqual([...result.refused.keys()], ['/venv/bin/python', 'python3', 'python']);
    assert.strictEqual(result.refused.get('python')?.kind, 'not-run');
  });

  it('gives the fallback Python\'s own reason, else the first does-not-fit, else the first failure', () => {
    const notRun: NotStarted = { kind: 'not-run', reason: '"py" could not be run' };
    const refused = new Map<string, NotStarted>([['py', notRun], ['/venv/bin/python', pypy], ['python3', newest]]);
    assert.strictEqual(whyNotBundled(refused, 'python3'), newest.reason);
    assert.strictEqual(whyNotBundled(refused, '/usr/local/bin/python3.15'), pypy.reason, 'a Python not tried: the first that ran and did not fit');
    assert.strictEqual(whyNotBundled(new Map([['py', notRun]]), 'python'), notRun.reason);
    assert.match(whyNotBundled(new Map(), 'python'), /no Python could run/);
  });
});
