"""One session's decision and its metrics, read off those of a one-session corpus.

The corpus built from a :class:`SessionLog` does not depend on the budget, so it is made
once per log and kept on it; a budget change redoes only the (whole-array) decision and
the metrics of :mod:`explorer.compaction.view_metrics` (session 0's values).
"""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import CALL, RESULT, SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.view_metrics import measure
from explorer.compaction.window import Window


def corpus_of(log: SessionLog) -> Corpus:
    """The session as a corpus of one (built on the first decision, then kept on ``log``)."""
    cached = log.__dict__.get("_one_session")
    if cached is None:
        cached = log.__dict__["_one_session"] = _build(log)
    return cached


def _key(codes: np.ndarray, present: np.ndarray, dtype=np.uint64) -> np.ndarray:
    """Codes as the corpus's keys: 0 where absent, code + 1 elsewhere. The user and turn
    keys are hashed together (corpus.turn_user_key: 64 bits); the call and message keys
    are only compared, and keep the codes' 32 bits (a session of 3M events: 23 MB less)."""
    return np.where(present, codes + 1, 0).astype(dtype, copy=False)


def _build(log: SessionLog) -> Corpus:
    n = log.n
    has_id = (log.call >= 0) & ((log.kind == CALL) | (log.kind == RESULT))
    has_user = log.user >= 0
    has_turn = has_user & (log.turn >= 0)
    return Corpus(
        # every event in session 0: one zero read n times (read-only, no memory)
        offsets=np.array([0, n], dtype=np.int64),
        session=np.broadcast_to(np.zeros(1, dtype=np.int32), (n,)),
        # the log pairs exactly the events with has_id (-1 elsewhere): its arrays, shared
        kind=log.kind, cost=log.cost, has_id=has_id,
        prev_call=log.prev_call, next_result=log.next_result,
        user_key=_key(log.user, has_user) if has_user.any() else None,
        turn_key=_key(log.turn, has_turn) if has_turn.any() else None,
        call_key=_key(log.call, has_id, log.call.dtype),
        message_key=_key(log.message, log.message >= 0, log.message.dtype),
        has_message=log.message >= 0, archived=log.archived,
        eid=log.eid if log.eid is not None else np.arange(n),
        # the log's grouping of the call ids and its turns, shared
        call_order=log.call_order, turn_start=_int32(log.turn_start),
        next_user=_int32(log.next_user), total=log.prefix)


def _int32(positions: np.ndarray) -> np.ndarray | None:
    """The log's positions where they are the corpus's (32 bits), else None (made again)."""
    return positions if positions.dtype == np.int32 else None


def window_of(log: SessionLog, decide, args: tuple, budget: int,
              settings: CompactionSettings) -> Window:
    """The :class:`Window` of session 0 in ``decide``'s decision for the one-session corpus."""
    c = corpus_of(log)
    d = decide(c, args, budget, settings)
    cut = int(d.cut[0])
    mask = d.mask
    if mask is None and d.preamble_end is not None and d.preamble_end[0] > 0:
        mask = d.in_view(c)   # a kept preamble is not a suffix: say so with a mask
    placeholders: tuple[int, ...] = ()
    if d.placeholder_end is not None:
        placeholders = tuple(np.flatnonzero(d.placeheld(c)).tolist())
    heads = int(d.heads[0]) if d.heads is not None else 0
    return Window(cut, raw_cut=int(d.raw[0]), pinned=d.pinned, mask=mask,
                  placeholders=placeholders,
                  front=d.front if d.fronted is not None and d.fronted[0] else (),
                  fallback=bool(d.fallback[0]) if d.fallback is not None else False,
                  partial_dropped=bool(d.partial[0]), repaired=heads + len(placeholders),
                  decision=d)


def metrics_of(log: SessionLog, w: Window, budget: int,
               placeholder_cost: int) -> tuple[dict, np.ndarray, np.ndarray]:
    """The metrics of the view of ``w`` (a Window of :func:`window_of`): the values of the
    corpus metrics for the one-session corpus, and which events in view are orphan results
    and orphan calls."""
    if w.decision is None:
        raise ValueError("the window was not read off a corpus decision (window_of)")
    m = measure(corpus_of(log), w.decision, placeholder_cost)
    return m.session(0, budget), m.orphan_result, m.orphan_call
