"""A list made a row at a time as it is read.

Big lists of a scan's results (100,000 documents, 64,000 pairs) are read once,
in order, by whatever writes them out: a report's rendering, a saved file
(index_store ``write_checked``). Made whole, their rows were tens of megabytes of
small objects at once; made as they are read, each is let go of once written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Rows:
    """``count`` rows, made anew by ``rows()`` each time they are read (read back
    from a saved file, a list)."""

    count: int
    rows: Callable[[], Iterator[object]]

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[object]:
        made = 0
        for row in self.rows():
            made += 1
            yield row
        if made != self.count:
            raise ValueError(f"{made} rows made, {self.count} announced")
