"""The first message, read before pygls is imported (doublet/lsp/first_message): given
again to pygls byte for byte, and its folder's index read ahead (index_store)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from doublet import index_store
from doublet.lsp.first_message import Replayed, _first_folder, read_ahead_of
from doublet.workspace import Workspace


def framed(message: dict, content_type: bool = False) -> bytes:
    body = json.dumps(message).encode()
    headers = f"Content-Length: {len(body)}\r\n"
    if content_type:
        headers += "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
    return (headers + "\r\n").encode() + body


def initialize(**params) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}


@pytest.mark.parametrize("content_type", [False, True])
def test_the_input_reads_as_if_nothing_had_been_read(content_type: bool) -> None:
    first = framed(initialize(rootUri=None), content_type)
    rest = framed({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + b"tail\nmore"
    replayed = read_ahead_of(io.BytesIO(first + rest))
    again = b""
    while line := replayed.readline():  # as pygls reads: headers by line, bodies by size
        again += line
        if line == b"\r\n":
            again += replayed.read(len(first) + len(rest))
            break
    assert again == first + rest


def test_reads_across_what_was_read_first_and_the_rest() -> None:
    replayed = Replayed(b"ab\ncd", io.BytesIO(b"ef\ngh"))
    assert replayed.readline() == b"ab\n"
    assert replayed.readline() == b"cdef\n"  # a line begun in what was read first
    assert replayed.read(1) == b"g"
    assert replayed.read(5) == b"h" and replayed.read(1) == b""
    assert Replayed(b"abc", io.BytesIO(b"def")).read(4) == b"abcd"
    assert Replayed(b"abc", io.BytesIO(b"def")).read() == b"abcdef"


def test_a_stream_without_a_message_is_given_back_as_it_was() -> None:
    for raw in (b"", b"garbage without headers", b"Content-Length: x\r\n\r\n{}"):
        replayed = read_ahead_of(io.BytesIO(raw))
        assert replayed.read() == raw


def test_the_folder_is_the_first_workspace_folder_else_the_root(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two words"
    first.mkdir()
    second.mkdir()

    def folder(**params) -> Path | None:
        return _first_folder(json.dumps(initialize(**params)).encode())

    folders = [{"uri": first.as_uri(), "name": "one"}, {"uri": second.as_uri(), "name": "2"}]
    assert folder(workspaceFolders=folders, rootUri=second.as_uri()) == first.resolve()
    assert folder(rootUri=second.as_uri()) == second.resolve()  # %20 unquoted
    assert folder(rootPath=str(second)) == second.resolve()
    assert folder(rootUri="untitled:Untitled-1") is None
    assert folder(rootUri=None) is None
    assert _first_folder(b"{not json") is None
    assert _first_folder(json.dumps({"method": "shutdown", "params": {}}).encode()) is None


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("The lighthouse keeper counted the ships at dawn.\n" * 20)
    (root / "b.txt").write_text("An orchard of old apple trees stood by the river.\n" * 20)
    workspace = Workspace.open(root)
    workspace.refresh()
    workspace.save()
    return root


def test_an_index_read_ahead_is_loaded_without_reading_the_file_again(
    saved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_ahead_of(io.BytesIO(framed(initialize(rootUri=saved.as_uri()))))

    def read_again(*args, **kwargs):
        raise AssertionError("the index file was read again")

    index_store._read_ahead.done.wait()
    monkeypatch.setattr(index_store, "open_regular", read_again)
    assert sorted(index_store.load(saved).names()) == ["a.txt", "b.txt"]
    assert index_store._read_ahead is None  # given once


def test_an_index_saved_again_after_it_was_read_ahead_is_read_anew(saved: Path) -> None:
    index_store.read_ahead(saved)
    index_store._read_ahead.done.wait()
    (saved / "c.txt").write_text("A third document, written while the server started.\n" * 20)
    workspace = Workspace.open(saved, saved=False)
    workspace.refresh()
    workspace.save()  # a new file under the same name
    assert sorted(index_store.load(saved).names()) == ["a.txt", "b.txt", "c.txt"]


def test_an_index_read_ahead_for_another_folder_is_dropped(saved: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    index_store.read_ahead(saved)
    with pytest.raises(index_store.IndexFileError, match="no saved index"):
        index_store.load(other)
    assert index_store._read_ahead is not None  # not a load of an index file
    (other / "x.txt").write_text("Nothing alike here at all, only this one sentence.\n" * 20)
    workspace = Workspace.open(other)
    workspace.refresh()
    workspace.save()
    assert index_store.load(other).names() == ["x.txt"]
    assert index_store._read_ahead is None  # dropped, not held


def test_the_first_message_is_read_before_pygls_and_lsprotocol_are_imported() -> None:
    """Else the index would not be read while they import."""
    script = (
        "import sys, doublet.cli.main, doublet.lsp.first_message\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol')\n"
        "             or m in ('urllib.request', 'http.client')))"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"  # nor urllib.request, which pygls does not need either


def test_reading_another_file_of_doublet_leaves_the_index_read_ahead(saved: Path) -> None:
    index_store.write_checked(saved, "other.msgpack", {"a": 1}, b"DOUBLET-OTHER\n", 1)
    index_store.read_ahead(saved)
    other = index_store.read_checked(saved / ".doublet" / "other.msgpack", b"DOUBLET-OTHER\n", 1)
    assert other["a"] == 1
    assert index_store._read_ahead is not None  # for the index's load, which takes it
    assert sorted(index_store.load(saved).names()) == ["a.txt", "b.txt"]
    assert index_store._read_ahead is None
