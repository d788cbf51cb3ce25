"""The last report of a scan, kept in ``.doublet/`` (doublet/kept_report.py): printed
again only while the folder, its settings and the command are the same."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doublet import index_store, kept_report
from doublet.cli import main as cli
from doublet.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
AMIRA = "essays/amira-haddad.txt"
CLOUGH = ROOT / "tests" / "data" / "clough-stevenson"


def doublet(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    run = subprocess.run(
        [sys.executable, "-m", "doublet", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        env={**os.environ, "DOUBLET_DEBUG": "1"},
    )
    assert run.returncode == 0, run.stderr
    return run


def scan(ws: Path, *options: str, spelled: str = "ws") -> bytes:
    return doublet("scan", spelled, "--no-progress", *options, cwd=ws.parent).stdout


def fresh(ws: Path, *options: str) -> bytes:
    """The same scan without anything saved: what a kept report must equal."""
    return scan(ws, "--no-index", *options)


def report_file(ws: Path) -> Path:
    return ws / ".doublet" / kept_report.FILE


def test_a_second_scan_prints_the_kept_report_without_scanning(
    ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DOUBLET_DEBUG", raising=False)  # a failure is exit status 1
    argv = ["scan", str(ws), "--format", "json", "--no-progress"]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out
    assert report_file(ws).is_file()

    def no_scan(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged folder was scanned again")

    monkeypatch.setattr(Workspace, "scan", no_scan)
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == first
    (ws / AMIRA).write_text("Something else altogether.\n", "utf-8")
    assert cli.main(argv) == 1  # changed: scanned, not kept
    assert "an unchanged folder was scanned again" in capsys.readouterr().err


@pytest.mark.parametrize("form", [("--format", "json"), ("--format", "csv"), ("--matrix",)])
def test_each_form_is_kept_and_equals_a_fresh_scan(ws: Path, form: tuple[str, ...]) -> None:
    options = (*form, "--format", "json") if form == ("--matrix",) else form
    first = scan(ws, *options)
    assert scan(ws, *options) == first == fresh(ws, *options)


def test_another_form_or_spelling_is_not_served_the_kept_one(ws: Path) -> None:
    as_json = scan(ws, "--format", "json")
    as_csv = scan(ws, "--format", "csv")
    assert as_csv == fresh(ws, "--format", "csv") and as_csv != as_json
    spelled = scan(ws, "--format", "json", spelled="./ws/")
    assert b'"path":"./ws/essays/' in spelled.replace(b" ", b"")
    assert scan(ws, "--format", "json") == as_json


def test_a_change_of_text_settings_or_options_makes_a_new_report(ws: Path) -> None:
    scan(ws, "--format", "json")
    (ws / AMIRA).write_text((ws / AMIRA).read_text("utf-8") + "\nA line of my own.\n", "utf-8")
    assert scan(ws, "--format", "json") == fresh(ws, "--format", "json")

    (ws / "doublet.toml").write_text("min_similarity = 0.3\n", "utf-8")
    strict = scan(ws, "--format", "json")
    assert strict == fresh(ws, "--format", "json")
    assert len(json.loads(strict)["pairs"]) < len(
        json.loads(scan(ws, "--threshold", "0", "--format", "json"))["pairs"]
    )

    (ws / "essays" / "late.txt").write_text((ws / AMIRA).read_text("utf-8"), "utf-8")
    assert scan(ws, "--format", "json") == fresh(ws, "--format", "json")
    (ws / "essays" / "late.txt").unlink()
    assert scan(ws, "--format", "json") == fresh(ws, "--format", "json")


def test_a_skipped_file_is_reported_again(ws: Path) -> None:
    (ws / "essays" / "binary.txt").write_bytes(b"\x00\x01 not text")
    first = doublet("scan", "ws", "--format", "json", "--no-progress", cwd=ws.parent)
    again = doublet("scan", "ws", "--format", "json", "--no-progress", cwd=ws.parent)
    assert again.stdout == first.stdout and b"binary.txt" in again.stdout
    assert b"skipped ws/essays/binary.txt" in again.stderr


def test_the_warnings_are_printed_again(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    shutil.copytree(CLOUGH, folder, ignore=shutil.ignore_patterns("*.csv"))
    (folder / "doublet.toml").write_text("[prose]\nnoise = 1\n", "utf-8")
    first = doublet("scan", "ws", "--format", "json", "--no-progress", cwd=tmp_path)
    again = doublet("scan", "ws", "--format", "json", "--no-progress", cwd=tmp_path)
    [warning] = json.loads(first.stdout)["warnings"]
    assert again.stdout == first.stdout
    assert f"doublet: warning: {warning}".encode() in again.stderr


def test_a_damaged_kept_report_is_not_used(ws: Path) -> None:
    first = scan(ws, "--format", "json")
    report_file(ws).write_bytes(report_file(ws).read_bytes()[:-10] + b"0123456789")
    assert scan(ws, "--format", "json") == first
    report_file(ws).write_bytes(b"not a report")
    assert scan(ws, "--format", "json") == first


def test_the_text_form_is_kept_but_for_the_time_it_took(ws: Path) -> None:
    first, again, fresh_one = (out.decode() for out in (scan(ws), scan(ws), fresh(ws)))
    for output in (first, again, fresh_one):
        last = output.rstrip("\n").rpartition("\n")[2]
        assert re.fullmatch(
            r"Scanned 9 documents \(9 prose\) in [0-9.]+ s: 4 pairs share passages\.", last
        )
    assert untimed(again) == untimed(first) == untimed(fresh_one)
    assert "amira-haddad" in first


def untimed(text: str) -> str:
    return re.sub(r" in [0-9.]+ s:", " in _ s:", text)


def test_the_teachers_report_page_is_kept(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DOUBLET_DEBUG", raising=False)
    pages = [tmp_path / "first.html", tmp_path / "again.html", tmp_path / "changed.html"]
    report = ["report", str(ws), "--no-progress", "--output"]
    assert cli.main([*report, str(pages[0])]) == 0
    capsys.readouterr()

    def no_scan(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged folder was scanned again")

    monkeypatch.setattr(Workspace, "scan", no_scan)
    assert cli.main([*report, str(pages[1])]) == 0
    assert pages[0].read_bytes() == pages[1].read_bytes()
    said = capsys.readouterr().err
    assert "Scanned 9 documents" in said and f"Report written to {pages[1]}" in said
    monkeypatch.undo()
    (ws / AMIRA).write_text("Something else altogether.\n", "utf-8")
    assert cli.main([*report, str(pages[2])]) == 0
    assert pages[2].read_bytes() != pages[0].read_bytes()


def test_a_scan_with_no_index_keeps_nothing(ws: Path) -> None:
    scan(ws, "--no-index", "--format", "json")
    assert not report_file(ws).exists()


def test_a_kept_report_without_its_counts_is_not_used(ws: Path) -> None:
    first = scan(ws, "--format", "json")
    kept = index_store.read_checked(report_file(ws), kept_report.MAGIC, kept_report.VERSION)
    broken = {**kept, "text": b"not the report", "summary": {"pairs": 1}}
    index_store.write_checked(ws, kept_report.FILE, broken, kept_report.MAGIC, kept_report.VERSION)
    assert scan(ws, "--format", "json") == first


def test_a_report_that_cannot_be_spooled_is_printed_and_not_kept(
    ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The kept report is written to a file in .doublet/ as the report is printed; a
    file that cannot be written there (a full disk, say) only means none is kept."""
    argv = ["scan", str(ws), "--format", "json", "--no-progress"]

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.tempfile, "TemporaryFile", full)
    assert cli.main(argv) == 0
    printed = capsys.readouterr()
    assert "the report was not kept: [Errno 28] No space left on device" in printed.err
    assert not report_file(ws).exists()
    monkeypatch.undo()
    assert cli.main(argv) == 0  # kept this time, the same text
    assert capsys.readouterr().out == printed.out
    assert report_file(ws).is_file()
    assert not [p for p in (ws / ".doublet").iterdir() if p.name.startswith("tmp")]
