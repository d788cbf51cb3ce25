"""Discovery: which files under a workspace's root are its documents.

One rule answers "is this a document?" for every entry point — a folder
scanned, files named on the command line, a buffer opened in an editor:

- it lies under the root, in no hidden, version-control or tool folder
  (``SKIPPED_DIRS``), and is not hidden itself nor ``doublet.toml``;
- its extension is not one of certain binaries (images, archives);
- the configured include/exclude globs take it, and no ``.gitignore`` on its
  way down ignores it (the deepest one decides, as in git);
- it is a regular file: symbolic links are never followed (a link can lead
  out of the workspace or round in a loop), pipes and devices never read.

The last point is checked on disk while walking; the others are a pure
function of the path, so an editor can ask about a file that is not saved yet.
"""

from __future__ import annotations

import logging
import os
import stat as stat_module
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from pathspec import GitIgnoreSpec

from doublet.config import FILE_NAME, Config
from doublet.skipped import Skipped

#: Folders never entered.
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".doublet", "node_modules", "__pycache__", ".venv"}
)

#: Extensions of files that are certainly not documents (passed over quietly);
#: .docx, .odt and .pdf are documents: doublet.extract reads them.
BINARY_EXTENSIONS = frozenset(
    ".png .jpg .jpeg .gif .bmp .ico .webp .tif .tiff .zip .gz .bz2 .xz .7z .rar .tar .exe "
    ".dll .so .dylib .o .a .class .jar .pyc .pyo .whl .mp3 .mp4 .wav .ogg .mov .avi .woff "
    ".woff2 .ttf .otf .eot .sqlite .db .bin .iso .dmg .xlsx .pptx .msgpack .DS_Store".split()
)

#: Files stat'ed between two pauses of a walk that is given one: a folder of 2,000
#: files took 20-50 ms, which an editor's question waited for at half speed.
PAUSE_FILES = 200

log = logging.getLogger(__name__)

_Ignores = list[tuple[str, GitIgnoreSpec]]  # (folder prefix, its .gitignore), root first


class FileStat(NamedTuple):
    """What is kept of a document's ``lstat``: what tells a changed file (the fields
    are named as ``os.stat_result``'s). A stat result is twenty objects: a walk of
    100,000 files held 63 MB of them until the refresh's end, spread among the names
    that outlive it, whose memory the interpreter then could not give back."""

    st_size: int
    st_mtime_ns: int


class Discovery:
    """The documents of a workspace: everything under ``root``, or only under ``selected``.

    ``selected`` holds workspace-relative paths of files and folders (files
    and folders named on a command line); a file named there is taken whatever
    its extension, as long as it is a regular file.
    """

    def __init__(self, root: Path, config: Config, selected: tuple[str, ...] | None = None):
        self.root = root
        self.config = config
        self.selected = selected

    def documents(self) -> tuple[list[str], list[Skipped]]:
        """The documents (relative paths, sorted) and what was passed over with a reason."""
        found, skipped = self.found()
        return sorted(found), skipped

    def found(
        self, pause: Callable[[], None] | None = None
    ) -> tuple[dict[str, FileStat], list[Skipped]]:
        """The documents, each with its ``lstat`` (taken once, while walking: a refresh
        of an unchanged folder of 100,000 files needs nothing more of the disk), and
        what was passed over with a reason. ``pause`` is called before each folder is
        listed and every PAUSE_FILES files in it (a language server lets an editor's
        questions through)."""
        found: dict[str, FileStat] = {}
        skipped: list[Skipped] = []
        tops = [""] if self.selected is None else list(self.selected)
        for top in tops:
            path = self.root / top if top else self.root
            if (top and not path.is_dir()) or path.is_symlink():
                info, reason = _document_stat(str(path))
                if info is None:
                    skipped.append(Skipped(top, reason))
                else:
                    found[top] = FileStat(info.st_size, info.st_mtime_ns)
                continue
            self._walk(top, found, skipped, pause)
        return found, skipped

    def _walk(
        self,
        top: str,
        found: dict[str, FileStat],
        skipped: list[Skipped],
        pause: Callable[[], None] | None,
    ) -> None:
        start = self.root / top if top else self.root
        ignores = self._ignores_above(top) if top else []
        for folder, dirs, files in walk_tree(str(start), skipped, self.root):
            if pause is not None:
                pause()
            here = Path(folder)
            rel_folder = "" if here == self.root else here.relative_to(self.root).as_posix() + "/"
            if self.config.respect_gitignore:
                ignores = [(p, s) for p, s in ignores if rel_folder.startswith(p)]
                spec = _gitignore(here / ".gitignore")
                if spec is not None:
                    ignores.append((rel_folder, spec))
            kept_dirs = []
            for name in sorted(dirs):
                rel = rel_folder + name
                if name in SKIPPED_DIRS or name.startswith("."):
                    continue
                if (here / name).is_symlink():
                    skipped.append(Skipped(rel, "symbolic link to a folder (not followed)"))
                    continue
                if _ignored(ignores, rel + "/"):
                    continue
                kept_dirs.append(name)
            dirs[:] = kept_dirs
            for at, name in enumerate(sorted(files)):
                if pause is not None and at and not at % PAUSE_FILES:
                    pause()
                rel = rel_folder + name
                if not self._takes_name(name) or _ignored(ignores, rel):
                    continue
                if not self.config.is_included(rel):
                    continue
                info, reason = _document_stat(os.path.join(folder, name))
                if info is None:
                    skipped.append(Skipped(rel, reason))
                    continue
                found[rel] = FileStat(info.st_size, info.st_mtime_ns)

    @staticmethod
    def _takes_name(name: str) -> bool:
        return not (
            name.startswith(".")
            or name == FILE_NAME
            or os.path.splitext(name)[1].lower() in BINARY_EXTENSIONS
        )

    def _ignores_above(self, rel: str) -> _Ignores:
        """The .gitignore files of the folders above ``rel`` (and its own folder's, for a file)."""
        if not self.config.respect_gitignore:
            return []
        parts = rel.split("/")
        ignores = []
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            spec = _gitignore(self.root / folder / ".gitignore")
            if spec is not None:
                ignores.append((folder + "/" if folder else "", spec))
        return ignores

    def is_document(self, rel: str) -> bool:
        """Whether the path would be taken as a document (the path alone decides: for a
        buffer open in an editor, which need not be saved)."""
        parts = rel.split("/")
        if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts[:-1]):
            return False
        if not self._takes_name(parts[-1]) or not self.config.is_included(rel):
            return False
        if self.selected is not None and not any(
            rel == top or rel.startswith(top + "/") or not top for top in self.selected
        ):
            return False
        ignores = self._ignores_above(rel)
        for i in range(1, len(parts) + 1):
            path = "/".join(parts[:i]) + ("/" if i < len(parts) else "")
            above = [(prefix, spec) for prefix, spec in ignores if path.startswith(prefix)]
            if _ignored(above, path):
                return False
        return True


def _document_stat(path: str) -> tuple[os.stat_result | None, str]:
    """A directory entry's ``lstat`` if it can be read as a document, else None and why
    not (links, pipes, devices)."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if stat_module.S_ISLNK(info.st_mode):
        return None, "symbolic link (not followed)"
    if not stat_module.S_ISREG(info.st_mode):
        return None, "not a regular file (a folder, pipe, socket or device)"
    return info, ""


def walk_tree(
    start: str, skipped: list[Skipped], root: Path
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk`` top-down without following links, as a loop, not a recursion (a
    folder a thousand deep is walked too); a folder that cannot be listed is a skip
    with its reason, not silence. The caller may prune ``dirs`` in place."""
    stack = [start]
    while stack:
        folder = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        is_dir = False
                    if is_dir or (entry.is_symlink() and os.path.isdir(entry.path)):
                        dirs.append(entry.name)
                    else:
                        files.append(entry.name)
        except OSError as exc:
            rel = Path(folder).relative_to(root).as_posix() if folder != str(root) else "."
            skipped.append(Skipped(rel + "/", f"folder cannot be read ({exc.strerror or exc})"))
            continue
        yield folder, dirs, files
        stack.extend(os.path.join(folder, d) for d in reversed(sorted(dirs)))


def _gitignore(path: Path) -> GitIgnoreSpec | None:
    """A folder's .gitignore; a line git would not take either is left out, logged."""
    try:
        if not path.is_file() or path.is_symlink():
            return None
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    try:
        return GitIgnoreSpec.from_lines(lines)
    except Exception:  # one bad pattern (a trailing backslash): keep the others
        kept = []
        for number, line in enumerate(lines, 1):
            try:
                GitIgnoreSpec.from_lines([line])
            except Exception as exc:
                log.warning("%s, line %d: pattern left out (%s)", path, number, exc)
                continue
            kept.append(line)
        return GitIgnoreSpec.from_lines(kept)


def _ignored(ignores: _Ignores, rel: str) -> bool:
    """Whether the .gitignore files above a path ignore it; as in git, the deepest decides."""
    decision = False
    for prefix, spec in ignores:  # from the root down
        verdict = spec.check_file(rel[len(prefix) :]).include
        if verdict is not None:
            decision = verdict
    return decision
