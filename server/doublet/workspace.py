"""A workspace: a folder of documents, its configuration and its persisted index.

This is where files meet the engine. It finds the documents of a folder (the
configured include/exclude globs, ``.gitignore``, no symbolic links followed),
keeps the index in step with them (reading only files whose size, time or
content changed, and recognising moved files), and answers the questions the
command line and the language server ask: every similar pair, or everything
similar to one document or to an unsaved buffer.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat as stat_module
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pathspec import GitIgnoreSpec

from doublet import index_store
from doublet.config import Config
from doublet.config import load as load_config
from doublet.engine.comparison import PairResult, passage_digest
from doublet.engine.document import Document
from doublet.engine.fingerprints import Fingerprints
from doublet.engine.index import Index, Role, keys_of
from doublet.engine.modes import Mode
from doublet.engine.scan import compare_candidate, without
from doublet.engine.scan import pairs as index_pairs
from doublet.sources import (
    BINARY_EXTENSIONS,
    SKIPPED_DIRS,
    NotText,
    Skipped,
    read_bytes,
    read_document,
)

log = logging.getLogger("doublet.workspace")

Progress = Callable[[Iterable], Iterable]

#: Documents whose text is kept between questions (the rest is read again when needed).
CACHED_DOCUMENTS = 64
#: Fingerprints kept for documents whose text was dropped (16 bytes each): a scan
#: right after indexing then reads candidates' text without fingerprinting them again.
CACHED_FINGERPRINTS = 4_000_000


@dataclass
class Changes:
    """What a refresh did, by workspace-relative path."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.renamed)


@dataclass(frozen=True)
class _Stamp:
    """What identifies the indexed version of a file: its stat, its content, its settings."""

    size: int
    mtime_ns: int
    digest: str
    params: tuple  # the mode's fingerprint parameters, its name first
    chars: int  # length of the text, for reports that do not read it

    def pack(self) -> tuple:
        return (self.size, self.mtime_ns, self.digest, list(self.params), self.chars)

    @staticmethod
    def unpack(values: tuple) -> _Stamp | None:
        try:
            size, mtime_ns, digest, params, chars = values
            return _Stamp(int(size), int(mtime_ns), str(digest), tuple(params), int(chars))
        except (TypeError, ValueError):
            return None


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Workspace:
    """A folder's documents, configuration and index."""

    def __init__(self, root: Path, config: Config, index: Index | None = None):
        self.root = root
        self.config = config
        self.index = index or Index()
        self.skipped: list[Skipped] = []
        self._documents: OrderedDict[str, Document] = OrderedDict()
        self._fingerprints: OrderedDict[str, Fingerprints] = OrderedDict()
        self._fingerprint_count = 0
        #: Held while the index changes or is written, so a background save
        #: never writes an index half-way through an update.
        self.lock = threading.RLock()

    # --- opening and saving ---------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path | str,
        overrides: Mapping[str, Any] | None = None,
        overrides_source: str = "command line",
        saved: bool = True,
        config: Config | None = None,
    ) -> Workspace:
        """The workspace of ``root`` with its saved index (if ``saved`` and usable).

        A saved index that cannot be used is logged and ignored; :meth:`refresh`
        then rebuilds it from the files.
        """
        root = Path(root).resolve()
        if config is None:
            config = load_config(root)
        if overrides:
            config = config.with_overrides(overrides, overrides_source)
        index = None
        if saved:
            try:
                index = index_store.load(root)
            except index_store.IndexFileError as exc:
                if exc.reason != "no saved index":
                    log.warning("rebuilding the index: %s", exc)
        return cls(root, config, index)

    def save(self) -> Path:
        with self.lock:
            return index_store.save(self.index, self.root)

    # --- files ----------------------------------------------------------------------

    def relative(self, path: Path | str) -> str:
        """Workspace-relative posix path of a file (ValueError if it is outside)."""
        full = Path(os.path.abspath(path))
        # the root is resolved, so resolve the file's folder too (not the file: links
        # are not documents)
        full = Path(os.path.realpath(full.parent)) / full.name
        return PurePosixPath(full.relative_to(self.root)).as_posix()

    def discover(self) -> tuple[list[str], list[Skipped]]:
        """The workspace's documents (relative paths, sorted) and what was passed over."""
        found: list[str] = []
        skipped: list[Skipped] = []
        ignores: list[tuple[str, GitIgnoreSpec]] = []
        for folder, dirs, files in os.walk(self.root, followlinks=False):
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
            for name in sorted(files):
                rel = rel_folder + name
                if name.startswith(".") or name == "doublet.toml":
                    continue
                if Path(name).suffix.lower() in BINARY_EXTENSIONS:
                    continue
                if _ignored(ignores, rel) or not self.config.is_included(rel):
                    continue
                reason = _not_a_document(here / name)
                if reason:
                    skipped.append(Skipped(rel, reason))
                    continue
                found.append(rel)
        return sorted(found), skipped

    def listing(self) -> list[tuple[str, int, str]]:
        """Every indexed document as (relative path, characters, mode name), sorted."""
        rows = []
        for entry in self.index.entries():
            stamp = _Stamp.unpack(entry.stamp)
            rows.append(
                (entry.name, stamp.chars if stamp else 0, stamp.params[0] if stamp else "?")
            )
        return rows

    def is_document(self, rel: str) -> bool:
        """Whether discovery would take this path as a document (for a buffer open in an editor)."""
        parts = rel.split("/")
        if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts) or rel == "doublet.toml":
            return False
        if Path(rel).suffix.lower() in BINARY_EXTENSIONS or not self.config.is_included(rel):
            return False
        if self.config.respect_gitignore:
            ignores = []
            for depth in range(len(parts)):
                folder = "/".join(parts[:depth])
                spec = _gitignore(self.root / folder / ".gitignore")
                if spec is not None:
                    ignores.append((folder + "/" if folder else "", spec))
            for i in range(1, len(parts) + 1):
                path = "/".join(parts[:i]) + ("/" if i < len(parts) else "")
                above = [(prefix, spec) for prefix, spec in ignores if path.startswith(prefix)]
                if _ignored(above, path):
                    return False
        return True

    def role(self, rel: str) -> Role:
        config = self.config
        return Role(config.is_template(rel), config.is_reference(rel), config.group_of(rel))

    # --- keeping the index current -----------------------------------------------------

    def refresh(self, progress: Progress | None = None, keep: Collection[str] = ()) -> Changes:
        """Bring the index in step with the files, reading only what changed.

        ``keep`` names documents whose indexed text is not the file's (buffers open
        in an editor): they are left as they are. The lock is held only while the
        index changes, not while files are read, so questions can be answered in
        the meantime (a language server does).
        """
        files, skipped = self.discover()
        changes = Changes(skipped=list(skipped))
        present = set(files)
        with self.lock:
            vanished = {
                name: _Stamp.unpack(self.index.entry(name).stamp)
                for name in self.index.names()
                if name not in present and name not in keep
            }
            to_read: list[tuple[str, os.stat_result]] = []
            for rel in files:
                if rel in keep and rel in self.index:
                    changes.unchanged += 1
                    continue
                try:
                    info = self._unchanged_or_stat(rel, changes)
                except NotText as exc:
                    self._skip(rel, exc.reason, changes)
                    continue
                if info is not None:
                    to_read.append((rel, info))
        jobs = [(self.root / rel, rel, self.config.mode_for(rel)) for rel, _ in to_read]
        prepared = _prepare_all(jobs)
        for (rel, info), result in zip(
            to_read, progress(prepared) if progress else prepared, strict=True
        ):
            with self.lock:
                if isinstance(result, NotText):
                    self._skip(rel, result.reason, changes)
                else:
                    self._apply(rel, info, result, vanished, changes)
        with self.lock:
            for name in vanished:
                if name in self.index:
                    self.index.remove(name)
                    changes.removed.append(name)
                    self._forget(name)
        self.skipped = changes.skipped
        for item in changes.skipped:
            log.info("skipped %s: %s", item.path, item.reason)
        return changes

    def _skip(self, rel: str, reason: str, changes: Changes) -> None:
        changes.skipped.append(Skipped(rel, reason))
        if rel in self.index:
            self.index.remove(rel)
            self._forget(rel)
            changes.removed.append(rel)

    def _unchanged_or_stat(self, rel: str, changes: Changes) -> os.stat_result | None:
        """None if the indexed version is current (by size, time and settings), else its stat."""
        try:
            info = (self.root / rel).stat()
        except FileNotFoundError:
            raise NotText(rel, "vanished while the workspace was read") from None
        if info.st_size > self.config.max_file_size:
            raise NotText(rel, f"larger than max_file_size ({info.st_size:,} bytes)")
        if rel not in self.index:
            return info
        old = _Stamp.unpack(self.index.entry(rel).stamp)
        params = self.config.mode_for(rel).fingerprint_params
        if old and (old.size, old.mtime_ns, old.params) == (info.st_size, info.st_mtime_ns, params):
            self._keep(rel, self.role(rel), changes)
            return None
        return info

    def _apply(
        self,
        rel: str,
        info: os.stat_result,
        prepared: _Prepared,
        vanished: dict[str, _Stamp | None],
        changes: Changes,
    ) -> None:
        """Put a freshly read file into the index: a touch, a move, or new content."""
        role = self.role(rel)
        params = prepared.params
        digest = prepared.digest
        old = _Stamp.unpack(self.index.entry(rel).stamp) if rel in self.index else None
        if old and (old.digest, old.params) == (digest, params):
            stamp = _Stamp(info.st_size, info.st_mtime_ns, digest, params, old.chars)
            self.index.set_stamp(rel, stamp.pack())
            self._keep(rel, role, changes)
            return
        if not old:
            moved_from = next(
                (n for n, s in vanished.items() if s and (s.digest, s.params) == (digest, params)),
                None,
            )
            if moved_from is not None:
                moved = vanished.pop(moved_from)
                assert moved is not None
                stamp = _Stamp(info.st_size, info.st_mtime_ns, digest, params, moved.chars)
                self.index.rename(moved_from, rel)
                self.index.set_stamp(rel, stamp.pack())
                self.index.set_role(rel, role)
                self._forget(moved_from)
                changes.renamed.append((moved_from, rel))
                return
        stamp = _Stamp(info.st_size, info.st_mtime_ns, digest, params, prepared.chars)
        mode = self.config.mode_for(rel)
        fingerprints = prepared.fingerprints
        self.index.add(rel, fingerprints, prepared.units, mode.salt, role, stamp.pack())
        self._forget(rel)
        self._fingerprints[rel] = fingerprints
        self._fingerprint_count += len(fingerprints)
        self._trim_fingerprints()
        (changes.updated if old else changes.added).append(rel)

    def _keep(self, rel: str, role: Role, changes: Changes) -> None:
        if self.index.entry(rel).role != role:
            self.index.set_role(rel, role)
        changes.unchanged += 1

    def holds_text(self, rel: str, text: str) -> bool:
        """Whether the index holds exactly this text for ``rel``, fingerprinted as configured."""
        if rel not in self.index:
            return False
        stamp = _Stamp.unpack(self.index.entry(rel).stamp)
        return (
            stamp is not None
            and stamp.size == -1
            and stamp.digest == content_digest(text.encode("utf-8", "surrogatepass"))
            and stamp.params == self.config.mode_for(rel).fingerprint_params
        )

    def update_text(self, rel: str, text: str) -> None:
        """Index a document's current text (an editor's unsaved buffer, say)."""
        with self.lock:
            self._update_text(rel, text)

    def _update_text(self, rel: str, text: str) -> None:
        mode = self.config.mode_for(rel)
        document = Document(rel, text, mode)
        digest = content_digest(text.encode("utf-8", "surrogatepass"))
        stamp = _Stamp(-1, -1, digest, tuple(mode.fingerprint_params), len(text)).pack()
        self.index.add(
            rel, document.fingerprints, document.unit_count, mode.salt, self.role(rel), stamp
        )
        self._remember(document)

    def remove(self, rel: str) -> None:
        with self.lock:
            if rel in self.index:
                self.index.remove(rel)
            self._forget(rel)

    # --- documents ------------------------------------------------------------------

    def document(self, rel: str) -> Document:
        """The document of a path as indexed (its text read again if not cached)."""
        document = self._documents.get(rel)
        if document is not None:
            self._documents.move_to_end(rel)
            return document
        path = self.root / rel
        text = read_document(path, read_bytes(path, rel))
        document = Document(rel, text, self.config.mode_for(rel))
        known = self._fingerprints.get(rel)
        if known is not None:
            document.use_fingerprints(known)
        self._remember(document)
        return document

    def _remember(self, document: Document) -> None:
        """Keep a document's text for a while, and its fingerprints for longer."""
        self._documents[document.name] = document
        self._documents.move_to_end(document.name)
        self._keep_fingerprints(document)
        while len(self._documents) > CACHED_DOCUMENTS:
            _, oldest = self._documents.popitem(last=False)
            oldest.forget()

    def _keep_fingerprints(self, document: Document) -> None:
        self._drop_fingerprints(document.name)
        fingerprints = document.fingerprints
        self._fingerprints[document.name] = fingerprints
        self._fingerprint_count += len(fingerprints)
        self._trim_fingerprints()

    def _trim_fingerprints(self) -> None:
        while self._fingerprint_count > CACHED_FINGERPRINTS and len(self._fingerprints) > 1:
            _, oldest = self._fingerprints.popitem(last=False)
            self._fingerprint_count -= len(oldest)

    def _forget(self, rel: str) -> None:
        """Drop everything cached about a path (it changed, moved or went away)."""
        self._documents.pop(rel, None)
        self._drop_fingerprints(rel)

    def _drop_fingerprints(self, rel: str) -> None:
        dropped = self._fingerprints.pop(rel, None)
        if dropped is not None:
            self._fingerprint_count -= len(dropped)

    # --- questions ------------------------------------------------------------------

    def max_docs(self) -> int:
        return self.config.boilerplate_limit(len(self.index))

    def pairs(self, progress: Progress | None = None) -> list[PairResult]:
        """Every pair of documents that shares passages, best first, as configured."""
        with self.lock:
            return self._pairs(progress)

    def _pairs(self, progress: Progress | None) -> list[PairResult]:
        results = index_pairs(
            self.index,
            self.document,
            max_docs=self.max_docs(),
            threshold=self.config.min_similarity,
            progress=progress,
            paraphrase=self.config.paraphrase,
        )
        return [r for r in (self._unignored(r) for r in results) if r.passages]

    def similar(self, rel: str, text: str | None = None) -> list[PairResult]:
        """Every document with passages shared with ``rel`` (or with ``text`` as ``rel``'s content).

        In each result, A is the asking document.
        """
        with self.lock:
            return self._similar(rel, text)

    def _similar(self, rel: str, text: str | None) -> list[PairResult]:
        mode = self.config.mode_for(rel)
        document = self.document(rel) if text is None else Document(rel, text, mode)
        role = self.role(rel)
        if role.template:
            return []
        options = mode.alignment
        ignored = self.index.ignored_keys(keys_of(document.fingerprints.hashes), self.max_docs())
        mine = without(document.fingerprints, ignored)
        found = self.index.candidates(
            document.fingerprints,
            mode.salt,
            max_docs=self.max_docs(),
            reach=options.reach,
            min_seeds=options.min_seeds,
            exclude=rel,
            role=role,
            ignored=ignored,
        )
        results = []
        for candidate in found:
            other = self.document(candidate.name)
            fingerprints = (mine, without(other.fingerprints, ignored))
            result = compare_candidate(document, other, fingerprints, self.config.paraphrase)
            result = self._unignored(result)
            if result.passages and result.similarity >= self.config.min_similarity:
                results.append(result)
        results.sort(key=lambda r: (-r.resemblance.score, -r.longest, r.b.name))
        return results

    def _unignored(self, result: PairResult) -> PairResult:
        """The result without the passages the user chose to ignore."""
        if not self.config.ignore:
            return result
        a, b = result.a.name, result.b.name
        kept = [
            p
            for p in result.passages
            if not self.config.is_ignored(a, b, passage_digest(result.a, result.b, p))
        ]
        return result if len(kept) == len(result.passages) else result.with_passages(kept)


def _not_a_document(path: Path) -> str | None:
    """Why a directory entry cannot be read as a document (links, pipes, devices), if so."""
    try:
        info = path.lstat()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat_module.S_ISLNK(info.st_mode):
        return "symbolic link (not followed)"
    if not stat_module.S_ISREG(info.st_mode):
        return "not a regular file (a pipe, socket or device)"
    return None


def _gitignore(path: Path) -> GitIgnoreSpec | None:
    try:
        return GitIgnoreSpec.from_lines(
            path.read_text(encoding="utf-8", errors="replace").splitlines()
        )
    except OSError:
        return None


def _ignored(ignores: list[tuple[str, GitIgnoreSpec]], rel: str) -> bool:
    """Whether the .gitignore files above a path ignore it; as in git, the deepest decides."""
    decision = False
    for prefix, spec in ignores:  # from the root down
        verdict = spec.check_file(rel[len(prefix) :]).include
        if verdict is not None:
            decision = verdict
    return decision


@dataclass(frozen=True)
class _Prepared:
    """What reading one file gives the index: everything but the text itself."""

    digest: str
    params: tuple
    chars: int
    units: int
    fingerprints: Fingerprints


#: Below this many files to read, a refresh reads them itself rather than in workers.
PARALLEL_FROM = 64


def _prepare(job: tuple[Path, str, Mode]) -> _Prepared | NotText:
    """Read, decode and fingerprint one file (runs in a worker process for big refreshes)."""
    path, rel, mode = job
    try:
        data = read_bytes(path, rel)
        document = Document(rel, read_document(path, data), mode)
        return _Prepared(
            content_digest(data),
            mode.fingerprint_params,
            len(document.text),
            document.unit_count,
            document.fingerprints,
        )
    except NotText as exc:
        return exc


class _Sized:
    """An iterator that knows its length, so a progress bar can show a total."""

    def __init__(self, items: Iterable, length: int):
        self.items = items
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator:
        return iter(self.items)


def _prepare_all(jobs: list[tuple[Path, str, Mode]]) -> Iterable[_Prepared | NotText]:
    """Prepare files in order, on every core when there are many of them."""
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) < PARALLEL_FROM or workers < 2:
        return _Sized(map(_prepare, jobs), len(jobs))
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    # Forking copies every lock held by other threads (a language server's
    # thread reading stdin, say) into the child, where nobody releases it; so
    # fork only a process that has no other thread, else start workers afresh.
    methods = multiprocessing.get_all_start_methods()
    alone = threading.active_count() == 1
    if alone and "fork" in methods:
        method = "fork"
    else:
        method = "forkserver" if "forkserver" in methods else "spawn"
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))

    def results() -> Iterator[_Prepared | NotText]:
        with pool:
            yield from pool.map(_prepare, jobs, chunksize=max(1, len(jobs) // (8 * workers)))

    return _Sized(results(), len(jobs))


class DebouncedSave:
    """Saves a workspace's index a little after the last change, not after every one.

    An editor changes the index at every keystroke; writing 40 MB each time
    would be absurd. ``changed`` (re)starts a timer; when it fires, the index is
    saved once. ``flush`` saves at once if a save is pending (on shutdown).
    """

    def __init__(self, workspace: Workspace, delay: float = 2.0):
        self.workspace = workspace
        self.delay = delay
        self._timer: threading.Timer | None = None
        self._guard = threading.Lock()
        self.saves = 0

    def changed(self) -> None:
        with self._guard:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._guard:
            self._timer = None
        self._save()

    def _save(self) -> None:
        try:
            self.workspace.save()
            self.saves += 1
        except OSError as exc:  # a full disk must not take the daemon down
            log.error("could not save the index: %s", exc)

    def flush(self) -> None:
        with self._guard:
            pending = self._timer is not None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if pending:
            self._save()
