"""The JSON rendering: one JSON document, whatever the data, with a line per element."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from doublet.cli.report import json_pieces, render_json
from doublet.rows import Rows

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text())
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(st.text(), _VALUES, max_size=5))
def test_the_rendering_reads_back_as_the_data(data: dict) -> None:
    assert json.loads(render_json(data)) == data


def test_each_document_and_pair_is_on_a_line_of_its_own() -> None:
    data = {
        "documents": [{"id": 0, "path": 'a "b"\n}, {c'}, {"id": 1, "path": "é"}],
        "pairs": [{"a": 0, "b": 1, "passages": [{"a": {"start": 0}}]}],
        "skipped": [],
        "warnings": [],
    }
    lines = render_json(data).splitlines()
    assert lines[2] == '    {"id": 0, "path": "a \\"b\\"\\n}, {c"},'
    assert lines[3] == '    {"id": 1, "path": "é"}'
    assert lines[6] == '    {"a": 0, "b": 1, "passages": [{"a": {"start": 0}}]}'
    assert lines[-2:] == ['  "warnings": []', "}"]


@given(st.dictionaries(st.text(), st.lists(_VALUES, max_size=4), max_size=4))
def test_rows_made_as_they_are_read_render_as_the_list_they_make(data: dict) -> None:
    """A scan's documents and pairs are rows made as the rendering reads them
    (doublet/rows): the same text as the lists, read twice alike (the summary reads
    them before the rendering does)."""
    rows = {key: Rows(len(value), lambda value=value: iter(value)) for key, value in data.items()}
    assert render_json(rows) == render_json(data)
    assert "".join(json_pieces(rows)) == render_json(data)
