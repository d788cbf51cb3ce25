"""client-vscode/python/launch.py: whether the bundled libraries fit an interpreter.

The extension's mocha tests run it for real with this machine's python3; here its
rule is checked against interpreters this machine does not have (PyPy, free-threaded,
32-bit, musl), by changing what the module reads of the running one.
"""

from __future__ import annotations

import importlib.util
import sys
import sysconfig
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

LAUNCH = Path(__file__).resolve().parents[1] / "client-vscode" / "python" / "launch.py"
HERE = "{}.{}".format(*sys.version_info[:2])
OFFERED = "the extension bundles the server's libraries for CPython"
Patch = pytest.MonkeyPatch


@pytest.fixture
def launch() -> ModuleType:
    spec = importlib.util.spec_from_file_location("doublet_launch", LAUNCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest(**changes: object) -> dict:
    fields = {
        "platform": "linux-x64",
        "sys_platform": sys.platform,
        "machines": ["x86_64", "aarch64", "arm64", "AMD64"],
        "pythons": ["3.10", "3.11", "3.12", "3.13", "3.14"],
        "common": "common",
    }
    return {**fields, **changes}


@pytest.mark.skipif(HERE not in manifest()["pythons"], reason="not a Python the bundle has")
def test_fits_this_interpreter(launch: ModuleType, monkeypatch: Patch) -> None:
    monkeypatch.setattr(launch, "glibc_version", lambda: "2.36")
    assert launch.why_not(manifest(glibc="2.28"), "python3") is None


def test_another_implementation(launch: ModuleType, monkeypatch: Patch) -> None:
    monkeypatch.setattr(sys, "implementation", SimpleNamespace(name="pypy"))
    assert launch.why_not(manifest(), "pypy3") == (
        f'"pypy3" is pypy {HERE}, and {OFFERED} 3.10 to 3.14 on linux-x64'
    )


def test_free_threaded_build(launch: ModuleType, monkeypatch: Patch) -> None:
    real = sysconfig.get_config_var
    free_threaded = lambda name: 1 if name == "Py_GIL_DISABLED" else real(name)  # noqa: E731
    monkeypatch.setattr(sysconfig, "get_config_var", free_threaded)
    assert "is a free-threaded build of CPython" in launch.why_not(manifest(), "python3t")


def test_32_bit_or_another_machine(launch: ModuleType, monkeypatch: Patch) -> None:
    monkeypatch.setattr(sys, "maxsize", 2**31 - 1)
    assert "(32-bit)" in launch.why_not(manifest(), "python3")
    monkeypatch.undo()
    monkeypatch.setattr(launch, "machine", lambda: "riscv64")
    reason = launch.why_not(manifest(), "python3")
    assert f'"python3" runs on {sys.platform} riscv64 (64-bit)' in reason


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc is Linux's")
@pytest.mark.parametrize(
    ("found", "reason"),
    [
        (None, "uses a C library other than glibc"),
        ("2.17", "uses glibc 2.17, and the bundled libraries need glibc 2.28 or newer"),
    ],
)
def test_old_or_no_glibc(
    launch: ModuleType, monkeypatch: Patch, found: str | None, reason: str
) -> None:
    monkeypatch.setattr(launch, "glibc_version", lambda: found)
    assert reason in launch.why_not(manifest(glibc="2.28"), "python3")


def test_glibc_versions_compare_as_numbers(launch: ModuleType, monkeypatch: Patch) -> None:
    monkeypatch.setattr(launch, "glibc_version", lambda: "2.9")
    if sys.platform.startswith("linux"):
        assert "uses glibc 2.9" in launch.why_not(manifest(glibc="2.28", pythons=[HERE]), "python3")
    monkeypatch.setattr(launch, "glibc_version", lambda: "2.100")
    assert launch.why_not(manifest(glibc="2.28", pythons=[HERE]), "python3") is None


def test_a_version_not_bundled(launch: ModuleType) -> None:
    assert launch.why_not(manifest(pythons=["3.98", "3.99"]), "python3") == (
        f'"python3" is CPython {HERE}, and {OFFERED} 3.98 and 3.99 on linux-x64'
    )


ATTRS_METHODS = LAUNCH.parent / "attrs_methods.py"

USE = """
import marshal, sys
sys.path.insert(0, sys.argv[1])
import attrs_methods
used = attrs_methods.use(sys.argv[2])
from lsprotocol import types
a = types.Position(line=1, character=2)
assert a == types.Position(line=1, character=2) and a != types.Position(line=1, character=3)
r = types.Range(start=a, end=types.Position(line=2, character=0))
assert r.end.line == 2 and r == types.Range(start=types.Position(line=1, character=2), end=r.end)
print(used)
"""


def test_attrs_methods_recorded_once_are_used_and_behave_the_same(tmp_path: Path) -> None:
    """What the build records is used at start-up, and the classes work as attrs made them;
    a recording for another attrs or Python is not used."""
    import marshal
    import subprocess

    recorded = tmp_path / "attrs-methods.marshal"
    run = subprocess.run(
        [sys.executable, str(ATTRS_METHODS), "record", str(recorded)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(run.stderr.split(":")[1]) > 500, run.stderr  # lsprotocol's classes

    def used(path: Path) -> str:
        return subprocess.run(
            [sys.executable, "-c", USE, str(ATTRS_METHODS.parent), str(path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    assert used(recorded) == "True"
    (key, compiled) = marshal.loads(recorded.read_bytes())
    other = tmp_path / "other-attrs.marshal"
    other.write_bytes(marshal.dumps(((key[0], key[1] + 1), compiled)))
    assert used(other) == "False"
    assert used(tmp_path / "missing.marshal") == "False"
