"""`doublet report` and `scan --format html`: one self-contained page holding the scan.

What the page shows in a browser is tested in tests/report-browser (Chromium);
here: the file is written, holds exactly the scan's data, needs nothing from a
network, and survives hostile text and names.
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest

from doublet.report_html import anonymous_paths, render_html, report_payload, utf16_offsets
from tests.commands import doublet

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "clough-stevenson"
SHARED = (
    "The vector space model represents documents as vectors of terms, and the weight of "
    "each term says how much it tells about the document; the cosine of two vectors says "
    "how alike two documents are, whatever their length. "
)


def page_data(page: str) -> dict:
    element = r'<script id="report-data" type="application/json">(.*?)</script>'
    found = re.search(element, page, re.S)
    assert found, "the page inlines its data"
    return json.loads(found.group(1))


def small_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "answers"
    (folder / "alice").mkdir(parents=True)
    (folder / "bob").mkdir()
    (folder / "alice" / "essay.txt").write_text("One student writes first. " + SHARED * 2, "utf-8")
    (folder / "bob" / "essay.txt").write_text(SHARED * 2 + "Another ends here.", "utf-8")
    (folder / "carol.txt").write_text("Nothing in common with anyone at all. " * 8, "utf-8")
    return folder


def test_report_writes_one_page_with_the_scans_data(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    out = tmp_path / "report.html"
    run = doublet("report", str(folder), "-o", str(out), "--no-progress", "--no-index")
    assert run.returncode == 0, run.stderr
    assert f"Report written to {out}" in run.stderr
    page = out.read_text("utf-8")
    scan = json.loads(
        doublet("scan", str(folder), "--format", "json", "--no-progress", "--no-index").stdout
    )
    data = page_data(page)
    paths = [d["path"] for d in data["documents"]]
    assert paths == ["alice/essay.txt", "bob/essay.txt", "carol.txt"]
    assert [(p["a"], p["b"], p["similarity"]) for p in data["pairs"]] == [
        (p["a"], p["b"], p["similarity"]) for p in scan["pairs"]
    ]
    assert data["pairs"] and data["pairs"][0]["passages"] == scan["pairs"][0]["passages"]
    assert set(data["texts"]) == {"0", "1"}  # only documents in a pair carry their text
    assert data["texts"]["0"] == (folder / "alice" / "essay.txt").read_text("utf-8")
    # nothing to fetch: a policy forbids any network, and no URL is loaded
    assert "default-src 'none'" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)
    # scan --format html prints the same page, and so does report -o -
    printed = doublet("scan", str(folder), "--format", "html", "--no-progress", "--no-index").stdout
    assert page_data(printed) == data
    run = doublet("report", str(folder), "-o", "-", "--no-progress", "--no-index", cwd=tmp_path)
    assert run.returncode == 0 and "Report written to standard output" in run.stderr
    assert page_data(run.stdout) == data and not (tmp_path / "-").exists()


def test_report_of_an_unwritable_file_is_a_clear_error(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    run = doublet("report", str(folder), "-o", str(tmp_path / "missing" / "r.html"), "--no-index")
    assert run.returncode == 2
    assert "cannot write" in run.stderr


def test_anonymized_report_names_nobody(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    out = tmp_path / "report.html"
    run = doublet("report", str(folder), "-o", str(out), "--anonymize", "--no-index")
    assert run.returncode == 0, run.stderr
    page = out.read_text("utf-8")
    for name in ("alice", "bob", "carol", str(folder)):  # names of folders and files
        assert name not in page
    data = page_data(page)
    folder_a, name_a = data["documents"][0]["path"].split("/")
    folder_b, name_b = data["documents"][1]["path"].split("/")
    assert folder_a != folder_b and name_a == name_b  # alice/essay.txt, bob/essay.txt
    assert {folder_a, folder_b} == {"folder-001", "folder-002"}
    assert data["documents"][2]["path"] in ("document-001.txt", "document-002.txt")
    assert data["documents"][2]["path"] != name_a


def test_anonymous_paths_are_consistent_and_dealt_at_random() -> None:
    paths = ["x/a.txt", "y/a.txt", "x/b.py", "a.txt"]
    aliases = anonymous_paths(paths, random.Random(1))
    folder = {p: aliases[p].rsplit("/", 1)[0] for p in paths[:3]}
    assert folder["x/a.txt"] == folder["x/b.py"] != folder["y/a.txt"]
    assert aliases["x/a.txt"].endswith("/" + aliases["a.txt"])  # one name, one alias
    assert aliases["x/b.py"].endswith(".py")
    orders = {tuple(anonymous_paths(paths, random.Random(seed)).values()) for seed in range(20)}
    assert len(orders) > 1  # not the paths' order every time


def test_offsets_become_utf16_and_hostile_text_stays_text() -> None:
    text = "😀😀 </script><script>alert(1)</script> <!-- <script> shared passage \ud800 end"
    data = {
        "documents": [{"id": 0, "path": "a\udcff.txt", "chars": len(text), "mode": "prose"}],
        "pairs": [
            {
                "a": 0,
                "b": 0,
                "similarity": 1.0,
                "a_coverage": 1.0,
                "b_coverage": 1.0,
                "longest": 5,
                "passages": [
                    {
                        "a": {"start": 2, "end": 5, "line": 1, "end_line": 1},
                        "b": {"start": 0, "end": len(text), "line": 1, "end_line": 1},
                        "score": 1.0,
                        "kind": "verbatim",
                    }
                ],
            }
        ],
        "skipped": [],
    }
    payload = report_payload(data, {0: text}, title="t")
    passage = payload["pairs"][0]["passages"][0]
    assert (passage["a"]["start"], passage["a"]["end"]) == (4, 7)  # two emoji: 2 units each
    assert passage["b"]["end"] == len(text.encode("utf-16-le", "surrogatepass")) // 2
    assert payload["texts"]["0"].count("\ufffd") == 1  # a lone surrogate cannot be UTF-8
    assert payload["documents"][0]["path"] == "a\ufffd.txt"
    page = render_html(data, {0: text}, title="<b>t</b>")
    page.encode("utf-8")  # writable
    assert "<title>&lt;b&gt;t&lt;/b&gt;</title>" in page
    assert page.count("</script>") == 2  # the data's own cannot close its element
    assert page_data(page)["texts"]["0"] == payload["texts"]["0"]
    assert utf16_offsets("abc", [0, 3]) == [0, 3]


def test_threshold_comes_from_the_command_line_or_defaults(tmp_path: Path) -> None:
    folder = small_folder(tmp_path)
    for args, expected in (((), 0.5), (("--threshold", "0.2"), 0.2)):
        out = tmp_path / "r.html"
        run = doublet("report", str(folder), "-o", str(out), "--no-index", *args)
        assert run.returncode == 0, run.stderr
        assert page_data(out.read_text("utf-8"))["threshold"] == expected


ASSIGNMENT = (
    "Question one. Explain in your own words how a search engine ranks the documents it "
    "finds for a query, and say what a weight of a term is and why it matters at all. "
)


def template_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "doublet.toml").write_text('templates = ["assignment.txt"]\n', "utf-8")
    (folder / "assignment.txt").write_text(ASSIGNMENT, "utf-8")
    (folder / "ana.txt").write_text(ASSIGNMENT + "\n\n" + SHARED * 2, "utf-8")
    (folder / "ben.txt").write_text(SHARED * 2 + "\n\n" + ASSIGNMENT, "utf-8")
    return folder


def test_template_text_is_marked_given(tmp_path: Path) -> None:
    folder = template_folder(tmp_path)
    run = doublet("scan", str(folder), "--format", "json", "--no-index")
    data = json.loads(run.stdout)
    documents = {d["path"].rsplit("/", 1)[-1]: d for d in data["documents"]}
    assert len(data["pairs"]) == 1
    ana, ben = documents["ana.txt"], documents["ben.txt"]
    (start, end), *rest = ana["given"]
    assert not rest and (start, end) == (0, len(ASSIGNMENT.rstrip()))
    (start, end), *rest = ben["given"]
    text = (folder / "ben.txt").read_text("utf-8")
    assert not rest and (start, end) == (text.index("Question"), len(text.rstrip()))
    # the passage is the shared text only, and the page greys the rest
    passage = data["pairs"][0]["passages"][0]
    assert passage["a"]["start"] >= len(ASSIGNMENT) - 24
    out = tmp_path / "r.html"
    assert doublet("report", str(folder), "-o", str(out), "--no-index").returncode == 0
    shown = {d["path"]: d for d in page_data(out.read_text("utf-8"))["documents"]}
    assert shown["ana.txt"]["given"] == ana["given"]
    # no templates, no "given": the JSON of a scan without them is unchanged
    (folder / "doublet.toml").write_text("", "utf-8")
    plain = json.loads(doublet("scan", str(folder), "--format", "json", "--no-index").stdout)
    assert all("given" not in d for d in plain["documents"])


def test_a_page_is_written_whole_a_slice_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A report of 100,000 documents is 30 MB of text: written whole, it was first
    encoded into a copy of all of it; written a slice at a time, it is the same."""
    from doublet.cli import main as cli

    class Recording(io.StringIO):
        def write(self, piece: str) -> int:
            pieces.append(len(piece))
            return super().write(piece)

    pieces: list[int] = []
    monkeypatch.setattr(cli, "_WRITE_SLICE", 7)
    text = "naïve café — ünïcödé \U0001f600 " * 50 + "end"
    out = Recording()
    assert cli._write_text(out, text) == len(text.encode("utf-8"))
    assert out.getvalue() == text
    assert max(pieces) == 7 and len(pieces) == -(-len(text) // 7)
    assert cli._write_text(out, "") == 0
