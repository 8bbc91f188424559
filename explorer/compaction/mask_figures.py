"""Corpus figures of views given as per-event membership masks (framework strategies).

The general counterpart of the prefix-sum figures of :mod:`explorer.compaction.sweep`: a
view here is any set of events per session (the kept suffix, pinned SYSTEM events, a kept
preamble), so each metric is a grouped count over the masked events, exactly as
:func:`explorer.compaction.window.evaluate` counts them one session at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.corpus import Corpus, cost_figures, pair_order, turn_user_key
from explorer.compaction.log import CALL, RESULT
from explorer.compaction.strategies.decision import Decision


@dataclass
class _Groups:
    order: np.ndarray          # CALL/RESULT events with an id, by (session, call id), position
    starts: np.ndarray         # first element of each group in ``order``
    index: np.ndarray          # group number of each element of ``order``
    back_first: np.ndarray     # the same order reversed: where each group begins
    back_index: np.ndarray
    group_of: np.ndarray       # N: group number of each event (-1: none)
    user_order: np.ndarray | None
    user_starts: np.ndarray | None
    pair_order: np.ndarray | None    # events with user and turn, by (turn, user) hash
    pair_starts: np.ndarray | None
    pair_turn: np.ndarray | None     # turn key of each (turn, user) group


def _groups(c: Corpus) -> _Groups:
    if getattr(c, "_groups", None) is None:
        order = pair_order(c.call_key, c.has_id)
        keys = c.call_key[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(order) else order
        group_of = np.full(len(c.kind), -1, dtype=np.int64)
        group_of[order] = np.cumsum(np.r_[True, keys[1:] != keys[:-1]]) - 1 if len(order) else 0
        user_order = user_starts = pairs = pair_starts = pair_turn = None
        if c.user_key is not None:
            user_order, user_starts = _grouped(c.user_key)
        if c.turn_key is not None and c.user_key is not None:
            both = (c.turn_key != 0) & (c.user_key != 0)
            key = np.where(both, turn_user_key(c.turn_key, c.user_key), 0)
            pairs, pair_starts = _grouped(key)
            pair_turn = c.turn_key[pairs[pair_starts]]
        first = np.zeros(len(order), dtype=bool)
        first[starts] = True
        index = np.cumsum(first) - 1
        back_first = np.r_[True, index[::-1][1:] != index[::-1][:-1]] if len(order) else first
        c._groups = _Groups(order, starts, index, back_first, np.cumsum(back_first) - 1,
                            group_of, user_order, user_starts, pairs, pair_starts, pair_turn)
    return c._groups


def _grouped(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    idx = np.flatnonzero(key != 0)
    order = idx[np.argsort(key[idx], kind="stable")]
    k = key[order]
    return order, np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if len(order) else order


def figures(c: Corpus, decision: Decision, budget: int) -> dict:
    """The corpus figures of STRATEGIES.md for views given by any decision without
    placeholders (pinned SYSTEM events, a kept preamble, synthetic front items, a mask)."""
    mask = decision.in_view(c)
    sessions = len(c.start)
    cost = np.bincount(c.session, weights=np.where(mask, c.cost, 0), minlength=sessions)
    cost = cost.astype(np.int64) + decision.front_cost()
    content = np.bincount(c.session, weights=mask & c.content, minlength=sessions)
    gr = _groups(c)
    kind, kept = c.kind[gr.order], mask[gr.order]
    calls = ((kind == CALL) & kept).astype(np.int64)
    results = ((kind == RESULT) & kept).astype(np.int64)
    calls_before = _exclusive(calls, gr.starts, gr.index)
    results_after = _exclusive(results[::-1], gr.back_first, gr.back_index)[::-1]
    return {
        **cost_figures(cost, budget),
        "empty": int(np.count_nonzero(content == 0)),
        "orphan_results": int(np.count_nonzero((kind == RESULT) & kept & (calls_before == 0))),
        "orphan_calls": int(np.count_nonzero((kind == CALL) & kept & (results_after == 0))),
        "pair_splits": _pair_splits(c, decision, mask, gr, results),
        "partial_dropped": int(np.count_nonzero(decision.partial)),
        "fallback": int(np.count_nonzero(decision.fallback)) if decision.fallback is not None else 0,
        "repaired": int(decision.repaired(c).sum()),
        **_key_collapse(c, mask, gr, calls),
    }


def _exclusive(values: np.ndarray, first, index: np.ndarray) -> np.ndarray:
    """For each element, the sum of the values before it in its group (``first`` marks
    where groups begin, as indices or a mask; ``index`` numbers each element's group)."""
    if not len(values):
        return values
    before = np.cumsum(values) - values
    return before - before[first][index]


def _pair_splits(c: Corpus, decision: Decision, mask, gr: _Groups, results) -> int:
    """e[cut-1] is a CALL (with an id) not in view while a RESULT of its id is in view."""
    cut = decision.cut
    before = np.maximum(cut - 1, 0)
    candidate = (cut > c.start) & (c.kind[before] == CALL) & (gr.group_of[before] >= 0) & ~mask[before]
    if not candidate.any() or not len(gr.starts):
        return 0
    results_in_group = np.add.reduceat(results, gr.starts)
    return int(np.count_nonzero(candidate & (results_in_group[np.maximum(gr.group_of[before], 0)] > 0)))


def _key_collapse(c: Corpus, mask, gr: _Groups, calls) -> dict:
    """mixed_windows, window_turn_collisions, window_duplicate_call_ids (AUDITS.md)."""
    dup_ids = int(np.count_nonzero(np.add.reduceat(calls, gr.starts) > 1)) if len(gr.starts) else 0
    mixed = collisions = 0
    if gr.user_order is not None and len(gr.user_starts):
        seen = np.logical_or.reduceat(mask[gr.user_order], gr.user_starts)
        owner = c.session[gr.user_order[gr.user_starts]]
        mixed = int(np.count_nonzero(np.bincount(owner[seen], minlength=len(c.start)) > 1))
    if gr.pair_order is not None and len(gr.pair_starts):
        seen = np.logical_or.reduceat(mask[gr.pair_order], gr.pair_starts)
        _, per_turn = np.unique(gr.pair_turn[seen], return_counts=True)
        collisions = int(np.count_nonzero(per_turn > 1))
    return {"mixed_windows": mixed, "window_turn_collisions": collisions,
            "window_duplicate_call_ids": dup_ids}
