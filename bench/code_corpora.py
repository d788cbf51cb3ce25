"""Labelled source-code plagiarism corpora as one shape: tasks, files, labelled pairs.

Two corpora, so that code-ranking weights can be chosen on one and checked on
the other (leave one corpus out):

Ljubović & Pajić (2020), "Programming Homework Dataset for Plagiarism
Detection", IEEE DataPort, doi:10.21227/71fw-ss32, open access under CC BY 4.0
(cite: V. Ljubović, E. Pajić, "Plagiarism detection in computer programming
using feature extraction from ultra-fine-grained repositories", IEEE Access 8,
96505-96514, 2020). Real homework of two introductory courses at the University
of Sarajevo: course A in C (A2016, A2017), course B in C++ (B2016, B2017), one
file per student per assignment ("student1234.c"), anonymised. Plagiarism was
judged by the teachers: ``ground-truth-static-anon.txt`` lists, per assignment,
groups of students whose code was found too similar (mutual plagiarism);
``ground-truth-dynamic-anon.txt`` students who failed an oral defence, alone or
in groups; ``ground-truth-anon.txt`` both. B2017 has no ground truth and
B2016/Z6 has ground truth but no code, so neither is loaded. The IDE traces
("stats") are not used and not kept.

  Labels (``truth="static"``, the default; ``"all"`` uses ground-truth-anon):
  a pair is plagiarised when both students are in one group of that file. A
  pair is left unlabelled (neither positive nor negative) when: either student
  is listed alone in any ground-truth file (they copied from someone unknown);
  the two share a group in another ground-truth file only; or it is a pair no
  teacher flagged but which cannot be independent work: the two files are the
  same once comments and whitespace are dropped, or the two ids look like one
  person (files the same in 3+ assignments of the course and in at least half
  of those both handed in, never grouped: 1.2k such id pairs, mostly A2017
  and B2016), or either is that way tied to a group member of the other.
  Every other pair is a negative. Stubs are dropped: files with under
  ``min_core`` (150) characters once comments and whitespace are gone (the
  course's template, "hello" stubs, abandoned starts; 6,413 of 32,386
  files, most of them 50-75 characters). Loaded with the defaults: 61 tasks (A2016 18,
  A2017 20, B2016 23), 25,973 files, 1,358 positive and 6,138,887 negative
  pairs, 492,814 unlabelled (positives: A2016 908, A2017 402, B2016 only 48).

  Caveats: the "static" truth was itself found with a similarity tool and
  confirmed by teachers, so it favours what such tools see; unflagged
  plagiarism surely remains among the negatives (about 1.6k negatives have a
  5-gram Jaccard of 0.9 or more on identifier-blind tokens, against 359 of
  the positives), partly because early assignments are short programs whose
  independent solutions converge; files are the final workspace state, some
  with the course's header comment (kept). Evaluate per task (ranking within
  an assignment); positives are rare (about 1 in 4,500 labelled pairs).

  Source: the dataset's raw files as mirrored on GitHub in
  vfrunza/GPLAG-Plagerism-Detection (no licence of its own; it redistributes
  the dataset), commit 4f5f60a00d829cf67211fb5c05f8a262cb5595bf, folder
  GPLAG-Backend/GPLAG-Backend/Data (later commits of that repository hold only
  part of it, some reformatted). It is kept in ``bench/.cache/ljubovic-homework/``
  (gitignored; FETCHED.md there says how to rebuild it). Files are strict
  UTF-8 (else cp1250, else latin-1), decoded from bytes as they are (CRLF kept).

IR-Plag (Karnalim 2019, Java), from ``bench.datasets.ir_plag``: one
task per case; the labelled pairs are the original against each submission
(positive: L1..L6, negative: the 15 independent solutions), as the dataset is
meant to be used; pairs between submissions are not labelled.

    from bench.code_corpora import ljubovic_homework
    for task in ljubovic_homework():          # list[CodeTask]
        texts = {f.name: f.text for f in task.files}
        for pair in task.pairs():             # every labelled pair, lazily
            ...pair.a, pair.b, pair.plagiarised

    python -m bench.code_corpora               # statistics of both corpora
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bench.datasets import CACHE_DIR, IR_PLAG_INDEPENDENT, DataUnavailable, ir_plag

LJUBOVIC_DIR = CACHE_DIR / "ljubovic-homework"
LJUBOVIC_TRUTH = {
    "static": "ground-truth-static-anon.txt",
    "dynamic": "ground-truth-dynamic-anon.txt",
    "all": "ground-truth-anon.txt",
}
MIN_CORE = 150  # characters left without comments and whitespace; fewer = a stub
ALIAS_TASKS = 3  # same core text in this many assignments (and half those shared): one person
_STUDENT_FILE = re.compile(r"(student\d+)\.(c|cpp)")
# string and char literals are matched so that "//" inside them is not a comment
_COMMENT_OR_LITERAL = re.compile(
    r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S
)


@dataclass(frozen=True)
class CodeFile:
    """One submission: ``name`` is unique in its task, ``author`` who wrote it."""

    name: str  # "student1013.c"; IR-Plag: "plagiarized/L3/05/Kasus1L3.java"
    author: str  # "student1013"; IR-Plag: "original" or the submission's folder
    text: str


@dataclass(frozen=True)
class CodePair:
    """A labelled pair of file names of one task, ``a`` < ``b``."""

    a: str
    b: str
    plagiarised: bool


@dataclass(frozen=True)
class CodeTask:
    """One exercise: its files and which of their pairs are labelled how.

    Pair keys are sorted ``(name, name)`` tuples. With ``negatives`` None, every
    pair that is not positive, not in ``unlabelled`` and has no file in
    ``suspects`` is a negative; otherwise only the listed pairs are labelled.
    """

    corpus: str  # "ljubovic" | "ir-plag"
    name: str  # "A2016/Z1/Z1" | "case-01"
    language: str  # "c" | "cpp" | "java"
    files: tuple[CodeFile, ...]
    positives: frozenset[tuple[str, str]]
    negatives: frozenset[tuple[str, str]] | None = None
    unlabelled: frozenset[tuple[str, str]] = frozenset()
    suspects: frozenset[str] = frozenset()  # file names whose pairs are all unlabelled

    def label(self, a: str, b: str) -> bool | None:
        """True plagiarised, False independent, None unknown (or the same file)."""
        if a == b:
            return None
        key = (a, b) if a < b else (b, a)
        if key in self.positives:
            return True
        if self.negatives is not None:
            return False if key in self.negatives else None
        if a in self.suspects or b in self.suspects or key in self.unlabelled:
            return None
        return False

    def pairs(self) -> Iterator[CodePair]:
        """Every labelled pair, in file-name order."""
        if self.negatives is not None:
            keys: Iterable[tuple[str, str]] = sorted(self.positives | self.negatives)
        else:
            keys = itertools.combinations(sorted(f.name for f in self.files), 2)
        for a, b in keys:
            label = self.label(a, b)
            if label is not None:
                yield CodePair(a, b, label)


# --- Ljubović & Pajić 2020 -------------------------------------------------------------


def ljubovic_homework(
    root: Path | None = None, truth: str = "static", min_core: int = MIN_CORE
) -> list[CodeTask]:
    """The labelled assignments (A2016, A2017, B2016), in name order.

    ``root`` holds ``src/`` and the ground-truth files (default
    ``bench/.cache/ljubovic-homework``); ``truth`` is "static" (similarity
    found by the teachers) or "all" (also failed oral defences); files with
    fewer than ``min_core`` characters without comments and whitespace are
    dropped as stubs. Loading takes about 15 seconds; the result is cached.
    """
    root = Path(root) if root is not None else LJUBOVIC_DIR
    return list(_ljubovic_cached(root, truth, min_core))


@lru_cache(maxsize=4)
def _ljubovic_cached(root: Path, truth: str, min_core: int) -> tuple[CodeTask, ...]:
    if truth not in ("static", "all"):
        raise ValueError(f"truth must be 'static' or 'all', not {truth!r}")
    if not (root / "src").is_dir() or not (root / LJUBOVIC_TRUTH["all"]).is_file():
        raise DataUnavailable(
            f"{root} has no src/ and ground truth; see bench/code_corpora.py for the source"
        )
    truths = {kind: _read_truth(root / file) for kind, file in LJUBOVIC_TRUTH.items()}
    labelled = sorted(truths["all"])
    files = {name: _read_task(root / "src" / name, min_core) for name in labelled}
    files = {name: task for name, task in files.items() if task}  # B2016/Z6: no code
    aliases = _aliases(files, truths)
    tasks = [
        _ljubovic_task(name, files[name], truths, truth, aliases[name.split("/")[0]])
        for name in sorted(files)
    ]
    if not tasks:
        raise DataUnavailable(f"{root} has no labelled assignments")
    return tuple(tasks)


def _read_truth(path: Path) -> dict[str, list[frozenset[str]]]:
    """Assignment -> its lines: a group of students (one or more) each."""
    truth: dict[str, list[frozenset[str]]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("-"):
            current = truth.setdefault(line[1:].strip(), [])
        elif line and current is not None:
            current.append(frozenset(s.strip() for s in line.split(",") if s.strip()))
    return truth


def _read_task(folder: Path, min_core: int) -> dict[str, tuple[CodeFile, str]]:
    """Author -> (file, core text) for the folder's non-stub student files."""
    out = {}
    for path in sorted(folder.glob("*")):
        match = _STUDENT_FILE.fullmatch(path.name)
        if not match or not path.is_file():
            continue  # a few nameless ".c"/".cpp" files
        text = _decode(path.read_bytes())
        core = _core(text)
        if len(core) >= min_core:
            out[match.group(1)] = (CodeFile(path.name, match.group(1), text), core)
    return out


def _core(text: str) -> str:
    """The text without comments and whitespace: equal cores = the same program."""
    stripped = _COMMENT_OR_LITERAL.sub(lambda m: m.group() if m.group()[0] in "\"'" else " ", text)
    return re.sub(r"\s+", "", stripped)


def _decode(data: bytes) -> str:
    """UTF-8 (all files today), else cp1250 (Bosnian on Windows), else latin-1."""
    for encoding in ("utf-8", "cp1250"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _aliases(
    files: dict[str, dict[str, tuple[CodeFile, str]]],
    truths: dict[str, dict[str, list[frozenset[str]]]],
) -> dict[str, set[tuple[str, str]]]:
    """Course -> author pairs that look like one person under two ids.

    Same core text in at least ALIAS_TASKS assignments of the course and in at
    least half of those both handed in, and never in one ground-truth group.
    """
    same: dict[tuple[str, str, str], int] = defaultdict(int)  # (course, a, b) -> tasks
    both: dict[tuple[str, str, str], int] = defaultdict(int)
    grouped = set()
    for truth in truths.values():
        for name, groups in truth.items():
            course = name.split("/")[0]
            for group in groups:
                grouped.update((course, *p) for p in itertools.combinations(sorted(group), 2))
    for name, authors in files.items():
        by_core = defaultdict(list)
        for author, (_, core) in authors.items():
            by_core[core].append(author)
        for group in by_core.values():
            for pair in itertools.combinations(sorted(group), 2):
                same[(name.split("/")[0], *pair)] += 1
    for name, authors in files.items():
        course = name.split("/")[0]
        for key in same:
            if key[0] == course and key[1] in authors and key[2] in authors:
                both[key] += 1
    aliases: dict[str, set[tuple[str, str]]] = {n.split("/")[0]: set() for n in files}
    for key, count in same.items():
        if count >= ALIAS_TASKS and 2 * count >= both[key] and key not in grouped:
            aliases[key[0]].add((key[1], key[2]))
    return aliases


def _ljubovic_task(
    name: str,
    authors: dict[str, tuple[CodeFile, str]],
    truths: dict[str, dict[str, list[frozenset[str]]]],
    truth: str,
    aliases: set[tuple[str, str]],
) -> CodeTask:
    """One assignment's files and labels (see the module docstring)."""
    file_of = {author: f.name for author, (f, _) in authors.items()}
    present = set(file_of)

    def named(pairs: Iterable[tuple[str, str]]) -> frozenset[tuple[str, str]]:
        return frozenset(
            tuple(sorted((file_of[a], file_of[b])))
            for a, b in pairs
            if a in present and b in present and a != b
        )

    def group_pairs(kind: str) -> set[tuple[str, str]]:
        return {
            pair
            for group in truths[kind].get(name, [])
            if len(group) > 1
            for pair in itertools.combinations(sorted(group), 2)
        }

    positives = group_pairs(truth)
    any_grouped = group_pairs("static") | group_pairs("dynamic") | group_pairs("all")
    suspects = {s for kind in truths for g in truths[kind].get(name, []) if len(g) == 1 for s in g}
    # one class per program: the same core text, or the same person under two ids
    parent = {a: a for a in present}

    def find(a: str) -> str:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    by_core = defaultdict(list)
    for author, (_, core) in authors.items():
        by_core[core].append(author)
    ties = [(g[0], other) for g in by_core.values() for other in g[1:]]
    ties += [(a, b) for a, b in aliases if a in present and b in present]
    for a, b in ties:
        parent[find(a)] = find(b)
    classes = defaultdict(set)
    for a in present:
        classes[find(a)].add(a)
    linked = {(find(a), find(b)) for a, b in any_grouped if a in present and b in present}
    unlabelled = set(any_grouped - positives)
    for members in classes.values():
        unlabelled.update(itertools.combinations(sorted(members), 2))
    for ca, cb in linked:
        if ca != cb:
            unlabelled.update(itertools.product(classes[ca], classes[cb]))
    named_positives = named(positives)
    return CodeTask(
        corpus="ljubovic",
        name=name,
        language="c" if name.startswith("A") else "cpp",
        files=tuple(authors[a][0] for a in sorted(authors, key=lambda a: file_of[a])),
        positives=named_positives,
        unlabelled=named(unlabelled) - named_positives,
        suspects=frozenset(file_of[s] for s in suspects if s in present),
    )


# --- IR-Plag, the same shape ----------------------------------------------------------


def ir_plag_tasks(root: Path | None = None) -> list[CodeTask]:
    """IR-Plag's seven cases: the original against each submission, labelled."""
    tasks = []
    for case in ir_plag(root):
        original = CodeFile(case.original_path, "original", case.original)
        subs = [CodeFile(s.path, s.path.rsplit("/", 1)[0], s.text) for s in case.submissions]

        def key(path: str, original: str = original.name) -> tuple[str, str]:
            return (path, original) if path < original else (original, path)

        independent = {s.path for s in case.submissions if s.label == IR_PLAG_INDEPENDENT}
        tasks.append(
            CodeTask(
                corpus="ir-plag",
                name=case.name,
                language="java",
                files=(original, *subs),
                positives=frozenset(key(f.name) for f in subs if f.name not in independent),
                negatives=frozenset(key(f.name) for f in subs if f.name in independent),
            )
        )
    return tasks


# --- statistics -----------------------------------------------------------------------


def _stats(label: str, tasks: list[CodeTask]) -> None:
    """One Markdown row per group of tasks (course or corpus), and a total."""
    rows = defaultdict(lambda: [0, 0, 0, 0, 0, set()])
    for task in tasks:
        group = task.name.split("/")[0] if task.corpus == "ljubovic" else task.corpus
        row = rows[group]
        row[0] += 1
        row[1] += len(task.files)
        for pair in task.pairs():
            row[2 if pair.plagiarised else 3] += 1
        n = len(task.files)
        row[4] += n * (n - 1) // 2
        row[5].add(task.language)
    print(f"\n{label}\n")
    print("| group | tasks | files | positive pairs | negative pairs | unlabelled | language |")
    print("|---|---:|---:|---:|---:|---:|---|")
    total = [0, 0, 0, 0, 0, set()]
    for group, row in sorted(rows.items()):
        unl = row[4] - row[2] - row[3]
        print(
            f"| {group} | {row[0]} | {row[1]} | {row[2]} | {row[3]} | {unl} | "
            f"{', '.join(sorted(row[5]))} |"
        )
        for i in range(5):
            total[i] += row[i]
        total[5] |= row[5]
    if len(rows) > 1:
        unl = total[4] - total[2] - total[3]
        print(
            f"| all | {total[0]} | {total[1]} | {total[2]} | {total[3]} | {unl} | "
            f"{', '.join(sorted(total[5]))} |"
        )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    truth = args[0] if args else "static"
    _stats(
        f"Ljubović & Pajić 2020 (truth={truth}, min_core={MIN_CORE})",
        ljubovic_homework(truth=truth),
    )
    try:
        _stats("IR-Plag (original vs each submission)", ir_plag_tasks())
    except DataUnavailable as err:
        print(f"\nIR-Plag unavailable: {err}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
