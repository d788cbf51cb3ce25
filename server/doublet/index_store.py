"""Saving the index under ``.doublet/`` and loading it back, safely.

The file is a magic line with the format version, a CRC-32 checksum of the
payload, and the payload: a head in msgpack (the documents as columns, one array
per field), then the postings' arrays as raw little-endian bytes, each named in
the head by where it lies. Loading reads the file once, front to back, each array
straight into an allocation of its own: unpacked from msgpack they were copied,
which took a fifth of a second and doubled the memory of loading 100,000
documents; as views of one buffer of the whole file, none was freed while another
was held (:func:`_read_payload`). The checksum is there
to catch a file truncated or damaged on disk, not a forgery (docs/security.md): CRC-32 finds
every truncation and burst error and reads 193 MB in a fifth of a second, where
BLAKE2b took a second of the start of an editor on 100,000 documents.
It is written to a temporary file, flushed to disk and renamed over the old
one, so a crash leaves either the old index or the new one, never half of
either. Anything wrong with a file on loading — missing, truncated, corrupt,
another version — raises :class:`IndexFileError` with the reason; the caller
logs it and rebuilds, so a bad file never serves an answer.

An index can also be saved in shards (``index_shards`` in doublet.toml): the
postings of each kind are cut by key into consecutive hash ranges that hold about
as many postings each (shard_bounds), one file per range
(``index.<save>.<i>-of-<n>.msgpack``), and ``index.msgpack`` keeps the documents
and each shard's range and checksum. Several machines can so write the ranges
they own, and one machine loads them all: the ranges are in key order, so the
shards' postings, put end to end, are the whole sorted table. The shards are
written first, under a name new to this save, and the head last, by the same
rename; a crash leaves the old head with its old shards, whole.
"""

from __future__ import annotations

import contextlib
import os
import queue
import secrets
import sys
import tempfile
import threading
import time
import weakref
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import msgpack
import numpy as np

from doublet.engine.index import KINDS, Index, StoredPostings, StreamedArray
from doublet.rows import Rows
from doublet.skipped import NotText
from doublet.sources import open_regular

FOLDER = ".doublet"
FILE = "index.msgpack"
#: 2: file names stored as bytes; 3: code units with mirrored comparisons; 4: sentence keys
#: beside fingerprints, and each document's mode; 5: lexicon keys of programs; 6: keys
#: without the text ignore marks leave out (engine/ignore_marks); 7: may be in shards;
#: 8: the documents as columns, a CRC-32 checksum; 9: each document's start (removed
#: documents leave their positions unused: engine/index ``export``); 10: the postings'
#: arrays after the msgpack head, raw (``_write_payload``); 11: each stamp packed on its
#: own (``PackedStamps``)
VERSION = 11
MAGIC = b"DOUBLET-INDEX\n"
#: Keys are 32-bit hashes: the shards' ranges cut this space.
KEY_SPACE = 1 << 32
_DIGEST = 4
#: Each column of the documents' table as it is written: little-endian, fixed width.
_COLUMNS = {
    "modes": "<u4",
    "units": "<i8",
    "starts": "<i8",
    "postings": "<i8",
    "templates": "u1",
    "references": "u1",
    "groups": "<i8",
}


class IndexFileError(Exception):
    """The saved index cannot be used; ``reason`` says why."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def index_path(root: Path) -> Path:
    return root / FOLDER / FILE


class _HashingWriter:
    """A file that checksums what is written to it (the payload's CRC-32, on the fly)."""

    def __init__(self, out):
        self.out = out
        self.crc = 0

    def write(self, data) -> None:
        self.crc = zlib.crc32(data, self.crc)
        self.out.write(data)

    def digest(self) -> bytes:
        return self.crc.to_bytes(_DIGEST, "little")


def _pack_documents(columns: dict) -> dict:
    """The documents' columns as msgpack values: arrays as raw bytes, names as one string
    of bytes (joined by NUL, which no file name holds; file names need not be valid
    UTF-8), stamps (bytes already: their callers pack them) end to end
    (:class:`PackedStamps`)."""
    names = [name.encode("utf-8", "surrogateescape") for name in columns["names"]]
    if any(b"\0" in name for name in names):
        raise ValueError("a document name holds a NUL character")
    packed = {
        key: np.ascontiguousarray(columns[key], dtype=dtype).tobytes()
        for key, dtype in _COLUMNS.items()
    }
    packed["names"] = b"\0".join(names)
    packed["name_lengths"] = np.fromiter(map(len, names), "<u4", len(names)).tobytes()
    packed["group_names"] = list(columns["group_names"])
    stamps = columns["stamps"]
    packed["stamps"] = b"".join(stamps)  # (a TypeError if one is not bytes)
    packed["stamp_ends"] = np.cumsum(np.fromiter(map(len, stamps), "<u8", len(stamps))).tobytes()
    return packed


def _unpack_documents(packed: dict) -> dict:
    """:func:`_pack_documents` undone (ValueError if the pieces do not fit)."""
    columns: dict = {
        key: np.frombuffer(packed[key], dtype=dtype) for key, dtype in _COLUMNS.items()
    }
    blob: bytes = packed["names"]
    lengths = np.frombuffer(packed["name_lengths"], dtype="<u4")
    ends = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == 0)
    found = np.diff(ends, prepend=-1, append=len(blob)) - 1 if lengths.size else ends
    if found.shape != lengths.shape or np.any(found != lengths):
        raise ValueError("the names do not match their lengths")
    names = blob.decode("utf-8", "surrogateescape").split("\0")
    columns["names"] = names if lengths.size else []
    columns["group_names"] = packed["group_names"]
    columns["stamps"] = PackedStamps(packed["stamps"], np.frombuffer(packed["stamp_ends"], "<u8"))
    return columns


class PackedStamps(Sequence):
    """The documents' stamps as saved, end to end, each cut out when it is asked for.

    A stamp is a document's record of its file (size, time, digest), packed by the
    index's caller (the workspace); the index keeps it as it was given, and cuts it
    out of the saved column when its entry is made (an editor's first answer needs
    one, the opened document's). What a stamp holds is its caller's to check: one that
    makes no sense to it has that file read again."""

    def __init__(self, packed: bytes, ends: np.ndarray) -> None:
        ends = ends.astype(np.int64)  # signed: a step back is negative, not huge
        lengths = np.diff(ends, prepend=0)
        if (int(ends[-1]) if ends.shape[0] else 0) != len(packed) or np.any(lengths < 0):
            raise ValueError("the stamps do not match their lengths")
        self._packed = packed
        self._starts = ends - lengths
        self._ends = ends

    def __len__(self) -> int:
        return int(self._ends.shape[0])

    def __getitem__(self, at):
        if isinstance(at, slice):  # a slice of entries made at once: cut in one pass
            lo, hi, step = at.indices(len(self))
            packed = self._packed
            starts, ends = self._starts[lo:hi:step].tolist(), self._ends[lo:hi:step].tolist()
            return [packed[start:end] for start, end in zip(starts, ends, strict=True)]
        at = range(len(self))[at]  # negative ids, and IndexError past the end
        return self._packed[int(self._starts[at]) : int(self._ends[at])]


#: The msgpack extension type that stands for an array of the raw section.
_ARRAY = 1
#: The types an array of the raw section may have (anything else is a damaged file).
_RAW_TYPES = frozenset({"|u1", "|b1", "<u4", "<i4", "<u8", "<i8"})
#: Each array of the raw section starts at a multiple of this many bytes.
_ALIGN = 8


def _aligned(size: int) -> int:
    return -(-size // _ALIGN) * _ALIGN


def _write_payload(
    out: _HashingWriter, data: dict, version: int, at: int, placed: _Placed | None = None
) -> None:
    """``{"version": version, **data}`` as a payload that starts ``at`` bytes into its
    file: the length of the msgpack head, the head, then each numpy array of ``data``
    raw, which the head names by an extension (its offset in the raw section, its
    type, its length). Each array starts at a multiple of 8 bytes into the file, so
    that read into memory it is aligned (numpy copies unaligned arrays to search them:
    three times slower). The arrays go from memory to the file without being copied
    into one big buffer. ``placed``, if given, notes where in the file each lies."""
    arrays: list[np.ndarray | StreamedArray] = []
    offset = 0

    def raw_array(value: object) -> msgpack.ExtType:
        nonlocal offset
        if isinstance(value, StreamedArray):
            raw: np.ndarray | StreamedArray = value
            dtype, length = value.dtype.newbyteorder("<"), value.length
        elif isinstance(value, np.ndarray) and value.ndim == 1:
            raw = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
            dtype, length = raw.dtype, raw.shape[0]
        else:
            raise TypeError(f"cannot save {type(value).__name__}")
        if dtype.str not in _RAW_TYPES:
            raise TypeError(f"cannot save an array of {dtype}")
        where = msgpack.packb([offset, dtype.str, length])
        if placed is not None:
            placed.offsets[id(value)] = offset
        arrays.append(raw)
        offset += _aligned(length * dtype.itemsize)
        return msgpack.ExtType(_ARRAY, where)

    packer = msgpack.Packer(use_bin_type=True, default=raw_array)
    full = {"version": version, **data}
    head = [packer.pack_map_header(len(full))]  # what packb of ``full`` gives, in pieces
    for key, value in full.items():
        head.append(packer.pack(key))
        if isinstance(value, Rows):  # each row packed as it is made, then let go of
            head.append(packer.pack_array_header(len(value)))
            head.extend(packer.pack(row) for row in value)
        else:
            head.append(packer.pack(value))
    length = sum(len(piece) for piece in head)
    out.write(length.to_bytes(8, "little"))
    for piece in head:
        out.write(piece)
    del head
    out.write(bytes(_aligned(at + 8 + length) - (at + 8 + length)))
    if placed is not None:
        placed.raw_start = _aligned(at + 8 + length)
    for raw in arrays:
        size = _write_array(out, raw)
        out.write(bytes(_aligned(size) - size))


def _write_array(out: _HashingWriter, array: np.ndarray | StreamedArray) -> int:
    """Write an array (a streamed one a piece at a time); the bytes written."""
    if isinstance(array, np.ndarray):
        out.write(memoryview(array).cast("B"))
        return array.nbytes
    dtype = array.dtype.newbyteorder("<")
    count = 0
    for piece in array.pieces():
        raw = np.ascontiguousarray(piece, dtype=dtype)
        out.write(memoryview(raw).cast("B"))
        count += raw.shape[0]
    if count != array.length:  # the head said otherwise: this file must not be used
        raise ValueError(f"a streamed array gave {count} values, not {array.length}")
    return count * dtype.itemsize


#: Payloads from this size on are checksummed on another thread while being read.
_CHECKSUM_ASIDE_FROM = 1 << 20


class _RunningChecksum:
    """The CRC-32 of pieces given in order; ``aside``, taken on another thread while
    the next pieces are read (zlib and reading both let go of the interpreter lock):
    a load of 100,000 documents' index 0.2 against 0.25-0.3 s."""

    def __init__(self, aside: bool) -> None:
        self._value = 0
        self._queue: queue.SimpleQueue | None = None
        self._thread: threading.Thread | None = None
        if aside:
            self._queue = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def add(self, piece) -> None:
        if self._queue is None:
            self._value = zlib.crc32(piece, self._value)
        else:
            self._queue.put(piece)

    def _run(self) -> None:
        assert self._queue is not None
        while (piece := self._queue.get()) is not None:
            self._value = zlib.crc32(piece, self._value)

    def digest(self) -> bytes:
        """The checksum of every piece given (none may be given after)."""
        if self._thread is not None:
            assert self._queue is not None
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        return self._value.to_bytes(_DIGEST, "little")


class _Source:
    """A payload read front to back, its CRC-32 taken of everything read (``aside``, if
    it is large: :class:`_RunningChecksum`): a file of the index (:class:`_FileSource`),
    or bytes already in memory."""

    def __init__(self, size: int, aside: bool = True, defer_from: int | None = None) -> None:
        self.size = size  # the payload's bytes
        self.at = 0  # read so far
        self._checksum = _RunningChecksum(aside and size >= _CHECKSUM_ASIDE_FROM)
        #: 32-bit arrays from this many bytes on are left in the file (``_Deferred``)
        self.defer_from = defer_from
        self.deferred: list[_Deferred] = []

    def _chunk(self, n: int) -> bytes:
        raise NotImplementedError

    def _fill(self, view: memoryview) -> int:
        raise NotImplementedError

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes; ValueError if the payload ends before them."""
        data = self._chunk(n)
        self._took(data, n)
        return data

    def fill(self, array: np.ndarray) -> None:
        """``array`` filled with the next bytes (read into it: no copy on the way)."""
        view = memoryview(array).cast("B")
        done = 0
        while done < len(view):
            got = self._fill(view[done:])
            if not got:
                raise ValueError("the payload ends early")
            done += got
        self._checksum.add(view)
        self.at += done

    def skip_to(self, at: int) -> None:
        while self.at < at:
            self.take(min(at - self.at, 1 << 20))

    def skim(self, left: _Deferred) -> None:
        """Read past an array left in the file: checksummed, and seen to be ascending or
        not and its largest value, a part at a time (each part a buffer of its own: the
        checksum's thread may still hold the last)."""
        done, last = 0, None
        while done < left.count:
            part = np.empty(min(left.count - done, _SKIM_VALUES), left.dtype)
            self.fill(part)
            if part.shape[0] > 1 and np.any(part[1:] < part[:-1]):
                left.ascending = False
            if last is not None and part[0] < last:
                left.ascending = False
            last = part[-1]
            left.largest = max(left.largest, int(part.max()))
            done += part.shape[0]

    def rest(self) -> None:
        """Whatever is left read (and checksummed): a damaged payload's checksum. A byte
        more than it should hold is asked for first (not a megabyte at every load)."""
        while data := self._chunk(min(max(self.size - self.at, 0) + 1, 1 << 20)):
            self._took(data, len(data))

    def _took(self, data: bytes, wanted: int) -> None:
        self._checksum.add(data)
        self.at += len(data)
        if len(data) < wanted:
            raise ValueError("the payload ends early")

    def digest(self) -> bytes:
        return self._checksum.digest()


#: Values of an array left in the file read past at a time (``_Source.skim``).
_SKIM_VALUES = 1 << 18


@dataclass
class _Deferred:
    """An array of the raw section left in its file (read back when asked for): where
    it lies, and what reading past it showed."""

    at: int  # in the payload
    dtype: np.dtype
    count: int
    ascending: bool = True
    largest: int = -1
    file: _SavedFile | None = None  # the file, kept open, once it has been read through
    payload_at: int = 0  # where the payload starts in the file

    @property
    def file_offset(self) -> int:
        return self.payload_at + self.at


class _BytesSource(_Source):
    def __init__(self, payload: memoryview) -> None:
        super().__init__(len(payload))
        self._payload = payload

    def _chunk(self, n: int) -> bytes:
        return bytes(self._payload[self.at : self.at + n])

    def _fill(self, view: memoryview) -> int:
        piece = self._payload[self.at : self.at + len(view)]
        view[: len(piece)] = piece
        return len(piece)


class _FileSource(_Source):
    def __init__(self, file, size: int, aside: bool, defer_from: int | None = None) -> None:
        super().__init__(size, aside, defer_from)
        self._file = file

    def _chunk(self, n: int) -> bytes:
        return _read_up_to(self._file, n)

    def _fill(self, view: memoryview) -> int:
        return self._file.readinto(view) or 0


def _read_up_to(file, n: int) -> bytes:
    """The next ``n`` bytes of ``file``, fewer only at its end."""
    parts = []
    while n > 0 and (data := file.read(n)):
        parts.append(data)
        n -= len(data)
    return b"".join(parts)


def _read_payload(payload: memoryview | _Source, at: int) -> dict:
    """:func:`_write_payload` undone (the payload ``at`` bytes into its file): the head
    unpacked, each of its arrays read into an allocation of its own (read-only, as
    saved). ValueError if the pieces do not fit.

    Not views of one buffer of the whole file: a kind's postings replaced (an edit
    folded in) would not be freed while any other array held that buffer, and a scan
    after one edit peaked with the file's 200 MB held beside the new postings."""
    source = _BytesSource(payload) if isinstance(payload, memoryview) else payload
    if source.size < 8:
        raise ValueError("no head")
    head_end = 8 + int.from_bytes(source.take(8), "little")
    if head_end > source.size:
        raise ValueError("the head runs past the end")
    head = source.take(head_end - 8)
    raw_start = _aligned(at + head_end) - at
    arrays: list[tuple[int, np.ndarray | _Deferred]] = []
    room = source.size - raw_start  # what the arrays may take, all told
    defer_from = source.defer_from

    def array(code: int, where: bytes) -> np.ndarray | _Deferred:
        nonlocal room
        if code != _ARRAY:
            raise ValueError(f"unknown extension {code}")
        offset, kind, count = msgpack.unpackb(where)
        sizes = (offset, count)
        if kind not in _RAW_TYPES or not all(type(n) is int and n >= 0 for n in sizes):
            raise ValueError("an array of an unknown type or size")
        dtype = np.dtype(kind)
        start = raw_start + offset
        if start + count * dtype.itemsize > source.size:
            raise ValueError("an array runs past the end")
        room -= count * dtype.itemsize
        if room < 0:  # before it is allocated: the file's size bounds the memory
            raise ValueError("arrays overlap")
        made: np.ndarray | _Deferred
        if defer_from is not None and kind == "<u4" and count * 4 >= defer_from:
            made = _Deferred(start, dtype, count)
            source.deferred.append(made)
        else:
            made = np.empty(count, dtype)
        arrays.append((start, made))
        return made

    data = msgpack.unpackb(head, raw=False, strict_map_key=False, ext_hook=array)
    del head
    end = raw_start
    for start, made in sorted(arrays, key=lambda placed: placed[0]):
        nbytes = made.count * made.dtype.itemsize if isinstance(made, _Deferred) else made.nbytes
        if start < source.at and nbytes:
            raise ValueError("arrays overlap")
        source.skip_to(start)
        if isinstance(made, _Deferred):
            source.skim(made)
        else:
            source.fill(made)
            made.flags.writeable = False
        end = max(end, start + _aligned(nbytes))
    if end != source.size:
        raise ValueError("data after the last array")
    source.skip_to(end)
    return data


class _SavedFile:
    """A file of the index as it was written, open for reading (closed when let go of)."""

    def __init__(self, path: str | None = None, opened=None) -> None:
        """``path`` opened, or a file ``opened`` already (which this then closes)."""
        self._file = opened if opened is not None else open(path, "rb", buffering=0)  # noqa: SIM115
        self._lock = threading.Lock()  # a seek and a read, not split by another thread
        weakref.finalize(self, self._file.close)

    def read_into(self, array: np.ndarray, offset: int) -> None:
        view = memoryview(array).cast("B")
        with self._lock:
            self._file.seek(offset)
            done = 0
            while done < len(view):
                got = self._file.readinto(view[done:])
                if not got:
                    raise OSError(0, "the saved index ends early")
                done += got


@dataclass
class _Placed:
    """Where a file's arrays were written (by ``id`` of the array saved), and the file."""

    offsets: dict[int, int] = field(default_factory=dict)  # within the raw section
    raw_start: int = 0
    file: _SavedFile | None = None

    def piece(self, keys: np.ndarray, positions: np.ndarray) -> _Piece:
        return _Piece(
            self.file,
            self.raw_start + self.offsets[id(keys)],
            self.raw_start + self.offsets[id(positions)],
            int(keys.shape[0]),
        )


class _Piece(NamedTuple):
    file: _SavedFile | None  # None: not kept open (Windows renames no open file)
    keys_at: int
    positions_at: int
    count: int


class _StoredPostings:
    """One kind's postings as the saved files hold them, a piece per file in key order
    (engine/index ``StoredPostings``): a batch scan reads them back a slice at a time."""

    def __init__(self, pieces: list[_Piece]) -> None:
        self._pieces = pieces
        self._firsts = np.cumsum([0] + [piece.count for piece in pieces]).tolist()

    def __len__(self) -> int:
        return self._firsts[-1]

    def read(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        hi = min(hi, len(self))
        keys = np.empty(max(hi - lo, 0), np.dtype("<u4"))
        positions = np.empty(keys.shape[0], np.dtype("<u4"))
        for piece, first in zip(self._pieces, self._firsts, strict=False):
            a, b = max(lo, first), min(hi, first + piece.count)
            if a < b and piece.file is not None:
                piece.file.read_into(keys[a - lo : b - lo], piece.keys_at + 4 * (a - first))
                piece.file.read_into(
                    positions[a - lo : b - lo], piece.positions_at + 4 * (a - first)
                )
        return keys.astype(np.uint32, copy=False), positions.astype(np.uint32, copy=False)


#: What a save let go of may be read back from: each kind's stored postings.
Readable = dict[str, StoredPostings]


def save(
    index: Index,
    root: Path,
    shards: int = 1,
    lock: contextlib.AbstractContextManager | None = None,
    readable: Readable | None = None,
) -> Path:
    """Write the index atomically to ``root/.doublet/index.msgpack`` (its postings in
    ``shards`` files beside it when more than one); IndexFileError saying why it cannot
    be written (``.doublet`` a file, the index a folder, no room).

    ``lock`` (its holder's) is held while a snapshot of the index is taken, not while
    it is compacted and written: that must not keep an editor's questions waiting.
    ``readable``, if given, gets each kind's postings as saved, to read back from the
    files (kept open) once ``index`` lets go of its own (``Index.keep_postings_in``):
    only when ``index`` took the saved postings as its own (nothing changed meanwhile)."""
    try:
        return _save(index, root, shards, lock or contextlib.nullcontext(), readable)
    except OSError as exc:
        raise IndexFileError(
            index_path(root), f"cannot be written ({exc.strerror or exc})"
        ) from None


def _folder(root: Path) -> Path:
    """``root/.doublet``, made if need be; OSError if it is a link or a file (what Doublet
    keeps is written inside the workspace, nowhere else)."""
    folder = root / FOLDER
    if folder.is_symlink():
        raise OSError(0, f"{folder} is a symbolic link")
    if folder.exists() and not folder.is_dir():
        raise OSError(0, f"{folder} is a file, not a folder")
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Doublet's index: rebuilt from the files, never committed\n*\n")
    return folder


def _save(
    index: Index,
    root: Path,
    shards: int,
    lock: contextlib.AbstractContextManager,
    readable: Readable | None,
) -> Path:
    folder = _folder(root)
    with lock:
        snapshot = index.snapshot()
    # a stored base is merged as it is written, where it will be read back from
    streamed = readable is not None and shards <= 1
    data = snapshot.export(streamed=streamed)
    data["documents"] = _pack_documents(data["documents"])
    data["state"] = secrets.token_hex(8)  # names this save (Index.saved_as)
    _remove_stale(folder)
    stored: dict[str, list[_Piece]] = {kind: [] for kind in KINDS}
    if shards > 1:
        save_id = secrets.token_hex(4)
        tables = {kind: data.pop(kind) for kind in KINDS}
        pieces = [
            (folder / _shard_name(save_id, number, shards), low, high, piece, _Placed())
            for number, (low, high, piece) in enumerate(shard_tables(tables, shards))
        ]
        with ThreadPoolExecutor(min(shards, os.cpu_count() or 1)) as pool:
            digests = list(
                pool.map(
                    lambda p: _write_file(
                        p[0],
                        {"low": p[1], "high": p[2], **p[3]},
                        placed=p[4] if readable is not None else None,
                    ),
                    pieces,
                )
            )
        data["shards"] = [
            {"file": path.name, "low": low, "high": high, "digest": digest}
            for (path, low, high, _, _), digest in zip(pieces, digests, strict=True)
        ]
        if readable is not None:  # the shards hold each kind's postings in key order
            for _, _, _, piece, placed in pieces:
                for kind in KINDS:
                    stored[kind].append(placed.piece(**piece[kind]))
    head = _Placed() if readable is not None and shards <= 1 else None
    _write_file(folder / FILE, data, placed=head)
    if head is not None:
        for kind in KINDS:
            stored[kind].append(head.piece(**data[kind]))
        if head.file is not None:  # the streamed kinds are now where they were written
            snapshot.settle_streamed(
                {
                    kind: _StoredPostings(stored[kind])
                    for kind in KINDS
                    if isinstance(data[kind]["keys"], StreamedArray)
                }
            )
    with lock:
        index.saved_as = data["state"]
        taken = index.take_merged(snapshot)  # what the export folded, not folded again
    opened = all(piece.file is not None for pieces in stored.values() for piece in pieces)
    if readable is not None and taken and opened:
        readable.update({kind: _StoredPostings(pieces) for kind, pieces in stored.items()})
    _remove_other_shards(folder, {shard["file"] for shard in data.get("shards", [])})
    return folder / FILE


def shard_tables(tables: dict, shards: int) -> list[tuple[int, int, dict]]:
    """Each kind's sorted postings cut into ``shards`` consecutive ranges of keys that
    hold about as many postings each: (low, high, {kind: {keys, positions}}) for
    low <= key < high, in key order."""
    bounds = shard_bounds([table["keys"] for table in tables.values()], shards)
    cuts = {kind: np.searchsorted(table["keys"], bounds) for kind, table in tables.items()}
    return [
        (
            bounds[number],
            bounds[number + 1],
            {
                kind: {
                    part: array[cuts[kind][number] : cuts[kind][number + 1]]
                    for part, array in table.items()
                }
                for kind, table in tables.items()
            },
        )
        for number in range(shards)
    ]


def shard_bounds(sorted_keys: list[np.ndarray], shards: int) -> list[int]:
    """Where the ranges of ``shards`` shards start, and the last one ends (2**32).

    Keys are hashes, yet not spread evenly: winnowing keeps the least hash of each
    window, so fingerprint keys crowd the low end, and equal ranges would leave most
    shards empty. The bounds are the quantiles of the keys instead (of a sample of
    them), so that each shard holds about as many postings.
    """
    step = max(1, sum(len(keys) for keys in sorted_keys) // (shards * 1024))
    sample = np.sort(np.concatenate([keys[::step] for keys in sorted_keys]).astype(np.int64))
    inner = [
        int(sample[(len(sample) * number) // shards]) if len(sample) else 0
        for number in range(1, shards)
    ]
    return [0, *np.maximum.accumulate(np.array(inner, dtype=np.int64)).tolist(), KEY_SPACE]


def _shard_name(save_id: str, number: int, shards: int) -> str:
    return f"{FILE.removesuffix('.msgpack')}.{save_id}.{number + 1}-of-{shards}.msgpack"


def _write_file(
    target: Path,
    data: dict,
    magic: bytes = MAGIC,
    version: int = VERSION,
    placed: _Placed | None = None,
) -> str:
    """Write one file of the index (or another file of ``.doublet/``, by its ``magic``
    and ``version``) atomically; the hex checksum of its payload. ``placed``, if given,
    notes where each array lies and gets the file opened for reading (before it is
    renamed: what is read is what was written, whatever is saved there later)."""
    start = magic + version.to_bytes(4, "little")
    handle, temporary = tempfile.mkstemp(prefix=FILE + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(start + bytes(_DIGEST))  # the checksum, once the payload is written
            payload = _HashingWriter(out)
            _write_payload(payload, data, version, len(start) + _DIGEST, placed)
            digest = payload.digest()
            out.seek(len(start))
            out.write(digest)
            out.flush()
            os.fsync(out.fileno())
        if placed is not None and sys.platform != "win32":  # (an open file is not renamed)
            placed.file = _SavedFile(temporary)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if sys.platform != "win32":  # make the rename itself durable
        directory = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return digest.hex()


def saved_shards(root: Path) -> int:
    """How many shards the saved index is in (1: one file), from the shards' names."""
    counts = {
        path.name.rsplit("-of-", 1)[1].removesuffix(".msgpack")
        for path in (root / FOLDER).glob(FILE.removesuffix(".msgpack") + ".*-of-*.msgpack")
    }
    return int(counts.pop()) if len(counts) == 1 and next(iter(counts)).isdigit() else 1


def _remove_other_shards(folder: Path, keep: set[str]) -> None:
    """Shards of earlier saves: the head just written no longer names them."""
    for shard in folder.glob(FILE.removesuffix(".msgpack") + ".*-of-*.msgpack"):
        if shard.name not in keep:
            with contextlib.suppress(OSError):
                shard.unlink()


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


class _ReadAhead:
    """An index file read and unpacked on another thread (reading and checksumming let
    go of the interpreter lock), with the file's identity before and after. Its
    checksum is taken on that same thread: a third beside the imports slowed them
    (a language server's start at 100,000 documents 0.1-0.4 s later)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict | None = None
        self.identity: tuple | None = None
        self.done = threading.Event()
        threading.Thread(target=self._read, name="doublet-read-ahead", daemon=True).start()

    def _read(self) -> None:
        try:
            before = _identity(self.path)
            data = _unpacked(self.path, None, MAGIC, VERSION, aside=False)
            if _identity(self.path) == before:
                self.data, self.identity = data, before
        except (OSError, IndexFileError):
            pass  # read again by the load, which says why
        finally:
            self.done.set()


def _identity(path: Path) -> tuple:
    info = os.lstat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


_read_ahead: _ReadAhead | None = None


def read_ahead(root: Path) -> None:
    """Start reading the saved index of ``root`` from disk on another thread, for the
    next :func:`load` to take if it loads that file and the file has not changed. The
    language server does it while its libraries import (doublet/lsp/first_message):
    0.15 s of its start at 100,000 documents. One at a time; the next load takes or
    drops it."""
    global _read_ahead
    path = index_path(root)
    if os.path.lexists(path):
        _read_ahead = _ReadAhead(path)


def _taken(path: Path) -> dict | None:
    """The data read ahead of ``path`` if the file is still the one they were read
    from; None otherwise (whatever was read ahead is dropped)."""
    global _read_ahead
    ahead, _read_ahead = _read_ahead, None
    if ahead is None or ahead.path != path:
        return None
    ahead.done.wait()
    try:
        return ahead.data if ahead.identity == _identity(path) else None
    except OSError:
        return None


#: A load ``on_disk`` leaves arrays of postings from this size on in the file.
DEFER_FROM = 1 << 20


def load(root: Path, on_disk: bool = False) -> Index:
    """The saved index of ``root``, or IndexFileError saying why it cannot be used.

    ``on_disk``: each kind's postings are checked as they are read past, and left in
    the file (kept open), to be read when first asked for (``StoredPostings``): a
    command that may need none of them (a scan of an unchanged folder, answered by its
    kept report) does not hold them (183 MB at 100,000 documents). Not on Windows,
    which renames no open file; not for an index in shards."""
    path = index_path(root)
    if not os.path.lexists(path):
        raise IndexFileError(path, "no saved index")
    return _read_file(
        path,
        use=lambda data: _restored(root, data),
        read=_taken(path),
        defer_from=DEFER_FROM if on_disk and os.name != "nt" else None,
    )


def _restored(root: Path, data: dict) -> Index:
    """The index of a head's data (its shards' postings read in); ValueError, KeyError
    and the like if the pieces do not hold together."""
    data["documents"] = _unpack_documents(data["documents"])
    if "shards" in data:
        _join_shards(root, data)
    for kind in KINDS:
        keys, positions = data[kind]["keys"], data[kind]["positions"]
        if isinstance(keys, _Deferred) or isinstance(positions, _Deferred):
            data[kind] = {"stored": _left_in_file(kind, keys, positions, int(data["next_start"]))}
        else:
            data[kind] = {"keys": _postings_array(keys), "positions": _postings_array(positions)}
    index = Index.restore(data)
    index.saved_as = str(data["state"])
    return index


def _left_in_file(kind: str, keys: object, positions: object, cursor: int) -> _StoredPostings:
    """A kind's postings left in the file they were read past, checked as
    ``Index.restore`` checks those it is given; ValueError if they do not hold."""
    for part in (keys, positions):
        if not isinstance(part, _Deferred):  # the other was: not as many, or not 32-bit
            _postings_array(part)
            raise ValueError(f"{kind}: keys and positions differ in length")
    assert isinstance(keys, _Deferred) and isinstance(positions, _Deferred)
    if keys.count != positions.count:
        raise ValueError(f"{kind}: keys and positions differ in length")
    if not keys.ascending:
        raise ValueError(f"{kind}: keys are not sorted")
    if positions.largest >= cursor:
        raise ValueError(f"{kind}: a position lies outside every document")
    return _StoredPostings([_Piece(keys.file, keys.file_offset, positions.file_offset, keys.count)])


def _postings_array(value: object) -> np.ndarray:
    """Keys or positions as read: raw 32-bit values (bytes, from a file written by hand)."""
    if isinstance(value, bytes):
        return np.frombuffer(value, dtype="<u4")
    if not isinstance(value, np.ndarray) or value.dtype != np.dtype("<u4"):
        raise ValueError("postings that are not 32-bit values")
    return value


def _join_shards(root: Path, data: dict) -> None:
    """Put the postings of the head's shards, in key order, into ``data``."""
    parts: dict[str, dict[str, list[np.ndarray]]] = {
        kind: {"keys": [], "positions": []} for kind in KINDS
    }
    expected_low = 0
    for shard in data.pop("shards"):
        name = str(shard["file"])
        if Path(name).name != name or shard["low"] != expected_low:
            raise ValueError(f"shard {name!r} does not follow the one before")
        path = root / FOLDER / name
        if not os.path.lexists(path):
            raise IndexFileError(path, "a shard of the index is missing")
        piece = _read_file(path, expect_digest=shard["digest"])
        if (piece["low"], piece["high"]) != (shard["low"], shard["high"]):
            raise IndexFileError(path, "a shard of another range")
        for kind in KINDS:
            keys = _postings_array(piece[kind]["keys"])
            if keys.size and not (shard["low"] <= int(keys[0]) and int(keys[-1]) < shard["high"]):
                raise IndexFileError(path, "a shard with keys outside its range")
            parts[kind]["keys"].append(keys)
            parts[kind]["positions"].append(_postings_array(piece[kind]["positions"]))
        expected_low = shard["high"]
    if expected_low != KEY_SPACE:
        raise ValueError("the shards do not cover every key")
    for kind in KINDS:
        data[kind] = {part: np.concatenate(arrays) for part, arrays in parts[kind].items()}


#: What a damaged payload raises while it is unpacked and put together.
_DAMAGED = (
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    msgpack.UnpackException,
)


def _read_file(
    path: Path,
    expect_digest: str | None = None,
    magic: bytes = MAGIC,
    version: int = VERSION,
    use=lambda data: data,
    read: dict | None = None,
    defer_from: int | None = None,
):
    """``use`` of one file of the index (or another file of ``.doublet/``, by its
    ``magic`` and ``version``; its data ``read`` ahead already, if given), checked
    (magic, version, checksum) and unpacked. A damage is said as such (the checksum's
    verdict first), never as what ``use`` made of it."""
    if read is None:
        read = _unpacked(path, expect_digest, magic, version, defer_from=defer_from)
    data = read
    try:
        return use(data)
    except _DAMAGED as exc:
        raise IndexFileError(path, f"corrupt ({exc})") from None


def _unpacked(
    path: Path,
    expect_digest: str | None,
    magic: bytes,
    version: int,
    aside: bool = True,
    defer_from: int | None = None,
) -> dict:
    """The payload of a file of ``.doublet/``, read once, front to back, and checked;
    IndexFileError saying what is wrong (the checksum's verdict before any other).
    ``aside``: checksummed on another thread while read (see ``_ReadAhead``);
    ``defer_from``: 32-bit arrays of this many bytes or more are read past, not kept
    (``_Deferred``, with the file kept open to read them back from)."""
    try:  # opened as any file is (sources.open_regular): a regular file, never a link
        file, size = open_regular(path, str(path), MAX_INDEX_BYTES)
    except NotText as exc:
        raise IndexFileError(path, f"cannot be read ({exc.reason})") from None
    header = len(magic) + 4 + _DIGEST
    kept = False
    try:
        digest = _checked_header(path, _read_up_to(file, header), magic, version)
        if expect_digest is not None and digest.hex() != expect_digest:
            raise IndexFileError(path, "a shard of another save (checksum differs from the head's)")
        source = _FileSource(file, size - header, aside, defer_from)
        try:
            data = _read_payload(source, header)
            source.rest()  # more than it said it held (grown while being read)
            if source.at != source.size:
                raise ValueError("data after the last array")
            damage = None
        except _DAMAGED as exc:
            source.rest()
            damage = exc
        finally:
            found = source.digest()  # its thread ended, whatever happened
        if found != digest:
            raise IndexFileError(path, "corrupt or truncated (checksum mismatch)")
        if damage is not None:
            raise IndexFileError(path, f"corrupt ({damage})")
        if source.deferred:  # read back from this very file (a save renames a new one)
            saved = _SavedFile(opened=file)
            kept = True
            for left in source.deferred:
                left.file, left.payload_at = saved, header
        return data
    except OSError as exc:
        raise IndexFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        if not kept:
            file.close()


def _checked_header(path: Path, raw: bytes, magic: bytes, version: int) -> bytes:
    """The checksum a file's header gives, or IndexFileError if it is not one of ours."""
    if not raw.startswith(magic):
        raise IndexFileError(path, "not a Doublet index file")
    if len(raw) < len(magic) + 4 + _DIGEST:
        raise IndexFileError(path, "truncated")
    found = int.from_bytes(raw[len(magic) : len(magic) + 4], "little")
    if found != version:
        raise IndexFileError(path, f"written by another version of Doublet (format {found})")
    return raw[len(magic) + 4 :]


def write_checked(root: Path, name: str, data: dict, magic: bytes, version: int) -> None:
    """Write another file of ``root/.doublet/`` (msgpack ``data``) as safely as the
    index: checksummed, written to a temporary file and renamed, never through a link."""
    _write_file(_folder(root) / name, data, magic, version)


def read_checked(path: Path, magic: bytes, version: int) -> dict:
    """A file :func:`write_checked` wrote, or IndexFileError saying why it cannot be used."""
    return _read_file(path, magic=magic, version=version)
