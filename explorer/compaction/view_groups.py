"""The groups of events the view metrics count over, built once per corpus: CALL/RESULT
events by (session, call id), events by user, and events by (logged turn, user).

A view's pairing and key-collapse metrics are then grouped counts of the events it holds
(:mod:`explorer.compaction.view_metrics`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.corpus import Corpus, pair_order, turn_user_key


@dataclass
class Groups:
    order: np.ndarray          # CALL/RESULT events with an id, by (session, call id), position
    starts: np.ndarray         # first element of each group in ``order``
    index: np.ndarray          # group number of each element of ``order``
    back_first: np.ndarray     # the same order reversed: where each group begins
    back_index: np.ndarray
    group_of: np.ndarray       # N: group number of each event (-1: none)
    group_session: np.ndarray  # session of each call-id group
    user_order: np.ndarray | None
    user_starts: np.ndarray | None
    pair_order: np.ndarray | None    # events with user and turn, by (turn, user) hash
    pair_starts: np.ndarray | None
    pair_turn: np.ndarray | None     # turn key of each (turn, user) group
    pair_session: np.ndarray | None  # session of each (turn, user) group


def groups(c: Corpus) -> Groups:
    """Build (once, kept on the corpus) the groups of ``c``."""
    if getattr(c, "_groups", None) is None:
        c._groups = _build(c)
    return c._groups


def _build(c: Corpus) -> Groups:
    # one session: its own grouping by call id is the corpus's (0.45 s for 3M events)
    order = c.call_order if len(c.sizes) == 1 else pair_order(c.call_key, c.has_id)
    keys = c.call_key[order]
    first = np.r_[True, keys[1:] != keys[:-1]] if len(order) else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(first)
    index = np.cumsum(first, dtype=np.int32) - 1   # group numbers fit in 32 bits (Corpus)
    group_of = np.full(len(c.kind), -1, dtype=np.int32)
    group_of[order] = index
    user_order = user_starts = pairs = pair_starts = pair_turn = pair_session = None
    if c.user_key is not None:
        user_order, user_starts = _grouped(c.user_key)
    if c.turn_key is not None and c.user_key is not None:
        both = (c.turn_key != 0) & (c.user_key != 0)
        key = np.where(both, turn_user_key(c.turn_key, c.user_key), 0)
        pairs, pair_starts = _grouped(key)
        pair_turn = c.turn_key[pairs[pair_starts]]
        pair_session = c.session[pairs[pair_starts]]
    back_first = np.r_[True, index[::-1][1:] != index[::-1][:-1]] if len(order) else first
    back_index = np.cumsum(back_first, dtype=np.int32) - 1
    return Groups(order, starts, index, back_first, back_index, group_of,
                  c.session[order[starts]], user_order, user_starts, pairs, pair_starts,
                  pair_turn, pair_session)


def _grouped(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    idx = np.flatnonzero(key != 0)
    order = idx[np.argsort(key[idx], kind="stable")]
    k = key[order]
    return order, np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if len(order) else order
