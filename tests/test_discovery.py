"""Discovery: one rule for which files are a workspace's documents."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from doublet.config import DEFAULTS
from doublet.discovery import PAUSE_FILES, Discovery


def make_files(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("text")


def found(root: Path, selected: tuple[str, ...] | None = None) -> list[str]:
    return Discovery(root, DEFAULTS, selected).documents()[0]


def test_discovery_walks_folders_and_lists_paths_sorted(tmp_path: Path) -> None:
    make_files(
        tmp_path, ["b.txt", "a.txt", "zeta/2.py", "zeta/1.py", "alpha/x.md", "alpha/deep/y.txt"]
    )
    assert found(tmp_path) == [
        "a.txt",
        "alpha/deep/y.txt",
        "alpha/x.md",
        "b.txt",
        "zeta/1.py",
        "zeta/2.py",
    ]


def test_discovery_is_stable_across_calls(tmp_path: Path) -> None:
    make_files(tmp_path, [f"d{i % 3}/f{i}.txt" for i in range(12)])
    assert found(tmp_path) == found(tmp_path)


def test_hidden_files_and_folders_are_passed_over(tmp_path: Path) -> None:
    make_files(tmp_path, ["keep.txt", ".hidden.txt", ".config/settings.txt", "sub/.secret"])
    assert found(tmp_path) == ["keep.txt"]


def test_tool_folders_are_passed_over(tmp_path: Path) -> None:
    make_files(
        tmp_path,
        [
            "main.py",
            ".git/config",
            "node_modules/lib/index.js",
            "web/node_modules/x.js",
            "__pycache__/main.txt",
            "src/__pycache__/m.txt",
        ],
    )
    assert found(tmp_path) == ["main.py"]


def test_binary_extensions_are_passed_over_in_any_case(tmp_path: Path) -> None:
    make_files(tmp_path, ["essay.txt", "photo.PNG", "archive.ZIP", "code.pyc", "lib.so", "x.Jpeg"])
    assert found(tmp_path) == ["essay.txt"]


def test_files_named_one_by_one_are_taken_whatever_their_name(tmp_path: Path) -> None:
    make_files(tmp_path, [".hidden.txt", "image.png", "other.txt"])
    documents, skipped = Discovery(
        tmp_path, DEFAULTS, (".hidden.txt", "image.png", "missing.txt")
    ).documents()
    assert documents == [".hidden.txt", "image.png"]
    assert [(s.path, "cannot be read" in s.reason) for s in skipped] == [("missing.txt", True)]


def test_only_the_named_folders_are_walked(tmp_path: Path) -> None:
    make_files(tmp_path, ["b/1.txt", "a/1.txt", "c/1.txt", "top.txt"])
    assert found(tmp_path, ("b", "a")) == ["a/1.txt", "b/1.txt"]


def test_a_path_is_a_document_by_the_same_rule_as_the_walk(tmp_path: Path) -> None:
    make_files(tmp_path, ["keep.txt", "sub/a.md", ".hidden/x.txt", "x.png", "node_modules/y.js"])
    (tmp_path / ".gitignore").write_text("ignored/\n*.log\n")
    make_files(tmp_path, ["ignored/z.txt", "notes.log"])
    discovery = Discovery(tmp_path, DEFAULTS)
    walked = set(discovery.documents()[0])
    for rel in [
        "keep.txt",
        "sub/a.md",
        ".hidden/x.txt",
        "x.png",
        "node_modules/y.js",
        "ignored/z.txt",
        "notes.log",
        "doublet.toml",
        "new/unsaved.txt",
    ]:
        expected = rel in walked or rel == "new/unsaved.txt"
        assert discovery.is_document(rel) == expected, rel


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_symlink_loop_is_not_followed(tmp_path: Path) -> None:
    make_files(tmp_path, ["top.txt", "sub/inner.txt"])
    os.symlink(tmp_path, tmp_path / "sub" / "loop", target_is_directory=True)
    os.symlink(tmp_path / "sub", tmp_path / "sub" / "self", target_is_directory=True)
    documents, skipped = Discovery(tmp_path, DEFAULTS).documents()
    assert documents == ["sub/inner.txt", "top.txt"]
    assert sorted(s.path for s in skipped) == ["sub/loop", "sub/self"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_symlinked_folder_or_file_is_not_entered(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make_files(outside, ["far.txt"])
    root = tmp_path / "root"
    make_files(root, ["near.txt"])
    os.symlink(outside, root / "link", target_is_directory=True)
    os.symlink(outside / "far.txt", root / "far.txt")
    assert found(root) == ["near.txt"]
    documents, skipped = Discovery(root, DEFAULTS, ("far.txt",)).documents()
    assert documents == [] and "symbolic link" in skipped[0].reason


def test_discovery_is_bounded_in_a_deep_tree(tmp_path: Path) -> None:
    make_files(tmp_path, ["/".join(f"d{i}" for i in range(30)) + "/leaf.txt"])
    assert list(itertools.islice(found(tmp_path), 5)) == [
        "/".join(f"d{i}" for i in range(30)) + "/leaf.txt"
    ]


def test_a_walk_pauses_within_a_large_folder(tmp_path: Path) -> None:
    """A language server's questions get in between every few hundred files, not only
    between folders (one folder of thousands held an edit's answer up 20-50 ms)."""
    for i in range(2 * PAUSE_FILES + 5):
        (tmp_path / f"{i:05}.txt").write_text("words", encoding="utf-8")
    pauses: list[int] = []
    found, _ = Discovery(tmp_path, DEFAULTS).found(lambda: pauses.append(1))
    assert len(found) == 2 * PAUSE_FILES + 5
    assert len(pauses) == 3  # before the folder, and twice in it


def test_a_walk_keeps_each_documents_size_and_time_only(tmp_path: Path) -> None:
    """What a refresh compares with the index, as lstat gives it: two numbers a file,
    not a stat result of twenty objects (100,000 files: 63 MB until the refresh ends)."""
    (tmp_path / "a.txt").write_text("some words", encoding="utf-8")
    os.utime(tmp_path / "a.txt", ns=(1_000_000_123, 2_000_000_456))
    found, _ = Discovery(tmp_path, DEFAULTS).found()
    assert found == {"a.txt": (10, 2_000_000_456)}
    assert (found["a.txt"].st_size, found["a.txt"].st_mtime_ns) == (10, 2_000_000_456)
    assert not isinstance(found["a.txt"], os.stat_result)
