"""The language server's handlers: each LSP message or command, handed to the server
(doublet/lsp/server: state, analysis) or to an action (doublet/lsp/actions: hover,
quick fixes, commands). Only wiring lives here.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, BinaryIO

from lsprotocol import types

from doublet.lsp import actions
from doublet.lsp.server import DoubletServer
from doublet.lsp.settings import Settings

#: How often Python hands its interpreter lock between threads (the default is 5 ms).
#: An edit's answer passes it between the event loop and the worker five or six
#: times; while a refresh of 100,000 files runs on the indexer thread, each handover
#: waited up to the whole interval.
SWITCH_INTERVAL = 0.001


def create_server() -> DoubletServer:
    """A server with every handler registered."""
    server = DoubletServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: DoubletServer, params: types.InitializeParams) -> None:
        options = params.initialization_options or {}
        if isinstance(options, dict):
            ls.client_compare = bool(options.get("clientCompare"))
            ls.initial_settings = Settings.parse(options.get("settings"), ls.report_setting_error)
        ls.folders_of_initialize(params)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: DoubletServer, params: types.InitializedParams) -> None:
        await ls.start()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(
        ls: DoubletServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        await ls.change_folders(params.event.added or [], params.event.removed or [])

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DoubletServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DoubletServer, params: types.DidChangeTextDocumentParams) -> None:
        document = ls.opened.get(params.text_document.uri)
        if document is not None and document.rel is not None:
            ls.schedule(document, why="edit")

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DoubletServer, params: types.DidSaveTextDocumentParams) -> None:
        document = ls.opened.get(params.text_document.uri)
        if document is not None and document.rel is not None:
            ls.schedule(document, delay=0, why="save")

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: DoubletServer, params: types.DidCloseTextDocumentParams) -> None:
        await ls.close_document(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: DoubletServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("doublet"), dict):
            pushed = Settings.parse(settings["doublet"], ls.report_setting_error)
            ls.initial_settings = ls.initial_settings.merged(pushed)
        await ls.reconfigure()  # asks for each folder's settings where the client can answer

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DoubletServer, params: types.HoverParams) -> types.Hover | None:
        return actions.hover(ls, params)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: DoubletServer, params: types.CodeActionParams):
        return actions.code_actions(ls, params)

    @server.command(actions.FIND_SIMILAR)
    async def find_similar(ls: DoubletServer, *args: Any):
        return await actions.find_similar(ls, args)

    @server.command(actions.WORKSPACE_REPORT)
    async def workspace_report(ls: DoubletServer, *args: Any):
        return await actions.workspace_report(ls, args)

    @server.command(actions.REINDEX)
    async def reindex(ls: DoubletServer, *args: Any):
        if not ls.folders:
            return {"documents": 0, "state": ls.state}
        await ls.reindex()
        return ls.status()

    @server.command(actions.CHECK_DOCUMENT)
    async def check_document(ls: DoubletServer, *args: Any):
        return await actions.check_document(ls, args)

    @server.command(actions.STATUS)
    def status(ls: DoubletServer, *args: Any):
        return ls.status()

    @server.command(actions.SHOW_MATCH)
    async def show_match(ls: DoubletServer, *args: Any):
        return await actions.show_match(ls, args)

    @server.command(actions.IGNORE_MATCH)
    async def ignore_match(ls: DoubletServer, *args: Any):
        return await actions.ignore_match(ls, args)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: DoubletServer, *args: Any) -> None:
        for folder in ls.folders.values():
            folder.stop()

    return server


def serve(tcp: str | None = None, stdin: BinaryIO | None = None) -> None:
    """Run the server on stdio (its input ``stdin`` if given: lsp/first_message), or on
    ``host:port`` for debugging."""
    logging.basicConfig(level=logging.INFO, format="doublet: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    sys.setswitchinterval(SWITCH_INTERVAL)
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io(stdin)
        if not server.protocol.shut_down:  # LSP: exit (or the input gone) without shutdown
            sys.exit(1)  # pygls ends its loop on the SystemExit it raises, and drops the code
