"""The language server's first message, read before its libraries are imported.

pygls and lsprotocol take about half a second to import. The first message an
editor sends, ``initialize``, names the folders it opens, so the server reads it
first, has the first folder's saved index read from disk meanwhile
(index_store.read_ahead: reading lets go of the interpreter lock), and hands
the message on to pygls as if it had not been read (:class:`Replayed`). Only
standard-library and Doublet modules already loaded are imported here.
"""

from __future__ import annotations

import io
import json
import logging
import os
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlparse

from doublet import index_store

log = logging.getLogger(__name__)

#: A first message longer than this is handed on unread (an initialize is a few KB).
LONGEST = 1 << 24


class Replayed:
    """A binary stream giving ``first`` again, then what ``rest`` gives (pygls reads its
    input by ``readline`` and ``read``)."""

    def __init__(self, first: bytes, rest: BinaryIO) -> None:
        self._first = io.BytesIO(first)
        self._rest = rest

    def readline(self, size: int = -1) -> bytes:
        line = self._first.readline(size)
        if line.endswith(b"\n") or (size >= 0 and len(line) >= size):
            return line
        return line + self._rest.readline(size - len(line) if size >= 0 else -1)

    def read(self, size: int = -1) -> bytes:
        data = self._first.read(size)
        if size < 0:
            return data + self._rest.read()
        if len(data) < size:
            data += self._rest.read(size - len(data))
        return data


def read_ahead_of(stdin: BinaryIO) -> Replayed:
    """``stdin`` with its first message read, and the index of the folder it names
    being read from disk; what was read is given again first."""
    raw, body = _first_message(stdin)
    root = _first_folder(body)
    if root is not None:
        try:
            index_store.read_ahead(root)
        except OSError as exc:  # the load says it again, and why
            log.debug("the index of %s is not read ahead: %s", root, exc)
    return Replayed(raw, stdin)


def _first_message(stdin: BinaryIO) -> tuple[bytes, bytes]:
    """The first message's bytes as read (headers and body), and its body (empty if it
    has no length, or a longer one than LONGEST: then only its headers are read)."""
    raw = b""
    length = None
    while True:
        line = stdin.readline()
        raw += line
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            length = int(value.strip())
    if not line or length is None or length > LONGEST:
        return raw, b""
    body = stdin.read(length)
    return raw + body, body


def _first_folder(body: bytes) -> Path | None:
    """The folder an ``initialize`` names first (workspaceFolders, else rootUri, else
    rootPath), resolved as a workspace's root is; None for anything else."""
    try:
        message = json.loads(body)
        params = message["params"] if message.get("method") == "initialize" else {}
        folders = params.get("workspaceFolders") or []
        uri = folders[0].get("uri") if folders else params.get("rootUri")
        if isinstance(uri, str):
            parsed = urlparse(uri)
            if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
                return None
            path = _path_of(parsed.path)
        else:
            path = params.get("rootPath")
        return Path(path).resolve() if isinstance(path, str) and path else None
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, OSError):
        return None


def _path_of(url_path: str) -> str:
    """A file URI's path as the system writes it: what ``urllib.request.url2pathname``
    gives, without importing urllib.request (http.client and email come with it: 15 ms
    of the server's start, before the first message can be read)."""
    if os.name == "nt":
        from nturl2path import url2pathname

        return url2pathname(url_path)
    return unquote(url_path)
