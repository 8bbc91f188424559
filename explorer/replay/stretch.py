"""The cut of M0-M4 on a memory that is one stretch ``[m, i)`` of its log, by prefix sums.

M0-M4's views are suffixes of what they read, and none but M2 writes anything (M2 its
placeholder RESULTs), so under them a replay's memory stays one stretch of the log: the
strategy applied to the stretch read as a whole log (what :func:`explorer.replay.memory.
compact` does) is its cut, read here off arrays of the whole log built once. In the stretch
read as a log, ``m`` is its first event (a turn start, as a session's first event is) and
``i`` its end: every position found past ``i`` is ``i``, every pairing partner outside the
stretch is none. (The corpus decisions of :mod:`explorer.compaction.strategies.reference`,
for a stretch instead of a session.)
"""

from __future__ import annotations

import numpy as np

from explorer.compaction.log import CALL, RESULT, USER, SessionLog
from explorer.compaction.positions import next_flagged

#: The strategies whose replayed memory is a stretch of the log.
FAMILIES = ("M0", "M1", "M2", "M3", "M4")


class StretchCuts:
    """A log's prefix costs and the positions the reference strategies' cuts move to."""

    def __init__(self, log: SessionLog) -> None:
        self.log = log
        self.total = log.prefix   # the log's, shared with its one-session corpus
        heads = (log.kind == RESULT) & (log.call >= 0)
        self.after_heads = next_flagged(~heads, np.array([log.n]),
                                        dtype=np.int32 if log.n < 2**31 - 1 else np.int64)
        self.is_call = (log.kind == CALL) & (log.call >= 0)

    def cut(self, family: str, m: int, i: int, budget: int) -> int | None:
        """The first event ``family``'s view of ``[m, i)`` keeps at ``budget`` (``i``: none);
        None where M2 would add a placeholder (the memory is then no longer a stretch)."""
        log = self.log
        k = max(m, int(np.searchsorted(self.total, self.total[i] - budget, side="left")))
        if family == "M0":
            return k
        if family in ("M1", "M2"):
            k1 = i if k >= i else max(m, int(log.turn_start[k]))
            return k1 if family == "M1" else self._m2(m, k1, i)
        at_turn = k == m or k >= i or log.kind[k] == USER
        k3 = k if at_turn else min(int(log.next_user[k]), i)
        return k if family == "M4" and k3 >= i else k3

    def _m2(self, m: int, k1: int, i: int) -> int | None:
        """M1's cut ``k1`` past the RESULT heads, unless the view's first turn (from its
        first event to the next USER in it) holds a CALL whose RESULT is not in it."""
        log = self.log
        k = min(int(self.after_heads[k1]), i) if k1 < i else i
        if k >= i:
            return k
        if log.kind[k] == USER:
            end = min(int(log.next_user[k + 1]), i) if k + 1 < i else i
        else:
            end = min(int(log.next_user[k]), i)
        nr = log.next_result[k:end]
        if np.any(self.is_call[k:end] & ((nr < 0) | (nr >= i))):
            return None
        return k
