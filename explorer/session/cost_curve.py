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
    ``turn_y`` = the cost of keeping that many."""

    x: np.ndarray
    y: np.ndarray
    turn_x: np.ndarray
    turn_y: np.ndarray

    @property
    def n(self) -> int:
        return len(self.x)

    @property
    def total(self) -> int:
        """The cost of the whole session."""
        return int(self.y[-1]) if len(self.y) else 0

    def events_within(self, budget: int) -> int:
        """How many of the newest events fit in ``budget`` tokens (0 when not even the newest)."""
        # y never decreases (costs are >= 0), so the events that fit are a prefix of x.
        return int(np.searchsorted(self.y, budget, side="right"))

    def cost_of(self, kept: int) -> int:
        """The cost of the ``kept`` newest events (0 for none)."""
        return int(self.y[kept - 1]) if kept > 0 else 0


def cost_curve(log: SessionLog) -> CostCurve:
    """The curve of ``log`` in its viewed order (``log.cost`` and ``log.kind``)."""
    cost = np.asarray(log.cost, dtype=np.int64)
    n = len(cost)
    x = np.arange(1, n + 1, dtype=np.int64)
    y = np.cumsum(cost[::-1], dtype=np.int64)
    starts = np.flatnonzero(np.asarray(log.kind) == USER)   # ascending index i ...
    turn_x = (n - starts)[::-1].astype(np.int64)            # ... is x = n - i, made ascending
    turn_y = y[turn_x - 1] if len(turn_x) else np.zeros(0, dtype=np.int64)
    return CostCurve(x, y, turn_x, turn_y)
