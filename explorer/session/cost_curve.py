"""The cost of a session's newest events, accumulated from the newest backwards.

What the session plot draws: keeping the newest ``x`` events costs ``y[x - 1]`` tokens, so a
budget ``B`` keeps the ``events_within(B)`` newest events (M0's window, STRATEGIES.md's
``n - k0``). Turn boundaries are counted from the same end: keeping exactly ``x`` events starts
the view on a USER event. Pure numpy, exact integers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.log import USER, SessionLog


@dataclass(frozen=True)
class CostCurve:
    """x = number of newest events kept (1..n), y = their total cost (int64, non-decreasing);
    ``turn_x`` = the x at which the kept events start with a turn's USER event (ascending),
    ``turn_y`` = the cost of keeping that many. Held as the log's prefix costs
    (:attr:`SessionLog.prefix`, shared): keeping the newest ``x`` events costs
    ``prefix[n] - prefix[n - x]``; ``x`` and ``y`` are made when read (a session of 3M
    events keeps no array of its own, 23 MB less than with ``y``)."""

    prefix: np.ndarray   # n + 1: the cost of the events before i (costs are >= 0)
    turn_x: np.ndarray
    turn_y: np.ndarray

    @property
    def x(self) -> np.ndarray:
        return np.arange(1, self.n + 1, dtype=np.int64)

    @property
    def y(self) -> np.ndarray:
        return self._y(np.arange(self.n, dtype=np.int64))

    def _y(self, rows: np.ndarray) -> np.ndarray:
        """y at the indices ``rows`` (x - 1)."""
        return self.prefix[-1] - self.prefix[self.n - 1 - rows]

    @property
    def n(self) -> int:
        return len(self.prefix) - 1

    def envelope(self, low: float, high: float, buckets: int) -> tuple[np.ndarray, np.ndarray]:
        """The points of the curve to draw for the x range ``[low, high]``: every point when
        there are at most ``2 * buckets``, else the first and the last point of each of
        ``buckets`` equal stretches (the lowest and the highest of a non-decreasing curve:
        drawn a stretch a pixel column, the same pixels as every point), and one point on
        each side of the range so that the line reaches its edges. Real points only."""
        n = self.n
        first = min(max(int(np.floor(low)) - 2, 0), n)   # indices: x - 1, a point beyond
        last = min(max(int(np.ceil(high)) + 1, first), n)   # exclusive, a point beyond
        if last - first <= 2 * buckets:
            rows = np.arange(first, last, dtype=np.int64)
        else:
            edges = np.linspace(first, last, buckets + 1).astype(np.int64)
            rows = np.unique(np.concatenate([edges[:-1], edges[1:] - 1]))
        return rows + 1, self._y(rows)

    @property
    def total(self) -> int:
        """The cost of the whole session."""
        return int(self.prefix[-1])

    def events_within(self, budget: int) -> int:
        """How many of the newest events fit in ``budget`` tokens (0 when not even the newest)."""
        # keeping x fits when prefix[n - x] >= total - budget: the prefix never decreases
        # (costs are >= 0), so the events before n - x that do not fit are a prefix of them.
        n = self.n
        return n - int(np.searchsorted(self.prefix[:n], self.total - budget, side="left"))

    def cost_of(self, kept: int) -> int:
        """The cost of the ``kept`` newest events (0 for none, all of them for more)."""
        return self.total - int(self.prefix[max(self.n - kept, 0)]) if kept > 0 else 0


def cost_curve(log: SessionLog) -> CostCurve:
    """The curve of ``log`` in its viewed order (``log.prefix`` and ``log.kind``)."""
    prefix = log.prefix
    n = len(prefix) - 1
    starts = np.flatnonzero(np.asarray(log.kind) == USER)   # ascending index i ...
    turn_x = (n - starts)[::-1].astype(np.int64)            # ... is x = n - i, made ascending
    turn_y = prefix[-1] - prefix[n - turn_x]
    return CostCurve(prefix, turn_x, turn_y)
