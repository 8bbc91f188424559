"""The framework strategies of STRATEGIES.md over the whole corpus at once (numpy).

The same decisions as :mod:`explorer.compaction.frameworks`, session by session there,
here as arrays indexed by session: the cut (a global index), the raw cut, whether nothing
happens, partial_dropped, the synthetic front cost, and spring-turns' kept preamble.
Budget-independent arrays (messages, users, suffixes of non-SYSTEM costs) are built once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction.corpus import Corpus, next_flagged
from explorer.compaction.log import RESULT, SUMMARY, SYSTEM, USER
from explorer.compaction.settings import CompactionSettings, Strategy


@dataclass
class Messages:
    """Per corpus: messages of the non-SYSTEM events and the arrays the strategies share."""

    body_suffix: np.ndarray    # N: cost of the non-SYSTEM events at g and after, in session
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


def messages(c: Corpus) -> Messages:
    """Build (once) the message arrays of the corpus."""
    if getattr(c, "_messages", None) is None:
        c._messages = _build(c)
    return c._messages


def _build(c: Corpus) -> Messages:
    n, sessions = len(c.kind), len(c.start)
    g = np.arange(n)
    body = c.kind != SYSTEM
    body_total = np.r_[0, np.cumsum(np.where(body, c.cost, 0))]
    body_suffix = body_total[c.ends[c.session]] - body_total[g]
    body_next = next_flagged(body, c.ends)
    first_body = np.where(c.sizes > 0, body_next[np.minimum(c.start, max(n - 1, 0))], c.ends)
    users = np.flatnonzero(c.kind == USER)
    user_count = np.bincount(c.session[users], minlength=sessions)
    # A message: consecutive non-SYSTEM events (SYSTEM set aside) sharing a non-null id.
    b = np.flatnonzero(body)
    bs, key, has = c.session[b], c.message_key[b], c.has_message[b]
    same = np.zeros(len(b), dtype=bool)
    same[1:] = (bs[1:] == bs[:-1]) & has[1:] & has[:-1] & (key[1:] == key[:-1])
    starts = b[~same]
    msg_no = np.full(n, -1, dtype=np.int64)
    msg_no[b] = np.cumsum(~same) - 1
    msg_count = np.bincount(c.session[starts], minlength=sessions)
    msg_off = np.r_[0, np.cumsum(msg_count)]
    m = len(starts)
    holds_user = np.bincount(msg_no[c.kind == USER], minlength=m) > 0
    holds_other = np.bincount(msg_no[body & (c.kind != RESULT)], minlength=m) > 0
    msg_session = c.session[starts]
    return Messages(
        body_suffix=body_suffix, body_next=body_next, first_body=first_body,
        user_pos=users, user_off=np.r_[0, np.cumsum(user_count)][:-1], user_count=user_count,
        starts=starts, msg_off=msg_off, msg_no=msg_no,
        run_end=_next_in_session(holds_other, msg_session, msg_off),
        user_message=_next_in_session(holds_user, msg_session, msg_off),
        n_system=np.bincount(c.session[~body], minlength=sessions))


def _next_in_session(flags, owner, off):
    """For each message, the first message at or after it in its session with the flag
    (the session's message count, as a global number, when there is none)."""
    m = len(flags)
    ends = off[1:][owner] if m else owner
    at = np.where(flags, np.arange(m), np.iinfo(np.int64).max)
    last = off[1:][off[1:] > off[:-1]] - 1
    at[last] = np.minimum(at[last], off[1:][off[1:] > off[:-1]])
    return np.minimum(np.minimum.accumulate(at[::-1])[::-1], ends) if m else at


def _at(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """values[index], clipped into range; zeros when ``values`` is empty (callers mask
    the positions where the index means "none")."""
    if not len(values):
        return np.zeros(np.shape(index), dtype=np.int64)
    return values[np.clip(index, 0, len(values) - 1)]


def _bound(c: Corpus, ms: Messages, message: np.ndarray) -> np.ndarray:
    """The first event of a global message number, or the session end past the last one."""
    sessions = np.arange(len(c.start))
    inside = message < ms.msg_off[1:]
    return np.where(inside, _at(ms.starts, message), c.ends[sessions])


def cuts(c: Corpus, strategy: Strategy, budget: int, settings: CompactionSettings) -> dict:
    """The decision of a framework strategy for every session (arrays by session)."""
    ms = messages(c)
    family, args = strategy.family, strategy.args
    count = np.diff(ms.msg_off)
    if family in ("spring-events", "spring-summary"):
        nothing = count <= args[0]
        raw = _bound(c, ms, ms.msg_off[:-1] + np.maximum(count - args[0], 0))
        out = _snapped(c, ms, raw, nothing, settings.keep_latest_turn)
        if family == "spring-summary":
            out["front"] = np.where(~nothing & (out["cut"] > ms.first_body), settings.summary_cost, 0)
        return out
    if family == "spring-tokens":
        over = ms.body_suffix > budget
        raw = c.start + (np.add.reduceat(over, c.start) if len(c.start) else 0)
        return _snapped(c, ms, raw, raw <= ms.first_body, settings.keep_latest_turn)
    if family == "spring-turns":
        nothing = ms.user_count <= args[0]
        pick = ms.user_off + np.maximum(ms.user_count - args[0], 0)
        cut = np.where(nothing, c.start, _at(ms.user_pos, pick))
        first_user = _at(ms.user_pos, ms.user_off)
        keep_preamble = np.where(~nothing & (ms.first_body < first_user), first_user, c.start)
        return _result(c, cut, cut, nothing) | {"preamble_end": keep_preamble}
    if family in ("agentscope", "agentscope-tokens"):
        if family == "agentscope":
            local = np.maximum(count - args[1], 0)
        else:
            # messages whose non-SYSTEM suffix is over B come first: count them per session
            over = np.r_[0, np.cumsum(ms.body_suffix[ms.starts] > budget)]
            fits = over[ms.msg_off[1:]] - over[ms.msg_off[:-1]]
            local = np.minimum(fits, np.maximum(count - 1, 0))
        return _agentscope(c, ms, count < args[0], ms.msg_off[:-1] + local, settings.summary_cost)
    if family == "memory-window":
        total = ms.n_system + count
        nothing = total <= args[0]
        evicted = ms.msg_off[:-1] + np.minimum(np.maximum(total - args[0], 0), count)
        raw = _bound(c, ms, evicted)
        if args[1] == "1.x":
            return _result(c, raw, raw, nothing)
        first_user_message = np.where(evicted < ms.msg_off[1:],
                                      _at(ms.user_message, evicted),
                                      ms.msg_off[1:])
        cut = _bound(c, ms, first_user_message)
        return _result(c, cut, raw, nothing) | {"partial": ~nothing & (cut > raw)}
    raise ValueError(f"{strategy.text!r} is not a framework strategy")


def recorded(c: Corpus) -> dict:
    """STRATEGIES.md "Recorded": the events not archived, where a session has archived
    ones; else from its latest SUMMARY on; else the whole session. SYSTEM is not pinned."""
    sessions = len(c.start)
    any_archived = np.bincount(c.session, weights=c.archived, minlength=sessions) > 0
    summaries = np.flatnonzero(c.kind == SUMMARY)
    latest = c.start.copy()
    np.maximum.at(latest, c.session[summaries], summaries)
    cut = np.where(any_archived, c.start, latest)
    out = _result(c, cut, cut, np.zeros(sessions, dtype=bool))
    out["mask"] = np.where(any_archived[c.session], ~c.archived, np.arange(len(c.kind)) >= cut[c.session])
    return out


def _result(c: Corpus, cut, raw, nothing) -> dict:
    """Arrays of one decision; "nothing happens" keeps the whole session (cut at its start)."""
    zeros = np.zeros(len(c.start), dtype=np.int64)
    return {"cut": np.where(nothing, c.start, cut), "raw": np.where(nothing, c.start, raw),
            "partial": np.zeros(len(c.start), dtype=bool), "front": zeros,
            "preamble_end": c.start.copy()}


def _snapped(c: Corpus, ms: Messages, raw, nothing, keep_latest_turn: bool) -> dict:
    """Snap forward (STRATEGIES.md) with the keep_latest_turn switch; see frameworks._snapped."""
    n = len(c.kind)
    safe = np.minimum(raw, max(n - 1, 0))
    k = np.where(raw < c.ends, ms.body_next[safe], c.ends)
    start = k
    inside = (k < c.ends)
    ks = np.minimum(k, max(n - 1, 0))
    move = inside & (c.kind[ks] != USER) & (k != ms.first_body)
    k = np.where(move, c.next_user[ks], k)
    if keep_latest_turn:
        latest = np.where(ms.user_count > 0,
                          _at(ms.user_pos, ms.user_off + ms.user_count - 1),
                          ms.first_body)
        k = np.where(k >= c.ends, latest, k)
    return _result(c, k, raw, nothing) | {"partial": ~nothing & (k > start)}


def _agentscope(c: Corpus, ms: Messages, nothing, m, summary_cost: int) -> dict:
    """The RESULT-only repair of the cut message, then nothing, or SUMMARY + suffix."""
    end_of_session = ms.msg_off[1:]
    inside = m < end_of_session
    run_end = np.where(inside, _at(ms.run_end, m), m)
    needs = ~nothing & inside & (run_end > m)
    final = m.copy()
    if needs.any():
        span_lo, span_hi = _bound(c, ms, m), _bound(c, ms, run_end)
        g = np.flatnonzero((c.kind == RESULT) & (c.prev_call >= 0))
        s = c.session[g]
        in_span = needs[s] & (g >= span_lo[s]) & (g < span_hi[s])
        g, s = g[in_span], s[in_span]
        back = np.full(len(m), -1, dtype=np.int64)
        np.maximum.at(back, s, ms.msg_no[c.prev_call[g]])
        final = np.where(needs, np.where(back >= 0, back, run_end), m)
    nothing = nothing | (final == ms.msg_off[:-1])
    cut = _bound(c, ms, final)
    out = _result(c, cut, _bound(c, ms, m), nothing)
    out["front"] = np.where(nothing, 0, summary_cost)
    return out
