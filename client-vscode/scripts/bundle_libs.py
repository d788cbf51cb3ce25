"""The server's Python dependencies, bundled into the VS Code extension.

The extension starts `python -S -m doublet serve` with any CPython >= 3.10 the
user has and no package index: everything the server imports beyond the
standard library lies in the .vsix, under bundled/libs/, put on PYTHONPATH:

    common/   pure-Python packages, the same file for every CPython version
              (doublet itself, pygls, lsprotocol, pygments, jieba, ...)
    cp310/    what differs by CPython version: compiled packages (numpy, lxml,
    cp311/    PyStemmer, msgpack, charset-normalizer) and any pure package
    ...       pinned differently for that version (tomli on 3.10 only)
    manifest.json   the platform and the CPython versions present, read by
                    the extension to choose the folders for an interpreter

A .vsix is built per platform (`vsce package --target`): compiled wheels
differ by operating system and machine as well.

    python bundle_libs.py lock                       # resolve and pin: requirements-bundled.txt
    python bundle_libs.py build --platform linux-x64 --wheel bundled/doublet-0.1.0-py3-none-any.whl
    python bundle_libs.py check --compile [PYTHON ...]

`lock` resolves pyproject.toml's dependencies for every platform and CPython
version below (pip's resolver, metadata only) and writes one requirements
file with exact versions, environment markers where targets differ, and the
sha256 of every file chosen. `build` installs from that file alone (with
--require-hashes and --no-deps), so two builds from the same lock file get
the same files, less what no import reaches (STRIP). Both read PyPI
(DOUBLET_BUNDLE_INDEX_URL for a mirror) and ignore pip's configuration files
and the PIP_* variables that change what is installed; network settings
(PIP_CERT, PIP_PROXY, ...) still apply.

`check` runs the bundle, as the extension does, with each local CPython of a
bundled version (python3.X on PATH, pyenv's): every package imports from the
bundle, `doublet scan` works, and a `doublet serve` session warns about the
examples' copied passage. With --compile it also writes the bytecode of what
those imported, so that the server's first start does not compile it (about a
second); versions without a local interpreter compile at their first start.

Needs pip >= 22.2 and `packaging`, both in the repository's .venv.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pip vendors it
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name

HERE = Path(__file__).resolve().parent
EXTENSION = HERE.parent
REPO = EXTENSION.parent
PYPROJECT = REPO / "pyproject.toml"
LOCK = EXTENSION / "requirements-bundled.txt"
LIBS = EXTENSION / "bundled" / "libs"

#: CPython versions bundled: each gets a cpXY folder (where wheels exist for all).
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]


def _manylinux(arch: str, newest: int, oldest: int) -> list[str]:
    # pip does not widen manylinux_2_28 to the older tags by itself: list them all.
    tags = [f"manylinux_2_{minor}_{arch}" for minor in range(newest, oldest - 1, -1)]
    return [*tags, f"manylinux2014_{arch}", f"manylinux2010_{arch}", f"manylinux1_{arch}"]


#: VS Code's platform names (`vsce package --target`) and what they mean to pip
#: (--platform tags) and to environment markers. glibc 2.28 is what VS Code
#: itself needs on Linux since 1.86; macOS 10.15 and 11 likewise; pip widens
#: a macosx tag to the older versions and to universal2 by itself.
PLATFORMS = {
    "linux-x64": {
        "pip": _manylinux("x86_64", 28, 5),
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
        "machines": ["x86_64"],
        "glibc": "2.28",
    },
    "linux-arm64": {
        "pip": _manylinux("aarch64", 28, 17),
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
        "machines": ["aarch64", "arm64"],
        "glibc": "2.28",
    },
    "darwin-x64": {
        "pip": ["macosx_10_15_x86_64"],
        "sys_platform": "darwin",
        "platform_system": "Darwin",
        "os_name": "posix",
        "machines": ["x86_64"],
    },
    "darwin-arm64": {
        "pip": ["macosx_11_0_arm64"],
        "sys_platform": "darwin",
        "platform_system": "Darwin",
        "os_name": "posix",
        "machines": ["arm64"],
    },
    "win32-x64": {
        "pip": ["win_amd64"],
        "sys_platform": "win32",
        "platform_system": "Windows",
        "os_name": "nt",
        "machines": ["AMD64", "x86_64"],
    },
}

#: Pure-Python packages published as a source archive only: pinned by the
#: archive's hash and built into a wheel here (for every target at once).
SOURCE_ONLY = {"jieba"}

#: pip settings that would change what is resolved or installed.
_PIP_VARIABLES_KEPT = {
    "PIP_CERT",
    "PIP_CLIENT_CERT",
    "PIP_PROXY",
    "PIP_TRUSTED_HOST",
    "PIP_DEFAULT_TIMEOUT",
    "PIP_TIMEOUT",
    "PIP_RETRIES",
    "PIP_CACHE_DIR",
    "PIP_NO_CACHE_DIR",
}


def say(message: str) -> None:
    print(f"[bundle_libs] {message}", flush=True)


def index_url() -> str:
    return os.environ.get("DOUBLET_BUNDLE_INDEX_URL", "https://pypi.org/simple")


def pip(*args: str) -> None:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("PIP_") or k in _PIP_VARIABLES_KEPT
    }
    env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf: its indexes, find-links, constraints
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    command = [sys.executable, "-m", "pip", *args]
    result = subprocess.run(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        raise SystemExit(f"bundle_libs: pip failed ({result.returncode}): {' '.join(args[:3])} ...")


def target_flags(platform: str, python: str) -> list[str]:
    flags = ["--only-binary=:all:", "--implementation", "cp", "--python-version", python]
    for tag in PLATFORMS[platform]["pip"]:
        flags += ["--platform", tag]
    return flags


def marker_environment(platform: str, python: str) -> dict[str, str]:
    p = PLATFORMS[platform]
    return {
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_version": f"{python}.0",
        "sys_platform": p["sys_platform"],
        "platform_system": p["platform_system"],
        "os_name": p["os_name"],
        "platform_machine": p["machines"][0],
        "platform_release": "",
        "platform_version": "",
        "extra": "",
    }


def applies(requirement: Requirement, environment: dict[str, str], extra: str = "") -> bool:
    return requirement.marker is None or requirement.marker.evaluate(
        {**environment, "extra": extra}
    )


def project_dependencies() -> list[str]:
    try:
        import tomllib
    except ImportError:  # Python 3.10: the .venv has tomli (a dependency of Doublet)
        import tomli as tomllib
    with PYPROJECT.open("rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def dependencies_digest(dependencies: list[str]) -> str:
    normal = sorted(str(Requirement(d)) for d in dependencies)
    return hashlib.sha256("\n".join(normal).encode()).hexdigest()


# ------------------------------------------------------------------- lock


def resolve(
    platform: str, python: str, top: list[Requirement], wheelhouse: Path, work: Path
) -> dict[str, dict]:
    """name -> {version, file, sha256, requires} for one target, dependencies
    included. pip evaluates environment markers for the machine it runs on,
    not for --python-version/--platform, so the closure is computed again here
    with the target's markers; what pip left out is asked for explicitly."""
    environment = marker_environment(platform, python)
    wanted = [r for r in top if applies(r, environment)]
    added: list[Requirement] = []
    for _ in range(10):
        report = work / f"{platform}-{python}.json"
        requirements = [_without_marker(r) for r in [*wanted, *added]]
        pip(
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--report",
            str(report),
            "--target",
            str(work / "unused"),
            "--index-url",
            index_url(),
            "--find-links",
            str(wheelhouse),
            *target_flags(platform, python),
            *requirements,
        )
        found = {}
        for item in json.loads(report.read_text())["install"]:
            meta = item["metadata"]
            url = item["download_info"]["url"]
            found[canonicalize_name(meta["name"])] = {
                "name": meta["name"],
                "version": meta["version"],
                "file": url.rsplit("/", 1)[-1],
                "sha256": item["download_info"]
                .get("archive_info", {})
                .get("hashes", {})
                .get("sha256"),
                "requires": meta.get("requires_dist", []),
            }
        missing, needed = _closure(wanted, found, environment)
        if not missing:
            return {name: found[name] for name in sorted(needed)}
        added += missing
    raise SystemExit(f"bundle_libs: no stable resolution for {platform} / CPython {python}")


def _without_marker(requirement: Requirement) -> str:
    r = Requirement(str(requirement))
    r.marker = None
    return str(r)


def _closure(wanted, found, environment):
    """The names the target needs, following each dependency's markers; and the
    requirements that pip did not resolve (markers false where pip ran)."""
    needed: set[str] = set()
    missing: list[Requirement] = []
    queue = [(r, "") for r in wanted]
    while queue:
        requirement, extra = queue.pop()
        if not applies(requirement, environment, extra):
            continue
        name = canonicalize_name(requirement.name)
        if name not in found:
            missing.append(requirement)
            continue
        for wanted_extra in sorted(requirement.extras) or [""]:
            key = f"{name}[{wanted_extra}]"
            if key in needed:
                continue
            needed.add(key)
            queue += [(Requirement(d), wanted_extra) for d in found[name]["requires"]]
    return missing, {key.split("[", 1)[0] for key in needed}


def _version_condition(pythons: set[str]) -> str:
    indexes = sorted(PYTHONS.index(p) for p in pythons)
    if indexes == list(range(indexes[0], indexes[-1] + 1)):
        low, high = indexes[0], indexes[-1]
        if low == high:
            return f'python_version == "{PYTHONS[low]}"'
        parts = []
        if low > 0:
            parts.append(f'python_version >= "{PYTHONS[low]}"')
        if high < len(PYTHONS) - 1:
            parts.append(f'python_version < "{PYTHONS[high + 1]}"')
        return " and ".join(parts)
    return "(" + " or ".join(f'python_version == "{PYTHONS[i]}"' for i in indexes) + ")"


def _platform_condition(platforms: set[str]) -> str:
    terms = []
    for sys_platform in sorted({PLATFORMS[p]["sys_platform"] for p in platforms}):
        family = {p for p in PLATFORMS if PLATFORMS[p]["sys_platform"] == sys_platform}
        mine = family & platforms
        if mine == family:
            terms.append(f'sys_platform == "{sys_platform}"')
        else:
            for p in sorted(mine):
                terms.append(
                    f'(sys_platform == "{sys_platform}"'
                    f' and platform_machine == "{PLATFORMS[p]["machines"][0]}")'
                )
    return terms[0] if len(terms) == 1 else "(" + " or ".join(terms) + ")"


def marker_for(used: set[tuple[str, str]]) -> str:
    everything = {(p, v) for p in PLATFORMS for v in PYTHONS}
    if used == everything:
        return ""
    platforms = {p for p, _ in used}
    pythons = {v for _, v in used}
    if used == {(p, v) for p in platforms for v in pythons}:
        parts = []
        if platforms != set(PLATFORMS):
            parts.append(_platform_condition(platforms))
        if pythons != set(PYTHONS):
            parts.append(_version_condition(pythons))
        return " and ".join(parts)
    terms = []
    for p in sorted(platforms):
        vs = {v for q, v in used if q == p}
        term = _platform_condition({p})
        if vs != set(PYTHONS):
            term = f"{term} and {_version_condition(vs)}"
        terms.append(f"({term})")
    return " or ".join(terms)


def lock(_args) -> None:
    dependencies = project_dependencies()
    top = [Requirement(d) for d in dependencies]
    with tempfile.TemporaryDirectory(prefix="doublet-lock-") as tmp:
        work = Path(tmp)
        wheelhouse = work / "wheelhouse"
        sdist_hashes = _source_only_wheels(
            [r for r in top if canonicalize_name(r.name) in SOURCE_ONLY], wheelhouse
        )
        pins: dict[tuple[str, str], dict] = {}
        for platform in PLATFORMS:
            for python in PYTHONS:
                say(f"resolving for {platform}, CPython {python}")
                for name, dist in resolve(platform, python, top, wheelhouse, work).items():
                    pin = pins.setdefault(
                        (name, dist["version"]),
                        {"name": dist["name"], "used": set(), "sha256": set()},
                    )
                    pin["used"].add((platform, python))
                    sha = sdist_hashes.get(name) or dist["sha256"]
                    if not sha:
                        raise SystemExit(f"bundle_libs: no sha256 for {dist['file']}")
                    pin["sha256"].add(sha)
    lines = [
        "# The Python packages bundled into the VS Code extension (bundled/libs), pinned.",
        "# Generated by `make vsix-lock` (client-vscode/scripts/bundle_libs.py lock) from",
        "# pyproject.toml's dependencies; do not edit by hand. Resolved for:",
        f"#   platforms: {' '.join(PLATFORMS)}",
        f"#   CPython:   {' '.join(PYTHONS)}",
        f"# dependencies-sha256: {dependencies_digest(dependencies)}",
        "",
    ]
    for (_, version), pin in sorted(pins.items()):
        marker = marker_for(pin["used"])
        line = f"{pin['name']}=={version}" + (f" ; {marker}" if marker else "")
        hashes = [f"    --hash=sha256:{h}" for h in sorted(pin["sha256"])]
        lines.append(" \\\n".join([line, *hashes]))
    LOCK.write_text("\n".join(lines) + "\n")
    say(f"wrote {LOCK.relative_to(REPO)} ({len(pins)} pins)")


def _source_only_wheels(requirements: list[Requirement], wheelhouse: Path) -> dict[str, str]:
    """Builds wheels of the source-only packages (for pip to resolve with
    --only-binary) and returns the sha256 of the source archives used."""
    hashes = {}
    if not requirements:
        return hashes
    sdists = wheelhouse.parent / "sdists"
    pip(
        "download",
        "--no-deps",
        "--no-binary=:all:",
        "--quiet",
        "--index-url",
        index_url(),
        "--dest",
        str(sdists),
        *[_without_marker(r) for r in requirements],
    )
    for archive in sdists.iterdir():
        name = canonicalize_name(re.split(r"-\d", archive.name, maxsplit=1)[0])
        hashes[name] = hashlib.sha256(archive.read_bytes()).hexdigest()
        pip(
            "wheel",
            "--no-deps",
            "--quiet",
            "--index-url",
            index_url(),
            "--wheel-dir",
            str(wheelhouse),
            str(archive),
        )
    return hashes


# ------------------------------------------------------------------- build


def read_lock() -> list[tuple[Requirement, list[str], str]]:
    """(requirement, hashes, text as pip reads it) for every pin of the lock file."""
    if not LOCK.exists():
        raise SystemExit(f"bundle_libs: {LOCK} is missing: run  make vsix-lock")
    text = LOCK.read_text()
    digest = re.search(r"^# dependencies-sha256: (\w+)", text, re.M)
    if not digest or digest.group(1) != dependencies_digest(project_dependencies()):
        raise SystemExit(
            f"bundle_libs: pyproject.toml's dependencies changed since {LOCK.name}"
            " was written: run  make vsix-lock"
        )
    pins = []
    for entry in re.sub(r"\\\n", " ", text).splitlines():
        entry = entry.strip()
        if not entry or entry.startswith("#"):
            continue
        spec, *hashes = entry.split("--hash=")
        requirement = Requirement(spec.strip())
        hashes = [h.strip() for h in hashes]
        plain = _without_marker(requirement) + " " + " ".join(f"--hash={h}" for h in hashes)
        pins.append((requirement, hashes, plain))
    return pins


def build(args) -> None:
    platform = args.platform
    if platform not in PLATFORMS:
        raise SystemExit(
            f"bundle_libs: unknown platform {platform!r}; known: {', '.join(PLATFORMS)}"
        )
    pythons = args.pythons.split() if args.pythons else PYTHONS
    unknown = [v for v in pythons if v not in PYTHONS]
    if unknown:
        raise SystemExit(
            f"bundle_libs: CPython {', '.join(unknown)} is not in the lock file"
            f" ({', '.join(PYTHONS)})"
        )
    wheel = Path(args.wheel).resolve()
    pins = read_lock()
    stamp = {
        "platform": platform,
        "pythons": pythons,
        "lock": hashlib.sha256(LOCK.read_bytes()).hexdigest(),
        "script": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
    }
    manifest_path = LIBS / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    if all(manifest.get(k) == v for k, v in stamp.items()):
        say(f"third-party libraries for {platform} are up to date in {LIBS.relative_to(REPO)}")
    else:
        _build_libraries(platform, pythons, pins, stamp)
        manifest = json.loads(manifest_path.read_text())
    # Doublet itself changes with every edit of the server: replaced every time.
    common = LIBS / "common"
    for old in [common / "doublet", *common.glob("doublet-*.dist-info")]:
        shutil.rmtree(old, ignore_errors=True)
    pip("install", "--quiet", "--no-deps", "--no-compile", "--target", str(common), str(wheel))
    shutil.rmtree(common / "bin", ignore_errors=True)
    manifest["doublet"] = re.match(r"doublet-([^-]+)-", wheel.name).group(1)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    say(
        f"{LIBS.relative_to(REPO)}: {_size(LIBS) / 1e6:.0f} MB for {platform},"
        f" CPython {', '.join(manifest['pythons'])}"
    )


def _build_libraries(platform: str, pythons: list[str], pins, stamp: dict) -> None:
    staging = LIBS.with_name("libs.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="doublet-bundle-") as tmp:
        work = Path(tmp)
        per_python: dict[str, list[str]] = {}  # python -> requirement lines (binary)
        source_only: list[str] = []
        for python in pythons:
            environment = marker_environment(platform, python)
            lines = []
            for requirement, _, plain in pins:
                if not applies(requirement, environment):
                    continue
                if canonicalize_name(requirement.name) in SOURCE_ONLY:
                    if plain not in source_only:
                        source_only.append(plain)
                else:
                    lines.append(plain)
            per_python[python] = lines
        # Which wheel pip picks for each pin and CPython version: the same file
        # for all of them means one copy in common/.
        chosen: dict[str, dict[str, str]] = {}
        for python, lines in per_python.items():
            say(f"{platform}, CPython {python}: choosing wheels")
            report = work / f"{python}.json"
            requirements = work / f"{python}.txt"
            requirements.write_text("\n".join(lines) + "\n")
            pip(
                "install",
                "--dry-run",
                "--ignore-installed",
                "--quiet",
                "--no-deps",
                "--require-hashes",
                "--report",
                str(report),
                "--target",
                str(work / "unused"),
                "--index-url",
                index_url(),
                *target_flags(platform, python),
                "-r",
                str(requirements),
            )
            for item in json.loads(report.read_text())["install"]:
                name = canonicalize_name(item["metadata"]["name"])
                chosen.setdefault(name, {})[python] = item["download_info"]["url"].rsplit("/", 1)[
                    -1
                ]
        common = {
            n
            for n, files in chosen.items()
            if len(files) == len(pythons) and len(set(files.values())) == 1
        }

        def install(folder: Path, python: str, lines: list[str]) -> None:
            if not lines:
                return
            requirements = work / f"install-{folder.name}.txt"
            requirements.write_text("\n".join(lines) + "\n")
            pip(
                "install",
                "--quiet",
                "--no-deps",
                "--no-compile",
                "--require-hashes",
                "--target",
                str(folder),
                "--index-url",
                index_url(),
                *target_flags(platform, python),
                "-r",
                str(requirements),
            )

        def is_common(line: str) -> bool:
            return canonicalize_name(Requirement(line.split(" --hash=")[0]).name) in common

        say(f"{platform}: {len(common)} packages for every CPython version -> common/")
        install(
            staging / "common",
            pythons[0],
            [line for line in per_python[pythons[0]] if is_common(line)],
        )
        if source_only:
            requirements = work / "source-only.txt"
            requirements.write_text("\n".join(source_only) + "\n")
            pip(
                "install",
                "--quiet",
                "--no-deps",
                "--no-compile",
                "--require-hashes",
                "--no-binary=:all:",
                "--target",
                str(staging / "common"),
                "--index-url",
                index_url(),
                "-r",
                str(requirements),
            )
        for python, lines in per_python.items():
            folder = staging / ("cp" + python.replace(".", ""))
            say(f"{platform}: CPython {python} -> {folder.name}/")
            folder.mkdir()
            install(folder, python, [line for line in lines if not is_common(line)])
    for folder in staging.iterdir():
        _strip(folder)
    p = PLATFORMS[platform]
    manifest = {
        **stamp,
        "sys_platform": p["sys_platform"],
        "machines": p["machines"],
        **({"glibc": p["glibc"]} if "glibc" in p else {}),
        "common": "common",
    }
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(LIBS, ignore_errors=True)
    staging.rename(LIBS)


#: Files no import reaches, left out of the .vsix (about 25 MB a CPython version,
#: before compression): globs relative to a libs folder.
STRIP = [
    "bin",  # console scripts: unused, and they name the Python that built them
    "**/__pycache__",  # bytecode of whichever Python ran; each CPython writes its own
    "numpy/**/tests",  # numpy's own test suite
    "**/*.pyi",  # type stubs
    "lxml/includes",  # C headers and Cython declarations, for building against lxml
    "lxml/**/*.pxd",
    "lxml/**/*.pyx",
    "jieba/lac_small",  # the model of jieba's "paddle" mode, which needs paddlepaddle (not bundled)
]


def _strip(folder: Path) -> None:
    for pattern in STRIP:
        for path in sorted(folder.glob(pattern), reverse=True):
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


# ------------------------------------------------------------------- check

SMOKE = r"""
import importlib, json, os, shutil, subprocess, sys, tempfile, time
libs = [os.path.realpath(p) for p in os.environ["PYTHONPATH"].split(os.pathsep)]
examples = sys.argv[1]
inside = lambda f: any(f.startswith(p + os.sep) for p in libs)

# 1. Every package imports, from the bundle (this runs with -S: no site-packages).
names = ["doublet", "doublet.lsp.server", "doublet.cli.main", "numpy", "lxml.etree", "docx",
         "pypdf", "Stemmer", "snowballstemmer", "msgpack", "charset_normalizer", "jieba",
         "pygments.lexers", "tqdm", "watchdog.observers", "tomlkit", "pathspec", "pygls",
         "lsprotocol.types"]
if sys.version_info < (3, 11):
    names.append("tomli")
where = {n: os.path.realpath(importlib.import_module(n).__file__) for n in names}
outside = [f"{n}: {f}" for n, f in where.items() if not inside(f)]
if outside:
    sys.exit("imported from outside the bundle: " + "; ".join(outside))

# 2. A scan of the examples (Chinese included: jieba), in this process.
from doublet.cli.main import main
argv = sys.argv
sys.argv = ["doublet", "scan", "--no-index", "--no-progress", "--format", "json", examples]
main()
sys.argv = argv

# 3. The language server, as the extension starts it (python/launch.py, which checks that
#    the bundle fits and becomes the server): initialize, open the essay that copies a
#    source, wait for its warnings. -X importtime lists what it imports (into a file: a
#    pipe nobody reads while we wait could fill up and stop the server).
work = tempfile.mkdtemp()
try:
    root = os.path.join(work, "examples")
    shutil.copytree(examples, root, ignore=shutil.ignore_patterns(".doublet"))
    log = open(os.path.join(work, "stderr"), "w+b")
    command = [sys.executable, "-S", "-X", "importtime", os.environ["BUNDLE_LAUNCH"], "python3"]
    server = subprocess.Popen(command, cwd=work, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=log)
    def send(message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()
    def receive():
        length = None
        while True:
            line = server.stdout.readline()
            if not line:
                log.seek(0)
                sys.exit("the server ended: " + log.read().decode(errors="replace")[-3000:])
            if line.strip() == b"":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(server.stdout.read(length))
    uri = "file://" + root
    started = time.monotonic()
    send({"id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": uri, "capabilities": {},
        "workspaceFolders": [{"uri": uri, "name": "examples"}]}})
    while receive().get("id") != 1:
        pass
    send({"method": "initialized", "params": {}})
    essay = os.path.join(root, "essays", "amira-haddad.txt")
    with open(essay, encoding="utf-8") as f:
        document = {"uri": "file://" + essay, "languageId": "plaintext", "version": 1,
                    "text": f.read()}
    send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    while True:
        message = receive()
        if "id" in message and "method" in message:  # a request of the server's: answer plainly
            plain = [None] if message["method"] == "workspace/configuration" else None
            send({"id": message["id"], "result": plain})
        elif (message.get("method") == "textDocument/publishDiagnostics"
              and message["params"]["diagnostics"]):
            break
    took = time.monotonic() - started
    print(f"server: first warnings {took:.1f} s after it started", file=sys.stderr)
    send({"id": 2, "method": "shutdown"})
    while receive().get("id") != 2:
        pass
    send({"method": "exit"})
    server.wait(timeout=30)
    log.seek(0)
    imported = log.read().decode(errors="replace")
    log.close()
finally:
    shutil.rmtree(work, ignore_errors=True)

if os.environ.get("BUNDLE_COMPILE"):
    # 4. Bytecode for this CPython version of what 1-3 imported, and of all of Doublet:
    #    hash-based, so valid whatever times the files get when the .vsix is unpacked.
    import py_compile
    from importlib.util import cache_from_source, find_spec
    modules = list(sys.modules.values())
    files = {os.path.realpath(m.__file__) for m in modules if getattr(m, "__file__", None)}
    for line in imported.splitlines():
        if line.startswith("import time:") and "|" in line:
            try:
                spec = find_spec(line.rsplit("|", 1)[1].strip())
            except Exception:
                continue
            if spec and spec.origin:
                files.add(os.path.realpath(spec.origin))
    files = {f for f in files if f.endswith(".py") and inside(f)}
    doublet = os.path.dirname(where["doublet"])
    files |= {os.path.join(d, f) for d, _, fs in os.walk(doublet) for f in fs if f.endswith(".py")}
    for f in sorted(files):
        py_compile.compile(f, cfile=cache_from_source(f), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    print(f"compiled {len(files)}", file=sys.stderr)
    # 5. The methods attrs writes for lsprotocol's classes, compiled for this version too
    #    (python/attrs_methods.py: 0.3 s of every start).
    recorder = os.path.join(os.path.dirname(os.environ["BUNDLE_LAUNCH"]), "attrs_methods.py")
    subprocess.run([sys.executable, "-S", recorder, "record",
                    os.path.join(libs[0], "attrs-methods.marshal")], check=True, cwd=tempfile.gettempdir())
"""


def check(args) -> None:
    manifest = json.loads((LIBS / "manifest.json").read_text())
    chosen: dict[str, str] = {}  # version -> interpreter
    for interpreter in args.python or _local_pythons():
        probe = subprocess.run(
            [
                interpreter,
                "-c",
                "import sys, platform; print('%d.%d' % sys.version_info[:2], sys.platform,"
                " platform.machine(), sys.implementation.name)",
            ],
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0:
            continue
        version, sys_platform, machine, implementation = probe.stdout.split()
        if (
            implementation == "cpython"
            and version in manifest["pythons"]
            and sys_platform == manifest["sys_platform"]
            and machine in manifest["machines"]
        ):
            chosen.setdefault(version, interpreter)

    def run(version: str, interpreter: str) -> str:
        folder = LIBS / ("cp" + version.replace(".", ""))
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"
        }
        env["PYTHONPATH"] = os.pathsep.join([str(folder), str(LIBS / "common")])
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # no bytecode but what --compile writes, below
        env["BUNDLE_LAUNCH"] = str(EXTENSION / "python" / "launch.py")
        if args.compile:
            env["BUNDLE_COMPILE"] = "1"
        # -S: no site-packages at all, so that anything missing from the bundle fails here.
        smoke = subprocess.run(
            [interpreter, "-S", "-c", SMOKE, str(REPO / "examples")],
            env=env,
            capture_output=True,
            text=True,
            cwd=tempfile.gettempdir(),
        )
        if (
            smoke.returncode not in (0, 1)
            or '"pairs"' not in smoke.stdout
            or "first warnings" not in smoke.stderr
        ):
            return (
                f"the bundle fails with {interpreter} (CPython {version}):\n{smoke.stderr[-3000:]}"
            )
        compiled = re.search(r"compiled (\d+)", smoke.stderr)
        say(
            f"checked with {interpreter} (CPython {version}): imports from the bundle only;"
            " `doublet scan` works;"
            " `doublet serve` warns about the examples' copied passage"
            + (f"; bytecode of {compiled.group(1)} modules written" if compiled else "")
        )
        return ""

    if (
        args.compile
    ):  # bytecode left by earlier runs, of any kind: only what this run writes is shipped
        for cache in list(LIBS.rglob("__pycache__")):
            shutil.rmtree(cache)
        for recorded in LIBS.glob("cp*/attrs-methods.marshal"):
            recorded.unlink()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        failures = [f for f in pool.map(lambda item: run(*item), sorted(chosen.items())) if f]
    if failures:
        raise SystemExit("bundle_libs: " + "\n".join(failures))
    unchecked = [v for v in manifest["pythons"] if v not in chosen]
    if unchecked:
        say(
            f"no local CPython {', '.join(unchecked)} for {manifest['platform']}: not checked here"
            + (
                ", and no bytecode for it (it compiles what it imports at its first start)"
                if args.compile
                else ""
            )
        )
    if args.compile:
        manifest["bytecode"] = sorted(chosen, key=PYTHONS.index)
        (LIBS / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def _local_pythons() -> list[str]:
    found = [f"python{v}" for v in PYTHONS if shutil.which(f"python{v}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        found += sorted(str(p) for p in pyenv.glob("3.*/bin/python3") if p.is_file())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "lock", help="resolve pyproject.toml's dependencies and write requirements-bundled.txt"
    )
    b = commands.add_parser("build", help="fill bundled/libs for one platform from the lock file")
    b.add_argument("--platform", required=True, choices=sorted(PLATFORMS))
    b.add_argument("--wheel", required=True, help="Doublet's own wheel, installed into common/")
    b.add_argument(
        "--pythons",
        help='CPython versions to bundle, e.g. "3.12 3.13" (default: all of the lock file)',
    )
    c = commands.add_parser(
        "check", help="import and run the bundle with local CPythons of the bundled versions"
    )
    c.add_argument(
        "python", nargs="*", help="interpreters to try (default: python3.X on PATH and pyenv's)"
    )
    c.add_argument(
        "--compile",
        action="store_true",
        help="also write the bytecode of what they import (shipped in the .vsix)",
    )
    args = parser.parse_args()
    {"lock": lock, "build": build, "check": check}[args.command](args)


if __name__ == "__main__":
    main()
