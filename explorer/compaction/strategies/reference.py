"""The five reference strategies M0-M4 of STRATEGIES.md (SYSTEM events are ordinary here).

Each decision is made for every session at once: the naive cut k0 from the suffix costs,
then the turn starts and next USER events of :class:`~explorer.compaction.corpus.Corpus`.
"""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import USER
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies.decision import Decision, Family


def k0(c: Corpus, budget: int) -> np.ndarray:
    """Per session, the naive cut as a global index: events whose suffix exceeds B come first.

    The suffix of g in its session is ``total[end] - total[g]``; it exceeds B where
    ``total[g] < total[end] - B``, and as the prefix costs never decrease (costs are >= 0)
    those g are the first ones: a search per session instead of a pass over every event,
    and no array of suffixes kept (the benchmark corpus: 134 MB)."""
    cut = np.searchsorted(c.total, c.total[c.ends] - budget, side="left")
    return np.clip(cut, c.start, c.ends)


def _plain(cut, raw) -> Decision:
    return Decision(cut, raw, np.zeros(len(cut), dtype=bool))


def m0(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Naive event window: the naive cut k0."""
    k = k0(c, budget)
    return _plain(k, k)


def _m1_cut(c: Corpus, k: np.ndarray) -> np.ndarray:
    """Back to the start of the turn holding k (the session end, an empty view, at its end)."""
    return np.where(k < c.ends, c.turn_start[np.minimum(k, len(c.kind) - 1)], c.ends)


def m1(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Turn-aware window: back to the start of the turn holding k0 (empty when k0 = n)."""
    k = k0(c, budget)
    return _plain(_m1_cut(c, k), k)


def m2(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """M1, then drop RESULT heads (with an id) and add placeholders for the open CALLs of
    the view's first turn (from its first event up to the next USER in it)."""
    raw = k0(c, budget)
    k1 = _m1_cut(c, raw)
    last = len(c.kind) - 1
    k = np.where(k1 < c.ends, c.after_heads[np.minimum(k1, last)], c.ends)
    has = k < c.ends
    safe = np.minimum(k, last)
    first_is_user = has & (c.kind[safe] == USER)
    end_user = np.where(k + 1 < c.ends, c.next_user[np.minimum(safe + 1, last)], c.ends)
    end = np.where(first_is_user, end_user, np.where(has, c.next_user[safe], c.ends))
    return Decision(k, raw, np.zeros(len(k), dtype=bool), heads=k - k1,
                    placeholder_end=np.where(has, end, k))


def _m3_cut(c: Corpus, k: np.ndarray) -> np.ndarray:
    safe = np.minimum(k, len(c.kind) - 1)
    at_turn = (k == c.start) | (k >= c.ends) | (c.kind[safe] == USER)
    return np.where(at_turn, k, c.next_user[safe])


def m3(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Whole turns only: forward to the next turn start (empty when there is none)."""
    k = k0(c, budget)
    k3 = _m3_cut(c, k)
    return Decision(k3, k, k3 > k)


def m4(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Whole turns, event fallback: M3's cut when it keeps something, else M0's."""
    k = k0(c, budget)
    k3 = _m3_cut(c, k)
    fallback = k3 >= c.ends
    return Decision(np.where(fallback, k, k3), k, ~fallback & (k3 > k), fallback=fallback)


FAMILIES = (
    Family("M0", "M0 naive event window", "Keeps the newest events that fit the budget.", m0,
           uses_budget=True),
    Family("M1", "M1 turn-aware window", "M0's cut moved back to the start of its turn.", m1,
           uses_budget=True),
    Family("M2", "M2 turn-aware, head repair", "M1, then drops leading results and adds "
           "placeholder results for unanswered calls of the first turn.", m2,
           uses_budget=True, reads=("placeholder_cost",)),
    Family("M3", "M3 whole turns only", "M0's cut moved forward to the next turn start.", m3,
           uses_budget=True),
    Family("M4", "M4 whole turns, event fallback", "M3, or M0's cut when M3 keeps nothing.", m4,
           uses_budget=True),
)
