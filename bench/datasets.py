"""Loaders for the benchmark corpora under the shared data directory.

The data lives outside the repository (default ``/work/shared/data``, or the
directory named by ``$DOUBLET_DATA``); benchmarks read it, unit tests must not.

PAN 2013 text alignment (training): the tarball is extracted once into
``bench/.cache/`` (gitignored). Texts are strict UTF-8 without BOM or CR, and
the XML offsets count code points of the decoded text, so texts are decoded
from bytes as they are (no newline translation, nothing stripped or repaired,
not even the stray control characters some texts carry): offsets index the
returned ``str`` directly. Pairs without cases are negatives: all of
01-no-plagiarism and 947 of the 1,185 pairs of 05-summary-obfuscation.

Clough & Stevenson (2011) short-answer corpus: files mix ASCII, UTF-8 and
cp1252, so they are decoded UTF-8 first, cp1252 otherwise.

IR-Plag (Karnalim 2019), Java: the zip is extracted once into ``bench/.cache/``
like PAN. Each of seven cases has one original, 15 independent solutions and
up to 9 plagiarised ones per disguise level L1..L6. Files are decoded UTF-8,
else cp1252, else latin-1, bytes as they are (CRLF kept).
"""

from __future__ import annotations

import csv
import gzip
import os
import shutil
import tarfile
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bench.pan_measures import Alignment

DATA_ENV = "DOUBLET_DATA"
DEFAULT_DATA = Path("/work/shared/data")
CACHE_DIR = Path(__file__).resolve().parent / ".cache"

PAN13_ARCHIVE = "pan13-train.tar.xz"
PAN13_DIR = "pan13-train"  # top folder inside the archive
PAN13_FOLDERS = (
    "01-no-plagiarism",
    "02-no-obfuscation",
    "03-random-obfuscation",
    "04-translation-obfuscation",
    "05-summary-obfuscation",
)


class DataUnavailable(FileNotFoundError):
    """The shared benchmark data is missing; benchmarks cannot run."""


def data_dir() -> Path:
    """The shared data directory, checked to exist."""
    path = Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)
    if not path.is_dir():
        raise DataUnavailable(
            f"benchmark data directory {path} not found; "
            f"set ${DATA_ENV} to the folder holding {PAN13_ARCHIVE} and clough-stevenson/"
        )
    return path


# --- PAN 2013 -------------------------------------------------------------------------


@dataclass(frozen=True)
class PanPair:
    """One suspicious/source document pair and its true plagiarism cases."""

    folder: str
    susp: str  # file name under susp/, e.g. "suspicious-document00005.txt"
    src: str  # file name under src/
    cases: tuple[Alignment, ...]  # empty for negative pairs


@dataclass
class Pan13:
    """The extracted corpus: pairs per folder and a caching text loader."""

    root: Path
    folders: dict[str, tuple[PanPair, ...]]
    _read: Callable[[str, str], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Per-instance cache: each document is shared by many pairs.
        self._read = lru_cache(maxsize=None)(self._read_uncached)

    def pairs(self, folder: str | None = None) -> list[PanPair]:
        """Pairs of one folder, or of all folders in order."""
        if folder is not None:
            return list(self.folders[folder])
        return [p for f in self.folders.values() for p in f]

    def susp_text(self, name: str) -> str:
        return self._read("susp", name)

    def src_text(self, name: str) -> str:
        return self._read("src", name)

    def _read_uncached(self, kind: str, name: str) -> str:
        # Decode bytes ourselves: read_text() would translate newlines.
        return (self.root / kind / name).read_bytes().decode("utf-8")


def pan13(root: Path | None = None) -> Pan13:
    """Load PAN 2013 text alignment training data.

    ``root`` is an extracted corpus folder (holding ``src/``, ``susp/`` and the
    numbered folders); without it the shared tarball is extracted once into
    ``bench/.cache/`` and reused.
    """
    root = Path(root) if root is not None else _extract_pan13()
    missing = [d for d in ("src", "susp", *PAN13_FOLDERS) if not (root / d).is_dir()]
    if missing:
        raise DataUnavailable(f"{root} is not a PAN 2013 corpus (missing {', '.join(missing)})")
    folders = {f: tuple(_read_pan_folder(root, f)) for f in PAN13_FOLDERS}
    return Pan13(root=root, folders=folders)


def _extract_pan13() -> Path:
    """Extract the tarball into the cache unless done."""

    def untar(archive: Path, into: Path) -> None:
        with tarfile.open(archive) as tar:
            # "data" filter: no absolute paths, links out of tree or devices.
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(into, **safe)

    return _extract_once(PAN13_ARCHIVE, PAN13_DIR, "pairs", untar)


def _extract_once(
    archive_name: str, top: str, marker: str, extract: Callable[[Path, Path], None]
) -> Path:
    """``top`` of the shared archive, extracted into the cache unless there already.

    ``marker`` (a path inside ``top``) says the extraction is complete. Safe if
    two runs race: each extracts into its own temporary folder and renames it.
    """
    target = CACHE_DIR / top
    if (target / marker).exists():
        return target
    archive = data_dir() / archive_name
    if not archive.is_file():
        raise DataUnavailable(f"{archive} not found")
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{top}-", dir=CACHE_DIR))
    try:
        extract(archive, tmp)
        if not (tmp / top / marker).exists():
            raise DataUnavailable(f"{archive} has no {top}/{marker}")
        try:
            (tmp / top).rename(target)  # atomic: readers never see half a corpus
        except OSError:
            if not (target / marker).exists():
                raise  # not a lost race: a real failure
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _read_pan_folder(root: Path, folder: str) -> list[PanPair]:
    """Pairs in the order of the folder's ``pairs`` file, with their cases."""
    out = []
    for line in (root / folder / "pairs").read_text("utf-8").splitlines():
        if not line.strip():
            continue
        susp, src = line.split()
        xml = root / folder / f"{Path(susp).stem}-{Path(src).stem}.xml"
        out.append(PanPair(folder, susp, src, tuple(_read_cases(xml, susp, src))))
    return out


def _read_cases(xml: Path, susp: str, src: str) -> list[Alignment]:
    """The ``plagiarism`` features of one truth file, checked against the pair."""
    doc = ET.parse(xml).getroot()
    if doc.get("reference") != susp:
        raise ValueError(f"{xml}: reference {doc.get('reference')!r}, expected {susp!r}")
    cases = []
    for feat in doc.iter("feature"):
        if feat.get("name") != "plagiarism":
            continue  # "about" and "md5" metadata
        if feat.get("source_reference") != src:
            raise ValueError(f"{xml}: case from {feat.get('source_reference')!r}, not {src!r}")
        cases.append(
            Alignment(
                int(feat.attrib["this_offset"]),
                int(feat.attrib["this_length"]),
                int(feat.attrib["source_offset"]),
                int(feat.attrib["source_length"]),
            )
        )
    return cases


# --- Clough & Stevenson ---------------------------------------------------------------


@dataclass(frozen=True)
class CsAnswer:
    """A student answer: ``category`` is cut, light, heavy or non (not copied)."""

    name: str
    task: str  # "a" .. "e"
    category: str
    text: str


@dataclass(frozen=True)
class CloughStevenson:
    answers: tuple[CsAnswer, ...]
    originals: dict[str, str]  # task -> Wikipedia source text


def clough_stevenson(root: Path | None = None) -> CloughStevenson:
    """Load the corpus from ``root`` (default: ``<data>/clough-stevenson``)."""
    root = Path(root) if root is not None else data_dir() / "clough-stevenson"
    index = root / "file_information.csv"
    if not index.is_file():
        raise DataUnavailable(f"{index} not found")
    answers, originals = [], {}
    with index.open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            name, task, category = row["File"], row["Task"], row["Category"]
            text = _decode_legacy((root / name).read_bytes())
            if category == "orig":
                originals[task] = text
            else:
                answers.append(CsAnswer(name, task, category, text))
    orphans = {a.task for a in answers} - originals.keys()
    if orphans:
        raise ValueError(f"{index}: no original for task(s) {sorted(orphans)}")
    return CloughStevenson(tuple(answers), originals)


def _decode_legacy(data: bytes) -> str:
    """UTF-8, else cp1252; C1 controls left by a cp1252 mix-up become cp1252 text.

    One UTF-8 answer carries U+0091/U+0092 where ‘ ’ were meant; mapping C1
    code points through cp1252 repairs such quotes without changing length.
    """
    try:
        return data.decode("utf-8").translate(_C1_AS_CP1252)
    except UnicodeDecodeError:
        return data.decode("cp1252")


def _cp1252_or_none(byte: int) -> str | None:
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d are unassigned
        return None


_C1_AS_CP1252 = {b: c for b in range(0x80, 0xA0) if (c := _cp1252_or_none(b)) is not None}


# --- Novels ---------------------------------------------------------------------------

NOVEL_CHUNK = 20_000


def novel_files() -> list[Path]:
    """The gzipped novels in file-name order (the order ANCHORS.md used)."""
    folder = data_dir() / "novels"
    if not folder.is_dir():
        raise DataUnavailable(f"{folder} not found")
    return sorted(folder.glob("*.txt.gz"))


def chunk_text(text: str, size: int = NOVEL_CHUNK) -> list[str]:
    """Cut text at a newline (else a space) into pieces of at most ``size`` characters."""
    pieces = []
    start = 0
    while start < len(text):
        stop = min(start + size, len(text))
        if stop < len(text):
            cut = text.rfind("\n", start + 1, stop)
            if cut <= start:
                cut = text.rfind(" ", start + 1, stop)
            if cut > start:
                stop = cut + 1
        pieces.append(text[start:stop])
        start = stop
    return pieces


def novel_chunks(count: int) -> Path:
    """A folder of the first ``count`` novels cut into ~20 KB documents (made once, cached)."""
    folder = CACHE_DIR / f"novels-{count}"
    done = folder / ".complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    for novel in novel_files()[:count]:
        text = gzip.decompress(novel.read_bytes()).decode("utf-8", errors="replace")
        stem = novel.name.removesuffix(".txt.gz")
        for i, piece in enumerate(chunk_text(text)):
            (folder / f"{stem}-{i:04d}.txt").write_text(piece, encoding="utf-8")
    done.touch()
    return folder


# --- IR-Plag (Java) -------------------------------------------------------------------

IR_PLAG_ARCHIVE = "ir-plag.zip"
IR_PLAG_DIR = "IR-Plag-Dataset"  # top folder inside the archive
IR_PLAG_INDEPENDENT = "non-plagiarized"
IR_PLAG_LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6")


@dataclass(frozen=True)
class IrPlagSubmission:
    """One student file: ``label`` is a disguise level L1..L6 or "non-plagiarized"."""

    path: str  # relative to the case folder, e.g. "plagiarized/L3/05/Kasus1L3.java"
    label: str
    text: str


@dataclass(frozen=True)
class IrPlagCase:
    """One task: its original solution and the submissions to score against it."""

    name: str  # "case-01" .. "case-07"
    original_path: str
    original: str
    submissions: tuple[IrPlagSubmission, ...]


def ir_plag(root: Path | None = None) -> list[IrPlagCase]:
    """Load IR-Plag's cases in name order, submissions in path order.

    ``root`` is an extracted ``IR-Plag-Dataset`` folder; without it the shared
    zip is extracted once into ``bench/.cache/`` and reused.
    """
    root = Path(root) if root is not None else _extract_ir_plag()
    cases = [_read_ir_plag_case(folder) for folder in sorted(root.glob("case-*"))]
    if not cases:
        raise DataUnavailable(f"{root} has no case-* folders")
    return cases


def _read_ir_plag_case(folder: Path) -> IrPlagCase:
    """The case's single original and its labelled submissions."""
    originals = sorted((folder / "original").glob("*.java"))
    if len(originals) != 1:
        raise ValueError(f"{folder}: expected one original .java, found {len(originals)}")
    labelled = [(IR_PLAG_INDEPENDENT, folder / IR_PLAG_INDEPENDENT)]
    labelled += [(level, folder / "plagiarized" / level) for level in IR_PLAG_LEVELS]
    submissions = [
        IrPlagSubmission(path.relative_to(folder).as_posix(), label, _decode_code(path))
        for label, parent in labelled
        for path in sorted(parent.glob("*/*.java"))
    ]
    return IrPlagCase(
        name=folder.name,
        original_path=originals[0].relative_to(folder).as_posix(),
        original=_decode_code(originals[0]),
        submissions=tuple(submissions),
    )


def _decode_code(path: Path) -> str:
    """UTF-8, else cp1252, else latin-1 (which accepts any byte)."""
    data = path.read_bytes()
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _extract_ir_plag() -> Path:
    """Extract the zip into the cache unless done."""

    def unzip(archive: Path, into: Path) -> None:
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(into)  # zipfile drops absolute paths and ".." itself

    return _extract_once(IR_PLAG_ARCHIVE, IR_PLAG_DIR, "case-01", unzip)
