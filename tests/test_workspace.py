"""Workspace: discovery, refresh, roles, questions and the saved index, on real folders.

Every test builds a small workspace under ``tmp_path``: essays of pseudo-word filler
(different in every file, so nothing matches by chance) with planted paragraphs of
real prose shared between some of them.
"""

from __future__ import annotations

import gc
import logging
import os
import random
import shutil
import sys
import threading
import time
import zlib
from pathlib import Path

import msgpack
import numpy as np
import pytest

from doublet import index_store
from doublet.config import DEFAULTS
from doublet.discovery import Discovery
from doublet.engine.comparison import PairResult, passage_digest
from doublet.engine.index import KINDS
from doublet.engine.modes import MODES
from doublet.scanned import PackedPair
from doublet.workspace import (
    BATCH_BYTES,
    BATCH_FILES,
    Changes,
    Questions,
    Workspace,
    _batches,
    _Stamp,
)

# --- texts -----------------------------------------------------------------------------------

LIGHTHOUSE = (
    "The old lighthouse keeper climbed the spiral stairs every evening at dusk, carrying a "
    "brass lamp and a notebook in which he recorded the colour of the sea, the direction of "
    "the wind and the names of the ships that passed the headland. Over forty years he filled "
    "more than two hundred notebooks, and the town museum now keeps them in a glass cabinet "
    "beside his telescope."
)
ORCHARD = (
    "Behind the school there is a small orchard of apple and pear trees that the pupils look "
    "after themselves. In spring they prune the branches and count the blossoms, in summer "
    "they water the young trees by hand, and in autumn the whole school gathers the fruit, "
    "weighs it on an ancient kitchen scale and presses it into juice that is sold at the "
    "winter fair to pay for new saplings."
)
ASSIGNMENT = (
    "Assignment three: write an essay of about five hundred words on a place in your town "
    "that has changed during your lifetime. Describe what the place was like before, what "
    "it is like now and who made the change happen. Interview at least one person who "
    "remembers the place as it was, quote them accurately, and finish with your own view "
    "of whether the change made the town a better place to live."
)
SOURCE = (
    "Rivers that flow through cities were long treated as drains, straightened into concrete "
    "channels and hidden under roads. In recent decades many towns have begun to uncover "
    "them again, widening their banks, planting reeds and willows along the water, and "
    "building paths where people can walk, so that the river becomes a green corridor for "
    "birds, insects and fish as well as for the people who live beside it."
)
CODE = '''\
import sys
from collections import Counter


def count_words(path):
    """Count how often every word occurs in a file."""
    counts = Counter()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            for word in line.lower().split():
                counts[word.strip(".,;:!?")] += 1
    return counts


if __name__ == "__main__":
    for word, count in count_words(sys.argv[1]).most_common(10):
        print(f"{word}\\t{count}")
'''

SYLLABLES = "ka lo mi ne ru sa to vi pe da fo gu hi ja ku le mo na po ri su te wa zo".split()


def filler(seed: int, words: int = 140) -> str:
    """A paragraph of pseudo-words, different for every seed (about 1,000 characters)."""
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(words)
    ]
    return " ".join(
        " ".join(vocabulary[i : i + 12]).capitalize() + "." for i in range(0, words, 12)
    )


def essay(*paragraphs: str) -> str:
    return "\n\n".join(paragraphs) + "\n"


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def configure(root: Path, toml: str) -> None:
    (root / "doublet.toml").write_text(toml, encoding="utf-8")


def bump_mtime(path: Path, seconds: int = 10) -> int:
    """Move a file's modification time forward (file systems can be too coarse otherwise)."""
    stat = path.stat()
    mtime = stat.st_mtime_ns + seconds * 1_000_000_000
    os.utime(path, ns=(stat.st_atime_ns, mtime))
    return mtime


# --- looking at results ------------------------------------------------------------------------


def squash(text: str) -> str:
    return " ".join(text.split())


def texts(result: PairResult) -> list[tuple[str, str]]:
    """The passages of a pair as (A's text, B's text), whitespace collapsed."""
    return [
        (
            squash(result.a.text[p.a.start : p.a.end]),
            squash(result.b.text[p.b.start : p.b.end]),
        )
        for p in result.passages
    ]


def covers(passage: str, paragraph: str) -> bool:
    """Whether a passage is the planted paragraph (its edges may move by a few characters)."""
    plain = squash(paragraph)
    return plain[15:-15] in passage and len(passage) < len(plain) + 40


def by_pair(results: list[PairResult]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    return {(r.a.name, r.b.name): texts(r) for r in results}


def signature(results: list[PairResult]) -> list[tuple]:
    """Everything a report shows of the pairs: names, figures and passage spans."""
    return [
        (
            r.a.name,
            r.b.name,
            round(r.similarity, 9),
            [(p.a.start, p.a.end, p.b.start, p.b.end, round(p.score, 9)) for p in r.passages],
        )
        for r in results
    ]


def oriented(results: list[PairResult], rel: str) -> dict[str, list[tuple[str, str]]]:
    """Pairs involving ``rel`` as {other document: sorted (rel's text, other's text)}."""
    out = {}
    for r in results:
        if r.a.name == rel:
            out[r.b.name] = sorted(texts(r))
        elif r.b.name == rel:
            out[r.a.name] = sorted((b, a) for a, b in texts(r))
    return out


def refreshed(root: Path, **options) -> tuple[Workspace, Changes]:
    workspace = Workspace.open(root, **options)
    return workspace, workspace.refresh()


def reasons(changes_or_workspace) -> dict[str, str]:
    return {s.path: s.reason for s in changes_or_workspace.skipped}


# --- the workspace most tests use ----------------------------------------------------------------

DOCUMENTS = ["a.txt", "b.txt", "c.txt", "d.txt", "tools/count.py"]
PROSE = ["a.txt", "b.txt", "c.txt", "d.txt"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """a and b share LIGHTHOUSE and ORCHARD, d shares ORCHARD, c shares nothing."""
    root = tmp_path / "ws"
    write(root, "a.txt", essay(filler(1), LIGHTHOUSE, filler(2), ORCHARD, filler(3)))
    write(root, "b.txt", essay(filler(4), LIGHTHOUSE, filler(5), ORCHARD, filler(6)))
    write(root, "c.txt", essay(filler(7), filler(8)))
    write(root, "d.txt", essay(filler(9), ORCHARD, filler(10)))
    write(root, "tools/count.py", CODE)
    return root


# --- refresh ---------------------------------------------------------------------------------


def test_refresh_indexes_every_document(root: Path) -> None:
    workspace, changes = refreshed(root)
    assert changes.added == DOCUMENTS
    assert (changes.updated, changes.removed, changes.renamed, changes.skipped) == ([], [], [], [])
    assert changes.unchanged == 0 and changes.changed
    assert workspace.index.names() == DOCUMENTS
    modes = {name: mode for name, _, mode in workspace.listing()}
    assert modes == {**dict.fromkeys(PROSE, "prose"), "tools/count.py": "code"}
    chars = {name: count for name, count, _ in workspace.listing()}
    assert chars["c.txt"] == len((root / "c.txt").read_text(encoding="utf-8"))


def test_second_refresh_reads_nothing(root: Path) -> None:
    workspace, _ = refreshed(root)
    again = workspace.refresh()
    assert again.unchanged == len(DOCUMENTS)
    assert not again.changed and again.added == [] and again.updated == []
    # Proof that nothing is read: content swapped behind the index's back, with the
    # same size and modification time, goes unnoticed.
    path = root / "c.txt"
    stat = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace(b"a", b"e"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    third = workspace.refresh()
    assert third.unchanged == len(DOCUMENTS) and not third.changed


def test_warm_start_from_the_saved_index_reads_nothing(root: Path) -> None:
    first, _ = refreshed(root)
    expected = signature(first.pairs())
    first.save()
    workspace, changes = refreshed(root)
    assert changes.unchanged == len(DOCUMENTS)
    assert not changes.changed and changes.added == [] and changes.updated == []
    assert workspace.index.names() == DOCUMENTS
    assert signature(workspace.pairs()) == expected


def test_editing_a_file_reindexes_only_it(root: Path) -> None:
    workspace, _ = refreshed(root)
    path = root / "c.txt"
    path.write_text(essay(filler(7), filler(8), filler(2)), encoding="utf-8")  # a's filler
    bump_mtime(path)
    changes = workspace.refresh()
    assert changes.updated == ["c.txt"]
    assert changes.added == [] and changes.removed == [] and changes.renamed == []
    assert changes.unchanged == len(DOCUMENTS) - 1
    assert "c.txt" in oriented(workspace.pairs(), "a.txt")


def test_a_refresh_keeps_the_keys_of_a_few_changes_only(tmp_path: Path) -> None:
    """Keys kept serve a selection made again after a few changes; after more, the whole
    folder is selected again, and keeping them would only hold memory."""
    from doublet.engine.selection import most_changed

    root = tmp_path / "many"
    count = 60
    assert most_changed(count) < count
    for number in range(count):
        write(root, f"d{number:02}.txt", essay(filler(number % 10), filler(number % 7 + 1)))
    workspace, changes = refreshed(root)
    assert len(changes.added) == count
    assert list(workspace._keys) == []  # every document new: none kept
    for number in (3, 4):
        path = root / f"d{number:02}.txt"
        path.write_text(essay(filler(number), ORCHARD), encoding="utf-8")
        bump_mtime(path)
    changes = workspace.refresh()
    assert changes.updated == ["d03.txt", "d04.txt"]
    assert sorted(workspace._keys) == ["d03.txt", "d04.txt"]


def test_an_edit_of_the_same_size_is_noticed_by_its_time(root: Path) -> None:
    workspace, _ = refreshed(root)
    path = root / "b.txt"
    size = path.stat().st_size
    path.write_text(
        essay(
            filler(4),
            LIGHTHOUSE.replace("lighthouse", "watchtower"),
            filler(5),
            ORCHARD,
            filler(6),
        ),
        encoding="utf-8",
    )
    bump_mtime(path)
    assert path.stat().st_size == size  # the same number of letters
    changes = workspace.refresh()
    assert changes.updated == ["b.txt"] and changes.unchanged == len(DOCUMENTS) - 1


def test_touching_a_file_does_not_reindex_it_but_updates_its_stamp(root: Path) -> None:
    workspace, _ = refreshed(root)
    before = _Stamp.unpack(workspace.index.entry("a.txt").stamp)
    mtime = bump_mtime(root / "a.txt")
    changes = workspace.refresh()
    assert changes.updated == [] and changes.added == [] and not changes.changed
    assert changes.unchanged == len(DOCUMENTS)
    after = _Stamp.unpack(workspace.index.entry("a.txt").stamp)
    assert before is not None and after is not None
    assert after.mtime_ns == mtime != before.mtime_ns
    assert (after.size, after.digest) == (before.size, before.digest)  # same content
    # the new stamp is kept: the next refresh needs no read either
    assert not workspace.refresh().changed


def test_a_stamp_is_packed_as_earlier_indexes_saved_it_and_read_back_whole_or_not_at_all() -> None:
    stamp = _Stamp(2_048, 1_764_000_000_123_456_789, "0f" * 16, 1_999)
    packed = stamp.pack()
    # an index saved before stamps were kept packed holds these very bytes: it loads
    # without every file being read again
    assert packed == msgpack.Packer(use_bin_type=True).pack(
        (2_048, 1_764_000_000_123_456_789, "0f" * 16, 1_999)
    )
    assert _Stamp.unpack(packed) == stamp
    assert (_Stamp.digest_of(packed), _Stamp.chars_of(packed)) == ("0f" * 16, 1_999)
    for damaged in (
        b"",
        b"\xc1",
        packed[:-1],
        packed + b"\x00",
        msgpack.packb((2_048, 1, b"0f", 1_999)),  # the digest as bytes
        msgpack.packb((2_048, 1.5, "0f", 1_999)),  # a time that is no integer
        msgpack.packb([1, 2, 3]),
        msgpack.packb({"size": 1}),
    ):
        assert _Stamp.unpack(damaged) is None
        assert _Stamp.digest_of(damaged) is None and _Stamp.chars_of(damaged) == 0


def test_touching_after_a_warm_start_updates_the_saved_stamp(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    mtime = bump_mtime(root / "d.txt")
    warm, changes = refreshed(root)
    assert changes.unchanged == len(DOCUMENTS) and not changes.changed
    assert _Stamp.unpack(warm.index.entry("d.txt").stamp).mtime_ns == mtime


def test_an_unchanged_index_is_not_written_again_and_a_touched_one_is(root: Path) -> None:
    workspace, _ = refreshed(root)
    path = workspace.save()
    written = path.read_bytes()
    warm = Workspace.open(root)
    warm.refresh()  # nothing changed on disk
    path.write_bytes(b"left alone")  # a marker: an unchanged index is not written again
    assert warm.save() == path and path.read_bytes() == b"left alone"
    path.write_bytes(written)
    bump_mtime(root / "a.txt")  # a new stamp is a change worth saving
    warm.refresh()
    warm.save()
    assert path.read_bytes() != written and Workspace.open(root).index.names() == DOCUMENTS


def test_a_rebuilt_index_is_always_written(root: Path) -> None:
    workspace, _ = refreshed(root)
    path = workspace.save()
    path.write_bytes(b"stale")
    workspace.reset_index()
    workspace.save()
    assert Workspace.open(root).index.names() == []


def test_deleting_a_file_removes_it(root: Path) -> None:
    workspace, _ = refreshed(root)
    (root / "d.txt").unlink()
    changes = workspace.refresh()
    assert changes.removed == ["d.txt"]
    assert changes.added == [] and changes.updated == []
    assert changes.unchanged == len(DOCUMENTS) - 1
    assert "d.txt" not in workspace.index
    assert list(by_pair(workspace.pairs())) == [("a.txt", "b.txt")]


def test_deleting_a_file_after_a_warm_start_removes_it(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    (root / "b.txt").unlink()
    warm, changes = refreshed(root)
    assert changes.removed == ["b.txt"] and changes.unchanged == len(DOCUMENTS) - 1
    assert list(by_pair(warm.pairs())) == [("a.txt", "d.txt")]


def test_moving_a_file_is_a_rename_and_its_pairs_follow_it(root: Path) -> None:
    workspace, _ = refreshed(root)
    before = by_pair(workspace.pairs())[("a.txt", "b.txt")]
    (root / "essays").mkdir()
    os.rename(root / "a.txt", root / "essays" / "a.txt")
    changes = workspace.refresh()
    assert changes.renamed == [("a.txt", "essays/a.txt")]
    assert changes.added == [] and changes.removed == [] and changes.updated == []
    assert workspace.index.names() == sorted([*DOCUMENTS[1:], "essays/a.txt"])
    pairs = by_pair(workspace.pairs())
    assert ("a.txt", "b.txt") not in pairs
    # b.txt now sorts before essays/a.txt, so the sides swap
    assert sorted((b, a) for a, b in pairs[("b.txt", "essays/a.txt")]) == sorted(before)


def test_moving_a_file_after_a_warm_start_is_a_rename(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    os.rename(root / "c.txt", root / "e.txt")
    warm, changes = refreshed(root)
    assert changes.renamed == [("c.txt", "e.txt")]
    assert changes.added == [] and changes.removed == []
    assert warm.index.names() == ["a.txt", "b.txt", "d.txt", "e.txt", "tools/count.py"]


CODE = """int sum_scores(int *scores, int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (scores[i] > 0) { total += scores[i] * 2; } else { total -= 1; }
    }
    while (total > 1000) { total = total / 3 + n; }
    return total + n * 7;
}
"""
LINKED = f"See [the keeper's notes](https://example.org/{'-'.join(LIGHTHOUSE.split()[:30])}).\n"


@pytest.mark.parametrize(
    ("files", "old", "new"),
    [
        # Python's lexer reads the C function as a string; C's, as C
        ({"a.py": f'X = """\n{CODE}"""\n', "b.c": CODE}, "a.py", "a.c"),
        # Markdown masks a link's target; plain text keeps it
        ({"a.md": essay(filler(1), LINKED), "b.txt": essay(filler(2), LINKED)}, "a.md", "a.txt"),
    ],
    ids=["code-lexer", "markdown-extraction"],
)
def test_a_file_moved_to_a_name_read_another_way_is_read_again(
    tmp_path: Path, files: dict[str, str], old: str, new: str
) -> None:
    """The same bytes make other keys under a name read another way: the move is new
    content, and the scan after it is the scan of the folder from nothing."""
    root = tmp_path / "ws"
    for rel, text in files.items():
        write(root, rel, text)
    workspace, _ = refreshed(root)
    before = signature(workspace.pairs())
    os.rename(root / old, root / new)
    changes = workspace.refresh()
    assert changes.renamed == [] and changes.added == [new] and changes.removed == [old]
    shutil.copytree(root, tmp_path / "fresh", ignore=shutil.ignore_patterns(".doublet"))
    fresh, _ = refreshed(tmp_path / "fresh")
    assert signature(workspace.pairs()) == signature(fresh.pairs()) != before


def test_a_file_moved_to_a_name_read_the_same_way_is_a_rename(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "a.md", essay(filler(1), LINKED))
    write(root, "b.c", CODE)
    workspace, _ = refreshed(root)
    os.rename(root / "a.md", root / "notes.markdown")
    os.rename(root / "b.c", root / "b.h")
    changes = workspace.refresh()
    assert sorted(changes.renamed) == [("a.md", "notes.markdown"), ("b.c", "b.h")]


def test_deleting_one_file_and_adding_another_in_one_refresh(root: Path) -> None:
    workspace, _ = refreshed(root)
    (root / "c.txt").unlink()
    write(root, "e.txt", essay(filler(20), LIGHTHOUSE, filler(21)))
    changes = workspace.refresh()
    assert changes.removed == ["c.txt"] and changes.added == ["e.txt"]
    assert changes.renamed == []


# --- configuration changes --------------------------------------------------------------------


def test_changing_a_threshold_reindexes_the_affected_files(root: Path) -> None:
    workspace, _ = refreshed(root)
    expected = by_pair(workspace.pairs())
    workspace.save()
    configure(root, "[prose]\nnoise = 14\n")
    warm, changes = refreshed(root)
    assert changes.updated == PROSE  # the code file keeps its own thresholds
    assert changes.unchanged == 1 and changes.added == [] and changes.removed == []
    assert warm.config.mode_for("a.txt").noise == 14
    assert set(by_pair(warm.pairs())) == set(expected)
    # and once saved, the new thresholds are the index's own
    warm.save()
    _, again = refreshed(root)
    assert again.unchanged == len(DOCUMENTS) and not again.changed


def test_changing_code_thresholds_reindexes_only_code(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    configure(root, "[code]\nkeep_comments = true\n")
    _, changes = refreshed(root)
    assert changes.updated == ["tools/count.py"] and changes.unchanged == len(PROSE)


def test_a_threshold_of_alignment_only_needs_no_reread(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    configure(root, "[prose]\nmin_length = 2000\n")  # longer than any planted paragraph
    warm, changes = refreshed(root)
    assert changes.unchanged == len(DOCUMENTS) and not changes.changed
    assert warm.pairs() == []


def test_changing_roles_needs_no_reread(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    configure(
        root,
        'templates = ["c.txt"]\nreferences = ["d.txt"]\ngroups = "top-level"\n',
    )
    warm, changes = refreshed(root)
    assert changes.unchanged == len(DOCUMENTS)
    assert not changes.changed and changes.updated == []
    roles = {entry.name: entry.role for entry in warm.index.entries()}
    assert roles["c.txt"].template and not roles["c.txt"].reference
    assert roles["d.txt"].reference and not roles["d.txt"].template
    assert roles["tools/count.py"].group == "tools"
    assert roles["a.txt"].group is None and not roles["a.txt"].template
    # roles are saved with the index, and undone when the file changes back
    warm.save()
    configure(root, "")
    cold, again = refreshed(root)
    assert again.unchanged == len(DOCUMENTS) and not again.changed
    assert not any(
        e.role.template or e.role.reference or e.role.group for e in cold.index.entries()
    )


# --- pairs --------------------------------------------------------------------------------------


def test_pairs_find_the_planted_paragraphs(root: Path) -> None:
    workspace, _ = refreshed(root)
    pairs = by_pair(workspace.pairs())
    assert set(pairs) == {("a.txt", "b.txt"), ("a.txt", "d.txt"), ("b.txt", "d.txt")}
    ab = pairs[("a.txt", "b.txt")]
    assert len(ab) == 2
    assert covers(ab[0][0], LIGHTHOUSE) and covers(ab[0][1], LIGHTHOUSE)
    assert covers(ab[1][0], ORCHARD) and covers(ab[1][1], ORCHARD)
    for pair in (("a.txt", "d.txt"), ("b.txt", "d.txt")):
        [(side_a, side_b)] = pairs[pair]
        assert covers(side_a, ORCHARD) and covers(side_b, ORCHARD)


def test_a_template_is_subtracted(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "assignment.txt", essay(ASSIGNMENT, filler(40)))
    write(root, "essays/one.txt", essay(filler(41), ASSIGNMENT, filler(42)))
    write(root, "essays/two.txt", essay(ASSIGNMENT, filler(43), filler(44)))
    write(root, "essays/three.txt", essay(filler(45), ASSIGNMENT, filler(46), LIGHTHOUSE))
    write(root, "essays/four.txt", essay(LIGHTHOUSE, filler(47)))
    plain, _ = refreshed(root)
    assert len(by_pair(plain.pairs())) == 7  # control: the assignment text pairs them all

    configure(root, 'templates = ["assignment.txt"]\n')
    workspace, _ = refreshed(root, saved=False)
    pairs = by_pair(workspace.pairs())
    assert list(pairs) == [("essays/four.txt", "essays/three.txt")]
    [(four, three)] = pairs[("essays/four.txt", "essays/three.txt")]
    assert covers(four, LIGHTHOUSE) and covers(three, LIGHTHOUSE)
    assert workspace.similar("essays/one.txt") == []
    assert workspace.similar("assignment.txt") == []
    assert [r.b.name for r in workspace.similar("essays/three.txt")] == ["essays/four.txt"]


def test_references_pair_with_submissions_but_not_with_each_other(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "sources/rivers.txt", essay(filler(50), SOURCE, filler(51)))
    write(root, "sources/rivers-copy.txt", essay(SOURCE, filler(52)))
    write(root, "essay.txt", essay(filler(53), SOURCE, filler(54)))
    plain, _ = refreshed(root)
    assert ("sources/rivers-copy.txt", "sources/rivers.txt") in by_pair(plain.pairs())  # control

    configure(root, 'references = ["sources/"]\n')
    workspace, _ = refreshed(root, saved=False)
    pairs = by_pair(workspace.pairs())
    assert set(pairs) == {
        ("essay.txt", "sources/rivers-copy.txt"),
        ("essay.txt", "sources/rivers.txt"),
    }
    assert all(
        covers(a, SOURCE) and covers(b, SOURCE) for found in pairs.values() for a, b in found
    )
    assert [r.b.name for r in workspace.similar("sources/rivers.txt")] == ["essay.txt"]
    assert sorted(r.b.name for r in workspace.similar("essay.txt")) == [
        "sources/rivers-copy.txt",
        "sources/rivers.txt",
    ]


def test_top_level_groups_keep_one_authors_files_apart(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "alice/draft.txt", essay(filler(60), LIGHTHOUSE, filler(61)))
    write(root, "alice/final.txt", essay(LIGHTHOUSE, filler(62)))
    write(root, "bob/essay.txt", essay(filler(63), LIGHTHOUSE))
    plain, _ = refreshed(root)
    assert ("alice/draft.txt", "alice/final.txt") in by_pair(plain.pairs())  # control

    configure(root, 'groups = "top-level"\n')
    workspace, _ = refreshed(root, saved=False)
    assert set(by_pair(workspace.pairs())) == {
        ("alice/draft.txt", "bob/essay.txt"),
        ("alice/final.txt", "bob/essay.txt"),
    }
    assert [r.b.name for r in workspace.similar("alice/draft.txt")] == ["bob/essay.txt"]


@pytest.mark.parametrize("reversed_pair", [False, True], ids=["a-b", "b-a"])
def test_an_ignored_passage_is_removed_and_only_it(root: Path, reversed_pair: bool) -> None:
    workspace, _ = refreshed(root)
    [result] = [r for r in workspace.pairs() if (r.a.name, r.b.name) == ("a.txt", "b.txt")]
    [lighthouse] = [
        p
        for p, (text, _) in zip(result.passages, texts(result), strict=True)
        if covers(text, LIGHTHOUSE)
    ]
    digest = passage_digest(result.a, result.b, lighthouse)
    workspace.save()
    a, b = ("b.txt", "a.txt") if reversed_pair else ("a.txt", "b.txt")
    configure(root, f'[[ignore]]\na = "{a}"\nb = "{b}"\ndigest = "{digest}"\n')

    warm, changes = refreshed(root)
    assert not changes.changed
    pairs = by_pair(warm.pairs())
    assert set(pairs) == {("a.txt", "b.txt"), ("a.txt", "d.txt"), ("b.txt", "d.txt")}
    [(side_a, side_b)] = pairs[("a.txt", "b.txt")]
    assert covers(side_a, ORCHARD) and covers(side_b, ORCHARD)
    [kept] = [r for r in warm.pairs() if r.b.name == "b.txt"]
    assert kept.a_covered < result.a_covered  # coverage recounted without it
    # similar() honours the list too, in both directions
    for asking, other in (("a.txt", "b.txt"), ("b.txt", "a.txt")):
        [found] = [r for r in warm.similar(asking) if r.b.name == other]
        [(mine, theirs)] = texts(found)
        assert covers(mine, ORCHARD) and covers(theirs, ORCHARD)


def test_min_similarity_applies_to_pairs_and_similar_alike(root: Path) -> None:
    workspace, _ = refreshed(root)
    figures = {(r.a.name, r.b.name): r.similarity for r in workspace.pairs()}
    low, high = sorted(figures.values())[-2:]  # a-b shares two paragraphs, the rest one
    assert low < high
    threshold = round((low + high) / 2, 4)
    configure(root, f"min_similarity = {threshold}\n")
    strict, _ = refreshed(root, saved=False)
    assert set(by_pair(strict.pairs())) == {("a.txt", "b.txt")}
    assert [r.b.name for r in strict.similar("a.txt")] == ["b.txt"]
    assert strict.similar("d.txt") == []


def test_boilerplate_in_too_many_documents_is_left_out(root: Path) -> None:
    configure(root, "boilerplate = 2\n")  # ORCHARD is in three documents
    workspace, _ = refreshed(root)
    pairs = by_pair(workspace.pairs())
    assert list(pairs) == [("a.txt", "b.txt")]
    [(side_a, side_b)] = pairs[("a.txt", "b.txt")]
    assert covers(side_a, LIGHTHOUSE) and covers(side_b, LIGHTHOUSE)
    assert workspace.similar("d.txt") == []
    assert [texts(r) for r in workspace.similar("a.txt")] == [pairs[("a.txt", "b.txt")]]


def test_excluding_an_indexed_file_removes_it_on_the_next_refresh(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    configure(root, 'exclude = ["c.txt", "tools/"]\n')
    warm, changes = refreshed(root)
    assert sorted(changes.removed) == ["c.txt", "tools/count.py"]
    assert changes.unchanged == len(PROSE) - 1 and changes.skipped == []
    assert warm.index.names() == ["a.txt", "b.txt", "d.txt"]


# --- similar ------------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", DOCUMENTS)
def test_similar_lists_the_pairs_of_one_document(root: Path, rel: str) -> None:
    workspace, _ = refreshed(root)
    expected = oriented(workspace.pairs(), rel)
    results = workspace.similar(rel)
    assert all(r.a.name == rel for r in results)
    assert {r.b.name: sorted(texts(r)) for r in results} == expected


def test_similar_after_a_warm_start(root: Path) -> None:
    workspace, _ = refreshed(root)
    expected = oriented(workspace.pairs(), "b.txt")
    workspace.save()
    warm, _ = refreshed(root)
    assert {r.b.name: sorted(texts(r)) for r in warm.similar("b.txt")} == expected


def test_similar_to_an_unsaved_text(root: Path) -> None:
    workspace, _ = refreshed(root)
    assert workspace.similar("c.txt") == []
    unsaved = essay(filler(70), filler(5))  # filler(5) is a paragraph of b.txt only
    results = workspace.similar("c.txt", text=unsaved)
    assert [(r.a.name, r.b.name) for r in results] == [("c.txt", "b.txt")]
    [(mine, theirs)] = texts(results[0])
    assert covers(mine, filler(5)) and covers(theirs, filler(5))
    # the question changed nothing: the index and the file still say c.txt is alone
    assert workspace.similar("c.txt") == []
    assert "c.txt" not in oriented(workspace.pairs(), "b.txt")


def test_similar_to_an_unsaved_text_of_a_new_file(root: Path) -> None:
    workspace, _ = refreshed(root)
    results = workspace.similar("new.txt", text=essay(LIGHTHOUSE, filler(71)))
    assert sorted(r.b.name for r in results) == ["a.txt", "b.txt"]
    assert all(r.a.name == "new.txt" for r in results)


def test_update_text_then_similar_shows_the_new_matches(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.update_text("c.txt", essay(filler(7), filler(2)))  # filler(2) is a's only
    results = workspace.similar("c.txt")
    assert [(r.a.name, r.b.name) for r in results] == [("c.txt", "a.txt")]
    [(mine, theirs)] = texts(results[0])
    assert covers(mine, filler(2)) and covers(theirs, filler(2))
    assert "c.txt" in {r.b.name for r in workspace.similar("a.txt")}
    assert ("a.txt", "c.txt") in by_pair(workspace.pairs())
    # the file on disk did not change; a refresh goes back to it
    changes = workspace.refresh()
    assert changes.updated == ["c.txt"]
    assert workspace.similar("c.txt") == []


def test_update_text_replaces_what_a_document_shared(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.update_text("d.txt", essay(filler(9), filler(10)))  # ORCHARD taken out
    assert workspace.similar("d.txt") == []
    assert set(by_pair(workspace.pairs())) == {("a.txt", "b.txt")}


def test_remove_takes_a_document_out(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.remove("b.txt")
    assert "b.txt" not in workspace.index
    assert set(by_pair(workspace.pairs())) == {("a.txt", "d.txt")}
    assert [r.b.name for r in workspace.similar("a.txt")] == ["d.txt"]
    workspace.remove("b.txt")  # twice is harmless
    # the file is still there: a refresh brings it back
    assert workspace.refresh().added == ["b.txt"]


# --- discovery ----------------------------------------------------------------------------------


def found(root: Path) -> list[str]:
    return Workspace.open(root, saved=False).discovery.documents()[0]


def test_include_and_exclude(root: Path) -> None:
    write(root, "drafts/old.txt", filler(80))
    write(root, "drafts/deep/older.txt", filler(81))
    write(root, "notes.md", filler(82))
    configure(root, 'include = ["*.txt", "tools/"]\nexclude = ["drafts/", "c.txt"]\n')
    assert found(root) == ["a.txt", "b.txt", "d.txt", "tools/count.py"]
    workspace, changes = refreshed(root)
    assert workspace.index.names() == ["a.txt", "b.txt", "d.txt", "tools/count.py"]
    assert changes.skipped == []  # excluded files are not "skipped": they are not documents


def test_gitignore_at_the_root_and_in_a_subfolder(root: Path) -> None:
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, "run.log", filler(83))
    write(root, "build/out.txt", filler(84))
    write(root, "sub/.gitignore", "private.txt\n/only-here.txt\n")
    write(root, "sub/private.txt", filler(85))
    write(root, "sub/only-here.txt", filler(86))
    write(root, "sub/deeper/only-here.txt", filler(87))
    write(root, "sub/public.txt", filler(88))
    write(root, "private.txt", filler(89))  # the subfolder's .gitignore does not reach here
    write(root, "other/run.log", filler(90))
    expected = sorted([*DOCUMENTS, "private.txt", "sub/deeper/only-here.txt", "sub/public.txt"])
    assert found(root) == expected

    configure(root, "respect_gitignore = false\n")
    every = [
        "build/out.txt",
        "other/run.log",
        "run.log",
        "sub/only-here.txt",
        "sub/private.txt",
    ]
    assert found(root) == sorted([*expected, *every])


def test_a_subfolder_gitignore_can_re_include(root: Path) -> None:
    write(root, ".gitignore", "*.log\n")
    write(root, "run.log", filler(91))
    write(root, "sub/.gitignore", "!keep.log\n")
    write(root, "sub/keep.log", filler(92))
    assert found(root) == sorted([*DOCUMENTS, "sub/keep.log"])


def test_vcs_tool_and_hidden_files_are_passed_over(root: Path) -> None:
    shared = essay(LIGHTHOUSE, filler(93))
    for rel in (
        ".git/COMMIT_EDITMSG",
        ".git/notes/shared.txt",
        ".doublet/stray.txt",
        ".hidden/shared.txt",
        ".shared.txt",
        "sub/.shared.txt",
        "node_modules/pkg/readme.txt",
        "__pycache__/notes.txt",
        "sub/doublet.toml",
    ):
        write(root, rel, shared)
    configure(root, "min_similarity = 0.0\n")
    assert found(root) == DOCUMENTS
    workspace, changes = refreshed(root)
    assert workspace.index.names() == DOCUMENTS and changes.skipped == []
    assert set(by_pair(workspace.pairs())) == {
        ("a.txt", "b.txt"),
        ("a.txt", "d.txt"),
        ("b.txt", "d.txt"),
    }


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
def test_a_symlink_loop_does_not_hang(root: Path) -> None:
    os.symlink("..", root / "tools" / "up")  # tools/up -> the workspace itself
    os.symlink(".", root / "here")  # here -> the workspace itself
    workspace, changes = refreshed(root)
    assert workspace.index.names() == DOCUMENTS
    skipped = reasons(changes)
    assert set(skipped) == {"here", "tools/up"}
    assert all(
        "symbolic link" in reason and "not followed" in reason for reason in skipped.values()
    )


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
def test_a_symlink_to_a_file_outside_is_not_followed(root: Path, tmp_path: Path) -> None:
    outside = write(tmp_path, "outside/secret.txt", essay(LIGHTHOUSE, filler(94)))
    os.symlink(outside, root / "linked.txt")
    workspace, changes = refreshed(root)
    assert "linked.txt" not in workspace.index
    skipped = reasons(changes)
    assert list(skipped) == ["linked.txt"]
    assert "symbolic link" in skipped["linked.txt"]
    assert all("linked.txt" not in pair for pair in by_pair(workspace.pairs()))


def test_a_binary_file_is_skipped_with_a_reason(root: Path) -> None:
    write(root, "data.txt", b"header\x00\x01\x02\x03" * 100)
    workspace, changes = refreshed(root)
    assert "data.txt" not in workspace.index
    assert "binary" in reasons(changes)["data.txt"]
    assert reasons(workspace) == reasons(changes)


def test_a_file_over_max_file_size_is_skipped_with_a_reason(root: Path) -> None:
    configure(root, "max_file_size = 20000\n")
    write(root, "big.txt", essay(*(filler(100 + i) for i in range(25))))
    assert (root / "big.txt").stat().st_size > 20000
    workspace, changes = refreshed(root)
    assert "big.txt" not in workspace.index
    assert "max_file_size" in reasons(changes)["big.txt"]
    assert workspace.index.names() == DOCUMENTS


def test_a_file_that_grows_too_large_leaves_the_index(root: Path) -> None:
    configure(root, "max_file_size = 20000\n")
    workspace, _ = refreshed(root)
    path = root / "c.txt"
    path.write_text(essay(*(filler(100 + i) for i in range(25))), encoding="utf-8")
    changes = workspace.refresh()
    assert changes.removed == ["c.txt"]
    assert "max_file_size" in reasons(changes)["c.txt"]
    assert "c.txt" not in workspace.index


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (bytes(range(1, 32)) * 20 + b"\x81\x8d\x8f\x90\x9d" * 50, "not text in any known encoding"),
        (b"\xff\xfe" + "odd length".encode("utf-16-le") + b"!", "invalid utf-16-le"),
        (b"\xef\xbb\xbf" + b"caf\xe9 au lait", "invalid utf-8"),
    ],
    ids=["no-encoding", "utf-16-bom", "utf-8-bom"],
)
def test_a_file_that_cannot_be_decoded_is_skipped(root: Path, content: bytes, reason: str) -> None:
    write(root, "weird.txt", content)
    workspace, changes = refreshed(root)
    assert "weird.txt" not in workspace.index
    assert reason in reasons(changes)["weird.txt"]
    assert workspace.index.names() == DOCUMENTS


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads unreadable files"
)
def test_an_unreadable_file_is_skipped_with_a_reason(root: Path) -> None:
    path = write(root, "locked.txt", essay(LIGHTHOUSE, filler(95)))
    path.chmod(0)
    try:
        workspace, changes = refreshed(root)
        assert "locked.txt" not in workspace.index
        assert reasons(changes)["locked.txt"] == "permission denied"
        assert workspace.index.names() == DOCUMENTS
    finally:
        path.chmod(0o644)


def test_a_file_that_vanishes_before_it_is_read_is_skipped(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = Discovery.found

    def with_a_ghost(self: Discovery, pause=None):  # seen while walking, gone before read
        files, skipped = found(self, pause)
        return {**files, "ghost.txt": next(iter(files.values()))}, skipped

    monkeypatch.setattr(Discovery, "found", with_a_ghost)
    workspace, changes = refreshed(root)
    assert workspace.index.names() == DOCUMENTS
    assert changes.added == DOCUMENTS
    assert "no such file" in reasons(changes)["ghost.txt"]


def test_a_file_that_vanishes_after_being_indexed_is_removed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, _ = refreshed(root)
    found = Discovery.found
    (root / "c.txt").write_text("changed, then deleted before it was read\n")
    changed = os.lstat(root / "c.txt")

    def stale(self: Discovery, pause=None):
        files, skipped = found(self, pause)
        return {**files, "c.txt": changed}, skipped  # listed, then deleted before the read

    (root / "c.txt").unlink()
    monkeypatch.setattr(Discovery, "found", stale)
    changes = workspace.refresh()
    assert "no such file" in reasons(changes)["c.txt"]
    assert changes.removed == ["c.txt"] and "c.txt" not in workspace.index


def test_lowering_max_file_size_drops_indexed_files_too(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    limit = (root / "c.txt").stat().st_size + 1  # a, b and d are larger; c and the code not
    configure(root, f"max_file_size = {limit}\n")
    fresh, fresh_changes = refreshed(root, saved=False)
    assert sorted(reasons(fresh_changes)) == ["a.txt", "b.txt", "d.txt"]  # control
    warm, changes = refreshed(root)
    assert sorted(changes.removed) == ["a.txt", "b.txt", "d.txt"]
    assert "max_file_size" in reasons(changes)["a.txt"]
    assert warm.index.names() == fresh.index.names()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_does_not_block_the_refresh(root: Path) -> None:
    pipe = root / "pipe.txt"
    os.mkfifo(pipe)
    workspace = Workspace.open(root)
    result: dict[str, Changes] = {}
    thread = threading.Thread(
        target=lambda: result.update(changes=workspace.refresh()), daemon=True
    )
    thread.start()
    thread.join(2)
    blocked = thread.is_alive()
    if blocked:  # a writer that opens and closes the pipe gives the reader end of file
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
    assert not blocked, "refresh blocked reading a named pipe"
    assert "pipe.txt" not in workspace.index
    assert "pipe.txt" in reasons(result["changes"])


def _non_utf8_name(root: Path) -> str:
    """Write a file whose name is Latin-1 bytes (an old archive's "café.txt")."""
    if sys.platform != "linux":
        pytest.skip("only Linux file systems take any bytes as a name")
    name = os.fsencode(root) + b"/caf\xe9.txt"
    try:
        with open(name, "wb") as out:
            out.write(essay(filler(97), LIGHTHOUSE).encode("utf-8"))
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    return os.fsdecode(name)


def test_a_file_name_that_is_not_utf8_does_not_break_saving(root: Path) -> None:
    _non_utf8_name(root)
    workspace, _ = refreshed(root)
    workspace.save()
    warm, changes = refreshed(root)
    assert not changes.changed and warm.index.names() == workspace.index.names()


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
def test_relative_paths_through_a_symlinked_workspace(root: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    os.symlink(root, link)
    workspace = Workspace.open(link)
    assert workspace.root == root.resolve()
    assert workspace.relative(root / "a.txt") == "a.txt"  # the real path works
    assert workspace.relative(link / "a.txt") == "a.txt"


# --- the saved index ------------------------------------------------------------------------------


def _with_checksum(payload: bytes) -> bytes:
    """A file in index_store's own format around ``payload``: magic, version, checksum."""
    digest = zlib.crc32(payload).to_bytes(index_store._DIGEST, "little")
    return index_store.MAGIC + index_store.VERSION.to_bytes(4, "little") + digest + payload


def _header_size() -> int:
    return len(index_store.MAGIC) + 4 + index_store._DIGEST


def _framed(head: bytes) -> bytes:
    """A payload of ``head`` (msgpack) alone: its length, it, the padding to the raw section."""
    end = _header_size() + 8 + len(head)
    return len(head).to_bytes(8, "little") + head + bytes(-end % 8)


def _payload(raw: bytes) -> dict:
    return index_store._read_payload(memoryview(raw)[_header_size() :], _header_size())


class _Collect:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data) -> None:
        self.data += data


def _repack(raw: bytes, change) -> bytes:
    data = _payload(raw)
    change(data)
    out = _Collect()
    index_store._write_payload(out, data, index_store.VERSION, _header_size())
    return _with_checksum(bytes(out.data))


def _array_at(kind: str, code: int, where: list) -> object:
    """The keys of ``kind`` replaced by an extension ``code`` holding ``where``."""

    def change(data: dict) -> None:
        data[kind]["keys"] = msgpack.ExtType(code, msgpack.packb(where))

    return change


def _flip_middle(raw: bytes) -> bytes:
    middle = len(raw) // 2
    return raw[:middle] + bytes([raw[middle] ^ 0x40]) + raw[middle + 1 :]


def _wrong_version(raw: bytes) -> bytes:
    start = len(index_store.MAGIC)
    return raw[:start] + (index_store.VERSION + 1).to_bytes(4, "little") + raw[start + 4 :]


def _keys_as(array: np.ndarray):
    def change(data: dict) -> None:
        data["fingerprints"]["keys"] = array

    return change


def _set(key, value):
    def change(data: dict) -> None:
        data[key] = value

    return change


def _set_column(column: str, value):
    """The documents' column replaced by ``value``, or by what ``value`` makes of it."""

    def change(data: dict) -> None:
        old = data["documents"][column]
        data["documents"][column] = value(old) if callable(value) else value

    return change


def _first_as(dtype: str, value: int):
    """A column of raw ``dtype`` values with its first value replaced."""

    def change(raw: bytes) -> bytes:
        array = np.frombuffer(raw, dtype=dtype).copy()
        array[0] = value
        return array.tobytes()

    return change


def _drop_posting(kind: str):
    def change(data: dict) -> None:
        data[kind]["keys"] = data[kind]["keys"][:-4]
        data[kind]["positions"] = data[kind]["positions"][:-4]

    return change


def _unsort_keys(data: dict) -> None:
    keys = bytearray(data["fingerprints"]["keys"])
    keys[:4], keys[-4:] = b"\xff\xff\xff\xff", b"\x00\x00\x00\x00"
    data["fingerprints"]["keys"] = bytes(keys)


def _position_outside(kind: str):
    def change(data: dict) -> None:
        positions = bytearray(data[kind]["positions"])
        positions[-4:] = (data["next_start"] + 5).to_bytes(4, "little")
        data[kind]["positions"] = bytes(positions)

    return change


def _set_mode(field: str, value):
    def change(data: dict) -> None:
        data["modes"][0][field] = value

    return change


DAMAGES = {
    "empty": (lambda raw: b"", "not a Doublet index file"),
    "half": (lambda raw: raw[: len(raw) // 2], "checksum mismatch"),
    "header-only": (lambda raw: raw[: len(index_store.MAGIC) + 3], "truncated"),
    "flipped-byte": (_flip_middle, "checksum mismatch"),
    "random-bytes": (
        lambda raw: random.Random(7).randbytes(len(raw)),
        "not a Doublet index file",
    ),
    "wrong-version": (_wrong_version, "another version"),
    "list-payload": (lambda raw: _with_checksum(_framed(msgpack.packb([1, 2, 3]))), "corrupt"),
    "int-payload": (lambda raw: _with_checksum(_framed(msgpack.packb(7))), "corrupt"),
    "missing-keys": (
        lambda raw: _with_checksum(_framed(msgpack.packb({"version": 1}))),
        "corrupt",
    ),
    "not-msgpack": (lambda raw: _with_checksum(_framed(b"\xc1\xc1\xc1")), "corrupt"),
    "no-head-length": (lambda raw: _with_checksum(b"\x01\x02"), "corrupt (no head)"),
    "head-past-the-end": (
        lambda raw: _with_checksum((10**9).to_bytes(8, "little") + raw[_header_size() + 8 :]),
        "corrupt (the head runs past the end)",
    ),
    "trailing-data": (
        lambda raw: _with_checksum(raw[_header_size() :] + b"\x00"),
        "corrupt (data after the last array)",
    ),
    "array-past-the-end": (
        lambda raw: _repack(raw, _array_at("fingerprints", 1, [10**9, "<u4", 4])),
        "corrupt (an array runs past the end)",
    ),
    "array-of-floats": (
        lambda raw: _repack(raw, _array_at("fingerprints", 1, [0, "<f8", 1])),
        "corrupt (an array of an unknown type or size)",
    ),
    "array-offset-negative": (
        lambda raw: _repack(raw, _array_at("fingerprints", 1, [-8, "<u4", 1])),
        "corrupt (an array of an unknown type or size)",
    ),
    "array-of-other-width": (
        lambda raw: _repack(raw, _keys_as(np.zeros(1, "<i8"))),
        "corrupt (postings that are not 32-bit values)",
    ),
    "arrays-overlap": (  # the keys named where another array lies
        lambda raw: _repack(raw, _array_at("fingerprints", 1, [0, "<u4", 1])),
        "corrupt (arrays overlap)",
    ),
    "unknown-extension": (
        lambda raw: _repack(raw, _array_at("fingerprints", 9, [0, "<u4", 1])),
        "corrupt (unknown extension 9)",
    ),
    "documents-string": (lambda raw: _repack(raw, _set("documents", "abcdefg")), "corrupt"),
    "short-column": (lambda raw: _repack(raw, _set_column("units", lambda c: c[:-8])), "corrupt"),
    "units-negative": (
        lambda raw: _repack(raw, _set_column("units", _first_as("<i8", -3))),
        "corrupt",
    ),
    "units-too-many": (
        lambda raw: _repack(raw, _set_column("units", _first_as("<i8", 10**6))),
        "corrupt",
    ),
    "names-short": (lambda raw: _repack(raw, _set_column("names", lambda c: c[:-1])), "corrupt"),
    "name-twice": (
        lambda raw: _repack(raw, _set_column("name_lengths", _first_as("<u4", 0))),
        "corrupt",
    ),
    "names-not-bytes": (lambda raw: _repack(raw, _set_column("names", ["a"])), "corrupt"),
    "templates-a-number": (lambda raw: _repack(raw, _set_column("templates", 3)), "corrupt"),
    "group-out-of-range": (
        lambda raw: _repack(raw, _set_column("groups", _first_as("<i8", 5))),
        "corrupt",
    ),
    "stamps-not-msgpack": (
        lambda raw: _repack(raw, _set_column("stamps", b"\xc1\xc1")),
        "corrupt",
    ),
    "stamps-too-few": (
        lambda raw: _repack(raw, _set_column("stamps", msgpack.packb([1, 2, "x", 3]))),
        "corrupt",
    ),
    "stamp-ends-unordered": (
        lambda raw: _repack(raw, _set_column("stamp_ends", _first_as("<u8", 10**9))),
        "corrupt",
    ),
    "units-a-string": (lambda raw: _repack(raw, _set_column("units", "many")), "corrupt"),
    "postings-changed": (
        lambda raw: _repack(raw, _set_column("postings", _first_as("<i8", 7))),
        "corrupt",
    ),
    "mode-out-of-range": (
        lambda raw: _repack(raw, _set_column("modes", _first_as("<u4", 99))),
        "corrupt",
    ),
    "modes-missing": (lambda raw: _repack(raw, _set("modes", [])), "corrupt"),
    "mode-not-a-mode": (lambda raw: _repack(raw, _set_mode("noise", 0)), "corrupt"),
    "mode-unknown-field": (lambda raw: _repack(raw, _set_mode("colour", "red")), "corrupt"),
    "odd-key-bytes": (
        lambda raw: _repack(raw, _set("fingerprints", {"keys": b"\x00\x01\x02"})),
        "corrupt",
    ),
    "postings-missing": (lambda raw: _repack(raw, _drop_posting("fingerprints")), "corrupt"),
    "sentence-keys-missing": (lambda raw: _repack(raw, _drop_posting("sentences")), "corrupt"),
    "keys-unsorted": (lambda raw: _repack(raw, _unsort_keys), "corrupt"),
    "position-outside": (
        lambda raw: _repack(raw, _position_outside("fingerprints")),
        "corrupt",
    ),
    "sentence-position-outside": (
        lambda raw: _repack(raw, _position_outside("sentences")),
        "corrupt",
    ),
    "next-start-wrong": (lambda raw: _repack(raw, _set("next_start", [1])), "corrupt"),
}


@pytest.fixture(scope="module")
def saved_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, list]:
    """A saved workspace, its index file's bytes and the pairs of a fresh build."""
    root = tmp_path_factory.mktemp("saved") / "ws"
    write(root, "a.txt", essay(filler(1), LIGHTHOUSE, filler(2), ORCHARD, filler(3)))
    write(root, "b.txt", essay(filler(4), LIGHTHOUSE, filler(5), ORCHARD, filler(6)))
    write(root, "c.txt", essay(filler(7), filler(8)))
    write(root, "d.txt", essay(filler(9), ORCHARD, filler(10)))
    write(root, "tools/count.py", CODE)
    fresh, _ = refreshed(root, saved=False)
    expected = signature(fresh.pairs())
    assert len(expected) == 3
    path = fresh.save()
    return root, path.read_bytes(), expected


@pytest.mark.parametrize("way", ["checksum-inline", "checksum-aside", "postings-on-disk"])
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_index_is_rebuilt(
    saved_workspace: tuple[Path, bytes, list],
    damage: str,
    way: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Said and rebuilt, whichever way the file is read: its checksum computed on the
    payload's thread or on another (as for large files), or its postings read past
    and left in the file (as a command's scan does: checked as they go by)."""
    if way != "checksum-inline":
        monkeypatch.setattr(index_store, "_CHECKSUM_ASIDE_FROM", 0)
    on_disk = way == "postings-on-disk"
    if on_disk:
        monkeypatch.setattr(index_store, "DEFER_FROM", 0)
    root, original, expected = saved_workspace
    make, reason = DAMAGES[damage]
    damaged = make(original)
    assert damaged != original
    index_store.index_path(root).write_bytes(damaged)
    with caplog.at_level(logging.WARNING, logger="doublet.workspace"):
        workspace = Workspace.open(root, postings_on_disk=on_disk)
        changes = workspace.refresh()
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.name == "doublet.workspace"
    ]
    assert len(warnings) == 1, warnings
    assert "rebuilding the index" in warnings[0] and reason in warnings[0]
    assert str(index_store.index_path(root)) in warnings[0]
    assert changes.added == DOCUMENTS and changes.unchanged == 0
    assert signature(workspace.pairs()) == expected
    # saving replaces the damaged file with a good one
    workspace.save()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="doublet.workspace"):
        warm, again = refreshed(root)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert again.unchanged == len(DOCUMENTS) and not again.changed
    assert signature(warm.pairs()) == expected


def test_a_loaded_index_holds_each_array_apart_from_the_others(
    saved_workspace: tuple[Path, bytes, list],
) -> None:
    """Each array in an allocation of its own (not views of one buffer of the file, which
    a replaced array's memory stays in while any other is held), read-only as saved,
    aligned (numpy copies an unaligned array to search it), and equal to what was
    written, whatever the length of the file's header."""
    root, original, _ = saved_workspace
    index_store.index_path(root).write_bytes(original)
    index = index_store.load(root)
    for table in index._tables.values():
        for array in (table.base.keys, table.base.positions):
            assert array.flags.owndata and not array.flags.writeable and array.flags.aligned
    data = _payload(original)
    for at in range(16):
        written = _Collect()
        index_store._write_payload(written, data, index_store.VERSION, at)
        raw = bytes(at) + bytes(written.data)
        again = index_store._read_payload(memoryview(raw)[at:], at)
        for kind in ("fingerprints", "sentences"):
            for part in ("keys", "positions"):
                array = again[kind][part]
                assert array.flags.owndata and not array.flags.writeable
                assert np.array_equal(array, data[kind][part])


def test_an_index_loaded_with_its_postings_on_disk_answers_as_one_read_whole(
    saved_workspace: tuple[Path, bytes, list], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command's load leaves the postings in the file it read (checked as they went
    by), read when first asked for: the same postings, from that very file even once
    a later save has replaced it under the same name."""
    monkeypatch.setattr(index_store, "DEFER_FROM", 0)
    root, original, _ = saved_workspace
    index_store.index_path(root).write_bytes(original)
    whole = index_store.load(root)
    on_disk = index_store.load(root, on_disk=True)
    if os.name == "nt":  # Windows renames no open file: read whole there
        assert all(table._base is not None for table in on_disk._tables.values())
        return
    assert all(table._base is None for table in on_disk._tables.values())
    later = Workspace.open(root, saved=False)  # a save of another index, renamed over it
    write(root, "e.txt", essay(filler(11), LIGHTHOUSE, filler(12)))
    later.refresh()
    later.save()
    assert index_store.index_path(root).read_bytes() != original
    for kind in index_store.KINDS:
        got = [a.tolist() for a in on_disk.live_postings(kind)]
        assert got == [a.tolist() for a in whole.live_postings(kind)]
    (root / "e.txt").unlink()


def test_a_commands_scans_with_the_postings_on_disk_are_fresh_scans(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `doublet scan` runs them, one after another (the first, again unchanged, after
    an edit, after a removal): each the pairs of a fresh scan, whether the postings
    were needed (a fold, a selection) or not."""
    monkeypatch.setattr(index_store, "DEFER_FROM", 0)

    def command_scan() -> list:
        workspace = Workspace.open(root, postings_on_disk=True)
        workspace.refresh()
        workspace.save(batch=True)
        return workspace.scan(keep=True, parallel=True)

    def fresh_scan() -> list:
        workspace = Workspace.open(root, saved=False)
        workspace.refresh()
        return workspace.scan()

    assert command_scan() == fresh_scan()
    assert command_scan() == fresh_scan()
    with (root / "c.txt").open("a", encoding="utf-8") as out:
        out.write("\n" + LIGHTHOUSE + "\n")
    assert command_scan() == fresh_scan()
    (root / "b.txt").unlink()
    found = command_scan()
    assert found == fresh_scan() and found


def test_the_warnings_estimate_waits_while_an_editors_question_is_under_way(root: Path) -> None:
    workspace = Workspace.open(root)
    workspace.refresh()
    found: list[list[str]] = []
    with workspace.questions.asked():
        estimate = threading.Thread(target=lambda: found.append(workspace.warnings()))
        estimate.start()
        estimate.join(0.2)
        assert estimate.is_alive() and not found  # it waits for the answer to go first
    estimate.join(10)
    assert found == [[]]


def test_a_templates_or_references_pattern_that_names_no_document_is_a_warning(
    root: Path,
) -> None:
    configure(
        root,
        'templates = ["nope.txt", "a.txt"]\nreferences = ["tools/", "sources/**", "!c.txt"]\n',
    )
    workspace, _ = refreshed(root)
    assert workspace.warnings() == [
        "templates: 'nope.txt' names no document of the folder, so none is a template by it",
        "references: 'sources/**' names no document of the folder, so none is a reference by it",
    ]
    configure(root, 'templates = ["a.txt"]\n')
    workspace, _ = refreshed(root)
    assert workspace.warnings() == []


def test_no_saved_index_is_no_warning(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="doublet.workspace"):
        _, changes = refreshed(root)
    assert changes.added == DOCUMENTS
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    "stamp",
    [
        msgpack.packb(["size", "mtime"]),  # msgpack, but not a stamp
        msgpack.packb(7),  # not even a list
        b"\xc1\xc1",  # not msgpack at all (a writer's bug: the checksum holds)
    ],
    ids=["wrong-shape", "not-a-list", "not-msgpack"],
)
def test_stamps_that_make_no_sense_mean_a_reread(
    saved_workspace: tuple[Path, bytes, list], stamp: bytes
) -> None:
    """A well-formed index whose stamps make no sense is used, but every file is read
    again (each stamp is unpacked only when asked for: a bad one is no stamp)."""
    root, original, expected = saved_workspace

    def scramble(data: dict) -> None:
        count = np.frombuffer(data["documents"]["stamp_ends"], "<u8").shape[0]
        data["documents"]["stamps"] = stamp * count
        ends = np.arange(1, count + 1, dtype="<u8") * len(stamp)
        data["documents"]["stamp_ends"] = ends.tobytes()

    index_store.index_path(root).write_bytes(_repack(original, scramble))
    workspace, changes = refreshed(root)
    assert sorted(changes.added + changes.updated) == DOCUMENTS and changes.unchanged == 0
    assert signature(workspace.pairs()) == expected


def test_save_is_atomic_and_leaves_no_temporary_files(root: Path) -> None:
    workspace, _ = refreshed(root)
    path = workspace.save()
    folder = root / index_store.FOLDER
    assert path == folder / "index.msgpack"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "index.msgpack"]
    ignore = (folder / ".gitignore").read_text(encoding="utf-8")
    assert "*" in ignore.splitlines()
    first = path.read_bytes()
    assert first.startswith(index_store.MAGIC)
    # saving again (after a change) replaces the file, still without leftovers
    write(root, "e.txt", essay(filler(96)))
    workspace.refresh()
    workspace.save()
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "index.msgpack"]
    assert path.read_bytes() != first
    assert "e.txt" in index_store.load(root)
    # the index folder is never a document, and a user's own .gitignore there is kept
    (folder / ".gitignore").write_text("# mine\n*\n", encoding="utf-8")
    workspace.save()
    assert (folder / ".gitignore").read_text(encoding="utf-8") == "# mine\n*\n"
    assert "index.msgpack" not in " ".join(found(root))


def test_a_saved_index_round_trips(root: Path) -> None:
    workspace, _ = refreshed(root)
    workspace.save()
    loaded = index_store.load(root)
    assert loaded.names() == workspace.index.names()
    for entry in workspace.index.entries():
        other = loaded.entry(entry.name)
        assert (other.mode, other.units, other.postings, other.role, other.stamp) == (
            entry.mode,
            entry.units,
            entry.postings,
            entry.role,
            entry.stamp,
        )


# --- the paraphrase stage ------------------------------------------------------------------------

CLOUGH = Path(__file__).parent / "data" / "clough-stevenson"


@pytest.mark.parametrize("paraphrase", [True, False])
def test_the_paraphrase_setting_decides_whether_reworded_only_pairs_are_found(
    tmp_path: Path, paraphrase: bool
) -> None:
    """Two rewritings of one article share no copied passage, only reworded sentences."""
    root = tmp_path / "ws"
    for name in ("g1pB_taskc.txt", "g2pB_taskc.txt", "orig_taskc.txt"):
        write(root, name, (CLOUGH / name).read_bytes())
    configure(root, f"paraphrase = {str(paraphrase).lower()}\nboilerplate = 10\n")
    workspace, _ = refreshed(root)
    assert workspace.config.paraphrase is paraphrase
    pairs = {(r.a.name, r.b.name) for r in workspace.pairs()}
    similar = {r.b.name for r in workspace.similar("g1pB_taskc.txt")}
    assert (("g1pB_taskc.txt", "g2pB_taskc.txt") in pairs) is paraphrase
    assert ("g2pB_taskc.txt" in similar) is paraphrase
    # the copies of the original are found whatever the setting
    assert ("g1pB_taskc.txt", "orig_taskc.txt") in pairs
    kinds = {p.kind for r in workspace.similar("g2pB_taskc.txt") for p in r.passages}
    assert ("paraphrased" in kinds) is paraphrase


def test_files_named_one_by_one_are_a_workspace_in_memory(tmp_path: Path) -> None:
    for name in ("g1pB_taskc.txt", "orig_taskc.txt", "g0pA_taska.txt"):
        write(tmp_path / "answers", name, (CLOUGH / name).read_bytes())
    write(tmp_path / "other", "notes.txt", essay(filler(1)))
    named = [tmp_path / "answers" / "g1pB_taskc.txt", tmp_path / "answers" / "orig_taskc.txt"]
    workspace = Workspace.of_paths([*named, tmp_path / "other"], DEFAULTS)
    assert workspace.root == tmp_path.resolve()
    changes = workspace.refresh()
    assert changes.added == ["answers/g1pB_taskc.txt", "answers/orig_taskc.txt", "other/notes.txt"]
    [pair] = workspace.pairs()
    assert (pair.a.name, pair.b.name) == ("answers/g1pB_taskc.txt", "answers/orig_taskc.txt")
    assert not (tmp_path / ".doublet").exists()  # nothing saved


def test_a_scan_aligned_on_several_cores_equals_one_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real worker processes read the files; the pairs and passages are the same."""
    from doublet import parallel

    root = tmp_path / "ws"
    for path in sorted(CLOUGH.glob("*task[ab].txt")):
        write(root, path.name, path.read_bytes())
    write(root, "code/Grades.java", 'class A { void f() { print("Average grade: %.2f"); } }\n')
    workspace, _ = refreshed(root)
    alone = workspace.scan()
    monkeypatch.setattr(parallel, "PARALLEL_PAIRS", 1)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    pools = []
    start_pool = parallel.process_pool
    monkeypatch.setattr(
        parallel,
        "process_pool",
        lambda n, afresh=False: pools.append((n, afresh)) or start_pool(n, afresh),
    )
    spread = workspace.scan(parallel=True)
    assert pools == [(2, True)]  # aligners started afresh, not forked from this process
    assert len(alone) > 20
    assert spread == alone
    assert signature(workspace.pairs()) == [
        (
            r.a,
            r.b,
            round(r.similarity, 9),
            [
                (
                    p.passage.a.start,
                    p.passage.a.end,
                    p.passage.b.start,
                    p.passage.b.end,
                    round(p.passage.score, 9),
                )
                for p in r.passages
            ],
        )
        for r in alone
    ]


def test_files_are_read_in_batches_bounded_in_count_and_bytes() -> None:
    mode = MODES["prose"]
    small = [(f"{i}.txt", f"{i}.txt", mode, 100) for i in range(BATCH_FILES + 10)]
    batches = _batches(small)
    assert [len(b) for b in batches] == [BATCH_FILES, 10]
    assert [job for batch in batches for job in batch] == small
    big = ("big.txt", "big.txt", mode, BATCH_BYTES + 1)
    half = ("half.txt", "half.txt", mode, BATCH_BYTES // 2)
    assert [len(b) for b in _batches([half, big, half, half, half])] == [1, 1, 2, 1]


def test_a_worker_reads_documents_in_batches_and_keeps_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's batches of documents (cut into sentences together) give the same
    alignments as one document at a time, however small its memory for text."""
    from doublet import parallel
    from doublet.engine.candidates import all_candidates
    from doublet.engine.matching import align_each
    from doublet.scanned import scanned

    root = tmp_path / "ws"
    for path in sorted(CLOUGH.glob("*task[ab].txt")):
        write(root, path.name, path.read_bytes())
    workspace, _ = refreshed(root)
    settings = workspace.settings()
    candidates, ignored = all_candidates(workspace.index, settings.max_docs)
    known = {e.name: (e.mode, e.units) for e in workspace.index.entries()}
    alone = [scanned(r) for r in align_each(candidates, workspace.document, ignored, settings)]
    monkeypatch.setattr(parallel, "_BATCH_FILES", 3)
    monkeypatch.setattr(parallel, "_WORKER_CHARS", 4000)
    documents = parallel._ChunkDocuments(root, known, [n for c in candidates for n in (c.a, c.b)])
    reads, asked = [], []
    read, read_from = documents._read, documents._read_from
    monkeypatch.setattr(documents, "_read", lambda rel: reads.append(rel) or read(rel))
    monkeypatch.setattr(documents, "_read_from", lambda rel: asked.append(rel) or read_from(rel))
    kept = []
    monkeypatch.setattr(parallel, "_ChunkDocuments", lambda *a: kept.append(documents) or documents)
    batched = parallel._align_chunk((root, known, candidates, ignored, settings))
    assert len(candidates) > 20 and sum(bool(pair.passages) for pair in alone) > 10
    assert [
        None if packed is None else PackedPair(c.a, c.b, packed).unpacked()
        for c, packed in zip(candidates, batched, strict=True)
    ] == alone
    assert kept and (documents.chars <= 4000 or len(documents.cache) <= 3)
    # each document is read ahead at most once: one read again after it was dropped
    # comes alone (reading ahead then would drop documents still needed, and so on)
    assert len(asked) > len(documents.order)  # the cache was too small to keep them all
    assert len(reads) - len(asked) < len(documents.order)


def test_a_worker_lets_go_of_each_document_once_asked_for_the_last_time(tmp_path: Path) -> None:
    """A worker holds only the documents still to be asked for: each is read once, and
    dropped as soon as the last pair that needs it has asked for it."""
    from doublet import parallel
    from doublet.engine.candidates import all_candidates

    root = tmp_path / "ws"
    for path in sorted(CLOUGH.glob("*task[ab].txt")):
        write(root, path.name, path.read_bytes())
    workspace, _ = refreshed(root)
    candidates, _ = all_candidates(workspace.index, workspace.settings().max_docs)
    ordered = [candidates[i] for i in parallel.neighbourhood_order(candidates)]
    needed = [name for c in ordered for name in (c.a, c.b)]
    known = {e.name: (e.mode, e.units) for e in workspace.index.entries()}
    documents = parallel._ChunkDocuments(root, known, needed)
    reads = []
    read = documents._read
    documents._read = lambda rel: reads.append(rel) or read(rel)
    last = {name: at for at, name in enumerate(needed)}
    for at, name in enumerate(needed):
        assert documents.load(name).name == name
        # read ahead a batch at a time; held only until asked for the last time
        assert all(last[held] > at for held in documents.cache)
    assert len(candidates) > 20 and not documents.cache and documents.chars == 0
    assert sorted(reads) == sorted(set(needed))  # each read once


def test_a_refresh_lets_an_editors_question_go_first(root: Path) -> None:
    workspace = Workspace.open(root)
    workspace.refresh()
    write(root, "e.txt", essay(filler(11), LIGHTHOUSE))
    done = threading.Event()
    with workspace.questions.asked():  # an edit being answered
        thread = threading.Thread(target=lambda: (workspace.refresh(), done.set()), daemon=True)
        thread.start()
        assert not done.wait(0.3)  # the refresh waits for the question ...
        assert "e.txt" not in workspace.index
    assert done.wait(5)  # ... then goes on
    assert "e.txt" in workspace.index


def test_background_work_waits_a_moment_after_an_answer_too() -> None:
    """An editor typing on asks again right after an answer: its next message and the
    answer's reading are not to share the interpreter with a refresh."""
    questions = Questions()
    with questions.asked():
        pass
    answered = time.monotonic()
    questions.let_through()
    assert time.monotonic() - answered >= 0.9 * Questions.GRACE
    time.sleep(Questions.GRACE)  # long after an answer: no wait
    started = time.monotonic()
    questions.let_through()
    assert time.monotonic() - started < Questions.GRACE / 2


def test_a_question_that_never_ends_holds_background_work_a_bounded_time() -> None:
    questions = Questions()
    with questions.asked():
        started = time.monotonic()
        questions.let_through()
        waited = time.monotonic() - started
    assert 0.9 * Questions.LONGEST_WAIT <= waited < Questions.LONGEST_WAIT + 1


def test_a_loaded_index_makes_its_entries_out_of_the_collectors_way(root: Path) -> None:
    """A language server keeps the entries as long as it runs: made with the collector
    held off (its full passes over them held edits up), then frozen out of its passes."""
    built = Workspace.open(root)
    built.refresh()
    built.save()
    loaded = Workspace.open(root)
    assert len(loaded.index) == 5
    frozen = gc.get_freeze_count()
    made: list[bool] = []  # whether the collector ran as each slice was made
    loaded.questions.let_through = lambda: made.append(gc.isenabled())  # type: ignore[method-assign]
    try:
        loaded.prepare_entries()
        assert gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()  # the rest of the tests' objects are not to stay frozen
    assert made and not any(made)  # held off while entries were made
    assert gc.isenabled()


def test_a_refresh_walks_the_folder_with_the_collector_held_off(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = Workspace.open(root)
    enabled: list[bool] = []
    found = Discovery.found

    def noting(self: Discovery, pause=None):
        enabled.append(gc.isenabled())
        return found(self, pause)

    monkeypatch.setattr(Discovery, "found", noting)
    workspace.refresh()
    assert enabled == [False] and gc.isenabled()


def test_a_stream_of_questions_does_not_stop_a_refresh(root: Path) -> None:
    workspace = Workspace.open(root)
    with workspace.questions.asked():  # never answered: the refresh waits a while each time
        changes = workspace.refresh()
    assert len(changes.added) == 5


def test_a_refresh_says_whether_it_changed_the_index(root: Path) -> None:
    workspace = Workspace.open(root)
    assert workspace.refresh().index_changed
    assert not workspace.refresh().index_changed
    workspace.update_text("a.txt", "An editor's buffer, not the file.")  # not the refresh's
    assert not workspace.refresh(keep={"a.txt"}).index_changed
    info = os.stat(root / "b.txt")
    os.utime(root / "b.txt", ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))  # touched
    changes = workspace.refresh(keep={"a.txt"})
    assert changes.index_changed and not changes.changed
    (root / "c.txt").unlink()
    assert workspace.refresh(keep={"a.txt"}).index_changed


def test_a_batch_scan_reads_its_postings_back_from_the_saved_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once saved, a whole folder's scan lets go of the postings and selects by reading
    them back from the files: the same pairs, and the index holds none of them after."""
    from doublet import parallel

    monkeypatch.setattr(parallel, "workers", lambda: 1)  # aligned here: one process
    scans, saved = [], []
    for batch, shards in [(False, 1), (True, 1), (True, 3)]:
        root = tmp_path / f"ws-{batch}-{shards}"
        shutil.copytree(CLOUGH, root)
        (root / "doublet.toml").write_text(f"index_shards = {shards}\n")
        workspace, _ = refreshed(root)
        workspace.save(batch=batch)  # a batch save sorts the pending postings in place first
        assert not any(table.holds_pending() for table in workspace.index._tables.values())
        data = index_store.load(root).export()
        saved.append({kind: [data[kind][part].tolist() for part in data[kind]] for kind in KINDS})
        scans.append(workspace.scan(parallel=True, keep=True))
        let_go = [table._base is None for table in workspace.index._tables.values()]
        assert all(let_go) if batch else not any(let_go)
    assert len(scans[0]) > 50
    assert scans[1] == scans[0] and scans[2] == scans[0]
    assert saved[1] == saved[0] and saved[2] == saved[0]


def test_a_batch_scan_after_a_change_since_the_save_finds_what_one_never_saved_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch save lets go of the postings (read back from its files); a change made
    after it adds postings beside them, and the scan sees both."""
    from doublet import parallel

    monkeypatch.setattr(parallel, "workers", lambda: 1)
    root, twin = tmp_path / "ws", tmp_path / "twin"
    shutil.copytree(CLOUGH, root)
    shutil.copytree(CLOUGH, twin)
    workspace, _ = refreshed(root)
    workspace.save(batch=True)
    assert all(table._base is None for table in workspace.index._tables.values())  # let go
    changed = "A text of its own, written after the save.\n"
    workspace.update_text("g0pA_taska.txt", changed)
    found = workspace.scan(parallel=True, keep=True)
    never_saved, _ = refreshed(twin)
    never_saved.update_text("g0pA_taska.txt", changed)
    assert found and found == never_saved.scan()


def _indexed(workspace: Workspace) -> dict[str, object]:
    """What the index holds of each document (positions are the document's own)."""
    index = workspace.index
    held: dict[str, object] = {
        e.name: (e.units, e.postings, e.mode.name, e.role) for e in index.entries()
    }
    for kind in KINDS:
        keys, ids, positions = index.live_postings(kind)
        names = [index.entry_of(i).name for i in ids.tolist()]
        held[kind] = sorted(zip(keys.tolist(), names, positions.tolist(), strict=True))
    return held


def test_a_refresh_in_workers_indexes_batches_as_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch's new content is indexed at once: after adds, edits, a touch, a move, a
    removal and an unreadable file, spread over batches, the index holds what one made
    from the files afresh holds, and the changes are told file by file."""
    from doublet import parallel
    from doublet import workspace as workspace_module

    monkeypatch.setattr(workspace_module, "PARALLEL_FROM", 2)
    monkeypatch.setattr(workspace_module, "BATCH_FILES", 3)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    rnd = random.Random(7)
    sentences = [s.strip() + "." for s in (LIGHTHOUSE + " " + ORCHARD).split(".") if s.strip()]

    def text() -> str:
        return " ".join(rnd.choice(sentences) for _ in range(rnd.randint(1, 6)))

    root = tmp_path / "ws"
    for i in range(14):
        write(root, f"d{i:02d}.txt", text())
    first, changes = refreshed(root)
    assert len(changes.added) == 14 and first.index.generation
    first.save()
    write(root, "d03.txt", text() + " A new ending.")
    write(root, "d07.txt", "Something else entirely, said once only in this folder.")
    os.utime(root / "d05.txt", ns=(1, 1))  # touched: the same content
    (root / "d09.txt").rename(root / "moved.txt")
    (root / "d11.txt").unlink()
    write(root, "new.txt", text())
    write(root, "bad.txt", b"not text \0 at all")
    again, changes = refreshed(root)
    assert sorted(changes.updated) == ["d03.txt", "d07.txt"]
    assert changes.added == ["new.txt"]
    assert changes.renamed == [("d09.txt", "moved.txt")]
    assert changes.removed == ["d11.txt"]
    assert [s.path for s in changes.skipped] == ["bad.txt"]
    shutil.rmtree(root / ".doublet")
    afresh, _ = refreshed(root)
    assert _indexed(again) == _indexed(afresh)
