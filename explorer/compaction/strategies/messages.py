"""The arrays the framework strategies share, built once per corpus (STRATEGIES.md
"messages"), and the small look-ups their decisions are written with."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import RESULT, SYSTEM, USER
from explorer.compaction.positions import next_flagged
from explorer.compaction.strategies.decision import Decision


@dataclass
class Messages:
    """Per corpus: messages of the non-SYSTEM events and the arrays the strategies share."""

    body_total: np.ndarray     # N + 1: cost of the non-SYSTEM events before g (the
                               # corpus's prefix costs when it has no SYSTEM event: shared)
    body_next: np.ndarray      # N: first non-SYSTEM index >= g in its session (session end)
    first_body: np.ndarray     # S: first non-SYSTEM index of each session (end: none)
    user_pos: np.ndarray       # all USER positions; per session from user_off, user_count
    user_off: np.ndarray
    user_count: np.ndarray
    starts: np.ndarray         # first event of each message (all sessions, in order)
    msg_off: np.ndarray        # S + 1: first message of each session
    msg_no: np.ndarray         # N: global message number of each non-SYSTEM event (-1)
    run_end: np.ndarray        # M: first message >= m (same session) not only RESULTs
    user_message: np.ndarray   # M: first message >= m (same session) holding a USER
    n_system: np.ndarray       # S

    @property
    def count(self) -> np.ndarray:
        """S: the number of messages of each session."""
        return np.diff(self.msg_off)

    def body_suffix_at(self, c: Corpus, g: np.ndarray) -> np.ndarray:
        """The cost of the non-SYSTEM events at each of ``g`` and after, in its session."""
        return self.body_total[c.ends[c.session[g]]] - self.body_total[g]

    def body_within(self, c: Corpus, budget: int) -> np.ndarray:
        """S: per session, the first g whose non-SYSTEM suffix is at most ``budget`` (its
        end when none is): the events over it come first, as the costs are >= 0 (a search
        per session instead of a pass over every event, and no suffix per event kept)."""
        t = self.body_total
        return np.clip(np.searchsorted(t, t[c.ends] - budget, side="left"), c.start, c.ends)


def messages(c: Corpus) -> Messages:
    """Build (once) the message arrays of the corpus."""
    if getattr(c, "_messages", None) is None:
        c._messages = _build(c)
    return c._messages


def _build(c: Corpus) -> Messages:
    n, sessions = len(c.kind), len(c.start)
    body = c.kind != SYSTEM
    body_total = c.total if body.all() else np.r_[
        0, np.cumsum(np.where(body, c.cost, 0), dtype=np.int64)]
    body_next = next_flagged(body, c.ends, np.int32)   # positions fit in 32 bits (Corpus)
    first_body = np.where(c.sizes > 0, body_next[np.minimum(c.start, max(n - 1, 0))], c.ends)
    users = np.flatnonzero(c.kind == USER)
    user_count = np.bincount(c.session[users], minlength=sessions)
    # A message: consecutive non-SYSTEM events (SYSTEM set aside) sharing a non-null id.
    b = np.flatnonzero(body)
    bs, key, has = c.session[b], c.message_key[b], c.has_message[b]
    same = np.zeros(len(b), dtype=bool)
    same[1:] = (bs[1:] == bs[:-1]) & has[1:] & has[:-1] & (key[1:] == key[:-1])
    starts = b[~same].astype(np.int32)
    msg_no = np.full(n, -1, dtype=np.int32)
    msg_no[b] = np.cumsum(~same, dtype=np.int32) - 1
    msg_count = np.bincount(c.session[starts], minlength=sessions)
    msg_off = np.r_[0, np.cumsum(msg_count)]
    m = len(starts)
    holds_user = np.bincount(msg_no[c.kind == USER], minlength=m) > 0
    holds_other = np.bincount(msg_no[body & (c.kind != RESULT)], minlength=m) > 0
    # For each message, the first message at or after it in its session with the flag
    # (the session's message count, as a global number, when there is none).
    return Messages(
        body_total=body_total, body_next=body_next, first_body=first_body,
        user_pos=users, user_off=np.r_[0, np.cumsum(user_count)][:-1], user_count=user_count,
        starts=starts, msg_off=msg_off, msg_no=msg_no,
        run_end=next_flagged(holds_other, msg_off[1:], np.int32),
        user_message=next_flagged(holds_user, msg_off[1:], np.int32),
        n_system=np.bincount(c.session[~body], minlength=sessions))


def at(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[index], clipped into range; zeros when ``values`` is empty (callers mask
    the positions where the index means "none")."""
    if not len(values):
        return np.zeros(np.shape(index), dtype=np.int64)
    return values[np.clip(index, 0, len(values) - 1)]


def bound(c: Corpus, ms: Messages, message: np.ndarray) -> np.ndarray:
    """The first event of a global message number, or the session end past the last one."""
    inside = message < ms.msg_off[1:]
    return np.where(inside, at(ms.starts, message), c.ends)


def pinned(c: Corpus, cut, raw, nothing, partial=None) -> Decision:
    """A decision that pins the SYSTEM events; "nothing happens" keeps the whole session
    (cut at its start) and drops no partial turn."""
    partial = np.zeros(len(c.start), dtype=bool) if partial is None else ~nothing & partial
    return Decision(np.where(nothing, c.start, cut), np.where(nothing, c.start, raw), partial,
                    pinned=True)
