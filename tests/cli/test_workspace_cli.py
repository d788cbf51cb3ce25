"""The workspace commands as a user runs them: `doublet index`, `scan DIR`, `similar`, `config`.

Every test copies the bundled essays and sources into ``tmp_path/ws`` and runs the
real `doublet` process from ``tmp_path``, so paths are shown as ``ws/...``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doublet.scan_store import ScanStore
from tests.commands import doublet as run_doublet

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

AMIRA = "essays/amira-haddad.txt"
CHLOE = "essays/chloe-martin.md"
DMITRI = "essays/dmitri-volkov.txt"
NOTES = "essays/notes-cp1252.txt"
FARAH = "essays/farah-nasser.md"
HIVES = "sources/hives-above-the-traffic.md"
FLOWERS = "sources/sharing-the-flowers.md"
DOCUMENTS = sorted(
    [f"essays/{p.name}" for p in (EXAMPLES / "essays").iterdir()]
    + [f"sources/{p.name}" for p in (EXAMPLES / "sources").iterdir()]
)
#: The planted pairs among the essays and sources (tests/data/examples-expected.md).
PLANTED = {(AMIRA, CHLOE), (AMIRA, HIVES), (FARAH, FLOWERS), (NOTES, FLOWERS)}


def doublet(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "doublet", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DOUBLET_DEBUG": ""},
    )


def ok(run: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    return run


def refused(run: subprocess.CompletedProcess) -> str:
    """The one-line error of a call refused with exit status 2."""
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("doublet: error: ")
    return lines[0]


def pairs_of(data: dict) -> dict[tuple[str, str], dict]:
    """Pairs of a JSON report by (A's path, B's path)."""
    paths = {d["id"]: d["path"] for d in data["documents"]}
    return {(paths[p["a"]], paths[p["b"]]): p for p in data["pairs"]}


def scan_json(ws: Path, *options: str) -> dict:
    run = ok(doublet("scan", ws.name, "--format", "json", "--no-progress", *options, cwd=ws.parent))
    return json.loads(run.stdout)


def summary(run: subprocess.CompletedProcess) -> dict[str, int]:
    """The counts of `doublet index`'s summary line."""
    line = run.stdout.strip().splitlines()[-1]
    found = re.match(
        r"Indexed (\d+) documents in [\d.]+ s: (\d+) added, (\d+) updated, (\d+) removed, "
        r"(\d+) moved, (\d+) unchanged, (\d+) skipped\. Index: (.+) \([\d.]+ MB\)\.$",
        line,
    )
    assert found, line
    names = ("documents", "added", "updated", "removed", "moved", "unchanged", "skipped")
    return {**dict(zip(names, map(int, found.groups()[:7]), strict=True)), "path": found[8]}


def shown(ws: Path, rel: str) -> str:
    return f"{ws.name}/{rel}"


def planted(ws: Path) -> set[tuple[str, str]]:
    return {(shown(ws, a), shown(ws, b)) for a, b in PLANTED}


# --- doublet index ------------------------------------------------------------------------------


def test_index_builds_then_reads_nothing(ws: Path) -> None:
    first = summary(ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent)))
    count = len(DOCUMENTS)
    assert first == {
        "documents": count,
        "added": count,
        "updated": 0,
        "removed": 0,
        "moved": 0,
        "unchanged": 0,
        "skipped": 0,
        "path": str((ws / ".doublet" / "index.msgpack").resolve()),
    }
    assert (ws / ".doublet" / "index.msgpack").is_file()
    assert (ws / ".doublet" / ".gitignore").is_file()
    assert sorted(p.name for p in (ws / ".doublet").iterdir()) == [".gitignore", "index.msgpack"]
    second = summary(ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent)))
    assert (second["added"], second["updated"], second["unchanged"]) == (0, 0, count)
    assert second["documents"] == count


def test_index_of_the_current_folder(ws: Path) -> None:
    counts = summary(ok(doublet("index", "--no-progress", cwd=ws)))
    assert counts["added"] == len(DOCUMENTS)
    assert (ws / ".doublet" / "index.msgpack").is_file()


def test_index_reads_only_what_changed(ws: Path) -> None:
    ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent))
    with (ws / DMITRI).open("a", encoding="utf-8") as out:
        out.write("\nA last sentence added after the first index was built.\n")
    (ws / FLOWERS).unlink()
    counts = summary(ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent)))
    assert (counts["added"], counts["updated"], counts["removed"]) == (0, 1, 1)
    assert counts["unchanged"] == len(DOCUMENTS) - 2
    assert counts["documents"] == len(DOCUMENTS) - 1


def test_index_reports_a_moved_file(ws: Path) -> None:
    ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent))
    (ws / "archive").mkdir()
    os.rename(ws / DMITRI, ws / "archive" / "dmitri-volkov.txt")
    counts = summary(ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent)))
    assert (counts["moved"], counts["added"], counts["removed"]) == (1, 0, 0)
    assert counts["unchanged"] == len(DOCUMENTS) - 1
    # the moved file answers under its new name
    data = similar_json(shown(ws, "archive/dmitri-volkov.txt"), "--root", ws.name, cwd=ws.parent)
    assert data["documents"][0]["path"] == "ws/archive/dmitri-volkov.txt"


def test_index_reports_skipped_files_under_the_folder_given(ws: Path) -> None:
    (ws / "essays" / "scan.txt").write_bytes(b"%PDF\x00\x01\x02" * 50)
    run = ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent))
    assert summary(run)["skipped"] == 1
    assert re.search(r"^doublet: skipped ws/essays/scan\.txt: binary", run.stderr, re.M)


@pytest.mark.skipif(sys.platform != "linux", reason="only Linux takes any bytes as a name")
def test_a_file_name_that_is_not_utf8(ws: Path) -> None:
    try:
        with open(os.fsencode(ws) + b"/essays/caf\xe9.txt", "wb") as out:
            out.write((ws / DMITRI).read_bytes())
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    run = doublet("index", ws.name, "--no-progress", cwd=ws.parent)
    assert "internal error" not in run.stderr
    assert run.returncode == 0, run.stderr


def test_index_of_a_missing_folder(tmp_path: Path) -> None:
    assert "no such folder" in refused(doublet("index", "nowhere", cwd=tmp_path))


def test_index_and_config_of_a_file_say_it_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("text\n", encoding="utf-8")
    for command in ("index", "config"):
        assert "not a folder: a.txt" in refused(doublet(command, "a.txt", cwd=tmp_path))


# --- doublet scan DIR ---------------------------------------------------------------------------


def test_scan_finds_the_planted_pairs_and_shows_paths_under_the_folder(ws: Path) -> None:
    (ws / "essays" / "scan.txt").write_bytes(b"%PDF\x00\x01\x02" * 50)
    data = scan_json(ws)
    assert [d["path"] for d in data["documents"]] == [shown(ws, rel) for rel in DOCUMENTS]
    assert set(pairs_of(data)) == planted(ws)
    assert data["skipped"] == [
        {"path": "ws/essays/scan.txt", "reason": "binary file (contains NUL bytes)"}
    ]
    # the verbatim paragraph is where the examples say it is
    [passage] = pairs_of(data)[(shown(ws, AMIRA), shown(ws, HIVES))]["passages"]
    amira = (ws / AMIRA).read_text(encoding="utf-8")
    text = " ".join(amira[passage["a"]["start"] : passage["a"]["end"]].split())
    assert text.startswith("The first wave of modern city beekeeping")
    assert text.endswith("shrubs in private gardens")
    assert (passage["a"]["line"], passage["a"]["end_line"]) == (13, 22)
    assert (ws / ".doublet" / "index.msgpack").is_file()


def test_a_second_scan_answers_the_same_from_the_saved_index(ws: Path) -> None:
    first = scan_json(ws)
    mtime = (ws / ".doublet" / "index.msgpack").stat().st_mtime_ns
    assert scan_json(ws) == first
    assert (ws / ".doublet" / "index.msgpack").stat().st_mtime_ns >= mtime


def test_a_scan_after_a_few_changes_is_the_scan_of_the_folder_from_scratch(ws: Path) -> None:
    """A file changed, one added, one removed: each scan selects again only what they
    touch (the kept selection counts the documents dropped since the whole folder was
    selected), and writes the very bytes a scan without any kept state writes."""

    def scanned(*options: str) -> bytes:
        argv = ("scan", ws.name, "--format", "json", "--no-progress", *options)
        run = run_doublet(*argv, cwd=ws.parent, text=False)
        assert run.returncode == 0 and run.stderr == b"", run.stderr
        return run.stdout

    def dropped() -> int:
        kept = ScanStore.load(ws).selection
        assert kept is not None and kept.basis is not None
        return kept.basis.dropped

    scanned()
    assert dropped() == 0
    hives = (ws / HIVES).read_text(encoding="utf-8")
    with (ws / DMITRI).open("a", encoding="utf-8") as out:
        out.write("\n" + hives[len(hives) // 2 :] + "\n")
    assert scanned() == scanned("--no-index")
    assert dropped() == 1
    flowers = (ws / FLOWERS).read_text(encoding="utf-8")
    (ws / "essays" / "late.txt").write_text(flowers[: len(flowers) // 2], encoding="utf-8")
    assert scanned() == scanned("--no-index")
    assert dropped() == 1
    (ws / AMIRA).unlink()
    found = scanned()
    assert found == scanned("--no-index") and dropped() == 2
    pairs = set(pairs_of(json.loads(found)))
    assert (shown(ws, DMITRI), shown(ws, HIVES)) in pairs
    assert (shown(ws, "essays/late.txt"), shown(ws, FLOWERS)) in pairs


def test_scan_with_no_index_writes_nothing(ws: Path) -> None:
    data = scan_json(ws, "--no-index")
    assert not (ws / ".doublet").exists()
    assert set(pairs_of(data)) == planted(ws)
    assert scan_json(ws) == data  # with an index, the same answer


def test_scan_of_the_current_folder_shows_relative_paths(ws: Path) -> None:
    run = ok(doublet("scan", "--format", "json", "--no-progress", cwd=ws))
    data = json.loads(run.stdout)
    assert [d["path"] for d in data["documents"]] == DOCUMENTS
    assert set(pairs_of(data)) == PLANTED


def test_scan_honours_doublet_toml(ws: Path) -> None:
    (ws / "doublet.toml").write_text(
        f'references = ["sources/"]\nexclude = ["{NOTES}"]\n', encoding="utf-8"
    )
    data = scan_json(ws)
    assert shown(ws, NOTES) not in [d["path"] for d in data["documents"]]
    assert set(pairs_of(data)) == {
        (shown(ws, AMIRA), shown(ws, CHLOE)),
        (shown(ws, AMIRA), shown(ws, HIVES)),
        (shown(ws, FARAH), shown(ws, FLOWERS)),
    }


def test_scan_rebuilds_a_damaged_index(ws: Path) -> None:
    expected = scan_json(ws, "--no-index")
    scan_json(ws)
    index = ws / ".doublet" / "index.msgpack"
    index.write_bytes(index.read_bytes()[:100])
    run = ok(doublet("scan", ws.name, "--format", "json", "--no-progress", cwd=ws.parent))
    assert "rebuilding the index" in run.stderr and "checksum mismatch" in run.stderr
    assert json.loads(run.stdout) == expected
    run = ok(doublet("scan", ws.name, "--format", "json", "--no-progress", cwd=ws.parent))
    assert run.stderr == ""  # the damaged file was replaced
    assert json.loads(run.stdout) == expected


def test_scan_with_no_index_ignores_a_damaged_index(ws: Path) -> None:
    (ws / ".doublet").mkdir()
    index = ws / ".doublet" / "index.msgpack"
    index.write_bytes(b"not an index at all")
    run = ok(doublet("scan", ws.name, "--no-index", "--no-progress", cwd=ws.parent))
    assert "rebuilding" not in run.stderr
    assert index.read_bytes() == b"not an index at all"


# --- doublet similar ----------------------------------------------------------------------------


def similar_json(file: str | Path, *options: str, cwd: Path) -> dict:
    run = ok(doublet("similar", file, "--format", "json", "--no-progress", *options, cwd=cwd))
    return json.loads(run.stdout)


def test_similar_with_root_lists_the_files_pairs_with_it_as_a(ws: Path) -> None:
    scan = pairs_of(scan_json(ws, "--no-index"))
    data = similar_json(shown(ws, AMIRA), "--root", ws.name, cwd=ws.parent)
    assert {"documents", "pairs"} <= set(data)
    assert set(data["documents"][0]) == {"id", "path", "chars", "mode"}
    assert data["documents"][0]["path"] == shown(ws, AMIRA)
    assert all(p["a"] == 0 for p in data["pairs"])
    found = pairs_of(data)
    assert set(found) == {
        (shown(ws, AMIRA), shown(ws, CHLOE)),
        (shown(ws, AMIRA), shown(ws, HIVES)),
    }
    for pair, entry in found.items():  # Amira is A in the scan as well: the same figures
        assert {k: v for k, v in entry.items() if k not in ("a", "b")} == {
            k: v for k, v in scan[pair].items() if k not in "ab"
        }


def test_similar_puts_the_file_first_even_when_it_sorts_last(ws: Path) -> None:
    data = similar_json(shown(ws, HIVES), "--root", ws.name, cwd=ws.parent)
    assert list(pairs_of(data)) == [(shown(ws, HIVES), shown(ws, AMIRA))]
    [passage] = data["pairs"][0]["passages"]
    hives = (ws / HIVES).read_text(encoding="utf-8")
    text = " ".join(hives[passage["a"]["start"] : passage["a"]["end"]].split())
    assert text.startswith("The first wave of modern city beekeeping")


def test_similar_text_output_names_the_file_as_a(ws: Path) -> None:
    run = ok(
        doublet("similar", shown(ws, AMIRA), "--root", ws.name, "--no-progress", cwd=ws.parent)
    )
    heads = re.findall(r"^\d+\. (\S+)  ~  (\S+)$", run.stdout, re.M)
    assert sorted(heads) == [
        (shown(ws, AMIRA), shown(ws, CHLOE)),
        (shown(ws, AMIRA), shown(ws, HIVES)),
    ]


def test_similar_finds_the_workspace_by_its_index(ws: Path, tmp_path: Path) -> None:
    ok(doublet("index", ws.name, "--no-progress", cwd=ws.parent))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # run from an unrelated folder: only the .doublet/ folder says where the workspace is
    data = similar_json(ws / AMIRA, cwd=elsewhere)
    paths = [d["path"] for d in data["documents"]]
    assert paths[0] == f"../ws/{AMIRA}"
    assert sorted(paths[1:]) == [f"../ws/{CHLOE}", f"../ws/{HIVES}"]
    assert not (elsewhere / ".doublet").exists() and not (ws / "essays" / ".doublet").exists()


def test_similar_finds_the_workspace_by_its_doublet_toml(ws: Path, tmp_path: Path) -> None:
    (ws / "doublet.toml").write_text("min_similarity = 0.0\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = similar_json(ws / NOTES, cwd=elsewhere)
    assert list(pairs_of(data)) == [(f"../ws/{NOTES}", f"../ws/{FLOWERS}")]
    assert (ws / ".doublet" / "index.msgpack").is_file()  # the index went to the workspace


def test_similar_from_inside_the_workspace(ws: Path) -> None:
    ok(doublet("index", "--no-progress", cwd=ws))
    data = similar_json(Path("..") / CHLOE, cwd=ws / "sources")
    assert list(pairs_of(data)) == [(f"../{CHLOE}", f"../{AMIRA}")]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_similar_through_a_symlinked_workspace(ws: Path, tmp_path: Path) -> None:
    os.symlink(ws, tmp_path / "link")
    data = similar_json(f"link/{AMIRA}", "--root", "link", cwd=tmp_path)
    assert {b for _, b in pairs_of(data)} == {f"link/{CHLOE}", f"link/{HIVES}"}


def test_similar_of_a_file_outside_the_workspace(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "other" / "essay.txt"
    outside.parent.mkdir()
    shutil.copy(ws / AMIRA, outside)
    message = refused(doublet("similar", "other/essay.txt", "--root", ws.name, cwd=tmp_path))
    assert "other/essay.txt is not inside the workspace" in message


def test_similar_of_an_excluded_file(ws: Path) -> None:
    (ws / "doublet.toml").write_text(f'exclude = ["{DMITRI}"]\n', encoding="utf-8")
    message = refused(doublet("similar", shown(ws, DMITRI), "--no-progress", cwd=ws.parent))
    assert f"{shown(ws, DMITRI)} is not a document of the workspace: not included" in message


def test_similar_of_a_file_that_is_not_text(ws: Path) -> None:
    (ws / "essays" / "scan.txt").write_bytes(b"%PDF\x00\x01\x02" * 50)
    run = doublet("similar", "ws/essays/scan.txt", "--root", "ws", "--no-progress", cwd=ws.parent)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("doublet: error: ws/essays/scan.txt is not a document")
    assert "binary" in last


def test_similar_of_a_missing_file(ws: Path) -> None:
    message = refused(doublet("similar", "ws/essays/nobody.txt", cwd=ws.parent))
    assert "no such file: ws/essays/nobody.txt" in message
    assert "not a file: ws/essays" in refused(doublet("similar", "ws/essays", cwd=ws.parent))


# --- doublet config -----------------------------------------------------------------------------

SETTINGS = f"""\
min_similarity = 0.05
templates = ["assignment.txt"]
groups = ["essays/*/"]

[modes]
"notes/**" = "words"

[prose]
noise = 14

[[ignore]]
a = "{AMIRA}"
b = "{HIVES}"
digest = "0123456789abcdef01234567"
"""


def test_config_prints_valid_toml_with_sources(ws: Path) -> None:
    (ws / "doublet.toml").write_text(SETTINGS, encoding="utf-8")
    run = ok(doublet("config", ws.name, "--min-length", "100", "--threshold", "0.5", cwd=ws.parent))
    data = tomllib.loads(run.stdout)
    assert data["templates"] == ["assignment.txt"]
    assert data["groups"] == ["essays/*/"]
    assert data["modes"] == {"notes/**": "words"}
    assert data["prose"]["noise"] == 14
    assert data["prose"]["guarantee"] == 24
    assert data["ignore"] == [{"a": AMIRA, "b": HIVES, "digest": "0123456789abcdef01234567"}]
    assert data["min_similarity"] == 0.5  # the option wins over the file
    assert all(data[mode]["min_length"] == 100 for mode in ("prose", "words", "code"))
    toml_file = str((ws / "doublet.toml").resolve())
    lines = run.stdout.splitlines()
    assert "min_similarity = 0.5  # command line" in lines
    assert "min_length = 100  # command line" in lines
    assert f"noise = 14  # {toml_file}" in lines
    assert f'templates = ["assignment.txt"]  # {toml_file}' in lines
    assert "respect_gitignore = true  # default" in lines


def test_config_of_a_folder_without_doublet_toml(ws: Path) -> None:
    run = ok(doublet("config", cwd=ws))
    data = tomllib.loads(run.stdout)
    assert data["min_similarity"] == 0.0 and data["prose"]["noise"] == 12
    assert data["ignore"] == [] and data["modes"] == {}
    assert not (ws / ".doublet").exists()


BAD_SETTINGS = {
    "unknown-key": ('colour = "red"\n', "colour", "unknown key"),
    "unknown-threshold": ("[prose]\nnoize = 10\n", "prose.noize", "did you mean 'noise'?"),
    "bad-value": ("min_similarity = 2\n", "min_similarity", "a number from 0 to 1"),
    "bad-threshold": ("[prose]\nnoise = 0\n", "prose.noise", "a whole number from 1 to 1,000,000"),
    "bad-glob": ('exclude = "drafts"\n', "exclude", "an array of glob patterns"),
    "malformed": ("[prose]\nnoise = ten\n", "prose.noise", "malformed TOML"),
}


@pytest.mark.parametrize("command", ["index", "scan", "config", "similar"])
@pytest.mark.parametrize("case", list(BAD_SETTINGS))
def test_a_bad_doublet_toml_is_one_clear_line(ws: Path, command: str, case: str) -> None:
    text, key, problem = BAD_SETTINGS[case]
    (ws / "doublet.toml").write_text(text, encoding="utf-8")
    target = [shown(ws, AMIRA)] if command == "similar" else [ws.name]
    message = refused(doublet(command, *target, cwd=ws.parent))
    toml_file = str((ws / "doublet.toml").resolve())
    assert toml_file in message
    assert f": {key}: " in message
    assert problem in message
    assert not (ws / ".doublet").exists()
