"""A workspace: a folder of documents, its configuration and its index.

This is where files meet the engine. It takes the documents of a folder
(doublet/discovery), keeps the index in step with them (reading only files
whose size, time or content changed, and recognising moved files), and answers
the questions the command line and the language server ask through the one
matching loop of the engine (engine/matching): every similar pair, or
everything similar to one document or to an unsaved buffer.

A folder's workspace keeps its index in ``.doublet/``. Files and folders named
on a command line make a workspace too (:meth:`Workspace.of_paths`): their
common folder is its root, only the named paths are its documents, and its
index lives in memory only.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import logging
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import msgpack
import numpy as np

from doublet import heap, index_store, parallel
from doublet.config import Config, matching_nothing
from doublet.config import load as load_config
from doublet.discovery import Discovery, FileStat
from doublet.engine import matching
from doublet.engine.candidates import (
    BOILERPLATE_SHARE,
    DROWNED_SHARE,
    Candidate,
    boilerplate_limit,
    boilerplate_shares,
)
from doublet.engine.comparison import PairResult, passage_digest
from doublet.engine.distinct import distinct
from doublet.engine.document import Document, DocumentKeys, keys_of
from doublet.engine.given import given_spans
from doublet.engine.index import Adding, Index, Role
from doublet.engine.index import keys_of as index_keys
from doublet.engine.keys_batch import KeysBatch
from doublet.engine.modes import MODES, Mode
from doublet.engine.selection import most_changed, reselect, select_all
from doublet.extract import kind_of
from doublet.parallel import (
    align_here,
    on_cluster,
    parallel_aligner,
    select_candidates,
    threaded_parts,
)
from doublet.scan_store import ScanStore, basis_of, document_signatures, settings_signature
from doublet.scanned import Packed, PackedPair, ScannedPair, ranked, ranked_outcomes
from doublet.skipped import NotText, Skipped
from doublet.sources import read_bytes, read_document

log = logging.getLogger("doublet.workspace")

Progress = Callable[[Iterable], Iterable]

#: Text kept between questions (characters; the rest is read again when needed), with
#: each document's fingerprints, sentences and keys ...
CACHED_CHARS = 64_000_000
#: ... but units (about 24 bytes a character) only for the most recent few documents.
CACHED_UNITS = 64
#: Files a refresh checks against the index while holding the lock: an editor's
#: question waits for a few milliseconds of it, not for a whole folder's.
LOCKED_FILES = 500

#: Keys kept for documents whose text was dropped (fingerprints and sentence keys): a
#: scan right after indexing then reads candidates' text without cutting them up again.
CACHED_KEYS = 8_000_000


@dataclass
class Changes:
    """What a refresh did, by workspace-relative path."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    #: Whether the refresh changed the index at all (a touched file's new time, a
    #: role or thresholds that follow the configuration), not counting what others
    #: changed meanwhile (an editor's buffers).
    index_changed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.renamed)


@dataclass(frozen=True)
class _Stamp:
    """What identifies the indexed version of a file: its stat and its content."""

    size: int  # -1 for an editor's buffer
    mtime_ns: int
    digest: str
    chars: int  # length of the text, for reports that do not read it

    def pack(self) -> bytes:
        """The stamp as the index keeps it: msgpack of its four values (bytes, not a
        tuple of four objects: 100,000 documents' stamps 24 -> 9 MB)."""
        return msgpack.packb((self.size, self.mtime_ns, self.digest, self.chars))

    @staticmethod
    def unpack(packed: bytes) -> _Stamp | None:
        values = _Stamp._values(packed)
        return None if values is None else _Stamp(*values)

    # Read straight from a packed stamp, without an object: asked of every document of
    # a refresh, a listing or a scan of 100,000 documents.

    @staticmethod
    def has_stat(packed: bytes, info: FileStat) -> bool:
        """Whether the packed stamp records this size and modification time."""
        values = _Stamp._values(packed)
        return values is not None and values[:2] == (info.st_size, info.st_mtime_ns)

    @staticmethod
    def digest_of(packed: bytes) -> str | None:
        values = _Stamp._values(packed)
        return None if values is None else values[2]

    @staticmethod
    def chars_of(packed: bytes) -> int:
        values = _Stamp._values(packed)
        return 0 if values is None else values[3]

    @staticmethod
    def _values(packed: bytes) -> tuple[int, int, str, int] | None:
        """The four values of a packed stamp; None if it holds anything else (a stamp
        damaged on disk, or written by another version: its file is read again)."""
        try:
            values = msgpack.unpackb(packed, use_list=False)
        except (ValueError, TypeError, OverflowError):  # msgpack's errors are ValueErrors
            return None
        if type(values) is tuple and len(values) == 4:
            size, mtime_ns, digest, chars = values
            if type(size) is int and type(mtime_ns) is int and type(digest) is str:
                return values if type(chars) is int else None
        return None


def _read_alike(old: str, new: str, mode: Mode) -> bool:
    """Whether the same bytes under the name ``old`` and the name ``new`` make the same
    keys, so that a file moved from one to the other keeps its entry: the name says
    how a file is read (a Markdown or HTML file's markup is masked, a notebook's cells
    extracted: extract.kind_of) and, for code, which lexer cuts it."""
    return kind_of(old) == kind_of(new) and mode.cuts_alike(old, new)


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Workspace:
    """A folder's documents, configuration and index."""

    def __init__(
        self,
        root: Path,
        config: Config,
        index: Index | None = None,
        selected: tuple[str, ...] | None = None,
    ):
        self.root = root
        self.config = config
        self.index = index or Index()
        #: Workspace-relative files and folders that are its documents (None: all of root).
        self.selected = selected
        self.skipped: list[Skipped] = []
        self._documents: OrderedDict[str, Document] = OrderedDict()
        self._cached_chars = 0
        self._recent: OrderedDict[str, Document] = OrderedDict()  # may hold units
        self._keys: OrderedDict[str, DocumentKeys] = OrderedDict()
        self._cached_keys = 0
        #: Held while the index changes or is written, so a background save
        #: never writes an index half-way through an update.
        self.lock = threading.RLock()
        #: An editor's questions under way: background work (a refresh) lets them go first.
        self.questions = Questions()
        #: The index's generation when it was last read from or written to disk.
        self._saved_generation = self.index.generation if index is not None else None
        #: How many shards the index was last written in (or read from: unknown, None).
        self._saved_shards: int | None = None
        #: The last save's postings, to read back from its files (``save(batch=True)``),
        #: and the generation of the index they are.
        self._readable: tuple[int, index_store.Readable] | None = None
        self._saving = threading.Lock()  # one save at a time

    # --- opening and saving ---------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path | str,
        overrides: Mapping[str, Any] | None = None,
        overrides_source: str = "command line",
        saved: bool = True,
        config: Config | None = None,
        postings_on_disk: bool = False,
    ) -> Workspace:
        """The workspace of ``root`` with its saved index (if ``saved`` and usable).

        A saved index that cannot be used is logged and ignored; :meth:`refresh`
        then rebuilds it from the files. ``postings_on_disk``: the index's postings
        are left in its file until asked for (``index_store.load``), for a command
        that may need none (a scan answered by its kept report).
        """
        root = Path(root).resolve()
        if config is None:
            config = load_config(root)
        if overrides:
            config = config.with_overrides(overrides, overrides_source)
        index = None
        if saved:
            try:
                index = index_store.load(root, on_disk=postings_on_disk)
            except index_store.IndexFileError as exc:
                if exc.reason != "no saved index":
                    log.warning("rebuilding the index: %s", exc)
        workspace = cls(root, config, index)
        if index is not None:
            workspace._saved_shards = index_store.saved_shards(root)
        return workspace

    @classmethod
    def of_paths(cls, paths: Sequence[Path | str], config: Config) -> Workspace:
        """A workspace in memory of files and folders named one by one (a command line's).

        Its root is the deepest folder holding all of them; its documents are the
        named files and the documents under the named folders.
        """
        full = [Path(os.path.abspath(p)) for p in paths]
        full = [Path(os.path.realpath(p.parent)) / p.name for p in full]  # links are not followed
        folders = [p if p.is_dir() and not p.is_symlink() else p.parent for p in full]
        root = Path(os.path.commonpath(folders))
        selected = tuple(dict.fromkeys(PurePosixPath(p.relative_to(root)).as_posix() for p in full))
        return cls(root, config, selected=tuple("" if s == "." else s for s in selected))

    def prepare_entries(self) -> None:
        """Make the loaded index's entries ahead of the passes over all of them
        (Index.prepare_entries), letting questions through first, for a holder that
        keeps them as long as it runs (a language server). The collector is held off
        meanwhile (each full pass walked every entry made so far: 100,000 documents,
        passes of 10-30 ms that an edit's answer waited for), and what lives then is
        left out of its passes for good (``gc.freeze``; else its first pass after
        took 35 ms)."""
        with heap.collections_paused():
            self.index.prepare_entries(self.questions.let_through)
            gc.freeze()

    def reset_index(self) -> None:
        """Start from an empty index (a rebuild); the next save writes it whatever it holds."""
        with self.lock:
            self.index = Index()
            self._saved_generation = None

    def save(self, batch: bool = False) -> Path:
        """Write the index to ``.doublet/`` (unless it is there unchanged). The lock is
        held while the index is read, not while the file is written: questions are
        answered meanwhile; one save at a time. ``batch``: nobody asks the index
        anything meanwhile (a command's run), so its pending postings are sorted in place
        first (``Index.fold_pending``), and the index then lets go of them: it reads them
        back from the files written a slice at a time where a scan selects, looks keys up
        or merges new postings in, whole if anything else asks. (Held until the
        selection, they were the scan's highest point at 100,000 documents: 174 MB under
        the warnings' estimate and the last scan's pairs read meanwhile.)"""
        with self._saving:
            with self.lock:
                path = index_store.index_path(self.root)
                shards = self.config.index_shards
                generation = self.index.generation
                unchanged = (self._saved_generation, self._saved_shards) == (generation, shards)
                if unchanged and path.is_file():
                    return path
                index = self.index
                saving = _Saving(self.lock, index)
                self._readable = None
                if batch:
                    index.fold_pending(heap.give_back)  # else the freed stays resident
            stored: index_store.Readable | None = {} if batch else None
            path = index_store.save(index, self.root, shards=shards, lock=saving, readable=stored)
            with self.lock:
                if self.index is index and saving.generation is not None:
                    self._saved_generation, self._saved_shards = saving.generation, shards
                    if stored:
                        self._readable = (saving.generation, stored)
                        self._let_go_of_postings()
            if batch:
                heap.give_back()
            return path

    def index_state(self) -> str | None:
        """A name for what the index holds, the same in every run while nothing changes
        (the name of its saved copy), or None when it differs from what was saved."""
        if self._saved_generation != self.index.generation:
            return None
        return self.index.saved_as

    # --- files ----------------------------------------------------------------------

    @property
    def discovery(self) -> Discovery:
        return Discovery(self.root, self.config, self.selected)

    def relative(self, path: Path | str) -> str:
        """Workspace-relative posix path of a file (ValueError if it is outside)."""
        full = Path(os.path.abspath(path))
        # the root is resolved, so resolve the file's folder too (not the file: links
        # are not documents)
        full = Path(os.path.realpath(full.parent)) / full.name
        return PurePosixPath(full.relative_to(self.root)).as_posix()

    def listing(self) -> list[tuple[str, int, str]]:
        """Every indexed document as (relative path, characters, mode name), sorted."""
        rows = []
        for entry in self.index.entries():
            rows.append((entry.name, _Stamp.chars_of(entry.stamp), entry.mode.name))
        return rows

    def is_document(self, rel: str) -> bool:
        """Whether discovery would take this path as a document (for a buffer open in an editor)."""
        return self.discovery.is_document(rel)

    def role(self, rel: str) -> Role:
        config = self.config
        if not (config.templates or config.references) and config.groups == "none":
            return _NO_ROLE  # the common case, asked of every file of a refresh
        return Role(config.is_template(rel), config.is_reference(rel), config.group_of(rel))

    # --- keeping the index current -----------------------------------------------------

    def refresh(self, progress: Progress | None = None, keep: Collection[str] = ()) -> Changes:
        """Bring the index in step with the files, reading only what changed.

        ``keep`` names documents whose indexed text is not the file's (buffers open
        in an editor): they are left as they are. The lock is held only while the
        index changes, not while files are read, so questions can be answered in
        the meantime (a language server does).
        """
        # the walk makes an object per file that lives until its end, no cycles: the
        # collector's full passes over them (10-15 ms at 100,000 files) only held up
        # the questions let through meanwhile
        with heap.collections_paused():
            found, skipped = self.discovery.found(self.questions.let_through)
            changes = Changes(skipped=list(skipped))
            files = sorted(found)
            with self.lock:
                vanished = {
                    name: _Stamp.unpack(self.index.entry(name).stamp)
                    for name in self.index.names()
                    if name not in found and name not in keep
                }
            to_read = self._changed_files(files, found, keep, changes)
            walked = len(files)
            del found, files  # gone before the collector runs again, or it walks them
        jobs = [
            (os.path.join(self.root, rel), rel, self.config.mode_for(rel), info.st_size)
            for rel, info in to_read
        ]
        prepared = _prepare_all(jobs)
        # the keys made are kept for a scan's selection made again after a few changes
        # (engine/selection) and for documents read soon after; after more changes a
        # scan selects the whole folder and its workers cut up what they align, so
        # keeping them only scattered objects that outlive the refresh (100,000
        # documents: 184 MB more at its end, and 50 MB the interpreter never gave back)
        keep_keys = len(jobs) <= most_changed(walked)
        # every document indexed adds objects that live on, which each full collection
        # would walk again: held off while workers prepare the files (when this process
        # prepares them, the cycles made doing so must go as usual)
        pause = heap.collections_paused() if prepared.in_workers else contextlib.nullcontext()
        with pause:
            batch: KeysBatch | None = None
            waiting: list[tuple[Adding, bool]] = []  # new content of the batch's files
            for (rel, info), (result, keys) in zip(
                to_read, progress(prepared) if progress else prepared, strict=True
            ):
                if keys is not batch:
                    self._add_waiting(batch, waiting, changes, keep_keys)
                    batch, waiting = keys, []
                with self.lock:
                    generation = self.index.generation
                    if isinstance(result, NotText):
                        self._skip(rel, result.reason, changes)
                    else:
                        adding = self._apply(rel, info, result, vanished, changes)
                        if adding is not None:
                            waiting.append(adding)
                    changes.index_changed |= self.index.generation != generation
            self._add_waiting(batch, waiting, changes, keep_keys)
        with self.lock:
            for name in vanished:
                if name in self.index:
                    self.index.remove(name)
                    changes.removed.append(name)
                    changes.index_changed = True
                    self._forget(name)
        self.skipped = changes.skipped
        for item in changes.skipped:
            log.info("skipped %s: %s", item.path, item.reason)
        return changes

    def _changed_files(
        self,
        files: list[str],
        found: dict[str, FileStat],
        keep: Collection[str],
        changes: Changes,
    ) -> list[tuple[str, FileStat]]:
        """The files to read again, with their stats; the rest are counted unchanged or
        skipped, a few hundred at a time under the lock (questions get in between)."""
        to_read: list[tuple[str, FileStat]] = []
        for first in range(0, len(files), LOCKED_FILES):
            self.questions.let_through()
            with self.lock:
                generation = self.index.generation
                for rel in files[first : first + LOCKED_FILES]:
                    if rel in keep and rel in self.index:
                        changes.unchanged += 1
                        continue
                    try:
                        info = self._changed_stat(rel, found[rel], changes)
                    except NotText as exc:
                        self._skip(rel, exc.reason, changes)
                        continue
                    if info is not None:
                        to_read.append((rel, info))
                changes.index_changed |= self.index.generation != generation
        return to_read

    def _skip(self, rel: str, reason: str, changes: Changes) -> None:
        changes.skipped.append(Skipped(rel, reason))
        if rel in self.index:
            self.index.remove(rel)
            self._forget(rel)
            changes.removed.append(rel)

    def _changed_stat(self, rel: str, info: FileStat, changes: Changes) -> FileStat | None:
        """None if the indexed version is current (by size, time and mode), else ``info``
        (the file's stat, taken by discovery). Asked of every file of a refresh: a
        hundred thousand files of an unchanged folder take a fraction of a second."""
        if info.st_size > self.config.max_file_size:
            raise NotText(rel, f"larger than max_file_size ({info.st_size:,} bytes)")
        entry = self.index.get(rel)
        if entry is None:
            return info
        mode = self.config.mode_for(rel)
        if _Stamp.has_stat(entry.stamp, info) and entry.mode.key_params == mode.key_params:
            self._keep(rel, changes, mode)
            return None
        return info

    def _apply(
        self,
        rel: str,
        info: FileStat,
        prepared: _Prepared,
        vanished: dict[str, _Stamp | None],
        changes: Changes,
    ) -> tuple[Adding, bool] | None:
        """Put a freshly read file into the index: a touch or a move; or, for new content,
        what to add (with whether it replaces a document), for :meth:`_add_waiting`."""
        mode = prepared.mode
        digest = prepared.digest
        entry = self.index.entry(rel) if rel in self.index else None
        old = _Stamp.unpack(entry.stamp) if entry else None
        if entry and old and old.digest == digest and entry.mode.key_params == mode.key_params:
            stamp = _Stamp(info.st_size, info.st_mtime_ns, digest, old.chars)
            self.index.set_stamp(rel, stamp.pack())
            self._keep(rel, changes)
            return None
        if not old:
            moved_from = next(
                (
                    n
                    for n, s in vanished.items()
                    if s
                    and s.digest == digest
                    and self.index.entry(n).mode == mode
                    and _read_alike(n, rel, mode)
                ),
                None,
            )
            if moved_from is not None:
                moved = vanished.pop(moved_from)
                assert moved is not None
                stamp = _Stamp(info.st_size, info.st_mtime_ns, digest, moved.chars)
                self.index.rename(moved_from, rel)
                self.index.set_stamp(rel, stamp.pack())
                self.index.set_role(rel, self.role(rel))
                self._forget(moved_from)
                changes.renamed.append((moved_from, rel))
                return None
        stamp = _Stamp(info.st_size, info.st_mtime_ns, digest, prepared.chars)
        return (prepared.slot, rel, mode, self.role(rel), stamp.pack()), bool(old)

    def _add_waiting(
        self,
        batch: KeysBatch | None,
        waiting: list[tuple[Adding, bool]],
        changes: Changes,
        keep_keys: bool,
    ) -> None:
        """Index the new content of a batch's files together (their keys kept in memory
        if ``keep_keys``)."""
        if batch is None or not waiting:
            return
        with self.lock:
            self.index.add_many(batch, [adding for adding, _ in waiting])
            changes.index_changed = True
            for (slot, rel, *_), replaced in waiting:
                self._forget(rel)
                if keep_keys:
                    self._keep_keys(rel, batch.keys(slot))
                (changes.updated if replaced else changes.added).append(rel)

    def _keep(self, rel: str, changes: Changes, mode: Mode | None = None) -> None:
        """An unchanged document: only its role and thresholds may follow the configuration."""
        entry = self.index.entry(rel)
        role, mode = self.role(rel), mode or self.config.mode_for(rel)
        if entry.role is not role and entry.role != role:
            self.index.set_role(rel, role)
        if entry.mode is not mode and entry.mode != mode:
            self.index.set_mode(rel, mode)
            dropped = self._documents.pop(rel, None)
            if dropped is not None:
                self._cached_chars -= len(dropped.text)
            self._recent.pop(rel, None)
        changes.unchanged += 1

    def holds_text(self, rel: str, text: str) -> bool:
        """Whether the index holds exactly this text for ``rel``, cut up as configured."""
        if rel not in self.index:
            return False
        entry = self.index.entry(rel)
        stamp = _Stamp.unpack(entry.stamp)
        return (
            stamp is not None
            and stamp.size == -1
            and stamp.digest == content_digest(text.encode("utf-8", "surrogatepass"))
            and entry.mode == self.config.mode_for(rel)
        )

    def update_text(self, rel: str, text: str) -> None:
        """Index a document's current text (an editor's unsaved buffer, say)."""
        with self.lock:
            mode = self.config.mode_for(rel)
            document = Document(rel, text, mode)
            digest = content_digest(text.encode("utf-8", "surrogatepass"))
            stamp = _Stamp(-1, -1, digest, len(text)).pack()
            self.index.add(rel, document.keys, mode, self.role(rel), stamp)
            self._forget(rel)
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
            self._used(document)
            return document
        path = self.root / rel
        text = read_document(path, read_bytes(path, rel))
        mode = self.index.entry(rel).mode if rel in self.index else self.config.mode_for(rel)
        document = Document(rel, text, mode)
        known = self._keys.get(rel)
        if known is not None:
            document.use_keys(known)
        self._remember(document)
        return document

    def _remember(self, document: Document) -> None:
        """Keep a document's text for a while, and its keys for longer."""
        self._documents[document.name] = document
        self._documents.move_to_end(document.name)
        self._cached_chars += len(document.text)
        keys = document.known_keys()
        if keys is not None:
            self._keep_keys(document.name, keys)
        while self._cached_chars > CACHED_CHARS and len(self._documents) > 1:
            _, oldest = self._documents.popitem(last=False)
            self._cached_chars -= len(oldest.text)
        self._used(document)

    def _used(self, document: Document) -> None:
        """Units only for the CACHED_UNITS most recent documents: they cost the most."""
        self._recent[document.name] = document
        self._recent.move_to_end(document.name)
        while len(self._recent) > CACHED_UNITS:
            _, oldest = self._recent.popitem(last=False)
            oldest.drop_units()

    def _keep_keys(self, rel: str, keys: DocumentKeys) -> None:
        self._drop_keys(rel)
        self._keys[rel] = keys
        self._cached_keys += _size(keys)
        while self._cached_keys > CACHED_KEYS and len(self._keys) > 1:
            _, oldest = self._keys.popitem(last=False)
            self._cached_keys -= _size(oldest)

    def _forget_all(self) -> None:
        """Drop every document's text and keys kept in memory (a scan's selection of
        candidates needs the room more)."""
        self._documents.clear()
        self._recent.clear()
        self._keys.clear()
        self._cached_chars = self._cached_keys = 0

    def _forget(self, rel: str) -> None:
        """Drop everything cached about a path (it changed, moved or went away)."""
        dropped = self._documents.pop(rel, None)
        if dropped is not None:
            self._cached_chars -= len(dropped.text)
        self._recent.pop(rel, None)
        self._drop_keys(rel)

    def _drop_keys(self, rel: str) -> None:
        dropped = self._keys.pop(rel, None)
        if dropped is not None:
            self._cached_keys -= _size(dropped)

    # --- questions ------------------------------------------------------------------

    def given_spans(self, names: Iterable[str]) -> dict[str, list[tuple[int, int]]]:
        """For each of ``names`` that holds some, the spans of text its templates gave
        it (engine/given): what a reader sees greyed. Empty without templates."""
        with self.lock:
            templates = [e.name for e in self.index.entries() if e.role.template]
            if not templates:
                return {}
            keys = distinct(
                np.concatenate(
                    [index_keys(self.document(t).fingerprints.hashes) for t in templates]
                )
            )
            found = {}
            for name in names:
                if name in templates:
                    continue
                document = self.document(name)
                spans = given_spans(
                    document.text, document.fingerprints, document.units, keys, document.mode.window
                )
                if spans:
                    found[name] = spans
            return found

    def settings(self) -> matching.Settings:
        config = self.config
        return matching.Settings(
            boilerplate_limit(len(self.index), config.boilerplate),
            config.min_similarity,
            config.paraphrase,
        )

    def warnings(self) -> list[str]:
        """What would make the answers mislead as configured: a mode whose fingerprints
        are mostly boilerplate finds little, and says nothing of it (engine/candidates).

        Never to be asked holding the lock: the estimate lets an editor's questions go
        first, and one waiting for the lock would wait for it (half a second a step)."""
        with self.lock:  # a copy to estimate on: an editor's edits need not wait for it
            limit = boilerplate_limit(len(self.index), self.config.boilerplate)
            index = self.index.snapshot()
        shares = boilerplate_shares(index, limit, between=self.questions.let_through)
        found = []
        for name, share in sorted(shares.items()):
            if share <= DROWNED_SHARE:
                continue
            noise, default = getattr(self.config, name).noise, MODES[name].noise
            if noise < default:
                cause = (
                    f"{name}.noise = {noise} is too short to tell copying from common text "
                    f"(the default is {default})"
                )
            elif self.config.boilerplate != BOILERPLATE_SHARE:
                cause = f"boilerplate = {self.config.boilerplate} is too low for this folder"
            else:
                cause = (
                    "most of the text is in most documents: name what they were all given "
                    "in templates, or raise boilerplate"
                )
            found.append(
                f"{share:.0%} of the {name} documents' fingerprints are in more than {limit} "
                f"documents and are ignored as boilerplate, so copies may go unfound: {cause}"
            )
        return found + self._roles_given_to_nothing(index)

    def _roles_given_to_nothing(self, index: Index) -> list[str]:
        """Templates and references patterns that give no document their role: a typo
        there leaves the text everyone was given counted as copied, silently. Only the
        documents holding the role can be matched by a pattern that gives it."""
        found = []
        for role, patterns in (
            ("template", self.config.templates),
            ("reference", self.config.references),
        ):
            if not patterns:
                continue
            holders = [e.name for e in index.entries() if getattr(e.role, role)]
            for pattern in matching_nothing(patterns, holders):
                found.append(
                    f"{role}s: {pattern!r} names no document of the folder, "
                    f"so none is a {role} by it"
                )
        return found

    def pairs(self, progress: Progress | None = None) -> list[PairResult]:
        """Every pair of documents that shares passages, best first, as configured (and
        pairs of programs that resemble each other without one, engine/matching), with
        their documents; a pair whose every passage the user chose to ignore is left out.
        A report asks :meth:`scan` instead."""
        with self.lock:
            results = matching.all_pairs(self.index, self.document, self.settings(), progress)
            kept = [(r, self._unignored(r)) for r in results]
            return [shown for found, shown in kept if shown.passages or not found.passages]

    def scan(
        self, progress: Progress | None = None, parallel: bool = False, keep: bool = False
    ) -> Sequence[ScannedPair]:
        """The pairs of :meth:`pairs`, as a report shows them (doublet/scanned).

        ``parallel`` aligns big scans on every core; the worker processes read the
        files from disk, so it is only for a workspace whose documents are all as on
        disk (not an editor's, whose buffers the index may hold). ``keep`` uses and
        keeps the last scan's pairs in ``.doublet/`` (scan_store): only candidates whose
        documents or evidence changed are aligned, and none at all when the index is
        the saved one the last scan used.
        """
        with self.lock:
            settings = self.settings()
            signature = settings_signature(settings)
            state = self.index_state()
            store = ScanStore.load(self.root) if keep else ScanStore()

            def reported(similarity: float, passages: bool, resemblance: float | None) -> bool:
                return matching.reported(similarity, passages, resemblance, settings)

            found = store.answer(signature, state, settings.max_docs, reported)
            if found is None:
                store.settle(signature, None, settings.max_docs)
                outcomes = self._align_scan(store, settings, progress, parallel, keep)
                if len(store.outcomes) == len(outcomes):  # it holds every candidate's:
                    store.state = state  # the next scan of this index may take it whole
                if keep:
                    store.save(self.root)
                found = ranked_outcomes(outcomes, reported)
                if not self.config.ignore:
                    return found  # the packed ones made as they are reported
            kept = [(pair, self._unignored_scanned(pair)) for pair in found]
            return ranked([shown for pair, shown in kept if shown.passages or not pair.passages])

    def _align_scan(
        self,
        store: ScanStore,
        settings: matching.Settings,
        progress: Progress | None,
        parallel: bool,
        keep: bool = False,
    ) -> list[ScannedPair | PackedPair | None]:
        """Every candidate's outcome: kept in ``store`` if aligned from the same basis,
        else aligned now; ``store`` then holds this scan's outcomes only (and, if
        ``keep``, its selection of candidates)."""
        with heap.freed_arrays_given_back():  # many big arrays at once (doublet/heap)
            candidates, ignored = self._select(store, settings.max_docs, parallel, keep)
        if parallel:
            # a selection made again from the last scan's read every kind whole; the
            # signatures read back only the fingerprints' (of 183 MB at 100,000 documents)
            self._let_go_of_postings()
        signatures = document_signatures(
            self.index, (name for c in candidates for name in (c.a, c.b)), ignored, _Stamp.digest_of
        )
        bases = [basis_of(c, signatures) for c in candidates]
        outcomes: list[ScannedPair | PackedPair | None] = [
            store.kept(c, b) for c, b in zip(candidates, bases, strict=True)
        ]
        todo = [i for i, outcome in enumerate(outcomes) if outcome is None]
        kept = store.outcomes  # as read: a kept outcome is written back as it was read
        aligner = align_here
        if parallel:
            self._let_go_of_postings()  # nothing asks for them again, nor do the aligners
            heap.give_back()  # what selecting freed: else the workers forked now share it
            known = {e.name: (e.mode, e.units) for e in self.index.entries()}
            aligner = parallel_aligner(self.root, known)
        aligned = aligner([candidates[i] for i in todo], self.document, ignored, settings, progress)
        for i, outcome in zip(todo, aligned, strict=True):
            outcomes[i] = outcome
        aligned_now = set(todo)
        store.outcomes = {
            (c.a, c.b): (basis, _kept_as(outcome) if i in aligned_now else kept[c.a, c.b][1])
            for i, (c, basis, outcome) in enumerate(zip(candidates, bases, outcomes, strict=True))
            if basis is not None and outcome is not None
        }
        return outcomes

    def _select(
        self, store: ScanStore, max_docs: int, parallel: bool, keep: bool
    ) -> tuple[list[Candidate], np.ndarray]:
        """The candidates and the fingerprint keys to ignore: selected again from the
        last scan's selection after a few changes (engine/selection), else the whole
        folder's (on the cluster, if there is one: engine/candidate_shards); kept in
        ``store`` if ``keep`` and selected here."""
        found = None
        if keep and store.selection is not None:
            found = reselect(
                self.index, max_docs, store.selection, self._keys_for, _Stamp.digest_of
            )
        if parallel:  # the workers read and cut up what they align: nothing to keep here
            self._forget_all()
            if found is None and keep and not on_cluster():
                self._let_go_of_postings()  # selecting reads them a slice at a time
            heap.give_back()  # what keying freed, before the selection's peak
        if found is None and keep and not on_cluster():
            with threaded_parts(parallel) as (each, times):  # a big scan: every core
                found = select_all(
                    self.index, max_docs, _Stamp.digest_of, each, times, heap.give_back
                )
        if found is None:  # on a cluster, the whole folder's selection is made there
            store.selection = None
            return select_candidates(self.index, max_docs, threaded=parallel)
        store.selection = found
        return found.candidates, found.ignored

    def _let_go_of_postings(self) -> None:
        """Leave the index's postings in the files the last save wrote, if they are this
        index's (``save(batch=True)``): a whole folder's selection reads each kind a
        slice at a time and needs them for nothing else, and neither do the aligners
        forked after it. Again after anything read them back whole, while the index is
        still the one saved."""
        readable = self._readable
        if readable is not None and readable[0] == self.index.generation:
            self.index.keep_postings_in(readable[1])

    def _keys_for(self, rel: str) -> DocumentKeys:
        """A document's keys: kept since it was indexed, or cut from its file again."""
        known = self._keys.get(rel)
        return known if known is not None else self.document(rel).keys

    def similar(self, rel: str, text: str | None = None) -> list[PairResult]:
        """Every document with passages shared with ``rel`` (or with ``text`` as ``rel``'s content).

        In each result, A is the asking document.
        """
        with self.lock:
            cached = self._documents.get(rel)
            if text is None or (cached is not None and cached.text == text):
                document = self.document(rel)  # as indexed: keys made once (update_text)
            else:
                document = Document(rel, text, self.config.mode_for(rel))
            found = matching.similar(
                self.index, document, self.role(rel), self.document, self.settings()
            )
            return [r for r in (self._unignored(r) for r in found) if r.passages]

    def _unignored_scanned(self, pair: ScannedPair) -> ScannedPair:
        """The pair without the passages the user chose to ignore."""
        if not self.config.ignore:
            return pair
        return pair.keeping(lambda p: not self.config.is_ignored(pair.a, pair.b, p.digest))

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


_NO_ROLE = Role()


class Questions:
    """Questions an editor is asking of the index now (``asked``), which background
    work on the index lets through first (``let_through``).

    Python runs one thread at a time: a refresh checking 100,000 files and an
    edit's question would each run at half speed, and the question would also
    wait for the refresh's turn with the lock. So the refresh waits, between two
    turns, until no question is under way, and an edit is answered as fast as
    when nothing else runs.
    """

    #: Never longer than this at a time, so that a stream of questions cannot stop a
    #: refresh (an edit's question takes tens of milliseconds).
    LONGEST_WAIT = 0.5
    #: How long after an answer the refresh still waits: an editor that asks again
    #: at once (typing on) has its next message read and its answer taken in
    #: without the refresh in the way (the editor's process, on a machine of two
    #: cores, too).
    GRACE = 0.03

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._under_way = 0
        self._none = threading.Event()
        self._none.set()
        self._answered_at = -math.inf

    @contextlib.contextmanager
    def asked(self) -> Iterator[None]:
        with self._lock:
            self._under_way += 1
            self._none.clear()
        try:
            yield
        finally:
            with self._lock:
                self._under_way -= 1
                if not self._under_way:
                    self._answered_at = time.monotonic()
                    self._none.set()

    def let_through(self) -> None:
        """Wait while questions are under way, and a moment after the last one (never
        holding the workspace's lock)."""
        deadline = time.monotonic() + self.LONGEST_WAIT
        while True:
            if not self._none.wait(max(0.0, deadline - time.monotonic())):
                return
            quiet = self._answered_at + self.GRACE - time.monotonic()
            if quiet <= 0 or time.monotonic() >= deadline:
                return
            time.sleep(min(quiet, max(0.0, deadline - time.monotonic())))


class _Saving:
    """The workspace's lock, as a save holds it: it notes the index's generation the
    first time it is taken, when the index is exported (the generation the file holds)."""

    def __init__(self, lock: threading.RLock, index: Index) -> None:
        self.lock = lock
        self.index = index
        self.generation: int | None = None

    def __enter__(self) -> None:
        self.lock.acquire()
        if self.generation is None:
            self.generation = self.index.generation

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def _kept_as(outcome: ScannedPair | PackedPair) -> ScannedPair | Packed:
    """What the scan store keeps of an outcome aligned now: a packed one as packed."""
    return outcome.packed if isinstance(outcome, PackedPair) else outcome


def _size(keys: DocumentKeys) -> int:
    return len(keys.fingerprints) + len(keys.sentence_keys) + len(keys.lexicon_keys)


@dataclass(frozen=True)
class _Prepared:
    """What reading one file gives the index: everything but the text itself; its keys
    are the ``slot``-th of its batch's (engine/keys_batch)."""

    digest: str
    mode: Mode
    chars: int
    slot: int


#: Below this many files to read, a refresh reads them itself rather than in workers.
PARALLEL_FROM = 64
#: Files are read and cut up in batches of at most this many (engine/joined) ...
BATCH_FILES = 256
#: ... and of at most this many bytes, unless one file is larger.
BATCH_BYTES = 1 << 20

_Job = tuple[str, str, Mode, int]  # path, root-relative name, mode, size in bytes
#: A batch of files prepared: each file's outcome, in order, and the keys of those read.
_PreparedBatch = tuple[list["_Prepared | NotText"], KeysBatch]


def _prepare_batch(jobs: list[_Job]) -> _PreparedBatch:
    """Read, decode and cut up a few files (in a worker process for big refreshes)."""
    results: list[_Prepared | NotText | None] = []
    read: list[tuple[int, str, Document]] = []
    for path, rel, mode, _ in jobs:
        try:
            data = read_bytes(path, rel)
            document = Document(rel, read_document(path, data), mode)
        except NotText as exc:
            results.append(exc.with_traceback(None))  # its frame would keep the batch alive
            continue
        except Exception as exc:  # a bug of ours or a library's: this file only
            results.append(_failed(rel, "read", exc))
            continue
        read.append((len(results), content_digest(data), document))
        results.append(None)
    try:
        keyed = keys_of([d for _, _, d in read])
    except Exception:  # one document broke the batch: key each alone, to find it
        keyed = [_keys_alone(d) for _, _, d in read]
    found: list[DocumentKeys] = []
    for (at, digest, document), keys in zip(read, keyed, strict=True):
        if isinstance(keys, NotText):
            results[at] = keys
        else:
            results[at] = _Prepared(digest, document.mode, len(document.text), len(found))
            found.append(keys)
    return [r for r in results if r is not None], KeysBatch.of(found)


def _keys_alone(document: Document) -> DocumentKeys | NotText:
    try:
        return document.keys
    except Exception as exc:
        return _failed(document.name, "cut up", exc)


def _failed(rel: str, step: str, exc: BaseException) -> NotText:
    """An unexpected failure on one file, as a skip with its reason (the traceback is
    logged at debug level, for a bug report)."""
    log.debug("%s could not be %s", rel, step, exc_info=exc)
    detail = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
    name = type(exc).__name__
    return NotText(
        rel,
        f"could not be {step} ({name}: {detail})" if detail else f"could not be {step} ({name})",
    )


def _batches(jobs: list[_Job]) -> list[list[_Job]]:
    """Consecutive runs of jobs, each at most BATCH_FILES files and BATCH_BYTES bytes."""
    batches: list[list[_Job]] = []
    size = 0
    for job in jobs:
        if not batches or len(batches[-1]) >= BATCH_FILES or size + job[3] > BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(job)
        size += job[3]
    return batches


def _prepare_all(jobs: list[_Job]) -> _Preparing:
    """Prepare files in order, on every core when there are many of them."""
    batches = _batches(jobs)
    count = parallel.workers()
    if not parallel.on_cluster() and (len(jobs) < PARALLEL_FROM or count < 2):
        done: Iterable[_PreparedBatch] = map(_prepare_batch, batches)
        each = ((outcome, keys) for outcomes, keys in done for outcome in outcomes)
        return _Preparing(each, len(jobs), in_workers=False)
    pool = parallel.process_pool(count)
    try:
        submitted = pool.map(_prepare_batch, batches)  # the workers start now, not when asked
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise

    def results() -> Iterator[tuple[_Prepared | NotText, KeysBatch]]:
        with pool:
            for outcomes, keys in submitted:
                for outcome in outcomes:
                    yield outcome, keys

    return _Preparing(results(), len(jobs), in_workers=True)


class _Preparing(parallel.Sized):
    """Files being prepared, in order, each with its batch's keys; ``in_workers``: by
    other processes."""

    def __init__(self, items: Iterable, length: int, in_workers: bool) -> None:
        super().__init__(items, length)
        self.in_workers = in_workers


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
        except (OSError, index_store.IndexFileError) as exc:  # a full disk, a file in the way
            log.error("could not save the index: %s", exc)

    def flush(self) -> None:
        with self._guard:
            pending = self._timer is not None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if pending:
            self._save()
