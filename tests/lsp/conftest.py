"""A real `doublet serve` process and a real LSP client (pytest-lsp) on a real folder.

``client`` is a session on a copy of examples/essays and examples/sources; the
client's ``doublet`` settings come from the ``settings`` fixture (override it in
a module, or parametrize it indirectly). Helpers are in lsp_support.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import (
    DEBOUNCE_MS,
    EXAMPLES,
    SERVER,
    DoubletClient,
    close,
    initialize,
    make_client,
)
from pytest_lsp import ClientServerConfig


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A workspace: the example essays and sources, copied."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES / "essays", root / "essays")
    shutil.copytree(EXAMPLES / "sources", root / "sources")
    return root


@pytest.fixture
def settings(request: pytest.FixtureRequest) -> dict:
    """The client's ``doublet`` settings section for the ``client`` fixture.

    ``@pytest.mark.parametrize("settings", [{...}], indirect=True)`` sets others; the
    test must then name ``settings`` among its arguments (pytest-lsp asks for it late).
    """
    return getattr(request, "param", {"debounce": DEBOUNCE_MS})


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, client_factory=make_client),
)
async def client(lsp_client: DoubletClient, folder: Path, settings: dict):
    await initialize(lsp_client, folder, settings=settings)
    yield
    await close(lsp_client)
