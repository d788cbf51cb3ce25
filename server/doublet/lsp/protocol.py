"""The JSON-RPC protocol as pygls speaks it, with two changes, both so that every
request is answered, as JSON-RPC says: a request whose params cannot be read is
answered by its id with an error; and so is a request after ``shutdown`` (LSP:
"InvalidRequest"), which pygls only logged. And the converters of what an editor
sends while its user types are made before the first keystroke (``prepare_typing``).

pygls raises while it parses a request it cannot read, before it knows the
request, so it only logs and shows the failure; the client's request then waits
for an answer that never comes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)

#: What an editor sends while its user types and looks, and what it is answered.
#: cattrs writes the code that reads or writes a message at its first use (a
#: didChange: 7 ms), which the first edit after the start waited for.
TYPED = (
    types.DidChangeTextDocumentNotification,
    types.DidSaveTextDocumentNotification,
    types.HoverRequest,
)
ANSWERED = (types.HoverResponse,)


class _Answered:
    """What a request answered with an error while it was read becomes: nothing to do."""

    jsonrpc = "answered"


class DoubletProtocol(LanguageServerProtocol):
    @property
    def shut_down(self) -> bool:
        """Whether the client asked for ``shutdown`` (LSP: ``exit`` then ends with 0)."""
        return bool(self._shutdown)

    def prepare_typing(self) -> None:
        """Have the converters of TYPED and ANSWERED made, one a turn of the event loop
        (a message that comes meanwhile waits for one, not for all)."""
        converter = self._converter
        makers: list[Callable[[], object]] = [
            *(lambda kind=kind: converter.get_structure_hook(kind) for kind in TYPED),
            *(lambda kind=kind: converter.get_unstructure_hook(kind) for kind in ANSWERED),
        ]
        loop = asyncio.get_running_loop()

        def make_next() -> None:
            makers.pop(0)()
            if makers:
                loop.call_soon(make_next)

        loop.call_soon(make_next)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "jsonrpc" not in data or "method" not in data or "id" not in data:
                raise  # a notification has no id to answer: logged, as before
            log.warning(
                "request %r answered with an error: its params cannot be read", data["method"]
            )
            self._send_response(data["id"], error=exc.to_response_error())
            return _Answered()

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        method = getattr(message, "method", None)
        if self._shutdown and method not in (None, types.EXIT) and hasattr(message, "id"):
            log.warning("request %r after shutdown answered with an error", method)
            error = JsonRpcInvalidRequest("the server is shutting down: only exit is taken")
            self._send_response(message.id, error=error.to_response_error())
            return
        super().handle_message(message)
