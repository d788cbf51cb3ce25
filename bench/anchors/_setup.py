"""Install the two anchors at the pinned versions, only what is missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata

from bench.anchors._dolos import DOLOS_DIR

COPYDETECT_VERSION = "0.5.0"
DOLOS_VERSION = "3.5.1"


def copydetect_installed() -> bool:
    """Whether this interpreter has the pinned copydetect."""
    try:
        return metadata.version("copydetect") == COPYDETECT_VERSION
    except metadata.PackageNotFoundError:
        return False


def dolos_installed(node: str = "node") -> bool:
    """Whether bench/anchors/dolos has the pinned dolos-lib and Node can load it.

    Loading matters: dolos-lib imports tree-sitter's native addon even for the
    char tokenizer, and a prebuilt addon may not fit this machine's libstdc++.
    """
    manifest = os.path.join(DOLOS_DIR, "node_modules", "@dodona", "dolos-lib", "package.json")
    try:
        with open(manifest, encoding="utf-8") as f:
            if json.load(f).get("version") != DOLOS_VERSION:
                return False
    except FileNotFoundError:
        return False
    probe = [node, "--input-type=module", "-e", "await import('@dodona/dolos-lib')"]
    return subprocess.run(probe, cwd=DOLOS_DIR, capture_output=True, check=False).returncode == 0


def setup() -> None:
    """Install copydetect into this interpreter's environment and dolos-lib with npm.

    `npm ci` installs exactly what package-lock.json pins. Its install scripts
    build tree-sitter and Dolos' parsers from source (about a minute, needs
    make and a C++ compiler); skipping them leaves prebuilt addons that can
    fail to load on an older libstdc++, and dolos-lib loads tree-sitter even
    for plain text.
    """
    if not copydetect_installed():
        pip = [sys.executable, "-m", "pip", "install", f"copydetect=={COPYDETECT_VERSION}"]
        subprocess.run(pip, check=True)
    if not dolos_installed():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm not found: install Node.js 20 (with npm) first")
        subprocess.run([npm, "ci"], cwd=DOLOS_DIR, check=True)
