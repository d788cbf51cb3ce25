"""A .zip of submissions (an LMS download) unpacked into a folder to scan.

Archives come from outside and are not trusted: a member's name never leaves
the target folder (no absolute paths, no ``..``), links and encrypted members
are skipped, and bytes are counted as they are written (a zip's declared sizes
can lie), within limits per file, per archive and per member count. Zips
inside the zip (a student's project) are unpacked in place, into a folder named
like the member, a few levels deep. Whatever is passed over is returned as a
`Skipped` with its reason, named by its path inside the archive.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from doublet.discovery import walk_tree
from doublet.skipped import Skipped

#: Bytes one unpacked file may hold (larger members are skipped, not truncated).
MAX_MEMBER_BYTES = 200_000_000
#: Bytes a whole archive may unpack to, nested archives included.
MAX_TOTAL_BYTES = 4_000_000_000
#: Members an archive may hold, nested archives included.
MAX_MEMBERS = 200_000
#: Zips inside zips opened this deep (the download itself is level 1).
MAX_DEPTH = 4

_CHUNK = 1 << 20


class UnzipError(Exception):
    """The file is not a zip archive that can be opened at all (a clear message)."""


@dataclass
class _Budget:
    bytes_left: int
    members_left: int
    skipped: list[Skipped] = field(default_factory=list)


def unpack(archive: Path | str, into: Path | str) -> list[Skipped]:
    """Unpack ``archive`` into the folder ``into`` (created); the members passed over."""
    budget = _Budget(MAX_TOTAL_BYTES, MAX_MEMBERS)
    target = Path(into)
    target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(archive) as zipped:
            _unpack(zipped, target, "", 1, budget)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, ValueError) as exc:
        # ValueError: UnicodeDecodeError of a name flagged UTF-8 that is not
        raise UnzipError(f"{archive}: not a zip archive that can be read ({exc})") from None
    except OSError as exc:
        raise UnzipError(f"{archive}: {exc.strerror or exc}") from None
    return budget.skipped


def unpack_nested(folder: Path | str) -> list[Skipped]:
    """Open every .zip under ``folder`` in place (a download unpacked by hand still holds
    the students' own zips); the members passed over, named by their path in ``folder``."""
    budget = _Budget(MAX_TOTAL_BYTES, MAX_MEMBERS)
    root = Path(folder)
    for here, _, names in walk_tree(str(root), budget.skipped, root):
        for name in sorted(names):
            path = Path(here) / name
            if name.lower().endswith(".zip") and not path.is_symlink() and zipfile.is_zipfile(path):
                _open_nested(path, path.relative_to(root).as_posix(), 1, budget)
    return budget.skipped


def _unpack(
    zipped: zipfile.ZipFile, target: Path, prefix: str, depth: int, budget: _Budget
) -> None:
    for info in zipped.infolist():
        shown = prefix + info.filename
        if info.is_dir() or info.filename.endswith("\\"):  # a folder (Windows-made zips too)
            continue
        budget.members_left -= 1
        if budget.members_left < 0:
            budget.skipped.append(Skipped(shown, f"more than {MAX_MEMBERS} files in the archive"))
            return
        relative = _safe_name(info.filename)
        reason = "a name that would leave the folder" if relative is None else _refused(info)
        if reason is not None or relative is None:
            budget.skipped.append(Skipped(shown, reason or ""))
            continue
        path = target.joinpath(*relative.parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            written = _copy(zipped, info, path, budget)
        except (FileExistsError, NotADirectoryError):
            budget.skipped.append(Skipped(shown, "another member of the archive has this name"))
            continue
        except Exception as exc:  # damaged data (zlib, bz2, lzma), a name too long, ...
            budget.skipped.append(Skipped(shown, _why(exc)))
            _remove(path)
            continue
        if written is None:
            budget.skipped.append(Skipped(shown, _too_large(budget)))
            _remove(path)
            continue
        if relative.suffix.lower() == ".zip" and zipfile.is_zipfile(path):
            _open_nested(path, shown, depth, budget)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot be written ({exc.strerror})"
    detail = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else type(exc).__name__
    return f"damaged in the archive ({detail})"


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def _open_nested(path: Path, shown: str, depth: int, budget: _Budget) -> None:
    """A zip inside the archive, unpacked into a folder of the same name instead."""
    if depth >= MAX_DEPTH:
        budget.skipped.append(Skipped(shown, f"an archive nested more than {MAX_DEPTH} deep"))
        path.unlink()
        return
    packed = Path(tempfile.mkstemp(prefix=".unpacking-", suffix=".zip", dir=path.parent)[1])
    os.replace(path, packed)  # a name no member can have: nothing is overwritten
    try:
        with zipfile.ZipFile(packed) as inner:
            path.mkdir()
            _unpack(inner, path, shown + "/", depth + 1, budget)
    except Exception as exc:  # a damaged zip, names that do not decode, ...
        budget.skipped.append(Skipped(shown, f"a damaged archive ({_why(exc)})"))
    finally:
        packed.unlink()


def _refused(info: zipfile.ZipInfo) -> str | None:
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if mode and not stat.S_ISREG(mode) and stat.S_IFMT(mode):
        return "not a regular file"
    if info.flag_bits & 0x1:
        return "encrypted"
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        # bzip2 and LZMA members are decompressed by zipfile without a bound on memory
        return "compressed in a way that cannot be read safely (only stored and deflated)"
    if info.file_size > MAX_MEMBER_BYTES:
        return f"unpacks to more than {MAX_MEMBER_BYTES // 1_000_000} MB"
    return None


def _safe_name(name: str) -> PurePosixPath | None:
    """The member's path inside the target, or None if it would leave it."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or name.startswith(("/", "\\")) or any(p == ".." for p in parts):
        return None
    if ":" in parts[0] or any("\0" in p for p in parts):  # C:\…, or a NUL no file system takes
        return None
    return PurePosixPath(*parts)


def _copy(
    zipped: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, budget: _Budget
) -> int | None:
    """Write the member, counting what is written; None (and stop) past a limit."""
    written = 0
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with zipped.open(info) as source, os.fdopen(os.open(path, flags, 0o644), "wb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > MAX_MEMBER_BYTES or written > budget.bytes_left:
                budget.bytes_left -= written  # what was unpacked counts, kept or not
                return None
            out.write(chunk)
    budget.bytes_left -= written
    return written


def _too_large(budget: _Budget) -> str:
    if budget.bytes_left < MAX_MEMBER_BYTES:
        return f"the archive unpacks to more than {MAX_TOTAL_BYTES // 1_000_000_000} GB"
    return f"unpacks to more than {MAX_MEMBER_BYTES // 1_000_000} MB"
