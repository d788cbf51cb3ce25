"""Fuzzing the readers (issue 13): whatever the bytes, a file is text or a skip with a
reason, and a doublet.toml is a configuration or a ConfigError naming the mistake.

Bounded in time: a few hundred examples each, every example a few milliseconds.
Random bytes are mutated from real files of each kind (a .docx, a PDF, a
notebook, HTML...), so that the fuzz reaches past the first check of a format.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublet.config import ConfigError
from doublet.config import load as load_config
from doublet.engine.document import Document
from doublet.engine.modes import MODES
from doublet.extract import KIND_BY_EXTENSION, extract
from doublet.skipped import NotText
from doublet.sources import decode
from tests.documents import make_docx, make_pdf

ODT = (
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
    '<text:p>Hello <text:s text:c="3"/>world<text:tab/>again</text:p>'
    "</office:text></office:body></office:document-content>"
)


def _odt() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", ODT)
    return out.getvalue()


SEEDS = {
    ".txt": "Plain prose, with “quotes” and ünïcödé.\n".encode(),
    ".html": b"<html><head><title>t</title><script>x()</script></head><body><p>Hi &amp; bye</p>",
    ".tex": rb"\documentclass{article}\begin{document}Text $x^2$ \emph{here} % c" + b"\n",
    ".md": b"# Title\n\n[link](http://x) and `code`\n\n```py\nprint(1)\n```\n",
    ".rst": b"Title\n=====\n\n.. note:: body\n\n:ref:`x` text\n",
    ".docx": make_docx(["First paragraph.", "Second one."]),
    ".pdf": make_pdf([["Hello world", "second line"]]),
    ".ipynb": json.dumps(
        {"cells": [{"cell_type": "markdown", "source": ["# T\n", "text"]}], "nbformat": 4}
    ).encode(),
    ".odt": _odt(),
    ".py": b"def f(x):\n    return x + 1  # comment\n",
}
# every format Doublet reads has a seed
assert {KIND_BY_EXTENSION[e] for e in SEEDS if e in KIND_BY_EXTENSION} == set(
    KIND_BY_EXTENSION.values()
)


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """The seed with a few bytes flipped, cut, or spliced with random ones."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.sampled_from(["flip", "cut", "insert"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if action == "flip" and data:
            data[at] ^= draw(st.integers(1, 255))
        elif action == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            data[at:at] = draw(st.binary(max_size=32))
    return bytes(data)


@pytest.mark.parametrize("extension", sorted(SEEDS))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_bytes_are_text_or_a_skip_with_a_reason(extension: str, data: st.DataObject) -> None:
    raw = data.draw(st.one_of(mutated(SEEDS[extension]), st.binary(max_size=512)))
    path = Path("fuzzed" + extension)
    try:
        text = extract(path, raw, decode)
    except NotText as exc:
        assert exc.reason and "\n" not in exc.reason
        return
    assert isinstance(text, str)
    mode = MODES["code" if extension == ".py" else "prose"]
    document = Document("fuzzed" + extension, text, mode)
    assert len(document.keys.fingerprints) >= 0  # cut up without an exception


toml_values = st.recursive(
    st.one_of(
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True),
        st.booleans(),
        st.text(max_size=20),
    ),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = [
    "min_similarity",
    "severity",
    "paraphrase",
    "boilerplate",
    "max_file_size",
    "include",
    "exclude",
    "templates",
    "references",
    "groups",
    "respect_gitignore",
    "modes",
    "ignore",
    "prose",
    "words",
    "code",
    "noise",
    "unknown",
]


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(KEYS), toml_values, max_size=5) | st.text(max_size=200),
)
def test_any_doublet_toml_is_a_configuration_or_a_named_mistake(
    tmp_path_factory: pytest.TempPathFactory, document: dict | str
) -> None:
    folder = tmp_path_factory.mktemp("toml")
    if isinstance(document, dict):
        text = "".join(f"{key} = {_toml(value)}\n" for key, value in document.items())
    else:
        text = document
    (folder / "doublet.toml").write_text(text, "utf-8", errors="surrogatepass")
    try:
        config = load_config(folder)
    except ConfigError as exc:
        assert str(exc).startswith(str(folder / "doublet.toml"))
        return
    config.mode_for("a.txt")
    config.is_included("a/b.txt")
    config.group_of("a/b.txt")
