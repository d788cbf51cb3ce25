"""The JSON-RPC protocol as pygls speaks it, with two changes, both so that every
request is answered, as JSON-RPC says: a request whose params cannot be read is
answered by its id with an error; and so is a request after ``shutdown`` (LSP:
"InvalidRequest"), which pygls only logged.

pygls raises while it parses a request it cannot read, before it knows the
request, so it only logs and shows the failure; the client's request then waits
for an answer that never comes.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class _Answered:
    """What a request answered with an error while it was read becomes: nothing to do."""

    jsonrpc = "answered"


class DoubletProtocol(LanguageServerProtocol):
    @property
    def shut_down(self) -> bool:
        """Whether the client asked for ``shutdown`` (LSP: ``exit`` then ends with 0)."""
        return bool(self._shutdown)

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
