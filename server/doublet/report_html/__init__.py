"""The teacher's report: one self-contained HTML file from a scan's data.

The page is static: the scan's data (the JSON of ``doublet scan``) and the text
of every document in a pair are inlined beside the styles and the script, so
the file opens from disk with no server and no network (its content security
policy forbids any). The script (report.js) draws every view from that data:
the overview (histogram, ranked pairs, clusters, heatmap), a pair side by side
and one document's partners. The command line and the editor both render
through :func:`render_html`, so they show the same report.
"""

from __future__ import annotations

import html
import json
import posixpath
import random
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import PurePosixPath

import numpy as np

from doublet import __version__

#: The threshold marked on the histogram, and above which pairs link clusters,
#: when neither the command line nor doublet.toml set one; the reader moves it.
DEFAULT_THRESHOLD = 0.5

_SURROGATE = re.compile("[\ud800-\udfff]")


def render_html(
    data: dict,
    texts: Mapping[int, str],
    *,
    title: str,
    threshold: float | None = None,
    anonymize: bool = False,
) -> str:
    """The report page for ``data`` (the shape of ``doublet scan --format json``).

    ``texts`` holds the text of each document id that appears in a pair; offsets in
    ``data`` count code points, the page's count UTF-16 units as JavaScript does.
    """
    payload = report_payload(data, texts, title=title, threshold=threshold, anonymize=anonymize)
    page = _asset("page.html")
    inlined = {
        "{{title}}": html.escape(payload["title"]),
        "{{style}}": _asset("report.css"),
        "{{script}}": _asset("report.js"),
        "{{data}}": _script_json(payload),
    }
    for marker, value in inlined.items():
        before, found, after = page.partition(marker)
        if not found:
            raise RuntimeError(f"report page template has no {marker}")
        page = before + value + after
    return page


def report_payload(
    data: dict,
    texts: Mapping[int, str],
    *,
    title: str,
    threshold: float | None = None,
    anonymize: bool = False,
) -> dict:
    """What the page's script reads: the scan's data, texts, names and the threshold."""
    documents = [dict(d, path=_without_lone_surrogates(d["path"])) for d in data["documents"]]
    _relative_to_common_folder(documents)
    if anonymize:
        aliases = anonymous_paths([d["path"] for d in documents])
        groups = _dealt(
            sorted({d["group"] for d in documents if "group" in d}),
            "student",
            random.SystemRandom(),
        )
        for document in documents:
            document["path"] = aliases[document["path"]]
            if "group" in document:
                document["group"] = groups[document["group"]]
    clean = {i: _without_lone_surrogates(t) for i, t in texts.items()}
    for document in documents:  # template text, in the page's offsets
        if "given" in document and document["id"] in clean:
            text = clean[document["id"]]
            flat = utf16_offsets(text, [o for span in document["given"] for o in span])
            document["given"] = [flat[i : i + 2] for i in range(0, len(flat), 2)]
        else:
            document.pop("given", None)
    pairs = []
    for pair in data["pairs"]:
        shown = dict(pair)
        shown["passages"] = [
            dict(
                p,
                a=_utf16_side(p["a"], clean[pair["a"]]),
                b=_utf16_side(p["b"], clean[pair["b"]]),
            )
            for p in pair["passages"]
        ]
        pairs.append(shown)
    skipped = [dict(s, path=_without_lone_surrogates(s["path"])) for s in data.get("skipped", [])]
    if anonymize:
        skipped = [{"path": "(hidden)", "reason": s["reason"]} for s in skipped]
    return {
        "title": title if not anonymize else "Doublet report",
        "version": __version__,
        "threshold": threshold or DEFAULT_THRESHOLD,
        "documents": documents,
        "pairs": pairs,
        "texts": {str(i): t for i, t in sorted(clean.items())},
        "skipped": skipped,
        "warnings": list(data.get("warnings", [])),
        "anonymized": anonymize,
    }


def _relative_to_common_folder(documents: list[dict]) -> None:
    """Paths shown under the folder all documents share (named in the title already)."""
    folders = [posixpath.dirname(d["path"].replace("\\", "/")) for d in documents]
    if len(documents) < 2 or any(f.startswith("/") != folders[0].startswith("/") for f in folders):
        return
    common = posixpath.commonpath(folders)
    if not common:
        return
    for document in documents:
        document["path"] = document["path"].replace("\\", "/")[len(common) :].lstrip("/")


def anonymous_paths(paths: list[str], rng: random.Random | None = None) -> dict[str, str]:
    """Each path with its folders and file name replaced by numbered aliases, the same
    name always by the same alias (a student's folder stays one student); the file
    extension is kept, since it says what kind of document it is. Aliases are dealt
    in a random order (``rng``): numbered in the paths' order, they would follow the
    class list's alphabetical order, and anyone holding the list could undo them."""
    rng = rng or random.SystemRandom()
    split = [PurePosixPath(path.replace("\\", "/")).parts for path in paths]
    folders = _dealt(sorted({f for parts in split for f in parts[:-1]}), "folder", rng)
    stems = _dealt(
        sorted({PurePosixPath(parts[-1]).stem for parts in split if parts}), "document", rng
    )
    aliases = {}
    for path, parts in zip(paths, split, strict=True):
        name = PurePosixPath(parts[-1]) if parts else PurePosixPath("")
        shown = [folders[f] for f in parts[:-1]] + [stems.get(name.stem, "document") + name.suffix]
        aliases[path] = "/".join(shown)
    return aliases


def _dealt(names: list[str], label: str, rng: random.Random) -> dict[str, str]:
    numbers = list(range(1, len(names) + 1))
    rng.shuffle(numbers)
    return {name: f"{label}-{number:03d}" for name, number in zip(names, numbers, strict=True)}


def _utf16_side(side: dict, text: str) -> dict:
    start, end = utf16_offsets(text, [side["start"], side["end"]])
    return dict(side, start=start, end=end)


def utf16_offsets(text: str, offsets: list[int]) -> list[int]:
    """Code point offsets into ``text`` as UTF-16 offsets (JavaScript's string indices)."""
    if text.isascii():
        return list(offsets)
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    wide = np.concatenate([[0], np.cumsum(points > 0xFFFF)])
    return [int(o + wide[min(o, len(text))]) for o in offsets]


def _without_lone_surrogates(text: str) -> str:
    """The text with surrogate code points (a broken file's, or a file name's that is not
    UTF-8) as U+FFFD: they cannot be written as UTF-8, and each is one code point and
    one UTF-16 unit either way, so offsets stay true."""
    return _SURROGATE.sub("\ufffd", text)


def _script_json(payload: dict) -> str:
    """JSON safe inside <script type="application/json">: every "<" escaped (it occurs
    only inside strings), so neither "</script>" nor "<!--" can end or bend the element."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
