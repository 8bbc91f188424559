"""Every strategy of STRATEGIES.md decided one session at a time, in plain per-session code:
the oracle the registered corpus decisions (explorer/compaction/strategies) are compared
against. It was the app's own per-session implementation until the corpus form, run on a
one-session corpus, proved fast enough for the slider (benchmarks/bench_corpus_decision.py).

The framework strategies pin the SYSTEM events. What does not depend on the budget (suffix costs of the
non-SYSTEM events, per-message flags) is derived once per log and cached on it, so a budget
change redoes only a search and a few look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from explorer.compaction.log import CALL, RESULT, SUMMARY, USER, SessionLog
from explorer.compaction.positions import next_flagged
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.window import Window


@dataclass(frozen=True)
class _Derived:
    """Budget-independent arrays the framework strategies share (messages: STRATEGIES.md)."""

    body_suffix: np.ndarray   # n + 1: cost of the non-SYSTEM events at index >= k
    body_next: np.ndarray     # n + 1: smallest non-SYSTEM index >= k (n: none)
    users: np.ndarray         # indices of the USER events
    bounds: np.ndarray        # count + 1: first event of each message, then n
    message_suffix: np.ndarray  # count + 1: body_suffix at each message's first event
    run_end: np.ndarray       # count + 1: first message >= m not holding only RESULTs
    user_message: np.ndarray  # count + 1: first message >= m holding a USER event
    n_system: int

    @property
    def first_body(self) -> int:
        """Index of the first non-SYSTEM event (n when there is none)."""
        return int(self.body_next[0])

    @property
    def count(self) -> int:
        """Number of messages of the non-SYSTEM events."""
        return len(self.bounds) - 1


def _next_true(flags: np.ndarray) -> np.ndarray:
    """For each position m (and one past the end), the first position >= m where flags holds."""
    size = len(flags)
    return np.r_[next_flagged(flags, np.array([size])), size].astype(np.int64)


def _derived(log: SessionLog) -> _Derived:
    """The arrays of :class:`_Derived`, built on the first framework view of ``log``."""
    cached = log.__dict__.get("_framework_arrays")
    if cached is None:
        cached = log.__dict__["_framework_arrays"] = _build(log)
    return cached


def _build(log: SessionLog) -> _Derived:
    body = ~log.is_system
    body_cost = np.where(body, log.cost, 0)
    count = len(log.message_start)
    number, kind = log.message_no[body], log.kind[body]
    holds_user = np.bincount(number[kind == USER], minlength=count) > 0
    holds_other = np.bincount(number[kind != RESULT], minlength=count) > 0
    body_suffix = np.r_[np.cumsum(body_cost[::-1])[::-1], 0].astype(np.int64)
    bounds = np.r_[log.message_start, log.n].astype(np.int64)
    return _Derived(
        body_suffix=body_suffix,
        body_next=_next_true(body),
        users=np.flatnonzero(log.kind == USER),
        bounds=bounds,
        message_suffix=body_suffix[bounds],
        run_end=_next_true(holds_other),
        user_message=_next_true(holds_user),
        n_system=int(log.is_system.sum()),
    )


def _nothing() -> Window:
    """Nothing happens: the whole log is the view."""
    return Window(0, raw_cut=0, pinned=True)


# -- Spring AI session ------------------------------------------------------------------------
def _snapped(log: SessionLog, d: _Derived, raw: int, keep_latest_turn: bool) -> Window:
    """The raw cut snapped forward, with the keep_latest_turn switch and partial_dropped.

    "Snap forward moves a cut that falls inside a turn (not on a USER event, and not on the
    first non-SYSTEM event) to the next USER event; when there is none the cut is n." A raw cut
    on a SYSTEM event is read as the first non-SYSTEM event at or after it: that SYSTEM event
    stays in view either way (pinned), so only non-SYSTEM events count as a dropped partial turn.
    """
    k = start = int(d.body_next[raw])
    if k < log.n and log.kind[k] != USER and k != d.first_body:
        k = int(log.next_user[k])
    if k == log.n and keep_latest_turn:
        # "the cut becomes the latest USER event instead (the first non-SYSTEM event if
        # there is none), keeping the latest turn whole even over the limit"
        k = int(d.users[-1]) if len(d.users) else d.first_body
    return Window(k, raw_cut=raw, pinned=True, partial_dropped=k > start)


def spring_turns(log: SessionLog, turns: int) -> Window:
    """The preamble (non-SYSTEM events before the first USER) and the last ``turns`` turns."""
    d = _derived(log)
    if len(d.users) <= turns:
        return _nothing()
    cut, first_user = int(d.users[-turns]), int(d.users[0])
    mask = None
    if d.first_body < first_user:  # a kept preamble is not a suffix: say so with a mask
        index = np.arange(log.n)
        mask = (index >= cut) | (index < first_user) | log.is_system
    return Window(cut, raw_cut=cut, pinned=True, mask=mask)


def spring_events(log: SessionLog, messages: int, keep_latest_turn: bool) -> Window:
    """The last ``messages`` messages, from the first event of message count - N, snapped."""
    d = _derived(log)
    if d.count <= messages:
        return _nothing()
    return _snapped(log, d, int(d.bounds[d.count - messages]), keep_latest_turn)


def spring_tokens(log: SessionLog, budget: int, keep_latest_turn: bool) -> Window:
    """Newest non-SYSTEM events while their running sum fits B, snapped forward.

    The first event from the newest back that does not fit is the largest j with
    body_suffix[j] > B, so the raw cut j + 1 is the smallest k with body_suffix[k] <= B.
    """
    d = _derived(log)
    raw = int(np.searchsorted(-d.body_suffix, -budget, side="left"))
    if raw <= d.first_body:  # every non-SYSTEM event fits
        return _nothing()
    return _snapped(log, d, raw, keep_latest_turn)


def spring_summary(log: SessionLog, messages: int, settings: CompactionSettings) -> Window:
    """spring-events, plus USER (0) and SUMMARY after the pinned SYSTEM events when it cut."""
    w = spring_events(log, messages, settings.keep_latest_turn)
    # "when its final cut lies after the first non-SYSTEM event (also when the kept window
    # is empty)": a cut at n is after it too.
    if w.cut > _derived(log).first_body:
        w = replace(w, front=(("USER", 0), ("SUMMARY", settings.summary_cost)))
    return w


# -- AgentScope -------------------------------------------------------------------------------
def _repaired_message(log: SessionLog, d: _Derived, m: int) -> int:
    """The cut message after the RESULT-only repair of STRATEGIES.md.

    "If the message at the cut holds only RESULTs, take the call ids of the run of such
    messages starting there and move the cut back to the nearest (latest) earlier message
    holding a CALL with one of those ids, or, when there is none, forward past that run."
    The run holds no CALL, so each RESULT's nearest earlier CALL of its id (prev_call) lies
    before the run; the latest of their messages is the one to move back to.
    """
    end = int(d.run_end[m])
    if m >= d.count or end == m:
        return m
    span = np.arange(d.bounds[m], d.bounds[end])
    calls = log.prev_call[span[log.kind[span] == RESULT]]
    calls = calls[calls >= 0]
    return int(log.message_no[calls].max()) if len(calls) else end


def _agentscope_window(log: SessionLog, d: _Derived, m: int, summary_cost: int) -> Window:
    """From the message at the raw cut: repair, then nothing or SUMMARY + suffix (no turns)."""
    final = _repaired_message(log, d, m)
    if final == 0:  # "If the final cut is at the first message, nothing happens."
        return _nothing()
    # final == count: the cut moved past the last message; bounds[count] = n.
    return Window(int(d.bounds[final]), raw_cut=int(d.bounds[m]), pinned=True,
                  front=(("SUMMARY", summary_cost),))


def agentscope(log: SessionLog, threshold: int, keep: int, summary_cost: int) -> Window:
    """Message mode: from T messages on, the cut is before the last K messages."""
    d = _derived(log)
    if d.count < threshold:
        return _nothing()
    # With K >= count the cut "before the last K messages" is before the first message.
    return _agentscope_window(log, d, max(d.count - keep, 0), summary_cost)


def agentscope_tokens(log: SessionLog, threshold: int, budget: int, summary_cost: int) -> Window:
    """Token mode: the earliest message whose non-SYSTEM suffix fits B, at most count - 1."""
    d = _derived(log)
    if d.count < threshold:
        return _nothing()
    fits = int(np.searchsorted(-d.message_suffix, -budget, side="left"))
    return _agentscope_window(log, d, min(fits, d.count - 1), summary_cost)


# -- Spring AI MessageWindowChatMemory --------------------------------------------------------
def memory_window(log: SessionLog, size: int, variant: str) -> Window:
    """Evict the oldest #SYSTEM + #messages - N non-SYSTEM messages; 2.0 then starts at a USER."""
    d = _derived(log)
    total = d.n_system + d.count
    if total <= size:
        return _nothing()
    evicted = min(total - size, d.count)  # SYSTEM events are never evicted
    raw = int(d.bounds[evicted])
    if variant == "1.x":
        return Window(raw, raw_cut=raw, pinned=True)
    cut = int(d.bounds[d.user_message[evicted]])
    return Window(cut, raw_cut=raw, pinned=True, partial_dropped=cut > raw)


def window(log: SessionLog, strategy: Strategy, budget: int,
           settings: CompactionSettings = CompactionSettings()) -> Window:
    """The decision of any strategy for this session at ``budget``."""
    family, args, latest = strategy.family, strategy.args, settings.keep_latest_turn
    simple = {"M0": m0, "M1": m1, "M2": m2, "M3": m3, "M4": m4, "recorded": recorded}
    if family in simple:
        return simple[family](log, budget)
    if family == "spring-turns":
        return spring_turns(log, args[0])
    if family == "spring-events":
        return spring_events(log, args[0], latest)
    if family == "spring-tokens":
        return spring_tokens(log, budget, latest)
    if family == "spring-summary":
        return spring_summary(log, args[0], settings)
    if family == "agentscope":
        return agentscope(log, args[0], args[1], settings.summary_cost)
    if family == "agentscope-tokens":
        return agentscope_tokens(log, args[0], budget, settings.summary_cost)
    if family == "memory-window":
        return memory_window(log, args[0], args[1])
    raise ValueError(f"{strategy.text!r} is not a strategy the oracle knows")


# -- The reference strategies M0-M4 (SYSTEM events are ordinary here) ------------------------
def m0(log: SessionLog, budget: int) -> Window:
    """Naive event window: the naive cut k0."""
    k0 = log.k0(budget)
    return Window(k0, raw_cut=k0)


def m1(log: SessionLog, budget: int) -> Window:
    """Turn-aware window: back to the start of the turn holding k0 (empty when k0 = n)."""
    k0 = log.k0(budget)
    return Window(int(log.turn_start[k0]) if k0 < log.n else log.n, raw_cut=k0)


def m2(log: SessionLog, budget: int) -> Window:
    """M1, then drop RESULT heads (with an id) and add placeholders in the first turn."""
    k = m1(log, budget).cut
    n = log.n
    heads = 0
    while k < n and log.kind[k] == RESULT and log.call[k] >= 0:
        k, heads = k + 1, heads + 1
    placeholders: tuple[int, ...] = ()
    if k < n:
        # The view's first turn runs from its first event up to the next USER in it.
        if log.kind[k] != USER:
            end = int(log.next_user[k])
        else:
            end = int(log.next_user[k + 1]) if k + 1 < n else n
        placeholders = tuple(
            i for i in range(k, end)
            if log.kind[i] == CALL and log.call[i] >= 0 and log.next_result[i] < 0)
    return Window(k, raw_cut=log.k0(budget), placeholders=placeholders,
                  repaired=heads + len(placeholders))


def _m3_cut(log: SessionLog, k0: int) -> int:
    if k0 == 0 or k0 == log.n or log.kind[k0] == USER:
        return k0
    return int(log.next_user[k0])


def m3(log: SessionLog, budget: int) -> Window:
    """Whole turns only: forward to the next turn start (empty when there is none)."""
    k0 = log.k0(budget)
    k = _m3_cut(log, k0)
    return Window(k, raw_cut=k0, partial_dropped=k > k0)


def m4(log: SessionLog, budget: int) -> Window:
    """Whole turns, event fallback: M3's cut when it keeps something, else M0's."""
    k0 = log.k0(budget)
    k = _m3_cut(log, k0)
    if k < log.n:
        return Window(k, raw_cut=k0, partial_dropped=k > k0)
    return Window(k0, raw_cut=k0, fallback=True)


# -- Recorded ---------------------------------------------------------------------------------
def recorded(log: SessionLog, budget: int) -> Window:
    """Events not archived, if any is; else from the latest SUMMARY on; else everything."""
    if log.archived.any():
        return Window(0, mask=~log.archived)
    summaries = np.flatnonzero(log.kind == SUMMARY)
    return Window(int(summaries[-1]) if len(summaries) else 0)
