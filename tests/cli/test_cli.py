"""The `doublet` command as a user runs it: a real process on the bundled examples."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.commands import doublet as run_doublet

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXPECTED = ROOT / "tests" / "data" / "examples-expected.md"


def doublet(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run the command; scans of the bundled examples leave no index in the repository."""
    if args and args[0] == "scan" and "examples" in " ".join(args[1:2]):
        args = (*args, "--no-index")
    return run_doublet(*args, cwd=cwd, timeout=120)


def expected() -> dict:
    text = EXPECTED.read_text(encoding="utf-8")
    return json.loads(re.search(r"```json\n(.*?)\n```", text, re.S).group(1))


def locate(text: str, start: str, end: str) -> tuple[int, int]:
    """Offsets of the passage that begins with ``start`` and ends with ``end`` (any spacing)."""

    def pattern(snippet: str) -> str:
        return r"\s+".join(re.escape(word) for word in snippet.split())

    first = re.search(pattern(start), text)
    assert first, f"snippet not found: {start!r}"
    last = re.search(pattern(end), text[first.start() :])
    assert last, f"snippet not found: {end!r}"
    return first.start(), first.start() + last.end()


@pytest.fixture(scope="module")
def scan_json() -> dict:
    run = doublet("scan", "examples", "--format", "json", "--no-progress")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _pair(data: dict, file_a: str, file_b: str) -> tuple[dict, bool] | None:
    ids = {d["path"]: d["id"] for d in data["documents"]}
    a, b = ids[f"examples/{file_a}"], ids[f"examples/{file_b}"]
    for pair in data["pairs"]:
        if (pair["a"], pair["b"]) == (a, b):
            return pair, False
        if (pair["a"], pair["b"]) == (b, a):
            return pair, True
    return None


def _read(relative: str) -> str:
    from doublet.sources import read_bytes, read_document

    return read_document(EXAMPLES / relative, read_bytes(EXAMPLES / relative))


PLANTED = [p for p in expected()["planted"] if p["kind"] in ("verbatim", "edited", "paraphrased")]


@pytest.mark.parametrize("planted", PLANTED, ids=[p["id"] for p in PLANTED])
def test_scan_finds_every_planted_passage_where_it_is(scan_json, planted):
    side_a, side_b = planted["sides"]
    found = _pair(scan_json, side_a["file"], side_b["file"])
    assert found, f"pair not reported: {side_a['file']} ~ {side_b['file']}"
    pair, swapped = found
    if "start" not in side_a:  # whole-program copies: the pair is reported as near-identical
        assert pair["similarity"] >= 0.9
        return
    want_a = locate(_read(side_a["file"]), side_a["start"], side_a["end"])
    want_b = locate(_read(side_b["file"]), side_b["start"], side_b["end"])
    if swapped:
        want_a, want_b = want_b, want_a
    needed = 0.9 if planted["kind"] == "verbatim" else 0.75

    def covered(want: tuple[int, int], side: str) -> float:
        spans = [(p[side]["start"], p[side]["end"]) for p in pair["passages"]]
        inside = sum(max(0, min(e, want[1]) - max(s, want[0])) for s, e in spans)
        return inside / (want[1] - want[0])

    assert covered(want_a, "a") >= needed
    assert covered(want_b, "b") >= needed
    if planted["kind"] == "paraphrased":  # the report says how it matches
        assert [p["kind"] for p in pair["passages"]] == ["paraphrased"]


def test_scan_reports_nothing_for_independent_files(scan_json):
    paths = {d["id"]: d["path"] for d in scan_json["documents"]}
    reported = {paths[p["a"]] for p in scan_json["pairs"]} | {
        paths[p["b"]] for p in scan_json["pairs"]
    }
    for name in ("essays/ben-adeyemi.md", "essays/elena-rossi.md"):
        assert f"examples/{name}" not in reported
    assert "examples/chinese/wang-fang-subway-books.txt" not in reported
    assert "examples/code/top_words_heap.py" not in reported


def test_short_quotation_is_not_reported(scan_json):
    assert _pair(scan_json, "sources/sharing-the-flowers.md", "essays/dmitri-volkov.txt") is None


def test_scan_json_has_the_documented_shape(scan_json):
    assert set(scan_json) >= {"documents", "pairs", "skipped"}
    for document in scan_json["documents"]:
        assert set(document) >= {"id", "path", "chars"}
    ids = {d["id"] for d in scan_json["documents"]}
    similarities = [p["similarity"] for p in scan_json["pairs"]]
    assert similarities == sorted(similarities, reverse=True)
    for pair in scan_json["pairs"]:
        assert set(pair) >= {"a", "b", "similarity", "a_coverage", "b_coverage", "longest"}
        assert pair["a"] in ids and pair["b"] in ids and pair["a"] != pair["b"]
        assert pair["passages"]
        for passage in pair["passages"]:
            assert 0 < passage["score"] <= 1
            for side in ("a", "b"):
                span = passage[side]
                assert 0 <= span["start"] < span["end"]
                assert 1 <= span["line"] <= span["end_line"]


def test_scan_json_offsets_and_lines_point_into_the_decoded_files(scan_json):
    documents = {d["id"]: d for d in scan_json["documents"]}
    for pair in scan_json["pairs"]:
        for side in ("a", "b"):
            document = documents[pair[side]]
            text = _read(document["path"].removeprefix("examples/"))
            assert len(text) == document["chars"]
            for passage in pair["passages"]:
                span = passage[side]
                assert span["end"] <= len(text)
                assert text.count("\n", 0, span["start"]) + 1 == span["line"]


def test_scan_text_lists_ranked_pairs_with_excerpts_and_a_summary():
    run = doublet("scan", "examples", "--no-progress")
    assert run.returncode == 0, run.stderr
    assert "1. examples/" in run.stdout
    assert "A: The first wave of modern city beekeeping" in run.stdout
    assert re.search(r"Scanned 19 documents .* pairs share passages", run.stdout)


def test_scan_csv_has_one_row_per_pair(scan_json):
    run = doublet("scan", "examples", "--format", "csv", "--no-progress")
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert len(rows) == len(scan_json["pairs"])
    assert set(rows[0]) == {
        "a",
        "b",
        "similarity",
        "a_coverage",
        "b_coverage",
        "longest",
        "passages",
    }


def test_scan_matrix_shows_every_document_against_every_other():
    run = doublet("scan", "examples/code", "--matrix", "--no-progress")
    assert run.returncode == 0, run.stderr
    assert "[ 6] examples/code/wordfreq.py" in run.stdout
    grid = [line for line in run.stdout.splitlines() if re.match(r"\[\s*\d+\]\s+[—·\d]", line)]
    assert len(grid) == 6
    assert "100%" in run.stdout


def test_scan_matrix_json_is_symmetric():
    run = doublet("scan", "examples/code", "--matrix", "--format", "json", "--no-progress")
    matrix = json.loads(run.stdout)["matrix"]
    assert all(matrix[i][j] == matrix[j][i] for i in range(6) for j in range(6))


def test_scan_matrix_of_too_many_documents_says_so(tmp_path: Path):
    """Said before anything is compared: a grid of more is unreadable."""
    for i in range(61):
        (tmp_path / f"d{i:02}.txt").write_text(f"Document number {i} says little.\n")
    run = doublet("scan", str(tmp_path), "--matrix", "--no-progress")
    assert run.returncode != 0
    assert "--matrix shows at most 60 documents; found 61" in run.stderr


def test_threshold_drops_less_similar_pairs(scan_json):
    run = doublet("scan", "examples", "--threshold", "0.5", "--format", "json", "--no-progress")
    pairs = json.loads(run.stdout)["pairs"]
    assert pairs and all(p["similarity"] >= 0.5 for p in pairs)
    assert len(pairs) < len(scan_json["pairs"])


def test_min_length_option_removes_short_passages():
    args = ["examples/essays", "examples/chinese", "--format", "json", "--no-progress"]
    short = json.loads(doublet("scan", *args).stdout)["pairs"]
    long = json.loads(doublet("scan", *args, "--min-length", "400").stdout)["pairs"]
    assert len(long) < len(short)


def test_compare_prints_the_pair_and_every_measure():
    run = doublet(
        "compare",
        "examples/essays/amira-haddad.txt",
        "examples/sources/hives-above-the-traffic.md",
        "--format",
        "json",
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [d["id"] for d in data["documents"]] == [0, 1]
    assert (data["a"], data["b"]) == (0, 1)
    assert data["passages"] and data["similarity"] > 0
    assert set(data["measures"]) == {
        "containment",
        "jaccard",
        "cosine",
        "simhash",
        "simhash_distance",
        "minhash",
        "ctph",
        "flyhash",
    }


@pytest.mark.parametrize("spelled", ["examples/code/wordfreq.py", "./examples/code/wordfreq.py"])
def test_compare_of_a_file_with_itself_says_so(spelled: str):
    run = doublet("compare", "examples/code/wordfreq.py", spelled)
    assert run.returncode == 2, run.stderr
    assert "compare takes two different files" in run.stderr
    assert "internal error" not in run.stderr


def test_compare_of_one_file_under_two_names_says_so(tmp_path: Path):
    (tmp_path / "x.txt").write_text("hello world\n", encoding="utf-8")
    (tmp_path / "hard.txt").hardlink_to(tmp_path / "x.txt")
    (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    for a, b in [("x.txt", "hard.txt"), ("gone.txt", "./gone.txt")]:
        run = doublet("compare", a, b, cwd=tmp_path)
        assert run.returncode == 2 and "two different files" in run.stderr, run.stderr


def test_a_file_name_with_a_newline_cannot_forge_a_line_of_the_text_output(tmp_path: Path):
    text = "The old lighthouse keeper climbed the spiral stairs every evening at dusk. " * 6
    (tmp_path / "evil\n2. forged.txt  ~  other.txt").write_text("a " + text, encoding="utf-8")
    (tmp_path / "b\x1b[31m.txt").write_text("b " + text, encoding="utf-8")
    run = doublet("scan", ".", "--no-index", "--no-progress", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "evil\\n2. forged.txt" in run.stdout and "b\\x1b[31m.txt" in run.stdout
    assert not any(line.startswith("2.") for line in run.stdout.splitlines())
    data = json.loads(
        doublet("scan", ".", "--no-index", "--format", "json", cwd=tmp_path).stdout
    )  # JSON keeps the names as they are
    assert "evil\n2. forged.txt  ~  other.txt" in {d["path"] for d in data["documents"]}


def test_max_docs_below_two_is_refused_as_doublet_toml_refuses_it():
    run = doublet("scan", "examples", "--max-docs", "1")
    assert run.returncode == 2 and "--max-docs must be at least 2" in run.stderr


def test_compare_text_shows_measures():
    run = doublet("compare", "examples/code/wordfreq.py", "examples/code/text_stats.py")
    assert run.returncode == 0, run.stderr
    assert "similarity 100%" in run.stdout
    assert "containment" in run.stdout and "flyhash" in run.stdout


def _assert_clean_error(run: subprocess.CompletedProcess, *words: str) -> None:
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith("doublet: error:") or "error:" in run.stderr
    for word in words:
        assert word in run.stderr


def test_missing_path_is_a_clear_error():
    _assert_clean_error(doublet("scan", "no/such/folder"), "no such file or directory")


def test_binary_file_named_directly_is_a_clear_error(tmp_path):
    binary = tmp_path / "picture.dat"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20)
    _assert_clean_error(doublet("compare", str(binary), str(EXAMPLES / "essays/ben-adeyemi.md")))


def test_bad_options_are_clear_errors():
    _assert_clean_error(doublet("scan", "examples", "--threshold", "2"), "between 0 and 1")
    _assert_clean_error(doublet("scan", "examples", "--min-length", "zero"), "whole number")
    _assert_clean_error(doublet("scan", "examples", "--mode", "poetry"), "invalid choice")
    _assert_clean_error(
        doublet("scan", "examples", "--noise", "30", "--guarantee", "10"), "guarantee"
    )


def test_files_that_are_not_text_are_skipped_with_a_reason(tmp_path):
    shutil.copytree(EXAMPLES / "essays", tmp_path / "essays")
    (tmp_path / "essays" / "scan.dat").write_bytes(b"\x00\x01\x02" * 100)
    run = doublet("scan", str(tmp_path), "--format", "json", "--no-progress")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [s["path"] for s in data["skipped"]] == [str(tmp_path / "essays" / "scan.dat")]
    assert "binary" in data["skipped"][0]["reason"]
    assert "skipped" in run.stderr and "binary" in run.stderr
    assert data["pairs"]


def test_empty_folder_scans_to_no_pairs(tmp_path):
    run = doublet("scan", str(tmp_path), "--no-progress")
    assert run.returncode == 0, run.stderr
    assert "No pair of documents" in run.stdout


def test_code_pairs_report_their_resemblance_and_prose_pairs_do_not(scan_json):
    modes = {d["id"]: d["mode"] for d in scan_json["documents"]}
    for pair in scan_json["pairs"]:
        assert 0 <= pair["exact_coverage"] <= pair["similarity"] + 1e-4
        if modes[pair["a"]] == "code":
            evidence = pair["resemblance"]
            assert set(evidence) == {"score", "structure", "literals", "names"}
            assert evidence["structure"] == pair["exact_coverage"]
            assert 0 <= evidence["score"] <= 1
        else:
            assert "resemblance" not in pair
    renamed = _pair(scan_json, "code/wordfreq.py", "code/text_stats.py")
    assert renamed and renamed[0]["resemblance"]["score"] > 0.9


def test_compare_prints_the_resemblance_of_two_programs():
    run = doublet("compare", "examples/code/wordfreq.py", "examples/code/word_counter.py")
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if "resemblance" in x)
    assert re.fullmatch(
        r"\s+resemblance \d+% \(structure \d+% · literals \d+% · names \d+%\)", line
    )
    assert "No shared passage" in run.stdout
