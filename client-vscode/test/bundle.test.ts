import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DOES_NOT_FIT, Interpreter, PROBE, parseLaunchReport, parseProbe, serverEnvironment } from '../src/logic/bundle';

function cpython(minor: number, more: Partial<Interpreter> = {}): Interpreter {
  return { implementation: 'cpython', version: [3, minor], doublet: null, executable: `/usr/bin/python3.${minor}`, ...more };
}

describe('the bundled server libraries', () => {
  it('read what the probe prints', () => {
    const info = parseProbe('{"implementation": "cpython", "version": [3, 12], "doublet": "0.1.0", "executable": "/usr/bin/python3.12"}\n');
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
    assert.ok(info.executable, 'sys.executable');
    assert.doesNotMatch(PROBE, /f"|f'|:=/, 'no syntax newer than Python 2.7');
  });

  it('read what launch.py says before it starts the server', () => {
    const ok = parseLaunchReport(
      'doublet-launch: {"ok": true, "folders": ["/ext/bundled/libs/cp312", "/ext/bundled/libs/common"], "python": "3.12", "executable": "/usr/bin/python3.12"}',
    );
    assert.deepStrictEqual(ok, { ok: true, python: '3.12', executable: '/usr/bin/python3.12', folders: ['/ext/bundled/libs/cp312', '/ext/bundled/libs/common'] });
    const no = parseLaunchReport('doublet-launch: {"ok": false, "reason": "\\"python3\\" is CPython 3.9", "python": "3.9", "executable": "/usr/bin/python3.9"}');
    assert.deepStrictEqual(no, { ok: false, python: '3.9', executable: '/usr/bin/python3.9', reason: '"python3" is CPython 3.9' });
    assert.strictEqual(parseLaunchReport('  File "launch.py", line 1'), undefined, 'not the launcher speaking');
    assert.strictEqual(parseLaunchReport('doublet-launch: {"ok": true}'), undefined, 'no folders');
    assert.strictEqual(parseLaunchReport('doublet-launch: not json'), undefined);
  });

  describe('launch.py, run by python3 in an extension laid out as the .vsix is', function () {
    // Each test starts Python a few times: past mocha's 2 s on a busy 2-core machine.
    this.timeout(20000);
    let extension: string;
    let python: string | undefined;
    const launch = (manifest: object | undefined) => {
      const libs = path.join(extension, 'bundled', 'libs');
      fs.rmSync(path.join(libs, 'manifest.json'), { force: true });
      if (manifest) {
        fs.writeFileSync(path.join(libs, 'manifest.json'), JSON.stringify(manifest));
      }
      const env = { ...serverEnvironment(process.env), PYTHONPATH: '/mine' };
      const r = spawnSync('python3', ['-S', path.join(extension, 'python', 'launch.py'), 'python3'], { encoding: 'utf8', env });
      const [first, ...rest] = r.stderr.split('\n');
      return { status: r.status, report: parseLaunchReport(first), stderr: rest.join('\n'), stdout: r.stdout };
    };

    before(function () {
      const probe = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
      if (probe.error || probe.status !== 0) {
        this.skip();
      }
      python = probe.stdout.trim();
      extension = fs.mkdtempSync(path.join(os.tmpdir(), 'doublet-ext-'));
      fs.mkdirSync(path.join(extension, 'python'));
      for (const script of ['launch.py', 'attrs_methods.py']) {
        fs.copyFileSync(path.join(__dirname, '..', '..', 'python', script), path.join(extension, 'python', script));
      }
      // A stand-in for the server: says where it was imported from and with what.
      const server = path.join(extension, 'bundled', 'libs', 'common', 'doublet');
      fs.mkdirSync(server, { recursive: true });
      fs.mkdirSync(path.join(extension, 'bundled', 'libs', `cp${python.replace('.', '')}`));
      fs.writeFileSync(path.join(server, '__init__.py'), '');
      fs.writeFileSync(
        path.join(server, '__main__.py'),
        'import json, os, sys\nprint(json.dumps({"file": __file__, "argv": sys.argv[1:], "path": sys.path[:2], "PYTHONPATH": os.environ["PYTHONPATH"], "site": "site" in sys.modules}))\n',
      );
    });

    after(() => {
      if (extension) {
        fs.rmSync(extension, { recursive: true, force: true });
      }
    });

    const here = () => ({
      platform: 'linux-x64',
      sys_platform: process.platform === 'win32' ? 'win32' : process.platform,
      machines: [process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch, 'AMD64', 'arm64'],
      pythons: [python],
      common: 'common',
    });

    it('starts the server from the bundled folders when they fit', () => {
      const r = launch(here());
      assert.strictEqual(r.status, 0, r.stderr);
      assert.ok(r.report?.ok, JSON.stringify(r.report));
      const libs = path.join(extension, 'bundled', 'libs');
      const folders = [path.join(libs, `cp${python!.replace('.', '')}`), path.join(libs, 'common')];
      assert.deepStrictEqual(r.report.folders, folders);
      const ran = JSON.parse(r.stdout);
      assert.strictEqual(ran.file, path.join(libs, 'common', 'doublet', '__main__.py'));
      assert.deepStrictEqual(ran.argv, ['serve']);
      assert.deepStrictEqual(ran.path, folders, 'the bundled folders come first, in place of the launcher\'s own');
      assert.strictEqual(ran.PYTHONPATH, [...folders, '/mine'].join(path.delimiter), 'and first for the processes it starts');
      assert.strictEqual(ran.site, false, 'without site-packages');
    });

    it('says why they do not fit, and exits with status 3', () => {
      const reason = (manifest: object | undefined) => {
        const r = launch(manifest);
        assert.strictEqual(r.status, DOES_NOT_FIT, r.stderr);
        assert.ok(r.report && !r.report.ok, JSON.stringify(r.report));
        assert.strictEqual(r.stdout, '', 'the server did not start');
        return r.report.reason;
      };
      assert.match(reason(undefined), /no bundled server libraries/);
      assert.match(reason({ ...here(), pythons: ['3.98', '3.99'] }), new RegExp(`"python3" is CPython ${python!.replace('.', '\\.')}, and .* CPython 3\\.98 and 3\\.99 on linux-x64`));
      assert.match(reason({ ...here(), machines: ['s390x'] }), /"python3" runs on \w+ \w+ \(64-bit\)/);
      assert.match(reason({ ...here(), sys_platform: 'plan9' }), /runs on/);
      if (process.platform === 'linux') {
        assert.match(reason({ ...here(), glibc: '99.1' }), /uses glibc [\d.]+, and the bundled libraries need glibc 99\.1 or newer/);
      }
    });
  });

  it('start the server unbuffered, keeping the rest of the environment', () => {
    const base = { PATH: '/usr/bin', PYTHONPATH: '/mine', UNSET: undefined };
    assert.deepStrictEqual(serverEnvironment(base), { PATH: '/usr/bin', PYTHONPATH: '/mine', PYTHONUNBUFFERED: '1' });
    assert.strictEqual(base.PYTHONPATH, '/mine', 'the extension host\'s environment is not changed');
  });
});
