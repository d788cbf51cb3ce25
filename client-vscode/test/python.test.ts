import * as assert from 'assert';
import { candidates, isSupported, parseVersion, tooOldMessage } from '../src/logic/python';

describe('choosing Python', () => {
  it('reads the version Python prints', () => {
    assert.deepStrictEqual(parseVersion('3.11\n'), [3, 11]);
    assert.deepStrictEqual(parseVersion('Python 3.9.18'), [3, 9]);
    assert.strictEqual(parseVersion('command not found'), undefined);
  });

  it('accepts 3.10 and newer only', () => {
    assert.ok(isSupported([3, 10]));
    assert.ok(isSupported([3, 13]));
    assert.ok(isSupported([4, 0]));
    assert.ok(!isSupported([3, 9]));
    assert.ok(!isSupported([2, 7]));
    assert.ok(!isSupported(undefined));
  });

  it('tries the setting, then the Python extension, then PATH', () => {
    assert.deepStrictEqual(candidates('/opt/py/bin/python', '/venv/bin/python', false), [
      '/opt/py/bin/python',
      '/venv/bin/python',
      'python3',
      'python',
    ]);
    assert.deepStrictEqual(candidates('', undefined, false), ['python3', 'python']);
    assert.deepStrictEqual(candidates(undefined, 'python3', false), ['python3', 'python']);
    assert.deepStrictEqual(candidates(undefined, undefined, true), ['py', 'python', 'python3']);
  });

  it('says what to do when Python is too old', () => {
    const message = tooOldMessage('python3', [3, 8]);
    assert.match(message, /3\.10 or newer/);
    assert.match(message, /"python3" is 3\.8/);
    assert.match(message, /doublet\.python\.path/);
  });
});
