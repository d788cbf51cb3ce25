"""Saving the index under ``.doublet/`` and loading it back, safely.

The file is a magic line with the format version, a BLAKE2b checksum of the
payload, and the payload in msgpack (numpy arrays as raw little-endian bytes).
It is written to a temporary file, flushed to disk and renamed over the old
one, so a crash leaves either the old index or the new one, never half of
either. Anything wrong with a file on loading — missing, truncated, corrupt,
another version — raises :class:`IndexFileError` with the reason; the caller
logs it and rebuilds, so a bad file never serves an answer.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

import msgpack
import numpy as np

from doublet.engine.index import KINDS, Index
from doublet.skipped import NotText
from doublet.sources import read_bytes

FOLDER = ".doublet"
FILE = "index.msgpack"
#: 2: file names stored as bytes; 3: code units with mirrored comparisons; 4: sentence keys
#: beside fingerprints, and each document's mode; 5: lexicon keys of programs; 6: keys
#: without the text ignore marks leave out (engine/ignore_marks)
VERSION = 6
MAGIC = b"DOUBLET-INDEX\n"
_DIGEST = 32


class IndexFileError(Exception):
    """The saved index cannot be used; ``reason`` says why."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def index_path(root: Path) -> Path:
    return root / FOLDER / FILE


class _HashingWriter:
    """A file that hashes what is written to it (the payload's checksum, on the fly)."""

    def __init__(self, out):
        self.out = out
        self.digest = hashlib.blake2b(digest_size=_DIGEST)

    def write(self, data) -> None:
        self.digest.update(data)
        self.out.write(data)


def _bin_header(size: int) -> bytes:
    """msgpack's header of a byte string of ``size`` bytes (its shortest form)."""
    if size < 1 << 8:
        return b"\xc4" + size.to_bytes(1, "big")
    if size < 1 << 16:
        return b"\xc5" + size.to_bytes(2, "big")
    return b"\xc6" + size.to_bytes(4, "big")


def _write_payload(out: _HashingWriter, data: dict) -> None:
    """The msgpack of ``{"version": VERSION, **data}``, written piece by piece: the
    arrays go from memory to the file without being copied into one big buffer."""
    packer = msgpack.Packer(use_bin_type=True)
    out.write(packer.pack_map_header(1 + len(data)))
    out.write(packer.pack("version") + packer.pack(VERSION))
    for key, value in data.items():
        out.write(packer.pack(key))
        if key not in KINDS:
            out.write(packer.pack(value))
            continue
        out.write(packer.pack_map_header(len(value)))
        for part, array in value.items():
            raw = np.ascontiguousarray(array, dtype="<u4")
            out.write(packer.pack(part) + _bin_header(raw.nbytes))
            out.write(memoryview(raw).cast("B"))


def save(index: Index, root: Path) -> Path:
    """Write the index atomically to ``root/.doublet/index.msgpack``; IndexFileError
    saying why it cannot be written (``.doublet`` a file, the index a folder, no room)."""
    try:
        return _save(index, root)
    except OSError as exc:
        raise IndexFileError(
            index_path(root), f"cannot be written ({exc.strerror or exc})"
        ) from None


def _save(index: Index, root: Path) -> Path:
    folder = root / FOLDER
    if folder.is_symlink():  # the index is written inside the workspace, nowhere else
        raise OSError(0, f"{folder} is a symbolic link")
    if folder.exists() and not folder.is_dir():
        raise OSError(0, f"{folder} is a file, not a folder")
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Doublet's index: rebuilt from the files, never committed\n*\n")
    data = index.export()
    for row in data["entries"]:  # names as bytes: file names need not be valid UTF-8
        row[0] = row[0].encode("utf-8", "surrogateescape")
    start = MAGIC + VERSION.to_bytes(4, "little")
    target = folder / FILE
    _remove_stale(folder)
    handle, temporary = tempfile.mkstemp(prefix=FILE + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(start + bytes(_DIGEST))  # the checksum, once the payload is written
            payload = _HashingWriter(out)
            _write_payload(payload, data)
            out.seek(len(start))
            out.write(payload.digest.digest())
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if sys.platform != "win32":  # make the rename itself durable
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return target


#: The largest index read (a 100,000-document folder's is a few hundred MB).
MAX_INDEX_BYTES = 1 << 40
#: A temporary index file this old was left by a process killed while writing it (a
#: live writer's is seconds old): the next save removes it.
STALE_SECONDS = 3600


def _remove_stale(folder: Path) -> None:
    now = time.time()
    for leftover in folder.glob(FILE + ".*.tmp"):
        try:
            if now - leftover.lstat().st_mtime > STALE_SECONDS:
                leftover.unlink()
        except OSError:
            pass


def load(root: Path) -> Index:
    """The saved index of ``root``, or IndexFileError saying why it cannot be used."""
    path = index_path(root)
    if not os.path.lexists(path):
        raise IndexFileError(path, "no saved index")
    try:  # read as any file is (sources.read_bytes): a regular file, never through a link
        raw = read_bytes(path, max_bytes=MAX_INDEX_BYTES)
    except NotText as exc:
        raise IndexFileError(path, f"cannot be read ({exc.reason})") from None
    header = len(MAGIC) + 4 + _DIGEST
    if not raw.startswith(MAGIC):
        raise IndexFileError(path, "not a Doublet index file")
    if len(raw) < header:
        raise IndexFileError(path, "truncated")
    version = int.from_bytes(raw[len(MAGIC) : len(MAGIC) + 4], "little")
    if version != VERSION:
        raise IndexFileError(path, f"written by another version of Doublet (format {version})")
    payload = memoryview(raw)[header:]  # not a copy: a scan's index is tens of MB
    if hashlib.blake2b(payload, digest_size=_DIGEST).digest() != raw[len(MAGIC) + 4 : header]:
        raise IndexFileError(path, "corrupt or truncated (checksum mismatch)")
    try:
        data = msgpack.unpackb(payload, raw=False, strict_map_key=False)
        del payload, raw  # the arrays are copies: the file's bytes can go
        for row in data["entries"]:
            row[0] = row[0].decode("utf-8", "surrogateescape")
        for kind in KINDS:
            data[kind] = {
                part: np.frombuffer(data[kind][part], dtype="<u4") for part in ("keys", "positions")
            }
        return Index.restore(data)
    except (
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        msgpack.UnpackException,
    ) as exc:
        raise IndexFileError(path, f"corrupt ({exc})") from None
