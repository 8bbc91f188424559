"""The five reference strategies M0-M4 of STRATEGIES.md (SYSTEM events are ordinary here)."""

from __future__ import annotations

from explorer.compaction.log import CALL, RESULT, USER, SessionLog
from explorer.compaction.window import Window


def m0(log: SessionLog, budget: int) -> Window:
    """Naive event window: the naive cut k0."""
    k0 = log.k0(budget)
    return Window(k0, raw_cut=k0)


def m1(log: SessionLog, budget: int) -> Window:
    """Turn-aware window: back to the start of the turn holding k0 (empty when k0 = n)."""
    k0 = log.k0(budget)
    return Window(int(log.turn_start[k0]) if k0 < log.n else log.n, raw_cut=k0)


def m2(log: SessionLog, budget: int) -> Window:
    """M1, then drop RESULT heads (with an id) and add placeholders in the first turn."""
    k = m1(log, budget).cut
    n = log.n
    heads = 0
    while k < n and log.kind[k] == RESULT and log.call[k] >= 0:
        k, heads = k + 1, heads + 1
    placeholders: tuple[int, ...] = ()
    if k < n:
        # The view's first turn runs from its first event up to the next USER in it.
        if log.kind[k] != USER:
            end = int(log.next_user[k])
        else:
            end = int(log.next_user[k + 1]) if k + 1 < n else n
        placeholders = tuple(
            i for i in range(k, end)
            if log.kind[i] == CALL and log.call[i] >= 0 and log.next_result[i] < 0)
    return Window(k, raw_cut=log.k0(budget), placeholders=placeholders,
                  repaired=heads + len(placeholders))


def _m3_cut(log: SessionLog, k0: int) -> int:
    if k0 == 0 or k0 == log.n or log.kind[k0] == USER:
        return k0
    return int(log.next_user[k0])


def m3(log: SessionLog, budget: int) -> Window:
    """Whole turns only: forward to the next turn start (empty when there is none)."""
    k0 = log.k0(budget)
    k = _m3_cut(log, k0)
    return Window(k, raw_cut=k0, partial_dropped=k > k0)


def m4(log: SessionLog, budget: int) -> Window:
    """Whole turns, event fallback: M3's cut when it keeps something, else M0's."""
    k0 = log.k0(budget)
    k = _m3_cut(log, k0)
    if k < log.n:
        return Window(k, raw_cut=k0, partial_dropped=k > k0)
    return Window(k0, raw_cut=k0, fallback=True)
