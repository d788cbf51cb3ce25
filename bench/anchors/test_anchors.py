"""Checks that the anchors' passages slice matching text out of the original strings.

Run with `pytest bench/anchors` (not collected from tests/: it needs Node and
the pinned tools, see `python -m bench.anchors setup`).
"""

from __future__ import annotations

import os

import pytest

from bench.anchors import (
    copydetect_all_pairs,
    copydetect_compare,
    dolos_all_pairs,
    dolos_compare,
)
from bench.anchors._copydetect import copydetect_code_similarity
from bench.anchors._dolos import dolos_code_similarity
from bench.anchors._offsets import LineIndex
from bench.anchors._setup import copydetect_installed, dolos_installed

SENTENCE = "Every applicant 🦉 shall submit two references\nand a statement by 𝔄pril, 中文 too."

JAVA_SUM = """public class Sum {
    public static void main(String[] args) {
        int total = 0;
        for (int i = 1; i <= 100; i++) {
            total += i * i;
        }
        System.out.println("Sum of squares: " + total);
    }
}
"""
JAVA_COPY = JAVA_SUM.replace("Sum", "Total").replace("total", "acc")  # renamed copy
JAVA_OTHER = """import java.util.Scanner;

class Greeter {
    private final String name;

    Greeter(String name) { this.name = name; }

    String greet() { return "Hello, " + name + "!"; }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        while (in.hasNextLine()) {
            System.out.println(new Greeter(in.nextLine()).greet());
        }
    }
}
"""

needs_copydetect = pytest.mark.skipif(not copydetect_installed(), reason="copydetect missing")
needs_dolos = pytest.mark.skipif(not dolos_installed(), reason="Dolos missing")


def _slices(pair: tuple[str, str], passage: tuple[int, int, int, int]) -> tuple[str, str]:
    a0, a1, b0, b1 = passage
    return pair[0][a0:a1], pair[1][b0:b1]


def test_line_index_counts_utf16_columns_per_line() -> None:
    text = "a😀b\n𝔄cd"
    index = LineIndex(text)
    # "😀" is columns 1-2 of row 0; "c" is column 2 of row 1, after the 2-unit "𝔄"
    assert index.span((0, 3, 1, 3)) == (2, 6)
    assert text[2:6] == "b\n𝔄c"


def test_line_index_keeps_only_whole_characters() -> None:
    index = LineIndex("x😀y")
    assert index.start(0, 2) == 2  # starts on the low surrogate: skip the emoji
    assert index.end(0, 2) == 1  # ends after the high surrogate: drop the emoji


@needs_copydetect
def test_copydetect_planted_sentence() -> None:
    pair = ("Minutes. " + SENTENCE + " Tea.", "Notes 😀 here: " + SENTENCE + "\nEnd.")
    (result,) = copydetect_compare([pair])
    assert result.passages
    for passage in result.passages:
        left, right = _slices(pair, passage)
        assert left == right and "references\nand" in left


@needs_dolos
def test_dolos_planted_sentence() -> None:
    pair = ("Minutes. " + SENTENCE + " Tea.", "Notes 😀 here:\n\n" + SENTENCE + "\nEnd.")
    (result,) = dolos_compare([pair])
    assert len(result.passages) == 1
    left, right = _slices(pair, result.passages[0])
    assert left == right and "references\nand" in left


@needs_dolos
def test_dolos_ignores_newlines() -> None:
    """Its char tokenizer drops "\\n", so a passage may differ by newlines only."""
    pair = ("Intro. " + SENTENCE + " Outro.", "Other. " + SENTENCE.replace("\n", "") + " Fin.")
    (result,) = dolos_compare([pair])
    left, right = _slices(pair, result.passages[0])
    assert "\n" in left and left.replace("\n", "") == right


@needs_dolos
def test_dolos_match_starting_inside_a_surrogate_pair() -> None:
    """U+1D504 and U+1F504 share their low surrogate, which Dolos can match on."""
    shared = "abcdefghijklmnopqrstuvwxyz0123456789"
    pair = ("𝔄" + shared, "🔄" + shared)
    (result,) = dolos_compare([pair])
    assert result.passages == [(1, 37, 1, 37)]


@needs_copydetect
@needs_dolos
def test_all_pairs(tmp_path: os.PathLike[str]) -> None:
    texts = ["One. " + SENTENCE, "Two. " + SENTENCE, "Nothing shared with the others here."]
    paths = []
    for i, text in enumerate(texts):
        path = os.path.join(tmp_path, f"{i}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    for result in (copydetect_all_pairs(paths), dolos_all_pairs(paths)):
        assert result["finished"] and result["pairs"] == 1 and result["pairs_compared"] == 3
        assert result["peak_rss_mb"] > 10


@needs_copydetect
def test_all_pairs_time_limit(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "a.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(SENTENCE)
    result = copydetect_all_pairs([path, path], timeout=0.01)
    assert not result["finished"] and "timed out" in str(result["reason"])


@needs_copydetect
def test_copydetect_java_copy_beats_unrelated() -> None:
    copied, unrelated = copydetect_code_similarity(
        [(JAVA_SUM, JAVA_COPY), (JAVA_SUM, JAVA_OTHER)], language="java"
    )
    assert copied == 1.0  # filtering turns renamed identifiers into V
    assert unrelated < copied


@needs_dolos
def test_dolos_java_copy_beats_unrelated() -> None:
    copied, unrelated = dolos_code_similarity(
        [(JAVA_SUM, JAVA_COPY), (JAVA_SUM, JAVA_OTHER)], language="java"
    )
    assert copied == 1.0  # tree-sitter tokens ignore identifier names
    assert unrelated < copied
