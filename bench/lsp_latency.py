"""The language server on all 44 novels cut into ~20 KB documents (2,391 files).

- start-up: a server started on the folder with a saved index, one document
  opened; time from starting the process to that document's first diagnostics;
- latency: a paragraph of another document pasted into a 20 KB document (and
  taken out again), didChange to publishDiagnostics minus the debounce, p50/p95;
- memory: the server's resident set (VmRSS now, VmHWM its peak) after the edits.

A real server process and a real LSP client (pygls), over stdio. Reads
../shared/data/novels (or $DOUBLET_DATA). Writes bench/results/lsp.json.

    python -m bench.lsp_latency
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import BaseLanguageClient

from bench.datasets import novel_chunks
from doublet.workspace import Workspace

RESULTS = Path(__file__).resolve().parent / "results"
DEBOUNCE_MS = 50
EDITS = 40


class Client(BaseLanguageClient):
    def __init__(self) -> None:
        super().__init__("doublet-bench", "1")
        self.published: dict[str, list[tuple[float, int | None, int]]] = {}
        self.event = asyncio.Event()
        self.ready_at: float | None = None  # when the server first said its index was ready


def make_client() -> Client:
    client = Client()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(ls: Client, params: types.PublishDiagnosticsParams) -> None:
        ls.published.setdefault(params.uri, []).append(
            (time.perf_counter(), params.version, len(params.diagnostics))
        )
        ls.event.set()

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def configuration(ls: Client, params: types.ConfigurationParams):
        return [{"debounce": DEBOUNCE_MS} for _ in params.items]

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def progress(ls: Client, params) -> None:
        return None

    @client.feature(types.PROGRESS)
    def progress_report(ls: Client, params) -> None:
        return None

    @client.feature("doublet/status")
    def status(ls: Client, params) -> None:
        state = params.get("state") if isinstance(params, dict) else getattr(params, "state", None)
        if state == "ready" and ls.ready_at is None:
            ls.ready_at = time.perf_counter()

    return client


async def wait_for(client: Client, uri: str, version: int | None, timeout: float = 60) -> float:
    """Time at which diagnostics for ``uri`` at ``version`` (or any) were published."""
    deadline = time.perf_counter() + timeout
    while True:
        for at, seen, _ in client.published.get(uri, []):
            if version is None or seen == version:
                return at
        client.event.clear()
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise TimeoutError(f"no diagnostics for {uri} version {version}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.event.wait(), remaining)


def memory_of(pid: int) -> dict:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024)
    return {"rss_mb": fields.get("VmRSS"), "peak_rss_mb": fields.get("VmHWM")}


async def run(folder: Path) -> dict:
    workspace = Workspace.open(folder)
    workspace.refresh()
    workspace.save()
    names = workspace.index.names()
    target, source = names[100], names[1700]
    text = workspace.document(target).text
    pasted = workspace.document(source).text[4000:5500]
    uri = (folder / target).as_uri()

    client = make_client()
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "doublet", "serve")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(configuration=True),
                window=types.WindowClientCapabilities(work_done_progress=True),
            ),
            root_uri=folder.as_uri(),
        )
    )
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="plaintext", version=1, text=text
            )
        )
    )
    first = await wait_for(client, uri, 1)
    startup = first - started

    lines = text.split("\n")
    middle = len(lines) // 2
    latencies = []
    version = 1
    for i in range(EDITS):
        version += 1
        if i % 2 == 0:  # paste the paragraph in the middle of the document
            change = types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=middle, character=0),
                    end=types.Position(line=middle, character=0),
                ),
                text=pasted + "\n",
            )
        else:  # and take it out again
            added = pasted.count("\n") + 1
            change = types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=middle, character=0),
                    end=types.Position(line=middle + added, character=0),
                ),
                text="",
            )
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change],
            )
        )
        arrived = await wait_for(client, uri, version)
        latencies.append(1000 * (arrived - sent) - DEBOUNCE_MS)
    found_when_pasted = sum(
        1 for at, seen, count in client.published[uri] if seen and seen % 2 == 0 and count
    )
    memory = memory_of(client._server.pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "documents": len(names),
        "startup_to_first_diagnostics_s": round(startup, 2),
        "edits": EDITS,
        "debounce_ms": DEBOUNCE_MS,
        "latency_ms_p50": round(statistics.median(latencies), 1),
        "latency_ms_p95": round(statistics.quantiles(latencies, n=20)[-1], 1),
        "pastes_flagged": found_when_pasted,
        **memory,
    }


def main() -> None:
    folder = novel_chunks(44)
    results = asyncio.run(run(folder))
    print(json.dumps(results, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "lsp.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
