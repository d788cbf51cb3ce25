"""Files to text: finding the documents under a path and decoding them.

Student work arrives in every encoding (UTF-8 with or without a byte-order
mark, UTF-16 from Word's "Unicode text", cp1252 from old Windows editors, GBK
from Chinese systems), so bytes are decoded by BOM, then as UTF-8, then by
charset-normalizer's detection. Anything that is not text is refused with a
reason the user can act on, and one bad file never stops a scan.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: Files larger than this are skipped (a 20 MB essay is a data file).
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

#: Folders never entered during discovery.
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".doublet", "node_modules", "__pycache__", ".venv"}
)

#: Extensions of files that are certainly not documents (passed over quietly while walking);
#: .docx, .odt and .pdf are documents: doublet.extract reads them.
BINARY_EXTENSIONS = frozenset(
    ".png .jpg .jpeg .gif .bmp .ico .webp .tif .tiff .zip .gz .bz2 .xz .7z .rar .tar .exe "
    ".dll .so .dylib .o .a .class .jar .pyc .pyo .whl .mp3 .mp4 .wav .ogg .mov .avi .woff "
    ".woff2 .ttf .otf .eot .sqlite .db .bin .iso .dmg .xlsx .pptx .msgpack .DS_Store".split()
)

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


#: Single-byte code pages for Latin-script text, which detection confuses with cp1252.
_LATIN_SINGLE_BYTE = frozenset(
    "cp1250 cp1252 cp1254 cp1257 cp1258 cp437 cp775 cp850 cp852 cp858 cp860 cp863 cp865 "
    "latin_1 iso8859_1 iso8859_2 iso8859_3 iso8859_4 iso8859_9 iso8859_10 iso8859_13 "
    "iso8859_14 iso8859_15 iso8859_16 mac_roman mac_latin2 mac_iceland mac_turkish".split()
)


class NotText(Exception):
    """A file that cannot be read as text; ``reason`` says why in a user's words."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(str(path), reason)  # both in args, so it pickles (worker processes)
        self.path = str(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


def decode(data: bytes, path: Path | str = "<bytes>") -> str:
    """Decode file contents to text, or raise NotText."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as exc:
                reason = f"invalid {encoding} after its byte-order mark ({exc.reason})"
                raise NotText(path, reason) from None
    if b"\x00" in data[:8192]:
        raise NotText(path, "binary file (contains NUL bytes)")
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


def read_bytes(path: Path | str, shown: str | None = None, max_bytes: int | None = None) -> bytes:
    """The bytes of a file, or NotText with the reason (``shown`` names it in messages)."""
    path = Path(path)
    name = shown if shown is not None else str(path)
    try:
        if max_bytes is not None:
            size = path.stat().st_size
            if size > max_bytes:
                raise NotText(name, f"larger than the limit ({size:,} > {max_bytes:,} bytes)")
        return path.read_bytes()
    except FileNotFoundError:
        raise NotText(name, "no such file (it may have been moved or deleted)") from None
    except IsADirectoryError:
        raise NotText(name, "is a directory") from None
    except PermissionError:
        raise NotText(name, "permission denied") from None
    except OSError as exc:
        raise NotText(name, f"cannot be read ({exc.strerror or exc})") from None


def read_text(path: Path | str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The text of a document file (decoded, or extracted for rich formats), or NotText."""
    return read_document(path, read_bytes(path, max_bytes=max_bytes))


def read_document(path: Path | str, data: bytes) -> str:
    """The text of a document from its bytes: decoded, or extracted for rich formats."""
    from doublet import extract

    return extract.extract(Path(path), data, decode)


def discover(paths: Iterable[Path | str]) -> Iterator[Path]:
    """Files named directly, and the files under named folders, in a stable order.

    Hidden files and folders, version-control and tool folders, and files with
    binary extensions are passed over; symbolic links to folders are not followed
    (they can loop).
    """
    for given in paths:
        root = Path(given)
        if root.is_dir():
            yield from _walk(root)
        else:
            yield root


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            if Path(name).suffix.lower() in BINARY_EXTENSIONS:
                continue
            yield Path(folder) / name
