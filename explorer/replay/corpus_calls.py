"""The corpus as a replay reads it, for ``sweep --trigger``: every model call's position,
the prefix counts a trigger reads, and where each window of memory has its first orphan.

Built once per corpus from the flat columns of :class:`~explorer.compaction.corpus.Corpus`
(global positions g). Under M0 and M1 a memory is always one stretch ``[m, h)`` of its
session (both views are suffixes, and neither writes synthetic items), so a call's
request and its figures are read off these arrays:

- cost ``total[h] - total[m]``; turns and messages by prefix counts;
- an orphan RESULT in ``[m, h)`` exists iff ``first_orphan_result[m] < h``: the first RESULT
  at or after m whose nearest earlier CALL of its id is before m (or absent);
- an orphan CALL exists iff ``last_open_call[h] >= m``: the latest CALL before h whose
  nearest later RESULT is at h or later (or absent).
The two are interval stabbing queries, answered by writing each call's interval out; a
CALL and its RESULT are close in real and generated logs, so that stays near O(events).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import ASSISTANT, CALL, OTHER, RESULT, SYSTEM, USER
from explorer.compaction.positions import next_flagged

BIG = np.iinfo(np.int64).max


@dataclass
class CorpusCalls:
    position: np.ndarray          # the event each call is made before (global, ascending)
    session: np.ndarray           # the session of each call
    number: np.ndarray            # the call's index j in its session
    turn_prefix: np.ndarray       # N + 1: turn-opening USERs a turn trigger counts before g
    message_prefix: np.ndarray    # N + 1: message starts (items other than SYSTEM/OTHER)
    message_start: np.ndarray     # N: the body event starts a message
    next_body: np.ndarray         # N: the first event other than SYSTEM/OTHER at or after g
    first_orphan_result: np.ndarray  # N
    last_open_call: np.ndarray       # N


def corpus_calls(c: Corpus, uncounted_users: np.ndarray) -> CorpusCalls:
    """The calls of every session of ``c``; ``uncounted_users``: N, the USER events a turn
    trigger leaves out (synthetic, on a branch)."""
    n = len(c.kind)
    body_flag = (c.kind != SYSTEM) & (c.kind != OTHER)
    body = np.flatnonzero(body_flag)
    k = c.kind[body]
    speaks = (k == ASSISTANT) | (k == CALL)
    prev = np.r_[-1, body[:-1]]
    same_session = np.r_[False, c.session[body[1:]] == c.session[body[:-1]]]
    key = np.where(c.has_message[body], c.message_key[body], 0)
    prev_key = np.r_[0, key[:-1]]
    prev_has = np.r_[False, c.has_message[body][:-1]]
    prev_speaks = np.r_[False, speaks[:-1]] & same_session
    new_call = speaks & (~prev_speaks | (prev_has & (prev_key != key)))
    del prev
    position = body[new_call].astype(np.int64)
    session = c.session[position].astype(np.int64)
    first = np.searchsorted(position, c.start)
    number = np.arange(len(position)) - first[session]
    continues = same_session & prev_has & c.has_message[body] & (prev_key == key)
    message_start = np.zeros(n, dtype=bool)
    message_start[body[~continues]] = True
    opens = (c.kind == USER) & ~uncounted_users
    return CorpusCalls(
        position, session, number,
        np.r_[0, np.cumsum(opens, dtype=np.int64)],
        np.r_[0, np.cumsum(message_start, dtype=np.int64)], message_start,
        next_flagged(body_flag, c.ends).astype(np.int64),
        _first_orphan_result(c), _last_open_call(c))


def spans(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position of the spans [lo, hi), and the span each comes from."""
    lengths = np.maximum(hi - lo, 0)
    owner = np.repeat(np.arange(len(lo)), lengths)
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return lo[owner] + offset, owner


def _first_orphan_result(c: Corpus) -> np.ndarray:
    """For each window start g: the first RESULT r >= g of the session with no CALL of its
    id in [g, r) (BIG: none). A RESULT with an earlier CALL p is such for g in (p, r]."""
    n = len(c.kind)
    result = (c.kind == RESULT) & c.has_id
    never = result & (c.prev_call < 0)
    out = next_flagged(never, c.ends).astype(np.int64)
    out[out >= np.repeat(c.ends, c.sizes)] = BIG
    paired = np.flatnonzero(result & (c.prev_call >= 0))
    pos, owner = spans(c.prev_call[paired].astype(np.int64) + 1, paired + 1)
    spanned = np.full(n, BIG, dtype=np.int64)
    np.minimum.at(spanned, pos, paired[owner])
    return np.minimum(out, spanned)


def _last_open_call(c: Corpus) -> np.ndarray:
    """For each call position h: the latest CALL c < h of the session whose nearest later
    RESULT is at h or later, or absent (-1: none). A CALL answered at r is such for h in
    (c, r]; an unanswered one for every later h of its session."""
    n = len(c.kind)
    call = (c.kind == CALL) & c.has_id
    never = call & (c.next_result < 0)
    last = np.where(never, np.arange(n), -1)
    np.maximum.accumulate(last, out=last)
    out = np.r_[-1, last[:-1]].astype(np.int64)
    out[out < np.repeat(c.start, c.sizes)] = -1
    answered = np.flatnonzero(call & (c.next_result >= 0))
    pos, owner = spans(answered + 1, c.next_result[answered].astype(np.int64) + 1)
    spanned = np.full(n, -1, dtype=np.int64)
    np.maximum.at(spanned, pos, answered[owner])
    return np.maximum(out, spanned)
