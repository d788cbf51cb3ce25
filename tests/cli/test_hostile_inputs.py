"""One bad file never stops a scan (issue 13): each input built here, scanned for real.

Every case once made `doublet scan` end with "internal error"; now the bad file is
skipped with its reason, or the mistake is named in one line, and the rest is
scanned.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from doublet import extract
from doublet.skipped import NotText
from doublet.sources import decode
from doublet.workspace import Workspace
from tests.commands import doublet as run_doublet

CLOUGH = Path(__file__).parents[1] / "data" / "clough-stevenson"

TEXT = "A sentence that two students share, word for word, in a long enough passage. " * 4


def doublet(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return run_doublet(*args, cwd=cwd, text=False)


def folder_with(tmp_path: Path, files: dict[str, bytes]) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "a.txt").write_text(TEXT, "utf-8")
    (folder / "b.txt").write_text(TEXT, "utf-8")
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def scan_json(folder: Path, *options: str) -> tuple[dict, str]:
    run = doublet("scan", str(folder), "--format", "json", "--no-progress", *options)
    assert run.returncode == 0, run.stderr.decode()
    return json.loads(run.stdout.decode("utf-8")), run.stderr.decode("utf-8", "replace")


def odt_with(content_xml: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content_xml)
    return out.getvalue()


ODT_BOMB = (
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
    + '<text:p>a<text:s text:c="200000000"/>b</text:p>' * 5
    + "</office:text></office:body></office:document-content>"
)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("deep.ipynb", b"[" * 3000, "nested too deeply to be read"),
        ("huge.odt", odt_with(ODT_BOMB), "extracts to more than 20,000,000 characters"),
    ],
)
def test_a_file_that_cannot_be_read_is_skipped_and_the_rest_scanned(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    folder = folder_with(tmp_path, {name: data})
    result, stderr = scan_json(folder, "--no-index")
    assert result["skipped"] == [{"path": f"{folder}/{name}", "reason": reason}]
    assert len(result["pairs"]) == 1  # a.txt ~ b.txt, as without the bad file
    assert f"skipped {folder}/{name}: {reason}" in stderr


def test_an_office_file_that_unpacks_beyond_the_limit_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extract, "MAX_UNZIPPED", 1_000)
    with pytest.raises(NotText, match="unpacks to more than 1,000 bytes"):
        extract.extract(Path("x.odt"), odt_with("<x>" + "a" * 5_000 + "</x>"), decode)


def test_a_folder_a_thousand_deep_is_walked(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {})
    here = os.getcwd()
    try:
        os.chdir(folder)
        for _ in range(1000):  # relative steps: the absolute path outgrows what mkdir takes
            os.mkdir("d")
            os.chdir("d")
        Path("deep.txt").write_text(TEXT, "utf-8")
    finally:
        os.chdir(here)
    try:
        result, _ = scan_json(folder, "--no-index")
        assert any(d["path"].endswith("/d/deep.txt") for d in result["documents"])
        assert len(result["pairs"]) == 3
    finally:  # removed here, one level at a time: pytest's cleanup would recurse
        os.chdir(folder)
        depth = 0
        while os.path.isdir("d"):
            os.chdir("d")
            depth += 1
        os.unlink("deep.txt")
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("d")
        os.chdir(here)


def test_a_gitignore_line_git_would_refuse_is_left_out_and_the_rest_kept(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {".gitignore": b"foo\\\nb.txt\n"})
    result, stderr = scan_json(folder, "--no-index")
    assert [d["path"].rsplit("/", 1)[-1] for d in result["documents"]] == ["a.txt"]
    assert ".gitignore, line 1: pattern left out" in stderr


@pytest.mark.parametrize("layout", ["index-is-a-folder", "doublet-is-a-file", "doublet-is-a-link"])
def test_an_index_that_cannot_be_written_does_not_stop_the_scan(
    tmp_path: Path, layout: str
) -> None:
    folder = folder_with(tmp_path, {})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if layout == "index-is-a-folder":
        (folder / ".doublet" / "index.msgpack").mkdir(parents=True)
    elif layout == "doublet-is-a-file":
        (folder / ".doublet").write_text("not a folder")
    else:
        (folder / ".doublet").symlink_to(elsewhere)
    result, stderr = scan_json(folder)
    assert len(result["pairs"]) == 1
    assert "doublet: the index was not saved:" in stderr
    assert list(elsewhere.iterdir()) == []  # nothing written through the link
    run = doublet("index", str(folder), "--no-progress")
    assert run.returncode == 2 and b"cannot be written" in run.stderr


def test_an_index_file_linked_to_a_device_is_not_read(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {})
    (folder / ".doublet").mkdir()
    (folder / ".doublet" / "index.msgpack").symlink_to("/dev/zero")
    run = doublet("scan", str(folder), "--format", "json", "--no-progress")  # would never end
    assert run.returncode == 0
    assert b"rebuilding the index" in run.stderr
    assert Workspace.open(folder).index is not None


@pytest.mark.parametrize(
    ("arguments", "toml", "message"),
    [
        (("--noise", "100000000000000000000"), "", "prose.noise: expected a whole number from 1"),
        ((), "[prose]\nnoise = 18446744073709551616\n", "prose.noise: expected a whole number"),
        ((), "max_file_size = 100000000000000000000\n", "max_file_size: expected a whole number"),
    ],
)
def test_numbers_beyond_any_use_are_named_mistakes(
    tmp_path: Path, arguments: tuple[str, ...], toml: str, message: str
) -> None:
    folder = folder_with(tmp_path, {"doublet.toml": toml.encode()})
    run = doublet("scan", str(folder), "--no-index", *arguments)
    assert run.returncode == 2
    assert message in run.stderr.decode()
    assert b"internal error" not in run.stderr


def test_a_file_name_that_is_not_utf8_prints_as_valid_utf8(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {})
    os.rename(folder / "b.txt", os.path.join(os.fsencode(folder), b"caf\xe9.txt"))
    for form in ("json", "text", "csv"):
        run = doublet("scan", str(folder), "--format", form, "--no-index", "--no-progress")
        assert run.returncode == 0
        printed = run.stdout.decode("utf-8")  # strict: raises on invalid UTF-8
        if form == "json":
            printed = "\n".join(d["path"] for d in json.loads(printed)["documents"])
        assert "caf\\xe9.txt" in printed


def test_a_document_that_breaks_the_keying_is_skipped_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from doublet import workspace as workspace_module
    from doublet.engine.document import Document

    folder = folder_with(tmp_path, {"c.txt": b"breaks " * 50})
    keys = Document.keys

    def broken_batch(documents):  # the batch fails as a whole ...
        raise ValueError("a bug")

    def broken_alone(self):  # ... and alone, only the one document does
        if self.name == "c.txt":
            raise ValueError("this one")
        return keys.fget(self)

    monkeypatch.setattr(workspace_module, "keys_of", broken_batch)
    monkeypatch.setattr(Document, "keys", property(broken_alone))
    workspace = Workspace.open(folder, saved=False)
    changes = workspace.refresh()
    assert [(s.path, s.reason) for s in changes.skipped] == [
        ("c.txt", "could not be cut up (ValueError: this one)")
    ]
    assert sorted(workspace.index.names()) == ["a.txt", "b.txt"]
    assert len(workspace.pairs()) == 1


@pytest.mark.parametrize("parallel", [False, True])
def test_a_file_gone_before_its_pair_is_compared_leaves_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    from doublet import parallel as parallel_module

    folder = folder_with(tmp_path, {"c.txt": TEXT.encode()})
    monkeypatch.setattr(parallel_module, "PARALLEL_PAIRS", 1)  # the workers, even for 3 pairs
    workspace = Workspace.open(folder, saved=False)
    workspace.refresh()
    (folder / "b.txt").unlink()
    results = workspace.scan(parallel=parallel)
    assert [(r.a, r.b) for r in results] == [("a.txt", "c.txt")]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply to be read"),
        (None, "a symbolic link (not followed)"),
        ('include = ["../../etc/*"]\n', "'..' would leave it"),  # gave no document, silently
    ],
)
def test_a_configuration_that_cannot_be_used_is_named(
    tmp_path: Path, toml: str | None, message: str
) -> None:
    folder = folder_with(tmp_path, {})
    if toml is None:
        (tmp_path / "secret").write_text("password = 'hunter2'\n")
        (folder / "doublet.toml").symlink_to(tmp_path / "secret")
    else:
        (folder / "doublet.toml").write_text(toml)
    run = doublet("scan", str(folder), "--no-index")
    assert run.returncode == 2
    assert message in run.stderr.decode() and b"hunter2" not in run.stderr


def test_links_and_pipes_named_on_the_command_line_are_never_read(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, {})
    (tmp_path / "outside.txt").write_text("A private text outside. " * 20, "utf-8")
    (folder / "link.txt").symlink_to(tmp_path / "outside.txt")
    (folder / "zero.txt").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe.txt")
    run = doublet("scan", str(folder / "a.txt"), str(folder / "pipe.txt"), "--no-progress")
    assert run.returncode == 2 and b"not a regular file" in run.stderr  # named: an error
    for other in ("link.txt", "zero.txt"):
        run = doublet("compare", str(folder / other), str(folder / "a.txt"))
        assert run.returncode == 2 and b"symbolic link (not followed)" in run.stderr
    result, _ = scan_json(folder, "--no-index")  # found in a folder: skipped
    assert {s["path"].rsplit("/", 1)[-1] for s in result["skipped"]} == {
        "link.txt",
        "zero.txt",
        "pipe.txt",
    }
    assert "private text" not in json.dumps(result)


def test_a_temporary_index_left_by_a_killed_writer_is_removed_later(tmp_path: Path) -> None:
    from doublet import index_store

    folder = folder_with(tmp_path, {})
    workspace = Workspace.open(folder)
    workspace.refresh()
    workspace.save()
    old = folder / ".doublet" / "index.msgpack.dead1234.tmp"
    fresh = folder / ".doublet" / "index.msgpack.live5678.tmp"  # another writer's, now
    for leftover in (old, fresh):
        leftover.write_bytes(b"half an index")
    hours_ago = time.time() - 2 * index_store.STALE_SECONDS
    os.utime(old, (hours_ago, hours_ago))
    (folder / "c.txt").write_text(TEXT, "utf-8")
    workspace.refresh()
    workspace.save()
    assert not old.exists() and fresh.exists()


def test_workers_end_with_a_killed_index_run(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    words = TEXT.split()
    for i in range(4000):  # enough for worker processes and a few seconds of work
        (folder / f"{i:04d}.txt").write_text(" ".join(words[i % 7 :] * 30) + f" {i}", "utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "doublet", "index", str(folder), "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def workers() -> list[int]:
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat_line = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat_line.rsplit(")", 1)[1].split()[1]) == process.pid:
                    found.append(int(entry.name))
        return found

    deadline = time.time() + 60
    while not workers() and process.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    started = workers()
    assert started, "the index run finished before starting its workers"
    process.kill()
    process.wait()
    deadline = time.time() + 15
    while any(Path(f"/proc/{pid}").exists() for pid in started) and time.time() < deadline:
        time.sleep(0.1)
    alive = [p for p in started if Path(f"/proc/{p}").exists()]
    for pid in alive:  # never leave them behind, even when failing
        os.kill(pid, 9)
    assert alive == [], "worker processes outlived their parent"


def test_a_noise_threshold_that_makes_all_text_boilerplate_is_warned_of(tmp_path: Path) -> None:
    folder = tmp_path / "answers"
    shutil.copytree(CLOUGH, folder, ignore=shutil.ignore_patterns("*.csv"))
    source = (folder / "orig_taska.txt").read_text("utf-8", "replace")[:1500]
    (folder / "copied.txt").write_text(f"My own opening.\n\n{source}\n\nMy own end.", "utf-8")
    (folder / "doublet.toml").write_text("[prose]\nnoise = 1\n", "utf-8")
    data, stderr = scan_json(folder, "--threshold", "0")
    [warning] = data["warnings"]
    assert "prose.noise = 1 is too short" in warning and "ignored as boilerplate" in warning
    assert f"doublet: warning: {warning}" in stderr

    (folder / "doublet.toml").unlink()
    data, stderr = scan_json(folder)
    assert data["warnings"] == [] and "warning" not in stderr
    names = {d["id"]: Path(d["path"]).name for d in data["documents"]}
    pairs = [{names[p["a"]], names[p["b"]]} for p in data["pairs"]]
    assert {"copied.txt", "orig_taska.txt"} in pairs
