"""The JSON-RPC protocol as pygls speaks it, with one change: a request whose params
cannot be read is answered by its id with an error, as JSON-RPC says.

pygls raises while it parses such a request, before it knows the request, so it
only logs and shows the failure; the client's request then waits for an answer
that never comes.
"""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class _Answered:
    """What a request answered with an error while it was read becomes: nothing to do."""

    jsonrpc = "answered"


class DoubletProtocol(LanguageServerProtocol):
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
        super().handle_message(message)
