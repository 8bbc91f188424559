"""The metrics of one view computed the plain per-session way, on a SessionLog and its
Window: the code the engine used before the metrics had one implementation
(explorer/compaction/view_metrics.py). Kept as the oracle that tests/test_view_metrics.py
compares the engine's per-session values with.
"""

from __future__ import annotations

import numpy as np

from explorer.compaction.log import CALL, CONTENT_KINDS, RESULT, SessionLog
from explorer.compaction.window import Window


def view_metrics(log: SessionLog, w: Window, keep: np.ndarray, budget: int,
                 placeholder_cost: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """The metrics of the view (``keep`` = :func:`in_view`), and which events in it are
    orphan results and orphan calls; no items are built (the slider's fast path)."""
    orphan_result, orphan_call = _orphans(log, keep, set(w.placeholders))
    cost = int(log.cost[keep].sum()) + sum(c for _, c in w.front) + placeholder_cost * len(w.placeholders)
    metrics = {
        "cost": cost,
        "over": cost > budget,
        "empty": not bool(np.isin(log.kind[keep], CONTENT_KINDS).any()),
        "orphan_results": int(orphan_result.sum()),
        "orphan_calls": int(orphan_call.sum()),
        "pair_split": _pair_split(log, keep, w.cut),
        "partial_dropped": w.partial_dropped,
        "fallback": w.fallback,
        "repaired": w.repaired,
    }
    return metrics, orphan_result, orphan_call


def _orphans(log: SessionLog, keep: np.ndarray, placeheld: set[int]) -> tuple[np.ndarray, np.ndarray]:
    """RESULTs in view with no CALL of their id earlier in view; CALLs in view with no
    RESULT (or placeholder) of their id later in view. Events without an id: never."""
    orphan_result = np.zeros(log.n, dtype=bool)
    orphan_call = np.zeros(log.n, dtype=bool)
    order, group = log.pair_order, log.pair_group
    if not len(order):
        return orphan_result, orphan_call
    kind, kept = log.kind[order], keep[order]
    calls = ((kind == CALL) & kept).astype(np.int64)
    results = ((kind == RESULT) & kept).astype(np.int64)
    answered = np.isin(order, list(placeheld))  # a placeholder answers its CALL
    calls_before = _group_exclusive_cumsum(calls, group)
    results_after = _group_exclusive_cumsum(results[::-1], group[::-1])[::-1]
    orphan_result[order] = (kind == RESULT) & kept & (calls_before == 0)
    orphan_call[order] = (kind == CALL) & kept & (results_after == 0) & ~answered
    return orphan_result, orphan_call


def _group_exclusive_cumsum(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """For each element, the sum of the values before it in its (contiguous) group."""
    total = np.cumsum(values)
    starts = np.r_[True, group[1:] != group[:-1]]
    start_total = (total - values)[starts]
    return total - values - start_total[np.cumsum(starts) - 1]


def _pair_split(log: SessionLog, keep: np.ndarray, cut: int) -> bool:
    """e[cut-1] is a CALL not in the view while a RESULT of its id is (STRATEGIES.md)."""
    if cut <= 0 or cut > log.n:
        return False
    before = cut - 1
    if log.kind[before] != CALL or log.call[before] < 0 or keep[before]:
        return False
    return bool(((log.call == log.call[before]) & (log.kind == RESULT) & keep).any())


def key_collapse(log: SessionLog, keep: np.ndarray) -> dict[str, int]:
    """The per-view key-collapse counts of AUDITS.md: mixed (0/1), turn collisions and
    duplicate call ids in the view. Null user_ids and logged turns are ignored."""
    users = log.user[keep]
    mixed = int(len(np.unique(users[users >= 0])) > 1)
    with_both = keep & (log.user >= 0) & (log.turn >= 0)
    pairs = np.unique(np.stack([log.turn[with_both], log.user[with_both]]), axis=1)
    _, per_turn = np.unique(pairs[0], return_counts=True) if pairs.size else ((), np.zeros(0))
    calls = log.call[keep & (log.kind == CALL) & (log.call >= 0)]
    _, per_id = np.unique(calls, return_counts=True)
    return {"mixed_windows": mixed,
            "window_turn_collisions": int(np.count_nonzero(per_turn > 1)),
            "window_duplicate_call_ids": int(np.count_nonzero(per_id > 1))}
