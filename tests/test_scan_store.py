"""The last scan's pairs kept in .doublet/ (scan_store): used again only where nothing
they were aligned from changed, so that a scan with them equals a scan without."""

from __future__ import annotations

import logging
import os
import random
import shutil
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublet import scanned as scanned_module
from doublet import workspace as workspace_module
from doublet.scan_store import FILE, ScanStore
from doublet.workspace import Workspace

CLOUGH = Path(__file__).parent / "data" / "clough-stevenson"
#: Answers to one task and its original: pairs of every kind (cut, light, heavy, none).
ANSWERS = sorted(CLOUGH.glob("*taska.txt"))[:14]


def _copy_answers(root: Path) -> list[str]:
    root.mkdir(parents=True, exist_ok=True)
    for path in ANSWERS:
        shutil.copyfile(path, root / path.name)
    return [path.name for path in ANSWERS]


class _Counted:
    """Counts the candidates aligned in this process (the scan's own aligner)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.aligned: list[tuple[str, str]] = []
        align = workspace_module.align_here

        def counting(candidates, *args, **kwargs):
            self.aligned += [(c.a, c.b) for c in candidates]
            return align(candidates, *args, **kwargs)

        monkeypatch.setattr(workspace_module, "align_here", counting)


def _scan_kept(root: Path):
    """A scan as `doublet scan` runs one: the saved index, refreshed and saved, the
    last scan's pairs used and kept."""
    workspace = Workspace.open(root)
    workspace.refresh()
    workspace.save()
    return workspace.scan(keep=True)


def _scan_afresh(root: Path):
    workspace = Workspace.open(root, saved=False)
    workspace.refresh()
    return workspace.scan()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "answers"
    _copy_answers(folder)
    return folder


def test_a_second_scan_of_an_unchanged_folder_aligns_nothing(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = _Counted(monkeypatch)
    first = _scan_kept(root)
    assert len(counted.aligned) > 20 and len(first) > 5
    assert (root / ".doublet" / FILE).is_file()

    def no_candidates(*args):
        raise AssertionError("candidates were selected again")

    monkeypatch.setattr(workspace_module, "select_candidates", no_candidates)
    counted.aligned.clear()
    again = _scan_kept(root)
    assert counted.aligned == []
    assert again == first


def test_a_changed_file_aligns_only_its_own_pairs(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _scan_kept(root)
    counted = _Counted(monkeypatch)
    changed = ANSWERS[3].name
    source = (root / ANSWERS[0].name).read_text(encoding="latin-1")
    with (root / changed).open("a", encoding="latin-1") as out:
        out.write("\n\n" + source[: len(source) // 2] + "\n")
    found = _scan_kept(root)
    assert counted.aligned and all(changed in pair for pair in counted.aligned)
    assert found == _scan_afresh(root)
    assert any({pair.a, pair.b} == {changed, ANSWERS[0].name} for pair in found)


def test_a_command_scan_after_a_change_leaves_the_postings_in_the_saved_file(root: Path) -> None:
    """As `doublet scan` runs (a batch save, the aligners in processes): the selection
    made again from the last scan's, the postings are left in the files the save wrote
    (nothing asks for them again) and the pairs are a fresh scan's."""

    def scanned() -> tuple[Workspace, list]:
        workspace = Workspace.open(root)
        workspace.refresh()
        workspace.save(batch=True)
        return workspace, workspace.scan(keep=True, parallel=True)

    scanned()
    changed = ANSWERS[3].name
    source = (root / ANSWERS[0].name).read_text(encoding="latin-1")
    with (root / changed).open("a", encoding="latin-1") as out:
        out.write("\n\n" + source[: len(source) // 2] + "\n")
    workspace, found = scanned()
    if os.name != "nt":  # Windows renames no open file: there the index keeps them
        assert all(table._base is None for table in workspace.index._tables.values())
    assert found == _scan_afresh(root)
    assert any({pair.a, pair.b} == {changed, ANSWERS[0].name} for pair in found)
    assert workspace.pairs()  # read back whole when asked


@pytest.mark.skipif(os.name == "nt", reason="Windows renames no open file: the index keeps them")
def test_a_selection_made_again_lets_go_of_the_postings_before_the_signatures(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Selecting again reads each kind's postings whole; the documents' signatures need
    only the fingerprints' (read back): the others are not held beside them."""
    from doublet import workspace as workspace_module

    held_then: list[dict[str, bool]] = []
    real = workspace_module.document_signatures

    def recording(index, *args):
        held_then.append({kind: table._base is not None for kind, table in index._tables.items()})
        return real(index, *args)

    def scanned() -> list:
        workspace = Workspace.open(root)
        workspace.refresh()
        workspace.save(batch=True)
        return workspace.scan(keep=True, parallel=True)

    scanned()
    source = (root / ANSWERS[0].name).read_text(encoding="latin-1")
    with (root / ANSWERS[3].name).open("a", encoding="latin-1") as out:
        out.write("\n\n" + source[: len(source) // 2] + "\n")
    afresh = _scan_afresh(root)
    monkeypatch.setattr(workspace_module, "document_signatures", recording)
    assert scanned() == afresh
    assert held_then == [{kind: False for kind in held_then[0]}]


def test_kept_outcomes_are_written_back_as_they_were_read(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a change, only the pairs aligned again are made into plain values to be
    kept; the others go back to the file as read, and read back the same."""
    _scan_kept(root)
    before = ScanStore.load(root).outcomes
    counted = _Counted(monkeypatch)
    made_plain = []
    plain = scanned_module._plain
    monkeypatch.setattr(
        scanned_module, "_plain", lambda pair: made_plain.append(pair) or plain(pair)
    )
    changed = ANSWERS[3].name
    source = (root / ANSWERS[0].name).read_text(encoding="latin-1")
    with (root / changed).open("a", encoding="latin-1") as out:
        out.write("\n\n" + source[: len(source) // 2] + "\n")
    _scan_kept(root)
    assert counted.aligned and len(made_plain) == len(counted.aligned)
    after = ScanStore.load(root).outcomes
    unchanged = [pair for pair in before if changed not in pair]
    assert unchanged and all(after[pair] == before[pair] for pair in unchanged)


def test_a_scan_after_a_change_selects_again_from_the_kept_selection(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _scan_kept(root)
    source = (root / ANSWERS[0].name).read_text(encoding="latin-1")
    with (root / ANSWERS[5].name).open("a", encoding="latin-1") as out:
        out.write("\n\n" + source[len(source) // 3 :] + "\n")

    def no_whole_selection(*args):
        raise AssertionError("the whole folder was selected again")

    monkeypatch.setattr(workspace_module, "select_all", no_whole_selection)
    monkeypatch.setattr(workspace_module, "select_candidates", no_whole_selection)
    found = _scan_kept(root)
    monkeypatch.undo()
    assert found == _scan_afresh(root)
    assert any({pair.a, pair.b} == {ANSWERS[5].name, ANSWERS[0].name} for pair in found)


def test_a_damaged_kept_selection_selects_the_whole_folder(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _scan_kept(root)
    store = ScanStore.load(root)
    assert store.selection is not None and store.selection.basis is not None
    store.selection.basis.kinds.clear()  # saved without its counts: unusable
    store.save(root)
    (root / ANSWERS[2].name).write_text("A new answer, nothing like the others.\n")
    with caplog.at_level(logging.WARNING):
        found = _scan_kept(root)
    assert "candidates are selected again" in caplog.text
    assert found == _scan_afresh(root)
    assert ScanStore.load(root).selection is not None  # a new one kept


def test_settings_that_change_outcomes_are_not_answered_from_the_store(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _scan_kept(root)
    (root / "doublet.toml").write_text("paraphrase = false\n", encoding="latin-1")
    counted = _Counted(monkeypatch)
    without = _scan_kept(root)
    assert counted.aligned  # aligned again, not taken from the store
    assert without == _scan_afresh(root)
    assert without != first


def test_a_damaged_store_is_a_scan_from_scratch(
    root: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    first = _scan_kept(root)
    path = root / ".doublet" / FILE
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    counted = _Counted(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="doublet.scan_store"):
        again = _scan_kept(root)
    assert "checksum" in caplog.text
    assert counted.aligned and again == first
    assert ScanStore.load(root).outcomes  # written whole again


def test_ignored_matches_are_left_out_of_kept_pairs_too(root: Path) -> None:
    first = _scan_kept(root)
    best = first[0]
    digest = best.passages[0].digest
    (root / "doublet.toml").write_text(
        f'[[ignore]]\na = "{best.a}"\nb = "{best.b}"\ndigest = "{digest}"\n', encoding="utf-8"
    )
    again = _scan_kept(root)
    assert again == _scan_afresh(root)
    shown = [pair for pair in again if (pair.a, pair.b) == (best.a, best.b)]
    assert all(digest not in [p.digest for p in pair.passages] for pair in shown)


# --- any history of changes: a scan with the store equals a scan without ----------------

_TEXTS = [path.read_text(encoding="latin-1") for path in ANSWERS]

_CHANGES = st.one_of(
    st.tuples(st.just("paste"), st.integers(0, 13), st.integers(0, 13)),
    st.tuples(st.just("restore"), st.integers(0, 13), st.just(0)),
    st.tuples(st.just("delete"), st.integers(0, 13), st.just(0)),
    st.tuples(st.just("rename"), st.integers(0, 13), st.just(0)),
    st.tuples(st.just("boilerplate"), st.sampled_from([2, 3, 4, 0.5]), st.just(0)),
)


def _apply(root: Path, names: list[str], change: tuple) -> None:
    kind, i, j = change
    if kind == "boilerplate":
        (root / "doublet.toml").write_text(f"boilerplate = {i}\n", encoding="utf-8")
        return
    path = root / names[i]
    if kind == "paste":  # half of another answer pasted in (more copies: more boilerplate)
        base = path.read_text(encoding="latin-1") if path.exists() else _TEXTS[i]
        path.write_text(base + "\n\n" + _TEXTS[j][: len(_TEXTS[j]) // 2], encoding="latin-1")
    elif kind == "restore":
        path.write_text(_TEXTS[i], encoding="latin-1")
    elif kind == "delete":
        path.unlink(missing_ok=True)
    elif kind == "rename" and path.exists():
        moved = root / ("moved-" + names[i])
        path.rename(moved)
        names[i] = moved.name


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=st.lists(_CHANGES, min_size=1, max_size=4))
def test_after_any_changes_a_scan_with_the_store_equals_one_without(
    tmp_path_factory: pytest.TempPathFactory, history: list[tuple]
) -> None:
    root = tmp_path_factory.mktemp("history") / "answers"
    names = _copy_answers(root)
    # a low boilerplate limit: a paste makes text of unchanged documents boilerplate
    (root / "doublet.toml").write_text("boilerplate = 3\n", encoding="utf-8")
    _scan_kept(root)
    for change in history:
        _apply(root, names, change)
        assert _scan_kept(root) == _scan_afresh(root)


#: A passage's plain values (scan_store ``_plain_passage``), well formed.
_PASSAGE = [[0, 10, 0, 1], [0, 10, 0, 1], 10, 0.5, 10, 5, False, [1, 1], [1, 1], "x"]
WRONG_OUTCOMES = {
    "wrong-values": msgpack.packb(["many", None, 3, 4, "x", True, [["bad"]]]),
    "too-few-values": msgpack.packb([1, 2, 3]),
    "not-a-list": msgpack.packb({"a": 1}),
    "not-msgpack": b"\xc1\xc1",
    "cut-short": msgpack.packb([1, 2, 3, 4, [0.0, 0.0, 0.0, 0.5], False, []])[:-3],
    "infinite-cover": msgpack.packb(
        [float("inf"), 2, 3, 4, [0.0, 0.0, 0.0, 0.5], False, [_PASSAGE]]
    ),
    "side-a-string": msgpack.packb(
        [1, 1, 9, 9, [0.0, 0.0, 0.0, 0.5], False, [["abcd", *_PASSAGE[1:]]]]
    ),
}


@pytest.mark.parametrize("wrong", list(WRONG_OUTCOMES))
def test_a_kept_pair_of_the_wrong_values_is_aligned_again(
    root: Path, caplog: pytest.LogCaptureFixture, wrong: str
) -> None:
    """A well-formed file (its checksum right) whose outcomes make no sense is not
    believed: every pair is aligned again, and the scan is what it would be."""
    first = _scan_kept(root)
    store = ScanStore.load(root)
    for key, (basis, _) in list(store.outcomes.items()):
        store.outcomes[key] = (basis, WRONG_OUTCOMES[wrong])
    store.save(root)
    with caplog.at_level(logging.WARNING, logger="doublet.scan_store"):
        again = _scan_kept(root)
    assert again == first
    assert "malformed" in caplog.text


def test_a_file_name_that_is_not_utf_8_is_kept_and_read_back(tmp_path: Path) -> None:
    root = tmp_path / "names"
    root.mkdir()
    text = (CLOUGH / ANSWERS[0].name).read_bytes()
    (root / "b.txt").write_bytes(text)
    odd = os.path.join(os.fsencode(root), b"caf\xe9.txt")  # Latin-1, not UTF-8
    with open(odd, "wb") as out:
        out.write(text)
    first = _scan_kept(root)
    assert len(first) == 1 and ScanStore.load(root).outcomes
    assert _scan_kept(root) == first == _scan_afresh(root)


def test_a_pair_left_out_once_is_not_left_out_of_later_scans(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document that could not be read during one scan (its pairs left out) is read
    by the next scan of the same index, not answered from that scan's store."""
    from doublet.engine.matching import Unavailable

    expected = _scan_afresh(root)
    gone = expected[0].a
    document = Workspace.document

    def unreadable_once(self, rel):
        if rel == gone:
            raise Unavailable(f"{rel}: gone for a moment")
        return document(self, rel)

    with monkeypatch.context() as patch:
        patch.setattr(Workspace, "document", unreadable_once)
        partial = _scan_kept(root)
    assert all(gone not in (pair.a, pair.b) for pair in partial)
    assert _scan_kept(root) == expected


def _words(seed: int, count: int = 160) -> str:
    """A paragraph of pseudo-words of its own (no phrase of it is in another seed's)."""
    rng = random.Random(seed)
    syllables = "ka lo mi ne ru sa to vi pe da fo gu hi ja ku le mo na po ri".split()
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(count)]
    return " ".join(" ".join(words[i : i + 10]).capitalize() + "." for i in range(0, count, 10))


def test_a_boilerplate_limit_that_moves_aligns_only_what_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files added move the default limit (half the documents); pairs whose documents
    hold none of the keys it moves are not aligned again."""
    root = tmp_path / "essays"
    root.mkdir()
    shared = _words(100)
    for number in range(22):  # essays 0-3 each hold the shared paragraph
        body = _words(number) + ("\n\n" + shared if number < 4 else "")
        (root / f"essay-{number}.txt").write_text(body + "\n", "utf-8")
    before = Workspace.open(root)
    before.refresh()
    first = _scan_kept(root)
    assert len(first) == 6  # the four essays sharing the paragraph, pairwise
    counted = _Counted(monkeypatch)
    for number in range(4):  # unrelated to every essay
        (root / f"notes-{number}.txt").write_text(_words(200 + number) + "\n", "utf-8")
    after = Workspace.open(root)
    after.refresh()
    assert after.settings().max_docs > before.settings().max_docs  # 11 -> 13 documents
    found = _scan_kept(root)
    assert counted.aligned == []  # the six pairs kept, the notes pair with nothing
    assert found == _scan_afresh(root) == first


def test_an_ignored_passage_no_longer_counts_in_the_resemblance(root: Path) -> None:
    first = _scan_kept(root)
    pair = next(p for p in first if len(p.passages) >= 2)
    digest = pair.passages[0].digest
    (root / "doublet.toml").write_text(
        f'[[ignore]]\na = "{pair.a}"\nb = "{pair.b}"\ndigest = "{digest}"\n', encoding="utf-8"
    )
    workspace = Workspace.open(root)
    workspace.refresh()
    [shown] = [p for p in workspace.scan(keep=True) if (p.a, p.b) == (pair.a, pair.b)]
    [result] = [r for r in workspace.pairs() if (r.a.name, r.b.name) == (pair.a, pair.b)]
    assert shown.resemblance.score == pytest.approx(result.resemblance.score)
    assert shown.resemblance.score < pair.resemblance.score
