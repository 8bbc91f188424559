"""Rows of a lazy table model, read from DuckDB in blocks when first asked for; a few
blocks are kept, the least recently used dropped first."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable


class BlockCache:
    """``row(n)`` reads block ``n // size`` through ``read(block_number)`` unless it is kept.

    ``read`` returns the block's rows, or None when they cannot be read now (nothing is
    kept, and the next ask reads again). ``reads`` counts the reads (tests, benchmarks).
    """

    def __init__(self, read: Callable[[int], list[tuple] | None], size: int = 256,
                 kept: int = 64) -> None:
        self.read = read
        self.size = size
        self.kept = kept
        self.reads = 0
        self._blocks: OrderedDict[int, list[tuple]] = OrderedDict()

    def row(self, row: int) -> tuple | None:
        number, offset = divmod(row, self.size)
        block = self._blocks.get(number)
        if block is None:
            self.reads += 1
            block = self.read(number)
            if block is None:
                return None
            self._blocks[number] = block
            while len(self._blocks) > self.kept:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(number)
        return block[offset] if offset < len(block) else None

    def clear(self) -> None:
        self._blocks.clear()
