"""The methods attrs writes for the protocol's classes, compiled once and kept.

pygls's protocol types (lsprotocol) are some 570 attrs classes, made when the
language server imports pygls. attrs writes each class's methods (``__init__``,
``__eq__``, ``__repr__``, ...) as source text and compiles it: 0.2 s of every
start, a fifth of the time to the first diagnostics of a 100,000-document folder.
The text is the same at every start, so the code compiled from it is kept in the
user's cache folder, as Python keeps modules' bytecode in ``__pycache__``. A piece
of code is used again only for the very source text and file name it was compiled
from, by the same interpreter version; a cache that is missing, unreadable or
damaged means compiling as before. Only the standard library is imported here:
this runs before pygls is.
"""

from __future__ import annotations
import __future__

import builtins
import contextlib
import logging
import marshal
import os
import sys
import tempfile
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: The module of attrs that compiles the methods it writes.
ATTRS_MAKER = "attr._make"

#: (mode, file name, source) -> code
Kept = dict[tuple[str, str, str], types.CodeType]


@dataclass
class Reuse:
    """What a block under :func:`kept_generated_code` took from the cache (``kept``) and
    compiled anew (``compiled``)."""

    kept: int = 0
    compiled: int = 0


_FEATURE = type(__future__.annotations)  # what a ``from __future__`` import binds

#: The cache is written again when this many of the methods, and this share of them,
#: were compiled anew (the first start; attrs or pygls upgraded). A few are compiled
#: at every start: a hashable class's ``__hash__`` holds the hash of its name, which
#: differs from one process to the next.
REWRITE_FROM = 8
REWRITE_SHARE = 0.05


def cache_folder() -> Path:
    """Where Doublet keeps what it can make again: ``$XDG_CACHE_HOME/doublet``, or
    ``~/.cache/doublet``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "doublet"


def cache_path(folder: Path) -> Path:
    """The cache file of this interpreter's version (code objects are not portable)."""
    return folder / f"attrs-code.{sys.implementation.cache_tag}.marshal"


@contextlib.contextmanager
def kept_generated_code(folder: Path | None = None) -> Iterator[Reuse]:
    """While the block runs (it imports pygls), attrs's methods come from the cache kept
    in ``folder`` (``cache_folder()`` by default) when their source is there; after
    it, the cache holds what the block compiled, if much of it was compiled anew."""
    reuse = Reuse()
    try:
        maker = __import__(ATTRS_MAKER, fromlist=["_"])
    except ImportError:  # no attrs: nothing of it to keep
        yield reuse
        return
    if "compile" in vars(maker):  # someone else's hook: leave it alone
        yield reuse
        return
    path = cache_path(folder or cache_folder())
    kept = _read(path)
    used: Kept = {}
    maker.compile = _compiler(kept, used, _future_flags(maker), reuse)  # type: ignore[attr-defined]
    try:
        yield reuse
    finally:
        del maker.compile  # type: ignore[attr-defined]
    if reuse.compiled >= max(REWRITE_FROM, REWRITE_SHARE * len(used)):
        _write(path, used)


def _future_flags(module: types.ModuleType) -> int:
    """The compiler flags of ``module``'s ``from __future__`` imports: what its own calls
    of ``compile`` inherit, and so what ours must give."""
    return sum(
        value.compiler_flag for value in vars(module).values() if isinstance(value, _FEATURE)
    )


def _compiler(kept: Kept, used: Kept, futures: int, reuse: Reuse):
    """``compile`` for a module whose future imports are ``futures``: the code kept for
    the same text if there is any, else compiled; plain calls noted in ``used`` and
    counted in ``reuse``."""

    def compile(source, filename, mode, flags=0, dont_inherit=False, optimize=-1):
        inherited = flags if dont_inherit else flags | futures
        plain = not (flags or dont_inherit) and optimize == -1  # as attrs calls it
        if not (plain and all(isinstance(x, str) for x in (source, filename, mode))):
            return builtins.compile(source, filename, mode, inherited, True, optimize)
        key = (mode, filename, source)
        code = kept.get(key)
        if code is None:
            code = builtins.compile(source, filename, mode, inherited, True)
            reuse.compiled += 1
        else:
            reuse.kept += 1
        used[key] = code
        return code

    return compile


def _read(path: Path) -> Kept:
    """The kept code, or nothing if it cannot be read as such."""
    try:
        data = marshal.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except Exception as exc:  # unreadable or damaged: compiled again, and written anew
        log.debug("compiled code cache %s not used: %s", path, exc)
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        key: code
        for key, code in data.items()
        if isinstance(key, tuple)
        and len(key) == 3
        and all(isinstance(part, str) for part in key)
        and isinstance(code, types.CodeType)
        and code.co_filename == key[1]
    }


def _write(path: Path, used: Kept) -> None:
    """Keep ``used`` in ``path``, replaced whole at once (never half written); a cache that
    cannot be written is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as out:
            out.write(marshal.dumps(used))
        os.replace(out.name, path)
    except OSError as exc:
        log.debug("compiled code cache %s not written: %s", path, exc)
        with contextlib.suppress(OSError, NameError):
            os.unlink(out.name)
