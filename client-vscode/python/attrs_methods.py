"""The methods attrs writes for the language server's protocol classes, compiled ahead.

lsprotocol declares about 560 classes with attrs, which writes and compiles their
``__init__``, ``__eq__`` and the rest as Python source at import: 0.3 s of the server's
1.0 s of imports, on every start. That source is the same every time for one attrs and
one CPython, so the build (scripts/bundle_libs.py check --compile) records the code
objects once per bundled CPython version (``record``), and launch.py hands them to
attrs (``use``) when it starts the server from the bundle. Anything that does not
match exactly (another Python, another attrs, a class not recorded) is compiled by
attrs as usual.

Only attrs' ``attr._make._compile_and_eval(script, globs, locs, filename)`` is
replaced, and only when the recording was made with the same ``attr/_make.py`` and the
same bytecode magic number.
"""

import marshal
import sys

FILE = "attrs-methods.marshal"


def _key():
    """This CPython's bytecode, and the attrs that writes the methods: its ``_make``
    module's checksum (``attr.__version__`` would read the package metadata: 60 ms)."""
    import importlib.util
    import zlib

    import attr._make

    with open(attr._make.__file__, "rb") as file:
        return importlib.util.MAGIC_NUMBER, zlib.crc32(file.read())


def use(path):
    """Give attrs the code recorded in ``path``, if it was recorded for this attrs and Python."""
    try:
        with open(path, "rb") as file:
            key, compiled = marshal.load(file)
    except (OSError, EOFError, ValueError, TypeError):
        return False
    try:
        import attr._make as make
    except ImportError:
        return False
    original = getattr(make, "_compile_and_eval", None)
    if original is None or tuple(key) != _key():
        return False

    def compile_and_eval(script, globs, locs=None, filename=""):
        code = compiled.get((filename, script))
        if code is None:
            return original(script, globs, locs, filename)
        eval(code, globs, locs)

    make._compile_and_eval = compile_and_eval
    return True


def record(path, module="doublet.lsp.server"):
    """Import ``module`` and write the code attrs compiled for it to ``path``."""
    import attr._make as make

    compiled = {}

    def compile_and_eval(script, globs, locs=None, filename=""):
        code = compile(script, filename, "exec")
        compiled[(filename, script)] = code
        eval(code, globs, locs)

    make._compile_and_eval = compile_and_eval
    __import__(module)
    with open(path, "wb") as file:
        marshal.dump((_key(), compiled), file)
    return len(compiled)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        sys.exit("usage: python -S attrs_methods.py record FILE (with the bundle on PYTHONPATH)")
    sys.stderr.write("attrs methods recorded: %d\n" % record(sys.argv[2]))
