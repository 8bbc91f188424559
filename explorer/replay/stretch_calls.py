"""The replay of a memory that stays one stretch ``[m, i)`` of its log (M0-M4, see
:mod:`explorer.replay.stretch`), a compaction at a time instead of a call at a time.

Between two compactions the memory's start ``m`` stays put and only its end moves on, so
whatever a trigger reads of it (cost, turns, messages) grows with each call: the next call
it fires at is a search over the calls' prefix counts (:class:`StretchTrigger`). Once every
memory's start is known, each call's figures are prefix sums over its stretch
(:func:`stretch_columns`), a batch of stretches at a time. A session of 1.5M calls and
47k compactions replayed in 62 s call by call.
"""

from __future__ import annotations

import math

import numpy as np

from explorer.compaction.log import (
    CALL,
    CONTENT_KINDS,
    OTHER,
    RESULT,
    SUMMARY,
    SYSTEM,
    SessionLog,
)
from explorer.compaction.positions import position_type
from explorer.replay.corpus_calls import spans

#: The events of the stretches one batch of :func:`stretch_columns` lays out at most.
BATCH = 1 << 18


class StretchTrigger:
    """A trigger over stretches ``[m, positions[j])`` of one log: :meth:`first` is the first
    call at or after ``j`` it fires at, for a memory starting at ``m``."""

    def __init__(self, log: SessionLog, opens_turn: np.ndarray, trigger,
                 positions: np.ndarray, total: np.ndarray) -> None:
        self.parts, self.positions, self.total = trigger.parts, positions, total
        self.opens = _counts(opens_turn)
        self.total_at, self.opens_at = total[positions], self.opens[positions]
        if any(name == "messages" for name, _, _ in self.parts):
            # a message starts at each item other than SYSTEM and OTHER unless it continues
            # the message of the one before (the same id); in a stretch its first such item
            # starts one whatever came before it (explorer.replay.memory.reading)
            body = np.flatnonzero((log.kind != SYSTEM) & (log.kind != OTHER))
            ids = log.message[body]
            goes_on = np.r_[False, (ids[1:] == ids[:-1]) & (ids[1:] >= 0)]
            starts = np.zeros(log.n, dtype=bool)
            starts[body[~goes_on]] = True
            self.body, self.goes_on = body, goes_on
            self.starts = _counts(starts)
            self.starts_at = self.starts[positions]

    def first(self, m: int, j: int) -> int:
        """The first call ``>= j`` whose memory ``[m, position)`` fires the trigger
        (``len(positions)``: none). Every figure read grows with the position."""
        found = len(self.positions)
        for name, value, window in self.parts:
            if name == "always":
                return j
            if name == "turns":   # more than N turns held
                t = np.searchsorted(self.opens_at, self.opens[m] + value, side="right")
            elif name in ("tokens", "fraction"):   # a cost >= the threshold (an integer)
                at_least = value if name == "tokens" else math.ceil(value * window)
                t = np.searchsorted(self.total_at, self.total[m] + at_least, side="left")
            else:
                t = self._messages(m, int(value))
            found = min(found, int(t))
        return max(found, j)

    def _messages(self, m: int, value: int) -> int:
        """The first call whose stretch from ``m`` holds ``value`` messages or more."""
        at = int(np.searchsorted(self.body, m))
        if at < len(self.body) and self.goes_on[at]:   # it starts one in the stretch
            first = int(self.body[at])
            return max(int(np.searchsorted(self.positions, first, side="right")),
                       int(np.searchsorted(self.starts_at, self.starts[m] + value - 1)))
        return int(np.searchsorted(self.starts_at, self.starts[m] + value))


def _counts(flags: np.ndarray) -> np.ndarray:
    """N + 1: the flags set before each position (32-bit where they fit)."""
    dtype = position_type(len(flags))
    return np.r_[np.zeros(1, dtype=dtype), np.cumsum(flags, dtype=dtype)]


def stretch_columns(log: SessionLog, opens: np.ndarray, total: np.ndarray,
                    positions: np.ndarray, start: np.ndarray, before: np.ndarray) -> dict:
    """The :class:`~explorer.replay.call_table.Calls` columns of the calls made before
    ``positions``, the memory of call j being ``[start[j], positions[j])`` after a
    compaction from ``[before[j], ...)`` (``before == start``: none), and the stretches the
    calls' bases are: ``(columns, bases)``. ``opens``: N + 1, the turn-opening USER events
    before each position; ``total``: N + 1, the cost before each position."""
    compacted = start != before
    new_base = compacted.copy()
    new_base[:1] = True
    heads = np.flatnonzero(new_base)
    base = np.cumsum(new_base, dtype=positions.dtype) - positions.dtype.type(1)
    orphan_results, orphan_calls = _orphans(log, positions, start, heads)
    columns = {"position": positions, "base": base, "tail_from": positions[heads][base],
               "cost": total[positions] - total[start], "dropped": start - before,
               "orphan_results": orphan_results, "orphan_calls": orphan_calls,
               "turns": opens[positions] - opens[start], "compacted": compacted}
    # each prefix count made, read and let go before the next (N + 1 each)
    content_sum = _counts(np.isin(log.kind, CONTENT_KINDS))
    columns["empty"] = content_sum[positions] == content_sum[start]
    del content_sum
    summary_sum = _counts(log.kind == SUMMARY)
    columns["recorded"] = summary_sum[positions] > summary_sum[np.r_[0, positions[:-1]]]
    del summary_sum
    bases = [range(int(start[j]), int(positions[j])) for j in heads]
    return columns, bases


def _orphans(log: SessionLog, positions: np.ndarray, start: np.ndarray,
             heads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per call, the orphan RESULTs (the nearest earlier CALL of its id before the memory's
    start, or none) and orphan CALLs (the nearest later RESULT at the call's position or
    later, or none) of its stretch. The calls from ``heads[s]`` to the next head share a
    start: their stretches are prefixes of the longest, whose prefix counts they read."""
    n = len(positions)
    has_id = log.call >= 0
    is_result = (log.kind == RESULT) & has_id
    is_call = (log.kind == CALL) & has_id
    ends = np.r_[heads[1:], n] - 1           # each run's last call
    lo, hi = start[heads], positions[ends]   # the longest stretch of each run
    results = np.zeros(n, dtype=position_type(log.n))
    calls = np.zeros_like(results)
    a = 0
    while a < len(heads):
        b, size = a + 1, int(hi[a] - lo[a])
        while b < len(heads) and size + hi[b] - lo[b] <= BATCH:
            size += int(hi[b] - lo[b])
            b += 1
        e, run = spans(lo[a:b], hi[a:b])   # every event of the stretches, and its run
        offset = np.r_[0, np.cumsum(hi[a:b] - lo[a:b])]
        first = lo[a:b][run]
        orphan_result = is_result[e] & (log.prev_call[e] < first)
        call = is_call[e]
        answer = log.next_result[e]
        answered = call & (answer >= 0) & (answer < hi[a:b][run])
        # a CALL answered inside the run's stretch stops being open from its RESULT on
        closes = np.bincount(offset[:-1][run[answered]] + answer[answered] - first[answered],
                             minlength=len(e))
        sums = [np.r_[0, np.cumsum(x, dtype=np.int64)] for x in (orphan_result, call, closes)]
        j = np.arange(heads[a], ends[b - 1] + 1)
        r = np.searchsorted(heads[a:b], j, side="right") - 1   # the run of each call
        at, at0 = offset[:-1][r] + positions[j] - lo[a:b][r], offset[:-1][r]
        results[j] = sums[0][at] - sums[0][at0]
        calls[j] = (sums[1][at] - sums[1][at0]) - (sums[2][at] - sums[2][at0])
        a = b
    return results, calls
