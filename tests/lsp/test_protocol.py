"""The protocol's own additions to pygls (lsp/protocol.py), in process."""

from __future__ import annotations

import asyncio

from doublet.lsp.handlers import create_server
from doublet.lsp.protocol import ANSWERED, TYPED


class Asked:
    """The server's converter, noting which converters it is asked for."""

    def __init__(self, converter) -> None:
        self.converter = converter
        self.asked: list[tuple[str, type]] = []

    def get_structure_hook(self, kind: type):
        self.asked.append(("in", kind))
        return self.converter.get_structure_hook(kind)

    def get_unstructure_hook(self, kind: type):
        self.asked.append(("out", kind))
        return self.converter.get_unstructure_hook(kind)


async def test_the_converters_of_typing_are_made_ahead_one_a_turn() -> None:
    """cattrs makes a message's converter at its first use: the first keystroke after
    the start waited for it. prepare_typing has them made ahead (after the first
    answer), without holding the event loop for all of them at once."""
    protocol = create_server().protocol
    spy = Asked(protocol._converter)
    protocol._converter = spy
    protocol.prepare_typing()
    assert spy.asked == []  # nothing before the loop turns
    await asyncio.sleep(0)
    assert len(spy.asked) == 1  # one a turn
    for _ in range(len(TYPED) + len(ANSWERED)):
        await asyncio.sleep(0)
    assert spy.asked == [("in", kind) for kind in TYPED] + [("out", kind) for kind in ANSWERED]
