import * as assert from 'assert';
import { spawnSync } from 'child_process';
import {
  Interpreter,
  Manifest,
  PROBE,
  chooseBundle,
  compareVersions,
  folderFor,
  parseManifest,
  parseProbe,
  serverArgs,
  serverEnvironment,
} from '../src/logic/bundle';

const LINUX_X64: Manifest = {
  platform: 'linux-x64',
  sys_platform: 'linux',
  machines: ['x86_64'],
  glibc: '2.28',
  pythons: ['3.10', '3.11', '3.12', '3.13', '3.14'],
  common: 'common',
  doublet: '0.1.0',
};

const WIN32_X64: Manifest = { ...LINUX_X64, platform: 'win32-x64', sys_platform: 'win32', machines: ['AMD64', 'x86_64'], glibc: undefined };

function cpython(minor: number, more: Partial<Interpreter> = {}): Interpreter {
  return {
    implementation: 'cpython',
    version: [3, minor],
    freeThreaded: false,
    platform: 'linux',
    machine: 'x86_64',
    bits: 64,
    libc: ['glibc', '2.36'],
    doublet: null,
    executable: `/usr/bin/python3.${minor}`,
    ...more,
  };
}

describe('the bundled server libraries', () => {
  it('read what the probe prints', () => {
    const info = parseProbe(
      '{"implementation": "cpython", "version": [3, 12], "freeThreaded": false, "platform": "linux", "machine": "x86_64", "bits": 64, "libc": ["glibc", "2.36"], "doublet": "0.1.0", "executable": "/usr/bin/python3.12"}\n',
    );
    assert.deepStrictEqual(info, cpython(12, { doublet: '0.1.0' }));
    assert.strictEqual(parseProbe('{"implementation": "cpython", "version": [3, 12]}')?.executable, '', 'an older probe');
    assert.strictEqual(parseProbe('Traceback (most recent call last):\n  ...'), undefined);
    assert.strictEqual(parseProbe(''), undefined);
    assert.strictEqual(parseProbe('{"version": "3.12"}'), undefined);
  });

  it('the probe runs on this machine\'s python3 (when there is one), Python 2 syntax included', function () {
    const r = spawnSync('python3', ['-c', PROBE], { encoding: 'utf8' });
    if (r.error) {
      this.skip();
    }
    const info = parseProbe(r.stdout);
    assert.ok(info, `probe output: ${r.stdout} ${r.stderr}`);
    assert.strictEqual(info.version[0], 3);
    assert.strictEqual(info.bits === 32 || info.bits === 64, true);
    assert.ok(info.executable, 'sys.executable');
    assert.doesNotMatch(PROBE, /f"|f'|:=/, 'no syntax newer than Python 2.7');
  });

  it('read the manifest the build writes, and refuse a broken one', () => {
    assert.deepStrictEqual(parseManifest(JSON.stringify({ ...LINUX_X64, lock: 'abc', script: 'def' })), LINUX_X64);
    assert.strictEqual(parseManifest('{"platform": "linux-x64"}'), undefined);
    assert.strictEqual(parseManifest('not json'), undefined);
  });

  it('put the version\'s own folder first, then the common one', () => {
    assert.strictEqual(folderFor([3, 10]), 'cp310');
    for (const minor of [10, 11, 12, 13, 14]) {
      assert.deepStrictEqual(chooseBundle(LINUX_X64, cpython(minor), 'python3'), { folders: [`cp3${minor}`, 'common'] });
    }
    assert.deepStrictEqual(chooseBundle(WIN32_X64, cpython(12, { platform: 'win32', machine: 'AMD64', libc: ['', ''] }), 'py'), {
      folders: ['cp312', 'common'],
    });
  });

  it('say why no folder fits', () => {
    const reason = (manifest: Manifest | undefined, info: Interpreter) => {
      const choice = chooseBundle(manifest, info, 'python3');
      assert.ok('reason' in choice, JSON.stringify(choice));
      return choice.reason;
    };
    assert.match(reason(undefined, cpython(12)), /no bundled server libraries/);
    const newer = reason(LINUX_X64, cpython(15));
    assert.match(newer, /"python3" is CPython 3\.15/);
    assert.match(newer, /CPython 3\.10 to 3\.14 on linux-x64/);
    assert.match(reason(LINUX_X64, cpython(11, { implementation: 'pypy' })), /is pypy 3\.11/);
    assert.match(reason(LINUX_X64, cpython(14, { freeThreaded: true })), /free-threaded/);
    assert.match(reason(LINUX_X64, cpython(12, { machine: 'aarch64' })), /runs on linux aarch64/);
    assert.match(reason(LINUX_X64, cpython(12, { bits: 32 })), /32-bit/);
    assert.match(reason(LINUX_X64, cpython(12, { platform: 'darwin', machine: 'x86_64' })), /runs on darwin/);
    assert.match(reason(LINUX_X64, cpython(12, { libc: ['', ''] })), /other than glibc/);
    assert.match(reason(LINUX_X64, cpython(12, { libc: ['glibc', '2.17'] })), /glibc 2\.17.*2\.28 or newer/);
    assert.match(reason({ ...LINUX_X64, pythons: ['3.12', '3.13'] }, cpython(11)), /CPython 3\.12 and 3\.13/);
  });

  it('compare dotted versions as numbers', () => {
    assert.strictEqual(compareVersions('2.28', '2.28'), 0);
    assert.strictEqual(compareVersions('2.9', '2.28'), -1);
    assert.strictEqual(compareVersions('2.36', '2.28'), 1);
    assert.strictEqual(compareVersions('3', '2.99'), 1);
    assert.strictEqual(compareVersions('', '2.28'), -1);
  });

  it('start the server without site-packages when it runs from the bundle', () => {
    assert.deepStrictEqual(serverArgs(['/ext/bundled/libs/cp312', '/ext/bundled/libs/common']), ['-S', '-m', 'doublet', 'serve']);
    assert.deepStrictEqual(serverArgs(undefined), ['-m', 'doublet', 'serve'], 'an installed Doublet needs its site-packages');
  });

  it('start the server with the folders first on PYTHONPATH, keeping the rest of the environment', () => {
    const base = { PATH: '/usr/bin', PYTHONPATH: '/mine', UNSET: undefined };
    const env = serverEnvironment(base, ['/ext/bundled/libs/cp312', '/ext/bundled/libs/common'], ':');
    assert.deepStrictEqual(env, {
      PATH: '/usr/bin',
      PYTHONPATH: '/ext/bundled/libs/cp312:/ext/bundled/libs/common:/mine',
      PYTHONUNBUFFERED: '1',
    });
    assert.deepStrictEqual(serverEnvironment({ PATH: '/usr/bin' }, undefined, ':'), { PATH: '/usr/bin', PYTHONUNBUFFERED: '1' });
    // Windows spells it as it likes, and uses ';'
    const win = serverEnvironment({ Path: 'C:\\Windows', PythonPath: 'D:\\lib' }, ['C:\\ext\\cp312', 'C:\\ext\\common'], ';');
    assert.strictEqual(win.PYTHONPATH, 'C:\\ext\\cp312;C:\\ext\\common;D:\\lib');
    assert.ok(!('PythonPath' in win));
    assert.strictEqual(base.PYTHONPATH, '/mine', 'the extension host\'s environment is not changed');
  });
});
