"""Spring AI session strategies of STRATEGIES.md: spring-turns, spring-events, spring-tokens
and spring-summary. Every one pins the SYSTEM events."""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import USER
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies.decision import Argument, Decision, Family
from explorer.compaction.strategies.messages import Messages, at, bound, messages, pinned


def _snapped(c: Corpus, ms: Messages, raw, nothing, keep_latest_turn: bool) -> Decision:
    """The raw cut snapped forward, with the keep_latest_turn switch and partial_dropped.

    "Snap forward moves a cut that falls inside a turn (not on a USER event, and not on the
    first non-SYSTEM event) to the next USER event; when there is none the cut is n." A raw
    cut on a SYSTEM event is read as the first non-SYSTEM event at or after it: that SYSTEM
    event stays in view either way (pinned), so only non-SYSTEM events count as a dropped
    partial turn. With the switch on, "the cut becomes the latest USER event instead (the
    first non-SYSTEM event if there is none), keeping the latest turn whole".
    """
    last = max(len(c.kind) - 1, 0)
    k = start = np.where(raw < c.ends, ms.body_next[np.minimum(raw, last)], c.ends)
    ks = np.minimum(k, last)
    move = (k < c.ends) & (c.kind[ks] != USER) & (k != ms.first_body)
    k = np.where(move, c.next_user[ks], k)
    if keep_latest_turn:
        latest = np.where(ms.user_count > 0, at(ms.user_pos, ms.user_off + ms.user_count - 1),
                          ms.first_body)
        k = np.where(k >= c.ends, latest, k)
    return pinned(c, k, raw, nothing, k > start)


def spring_turns(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """The preamble (non-SYSTEM events before the first USER) and the last N turns."""
    ms, turns = messages(c), args[0]
    nothing = ms.user_count <= turns
    cut = at(ms.user_pos, ms.user_off + np.maximum(ms.user_count - turns, 0))
    decision = pinned(c, cut, cut, nothing)
    first_user = at(ms.user_pos, ms.user_off)
    decision.preamble_end = np.where(~nothing & (ms.first_body < first_user), first_user, c.start)
    return decision


def spring_events(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """The last N messages, from the first event of message count - N, snapped forward."""
    ms, count = messages(c), messages(c).count
    nothing = count <= args[0]
    raw = bound(c, ms, ms.msg_off[:-1] + np.maximum(count - args[0], 0))
    return _snapped(c, ms, raw, nothing, settings.keep_latest_turn)


def spring_tokens(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Newest non-SYSTEM events while their running sum fits B, snapped forward: the raw
    cut is after the events whose non-SYSTEM suffix is over B."""
    ms = messages(c)
    raw = ms.body_within(c, budget)
    return _snapped(c, ms, raw, raw <= ms.first_body, settings.keep_latest_turn)


def spring_summary(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """spring-events, plus USER (0) and SUMMARY after the pinned SYSTEM events when its
    final cut lies after the first non-SYSTEM event (also when the kept window is empty)."""
    decision = spring_events(c, args, budget, settings)
    decision.front = (("USER", 0), ("SUMMARY", settings.summary_cost))
    decision.fronted = decision.cut > messages(c).first_body
    return decision


_LATEST = ("keep_latest_turn",)
FAMILIES = (
    Family("spring-turns", "spring-turns:N", "Spring AI session, turn window: the last N turns.",
           spring_turns, (Argument("N", "N turns", "Turns kept.", 10),)),
    Family("spring-events", "spring-events:N", "Spring AI session, sliding window: the last N "
           "messages, snapped forward to a turn start.", spring_events,
           (Argument("N", "N messages", "Messages kept.", 20),), reads=_LATEST),
    Family("spring-tokens", "spring-tokens", "Spring AI session, token window: the newest "
           "events that fit the budget, snapped forward to a turn start.", spring_tokens,
           uses_budget=True, reads=_LATEST),
    Family("spring-summary", "spring-summary:N", "spring-events:N plus a synthetic summary.",
           spring_summary, (Argument("N", "N messages", "Messages kept after the summary.", 10),),
           reads=(*_LATEST, "summary_cost")),
)
