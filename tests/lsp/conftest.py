"""A real `doublet serve` process and a real LSP client (pytest-lsp) on a real folder."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A workspace: the example essays and sources, copied."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES / "essays", root / "essays")
    shutil.copytree(EXAMPLES / "sources", root / "sources")
    return root


def capabilities() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(
            work_done_progress=True,
            show_document=types.ShowDocumentClientCapabilities(support=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[types.ResourceOperationKind.Create],
            ),
        ),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, version_support=True
            ),
        ),
    )


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "doublet", "serve"]),
)
async def client(lsp_client: LanguageClient, folder: Path):
    lsp_client.set_configuration({"debounce": 100}, section="doublet")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            root_uri=folder.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()
