"""Start the Doublet server from the libraries bundled in the extension, if they fit.

The extension runs ``python -S launch.py COMMAND`` before it knows anything of that
Python: one process that both checks the interpreter and becomes the server, instead
of a probe first and the server after it (on a first start, while the workbench is
still loading, each Python start costs about a second). COMMAND is how the extension
named the interpreter, for messages.

The first line on stderr is ``doublet-launch: {json}``: ``ok``, ``python`` (3.11),
``executable``, and either ``folders`` (the bundled folders put first on the path) or
``reason`` (why they do not fit). When they fit, the server starts in this process;
when they do not, the launcher exits with status 3 and the extension falls back to a
private environment made with pip.

-S: no site-packages, so that nothing installed for that Python is imported instead
of or beside the bundled libraries (seen: pygments looking for plugin lexers through
the entry points of every installed distribution, 0.7 s with a big site-packages).

Written for any Python 3, so that an old one gets a reason rather than a syntax error.
"""

import json
import os
import sys

DOES_NOT_FIT = 3


def report(**fields):
    fields.setdefault("python", "%d.%d" % sys.version_info[:2])
    fields.setdefault("executable", sys.executable)
    sys.stderr.write("doublet-launch: " + json.dumps(fields) + "\n")
    sys.stderr.flush()


def listed(pythons):
    return " to ".join([pythons[0], pythons[-1]]) if len(pythons) > 2 else " and ".join(pythons)


def as_numbers(version):
    return [int(part) if part.isdigit() else 0 for part in version.split(".")]


def glibc_version():
    """The C library's version ("2.36"), or None when it is not glibc (musl)."""
    try:
        name, version = os.confstr("CS_GNU_LIBC_VERSION").split()
    except (AttributeError, ValueError, OSError):
        return None
    return version if name == "glibc" else None


def machine():
    if sys.platform == "win32":
        import platform  # only here: it is slower to import than os.uname

        return platform.machine()
    return os.uname()[4]


def why_not(manifest, command):
    """Why the bundled libraries do not fit this interpreter, or None when they do."""
    shown = "%d.%d" % sys.version_info[:2]
    offered = "the extension bundles the server's libraries for CPython %s on %s" % (
        listed(manifest["pythons"]),
        manifest["platform"],
    )
    implementation = getattr(getattr(sys, "implementation", None), "name", "cpython")
    if implementation != "cpython":
        return '"%s" is %s %s, and %s' % (command, implementation, shown, offered)
    import sysconfig

    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return '"%s" is a free-threaded build of CPython %s, and %s (standard builds)' % (command, shown, offered)
    bits = 64 if sys.maxsize > 2**32 else 32
    if sys.platform != manifest["sys_platform"] or machine() not in manifest["machines"] or bits != 64:
        return '"%s" runs on %s %s (%d-bit), and %s' % (command, sys.platform, machine(), bits, offered)
    needed = manifest.get("glibc")
    if needed and sys.platform.startswith("linux"):
        found = glibc_version()
        if found is None or as_numbers(found) < as_numbers(needed):
            what = "glibc " + found if found else "a C library other than glibc"
            return '"%s" uses %s, and the bundled libraries need glibc %s or newer' % (command, what, needed)
    if shown not in manifest["pythons"]:
        return '"%s" is CPython %s, and %s' % (command, shown, offered)
    return None


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    libs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bundled", "libs")
    try:
        with open(os.path.join(libs, "manifest.json")) as file:
            manifest = json.load(file)
    except (OSError, ValueError):
        report(ok=False, reason="this build of the extension has no bundled server libraries")
        return DOES_NOT_FIT
    reason = why_not(manifest, command)
    if reason:
        report(ok=False, reason=reason)
        return DOES_NOT_FIT
    folders = [os.path.join(libs, "cp%d%d" % sys.version_info[:2]), os.path.join(libs, manifest.get("common", "common"))]
    import attrs_methods  # beside this script, in sys.path[0]

    # First on the path: this process's, and (PYTHONPATH) that of any process it starts.
    sys.path[:1] = folders
    os.environ["PYTHONPATH"] = os.pathsep.join(folders + [p for p in [os.environ.get("PYTHONPATH")] if p])
    ahead = attrs_methods.use(os.path.join(folders[0], attrs_methods.FILE))
    report(ok=True, folders=folders, attrs_methods=ahead)
    import runpy

    sys.argv = ["doublet", "serve"]
    runpy.run_module("doublet", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
