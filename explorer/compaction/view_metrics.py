"""The metrics of STRATEGIES.md ("Metrics of one view", the key-collapse counts of AUDITS.md)
of every view of a corpus decision, by session, and the corpus figures that sum them.

:func:`measure` is the definition: each metric a grouped count over the events a view
holds (any decision: pinned SYSTEM events, a kept preamble, synthetic items, a mask,
placeholders). One session's metrics are its values for a one-session corpus
(:func:`explorer.compaction.strategies.one_session.metrics_of`), the sweep's figures their
sums (:func:`figures`). :func:`measure_suffix` gives the same values by prefix sums when
every view is a suffix (M0-M4), the sweep's fast path; tests compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.corpus import Corpus, cost_figures
from explorer.compaction.log import CALL, RESULT
from explorer.compaction.positions import position_type
from explorer.compaction.strategies.decision import Decision
from explorer.compaction.view_groups import Groups, groups

#: The per-session metrics that the corpus figures sum (figure name -> ViewMetrics field).
SUMMED = {"empty": "empty", "orphan_results": "orphan_results", "orphan_calls": "orphan_calls",
          "pair_splits": "pair_split", "partial_dropped": "partial_dropped",
          "fallback": "fallback", "repaired": "repaired", "mixed_windows": "mixed_windows",
          "window_turn_collisions": "window_turn_collisions",
          "window_duplicate_call_ids": "window_duplicate_call_ids"}


@dataclass
class ViewMetrics:
    """The metrics of every view of one decision: arrays by session (S), and which events
    in view are orphans (N; only :func:`measure` fills them)."""

    cost: np.ndarray                       # synthetic and pinned items included
    empty: np.ndarray                      # no USER, ASSISTANT, CALL or RESULT of the log
    orphan_results: np.ndarray
    orphan_calls: np.ndarray
    pair_split: np.ndarray
    partial_dropped: np.ndarray
    fallback: np.ndarray
    repaired: np.ndarray
    mixed_windows: np.ndarray
    window_turn_collisions: np.ndarray
    window_duplicate_call_ids: np.ndarray
    orphan_result: np.ndarray | None = None  # N: RESULTs with no CALL of the id earlier in view
    orphan_call: np.ndarray | None = None    # N: CALLs with no RESULT/placeholder later in view

    def session(self, s: int, budget: int) -> dict:
        """The metrics of session ``s``'s view as ``turnscope view`` prints them."""
        cost = int(self.cost[s])
        return {"cost": cost, "over": cost > budget, "empty": bool(self.empty[s]),
                "orphan_results": int(self.orphan_results[s]),
                "orphan_calls": int(self.orphan_calls[s]),
                "pair_split": bool(self.pair_split[s]),
                "partial_dropped": bool(self.partial_dropped[s]),
                "fallback": bool(self.fallback[s]), "repaired": int(self.repaired[s])}


def figures(m: ViewMetrics, budget: int) -> dict:
    """The corpus figures of STRATEGIES.md: cost figures, and sums over sessions."""
    return {**cost_figures(m.cost, budget),
            **{name: int(getattr(m, f).sum()) for name, f in SUMMED.items()}}


def measured(c: Corpus, d: Decision, placeholder_cost: int) -> ViewMetrics:
    """:func:`measure_suffix` where every view is a suffix, else :func:`measure`."""
    return measure_suffix(c, d, placeholder_cost) if d.suffix_only else measure(c, d, placeholder_cost)


def _flags(c: Corpus, d: Decision) -> dict:
    """The metrics the decision states itself."""
    fallback = d.fallback if d.fallback is not None else np.zeros(len(c.start), dtype=bool)
    return {"partial_dropped": np.asarray(d.partial, dtype=bool),
            "fallback": np.asarray(fallback, dtype=bool),
            "repaired": np.asarray(d.repaired(c), dtype=np.int64)}


def _per_session(c: Corpus, events: np.ndarray) -> np.ndarray:
    """How many of the given global positions each session holds."""
    return np.bincount(c.session[events], minlength=len(c.start)).astype(np.int64)


def measure(c: Corpus, d: Decision, placeholder_cost: int) -> ViewMetrics:
    """The metrics of every view of ``d``, counted over the events each view holds."""
    mask = d.in_view(c)
    sessions = len(c.start)
    placeholders = d.placeholders(c)
    answered = d.placeheld(c)  # a placeholder answers its CALL
    # summed over the events in view only (a view is most often a small part of its session)
    cost = np.bincount(c.session[mask], weights=c.cost[mask], minlength=sessions)
    cost = cost.astype(np.int64) + d.front_cost() + placeholder_cost * placeholders
    gr = groups(c)
    kind, kept = c.kind[gr.order], mask[gr.order]
    # counts within a call id's group, in 32 bits (a corpus under 2**31 events): a session
    # of 3M events measured each view 40 MB lower
    count = position_type(len(c.kind))
    calls = ((kind == CALL) & kept).astype(count)
    results = ((kind == RESULT) & kept).astype(count)
    calls_before = _exclusive(calls, gr.starts, gr.index)
    results_after = _exclusive(results[::-1], gr.back_first, gr.back_index)[::-1]
    orphan_result = np.zeros(len(c.kind), dtype=bool)
    orphan_call = np.zeros(len(c.kind), dtype=bool)
    orphan_result[gr.order] = (kind == RESULT) & kept & (calls_before == 0)
    orphan_call[gr.order] = (kind == CALL) & kept & (results_after == 0) & ~answered[gr.order]
    return ViewMetrics(
        cost=cost, empty=_per_session(c, np.flatnonzero(mask & c.content)) == 0,
        orphan_results=_per_session(c, np.flatnonzero(orphan_result)),
        orphan_calls=_per_session(c, np.flatnonzero(orphan_call)),
        pair_split=_pair_split(c, d.cut, mask, gr, results),
        **_flags(c, d), **_key_collapse(c, mask, gr, calls),
        orphan_result=orphan_result, orphan_call=orphan_call)


def _exclusive(values: np.ndarray, first, index: np.ndarray) -> np.ndarray:
    """For each element, the sum of the values before it in its group (``first`` marks
    where groups begin, as indices or a mask; ``index`` numbers each element's group)."""
    if not len(values):
        return values
    before = np.cumsum(values, dtype=values.dtype) - values   # in the values' own type
    return before - before[first][index]


def _pair_split(c: Corpus, cut: np.ndarray, mask, gr: Groups, results) -> np.ndarray:
    """e[cut-1] is a CALL (with an id) not in view while a RESULT of its id is in view."""
    before = np.maximum(cut - 1, 0)
    candidate = (cut > c.start) & (c.kind[before] == CALL) & (gr.group_of[before] >= 0) & ~mask[before]
    if not candidate.any() or not len(gr.starts):
        return np.zeros(len(cut), dtype=bool)
    results_in_group = np.add.reduceat(results, gr.starts)
    return candidate & (results_in_group[np.maximum(gr.group_of[before], 0)] > 0)


def _key_collapse(c: Corpus, mask, gr: Groups, calls) -> dict:
    """Per session: mixed_windows (two users in view), window_turn_collisions (logged turns
    with two users in view), window_duplicate_call_ids (ids of two CALLs in view)."""
    sessions = len(c.start)
    dup_ids = mixed = collisions = np.zeros(sessions, dtype=np.int64)
    if len(gr.starts):
        dup_ids = _per_group(np.add.reduceat(calls, gr.starts) > 1, gr.group_session, sessions)
    if gr.user_order is not None and len(gr.user_starts):
        seen = np.logical_or.reduceat(mask[gr.user_order], gr.user_starts)
        owner = c.session[gr.user_order[gr.user_starts]]
        mixed = (np.bincount(owner[seen], minlength=sessions) > 1).astype(np.int64)
    if gr.pair_order is not None and len(gr.pair_starts):
        seen = np.logical_or.reduceat(mask[gr.pair_order], gr.pair_starts)
        _, first, per_turn = np.unique(gr.pair_turn[seen], return_index=True, return_counts=True)
        collisions = _per_group(per_turn > 1, gr.pair_session[seen][first], sessions)
    return {"mixed_windows": mixed, "window_turn_collisions": collisions,
            "window_duplicate_call_ids": dup_ids}


def _per_group(flag: np.ndarray, session: np.ndarray, sessions: int) -> np.ndarray:
    """Per session, how many of its groups (``session`` of each) are flagged."""
    return np.bincount(session[flag], minlength=sessions).astype(np.int64)


def measure_suffix(c: Corpus, d: Decision, placeholder_cost: int) -> ViewMetrics:
    """:func:`measure` of a decision whose views are suffixes from the cut (and M2's
    placeholders), by prefix sums and the positions of :class:`Corpus`: O(sessions) a
    decision, not O(events). No per-event orphans."""
    if not d.suffix_only:
        raise ValueError("measure_suffix takes a decision whose views are suffixes")
    k, ends, start, sessions = d.cut, c.ends, c.start, len(c.start)
    placeholders = d.placeholders(c)
    cost = c.total[ends] - c.total[k] + d.front_cost() + placeholder_cost * placeholders
    res_g, res_session, res_prev = c.results
    ks = k[res_session]
    before = np.maximum(k - 1, 0)
    dup_session, dup_pos = c.dup_ids
    turn_session, turn_pos = c.turn_groups
    return ViewMetrics(
        cost=cost.astype(np.int64),
        empty=c.content_prefix[ends] - c.content_prefix[k] == 0,
        orphan_results=_per_group((res_g >= ks) & (res_prev < ks), res_session, sessions),
        orphan_calls=(c.dangling_prefix[ends] - c.dangling_prefix[k] - placeholders).astype(np.int64),
        pair_split=(k > start) & (c.kind[before] == CALL) & c.has_id[before] & (c.next_result[before] >= k),
        **_flags(c, d),
        mixed_windows=(c.mixed >= k).astype(np.int64),
        window_turn_collisions=_per_group(turn_pos >= k[turn_session], turn_session, sessions),
        window_duplicate_call_ids=_per_group(dup_pos >= k[dup_session], dup_session, sessions))
