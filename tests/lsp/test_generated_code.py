"""The compiled methods of the protocol's attrs classes, kept between server starts
(doublet/lsp/generated_code): the same classes either way, and a cache that is
missing, damaged or unwritable only means compiling as before."""

from __future__ import annotations

import json
import marshal
import subprocess
import sys
import types
from pathlib import Path

from doublet.lsp import generated_code
from doublet.lsp.generated_code import Reuse, cache_path

# A fresh interpreter: attrs's classes are made once per process, at pygls's import.
IMPORT_PYGLS = """
import json, sys
from pathlib import Path
from doublet.lsp.generated_code import kept_generated_code
with kept_generated_code(Path(sys.argv[1])) as reuse:
    from doublet.lsp import handlers  # what `doublet serve` imports under it
from lsprotocol import converters, types
position = types.Position(line=1, character=2)
opened = types.DidOpenTextDocumentParams(
    text_document=types.TextDocumentItem(uri="file:///a.txt", language_id="plaintext",
                                          version=3, text="x")
)
converter = converters.get_converter()
print(json.dumps({
    "kept": reuse.kept,
    "compiled": reuse.compiled,
    "equal": position == types.Position(line=1, character=2),
    "unequal": position != types.Position(line=2, character=2),
    "repr": repr(position),
    "unstructured": converter.unstructure(opened),
    "round_trip": converter.structure(converter.unstructure(opened),
                                      types.DidOpenTextDocumentParams) == opened,
}))
"""


def imported(folder: Path) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", IMPORT_PYGLS, str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(run.stdout)


def without_counts(found: dict) -> dict:
    return {k: v for k, v in found.items() if k not in ("kept", "compiled")}


def test_the_second_start_compiles_nothing_and_makes_the_same_classes(tmp_path: Path) -> None:
    first = imported(tmp_path)
    assert first["kept"] == 0 and first["compiled"] > 300  # lsprotocol's classes, pygls's
    assert cache_path(tmp_path).is_file()
    written = cache_path(tmp_path).stat().st_mtime_ns
    second = imported(tmp_path)
    # all but a hashable class's __hash__, whose text holds a hash of its name (random
    # per process); and so few compiled that the cache is not written again
    assert second["compiled"] <= 2 and second["kept"] + second["compiled"] == first["compiled"]
    assert cache_path(tmp_path).stat().st_mtime_ns == written
    assert without_counts(second) == without_counts(first)
    assert first["equal"] and first["unequal"] and first["round_trip"]
    assert first["repr"] == "1:2"  # lsprotocol's own __repr__ of a position
    assert first["unstructured"]["textDocument"]["languageId"] == "plaintext"


def test_a_damaged_cache_is_compiled_again_and_replaced(tmp_path: Path) -> None:
    expected = imported(tmp_path)
    path = cache_path(tmp_path)
    whole = path.read_bytes()
    for damaged in (b"garbage", whole[: len(whole) // 2], marshal.dumps({"a": 1})):
        path.write_bytes(damaged)
        found = imported(tmp_path)
        assert found["kept"] == 0 and found["compiled"] == expected["compiled"]
        assert without_counts(found) == without_counts(expected)
        assert imported(tmp_path)["compiled"] <= 2  # written anew, whole


def test_an_unwritable_cache_folder_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    found = imported(blocked)  # the cache's folder cannot be made
    assert found["kept"] == 0 and found["compiled"] > 300 and found["round_trip"]


def test_kept_code_is_compiled_as_the_module_itself_would() -> None:
    """A module's own ``compile`` inherits its ``from __future__`` imports: so must ours."""
    module = types.ModuleType("m")
    exec("from __future__ import annotations", module.__dict__)
    futures = generated_code._future_flags(module)
    assert futures == __import__("__future__").annotations.compiler_flag
    kept: dict = {}
    used: dict = {}
    compile_as_module = generated_code._compiler(kept, used, futures, Reuse())
    source = "def f(x: undefined_name) -> int:\n    return x\n"
    code = compile_as_module(source, "<generated f>", "exec")
    space: dict = {}
    exec(code, space)  # the annotation is not evaluated: postponed, as in the module
    assert space["f"].__annotations__ == {"x": "undefined_name", "return": "int"}
    assert used == {("exec", "<generated f>", source): code}
    # given back from ``kept``, the same code: compiled from the same text
    reuse = Reuse()
    again = generated_code._compiler(used, {}, futures, reuse)(source, "<generated f>", "exec")
    assert again is code and (reuse.kept, reuse.compiled) == (1, 0)
