"""Files to text: reading a document's bytes and decoding them.

Student work arrives in every encoding (UTF-8 with or without a byte-order
mark, UTF-16 from Word's "Unicode text", cp1252 from old Windows editors, GBK
from Chinese systems), so bytes are decoded by BOM, then as UTF-8, then by
charset-normalizer's detection. Anything that is not text is refused with a
reason the user can act on, and one bad file never stops a scan.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from doublet.extract import extract
from doublet.skipped import NotText

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


#: A few stray NUL bytes happen in text copied from the web; more than this share of
#: the first 8 KB says binary (or UTF-16 without a byte-order mark).
MAX_NUL_SHARE = 0.01

#: Single-byte code pages for Latin-script text, which detection confuses with cp1252.
_LATIN_SINGLE_BYTE = frozenset(
    "cp1250 cp1252 cp1254 cp1257 cp1258 cp437 cp775 cp850 cp852 cp858 cp860 cp863 cp865 "
    "latin_1 iso8859_1 iso8859_2 iso8859_3 iso8859_4 iso8859_9 iso8859_10 iso8859_13 "
    "iso8859_14 iso8859_15 iso8859_16 mac_roman mac_latin2 mac_iceland mac_turkish".split()
)


def decode(data: bytes, path: Path | str = "<bytes>") -> str:
    """Decode file contents to text, or raise NotText."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                reason = f"invalid {encoding} after its byte-order mark ({exc.reason})"
                raise NotText(path, reason) from None
    sample = data[:8192]
    if sample.count(b"\x00") > MAX_NUL_SHARE * len(sample):
        utf16 = _utf16_without_bom(data)
        if utf16 is None:
            raise NotText(path, "binary file (contains NUL bytes)")
        return utf16
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes  # imported lazily: rarely needed

    best = from_bytes(data).best()
    if best is None:
        raise NotText(path, "not text in any known encoding")
    if best.encoding in _LATIN_SINGLE_BYTE:
        # Detection cannot tell Western code pages apart on a short essay, and
        # guesses cp1250 or cp775 as readily as cp1252; Windows' Western page is
        # by far the likeliest in student work, so it wins when it fits.
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            pass
    return str(best)


def _utf16_without_bom(data: bytes) -> str | None:
    """Text saved as UTF-16 without a byte-order mark, told by its NUL bytes: the high
    byte of every Latin character, all on even or all on odd positions."""
    sample = data[:8192]
    even, odd = sample[0::2].count(b"\x00"), sample[1::2].count(b"\x00")
    units = len(sample) // 2
    if len(data) % 2 or max(even, odd) < 0.3 * units or min(even, odd) > 0.05 * units:
        return None
    encoding = "utf-16-le" if odd > even else "utf-16-be"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def read_bytes(path: Path | str, shown: str | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of a file, or NotText with the reason (``shown`` names it in messages).

    The one rule for what is read, whoever asks (a refresh, an editor's command,
    compare): a regular file, opened without following a link and without
    waiting on a pipe (:func:`open_regular`), and never more than ``max_bytes``
    (else MAX_READ) bytes.
    """
    name = shown if shown is not None else str(path)
    limit = MAX_READ if max_bytes is None else max_bytes
    file, size = open_regular(path, name, limit)
    try:
        with file:
            # as much as it says it holds, then whatever more it gives, within the limit
            # (one read of the limit would allocate the limit for every file)
            parts = [file.read(min(size, limit) + 1)]
            got = len(parts[0])
            while got <= limit and got > size and parts[-1]:
                parts.append(file.read(min(1 << 20, limit + 1 - got)))
                got += len(parts[-1])
            data = b"".join(parts)
    except OSError as exc:
        raise NotText(name, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:  # grew while being read
        raise NotText(name, f"larger than the limit (more than {limit:,} bytes)")
    return data


def open_regular(path: Path | str, name: str, limit: int) -> tuple[BinaryIO, int]:
    """``path`` open for reading, unbuffered, and its size; NotText (naming it ``name``)
    unless it is a regular file of at most ``limit`` bytes, reached without a link.
    For :func:`read_bytes`, and for whoever reads a big file in pieces (the saved index)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise NotText(name, "no such file (it may have been moved or deleted)") from None
    except IsADirectoryError:
        raise NotText(name, "is a directory") from None
    except PermissionError:
        raise NotText(name, "permission denied") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotText(name, "symbolic link (not followed)") from None
        raise NotText(name, f"cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(handle)
        if stat.S_ISDIR(info.st_mode):
            raise NotText(name, "is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise NotText(name, "not a regular file (a folder, pipe, socket or device)")
        if info.st_size > limit:
            raise NotText(name, f"larger than the limit ({info.st_size:,} > {limit:,} bytes)")
        file = os.fdopen(handle, "rb", buffering=0)
    except OSError as exc:
        os.close(handle)
        raise NotText(name, f"cannot be read ({exc.strerror or exc})") from None
    except NotText:
        os.close(handle)
        raise
    return file, info.st_size


#: Bytes read of one file when no smaller limit is given (max_file_size's own maximum
#: is larger; a workspace's limit is passed in).
MAX_READ = 1 << 31


def read_document(path: Path | str, data: bytes) -> str:
    """The text of a document from its bytes: decoded, or extracted for rich formats."""
    return extract(path, data, decode)
