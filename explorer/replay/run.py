"""One session replayed call by call (REPLAY.md): each call's request and figures, and the
session figures.

Between compactions a memory only grows at its end, so a call's request is kept as the
memory of the latest compaction (shared between calls) and the range of events appended
since; :meth:`Replay.request` rebuilds it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from explorer.compaction.log import (
    CALL,
    CONTENT_KINDS,
    KIND_NAMES,
    RESULT,
    SUMMARY,
    SYSTEM,
    SessionLog,
)
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.strategies.one_session import corpus_of
from explorer.jobs import check
from explorer.replay import stretch
from explorer.replay.call_table import Calls
from explorer.replay.calls import call_positions
from explorer.replay.memory import Memory, Names, compact, events, reading
from explorer.replay.speculation import decided
from explorer.replay.stretch_calls import StretchTrigger, stretch_columns
from explorer.replay.triggers import Trigger

#: Per kind code: a view holding it is not empty (CONTENT_KINDS; a lookup, not an isin).
_CONTENT = np.isin(np.arange(len(KIND_NAMES)), CONTENT_KINDS)
#: The session keys.
SESSION_KEYS = ("calls", "compactions", "peak_cost", "first_invalid_call", "invalid_calls")


@dataclass
class ReplayLog:
    """A session as the replay reads it: its SessionLog and which events open a turn a
    turn trigger counts (USER, not synthetic, not on a branch, no note)."""

    log: SessionLog
    opens_turn: np.ndarray

    @classmethod
    def from_frame(cls, session_id: str, frame: pl.DataFrame,
                   log: SessionLog | None = None) -> ReplayLog:
        log = log if log is not None else SessionLog.from_frame(session_id, frame)
        user = (frame["kind"] == "USER").fill_null(False)   # no string per event
        for name in ("synthetic",):
            if name in frame.columns:
                user &= ~frame[name].fill_null(False)
        for name in ("branch", "note"):
            if name in frame.columns:
                user &= frame[name].is_null()
        if "branched" in frame.columns:   # a session read compact (session_events_rest.sql)
            user &= ~frame["branched"].fill_null(False)
        return cls(log, user.to_numpy().astype(bool))


@dataclass
class Replay:
    """A session replayed: its calls and the session figures."""

    rlog: ReplayLog
    trigger: Trigger
    strategy: Strategy
    budget: int | None
    calls: Calls
    figures: dict

    def request(self, j: int) -> Memory:
        base, tail = self.calls.base(j), self.calls.tail(j)
        return base.join(events(self.rlog.log, tail)) if len(tail) else base

    def items(self, j: int) -> list[dict]:
        """The request of call ``j`` as items (``view --json``'s shape)."""
        log, m = self.rlog.log, self.request(j)
        names = Names(log)
        out = []
        for src, kind, cost, call in zip(m.src.tolist(), m.kind.tolist(), m.cost.tolist(),
                                         m.call.tolist()):
            out.append({"seq": int(log.seq[src]) if src >= 0 else None,
                        "sub": int(log.sub[src]) if src >= 0 else None,
                        "kind": KIND_NAMES[kind], "call_id": names.names.get(call),
                        "cost": cost, "synthetic": src < 0, "index": src if src >= 0 else None})
        return out

    def as_dict(self) -> dict:
        return {"session_id": self.rlog.log.session_id, "trigger": self.trigger.text,
                "strategy": self.strategy.text, "budget": self.budget,
                "calls": [self.calls.figures(j) for j in range(len(self.calls))],
                "figures": self.figures}


def replay(rlog: ReplayLog, trigger: Trigger | str, strategy: Strategy | str,
           budget: int | None = None, settings: CompactionSettings | None = None,
           should_stop=None, fast: bool = True, judge=None) -> Replay:
    """Replay the session: before each model call, append the events since the previous
    one, evaluate the trigger, compact when it fires; ``recorded`` uses the log's own
    compactions (each SUMMARY event) and ignores the trigger. M0-M4 (``fast``) keep
    their memory as one stretch of the log (:func:`_replay_stretch`, M2 until it adds a
    placeholder); every strategy can be replayed the general way, applying it to the memory
    read as a log (``fast=False``, the reference the fast paths are tested against).

    ``judge`` (:class:`explorer.providers.replay_checks.ReplayJudge`, when providers are
    asked for) adds each call's ``rejected_<provider>`` and the session's count of them."""
    rp = _replay(rlog, trigger, strategy, budget, settings, should_stop, fast)
    if judge:
        judged(rp, judge)
    return rp


def judged(rp: Replay, judge) -> Replay:
    """Add the providers' figures of ``judge`` to ``rp``: per call ``rejected_<provider>``
    (the provider rejects its request), per session the number of calls each rejects."""
    stretches = rp.calls.stretches()
    if stretches is not None:   # the session as a corpus of one, each request a stretch of it
        verdicts = judge.stretches(corpus_of(rp.rlog.log), *stretches)
    else:
        verdicts = judge.memories(rp.rlog.log, len(rp.calls), rp.request)
    for name, v in verdicts.items():
        rp.calls.extra[name] = np.asarray(v, dtype=bool)
        rp.figures[name] = int(np.count_nonzero(v))
    return rp


@dataclass
class _State:
    """A replay between two calls: the calls made, the memory after the last of them (made
    before ``prev``) and the request's shared part (``base``, events since ``tail_from``)."""

    calls: Calls
    mem: Memory
    prev: int
    base: Memory
    tail_from: int


def _replay(rlog: ReplayLog, trigger: Trigger | str, strategy: Strategy | str,
            budget: int | None, settings: CompactionSettings | None, should_stop,
            fast: bool) -> Replay:
    settings = settings or CompactionSettings()
    trigger = Trigger.parse(trigger) if isinstance(trigger, str) else trigger
    strategy = Strategy.parse(strategy) if isinstance(strategy, str) else strategy
    if strategy.spec.uses_budget and budget is None:
        raise ValueError(f"strategy {strategy.text} uses a budget: give one")
    if budget is not None and budget < 1:
        raise ValueError("the budget is a positive number of tokens")
    positions = call_positions(rlog.log.kind, rlog.log.message)
    state = None
    if fast and strategy.family in stretch.FAMILIES:
        state = _replay_stretch(rlog, trigger, strategy, budget, positions, should_stop)
        if isinstance(state, Replay):
            return state
    calls = _replay_memory(rlog, trigger, strategy, budget, settings, positions.tolist(), state,
                           should_stop, fast)
    return Replay(rlog, trigger, strategy, budget, calls, session_figures(calls))


def _replay_memory(rlog: ReplayLog, trigger: Trigger, strategy: Strategy, budget: int | None,
                   settings: CompactionSettings, positions: list[int], state: _State | None,
                   should_stop, fast: bool = False) -> Calls:
    """The general replay from ``state`` on (None: from the start): the strategy applied to
    the memory read as a log at each call where the trigger fires. ``fast``: the
    compactions ahead decided many at once (:mod:`explorer.replay.speculation`) until one
    changes the memory, which alone is then made the reference way."""
    log = rlog.log
    names = Names(log)
    is_recorded = strategy.family == "recorded"
    state = state or _State(Calls(log, budget, unarchived=is_recorded), Memory.empty(), 0,
                            Memory.empty(), 0)
    calls, mem, prev, base, tail_from = (state.calls, state.mem, state.prev, state.base,
                                         state.tail_from)
    ahead = _Ahead(rlog, trigger, strategy, budget or 1, settings, positions) \
        if fast and not is_recorded else None
    for j in range(len(calls), len(positions)):
        i = positions[j]
        if j % 64 == 0:
            check(should_stop, "replay")
        new = np.arange(prev, i)
        recorded_here = bool(np.any(log.kind[new] == SUMMARY))
        if is_recorded:
            grown = mem.join(events(log, new[~log.archived[new]]))
            mem, fired = _recorded(log, mem, new), recorded_here
        else:
            mem = grown = mem.join(events(log, new))
            fired = trigger.fires(reading(log, rlog.opens_turn, mem))
            if fired:
                known = ahead.compacted(j, mem) if ahead else None
                mem = known if known is not None else \
                    compact(log, names, mem, strategy, budget or 1, settings)
        compacted = fired and not mem.same(grown)
        if compacted or j == 0:
            base, tail_from = mem, i
        # what a compaction keeps of the log's events was in memory before it (each once)
        dropped = int(np.count_nonzero(grown.src >= 0) - np.count_nonzero(mem.src >= 0)) \
            if fired else 0
        orphan_results, orphan_calls = orphans(mem)
        logged = mem.src >= 0
        calls.add(i, base, tail_from, int(mem.cost.sum()), bool(compacted), dropped,
                  orphan_results, orphan_calls, not bool((_CONTENT[mem.kind] & logged).any()),
                  recorded_here, int(np.count_nonzero(rlog.opens_turn[mem.src[logged]])))
        prev = i
    return calls


class _Ahead:
    """The compactions ahead of a general replay, guessed to change nothing and checked
    many at once: :meth:`unchanged` says whether call j's compaction leaves its memory."""

    FIRST, MOST, ITEMS = 8, 512, 200_000

    def __init__(self, rlog, trigger, strategy, budget, settings, positions) -> None:
        self.rlog, self.trigger, self.strategy = rlog, trigger, strategy
        self.budget, self.settings, self.positions = budget, settings, positions
        self.same: set[int] = set()   # calls whose compaction is known to change nothing
        self.until = -1               # the calls up to this one have been looked at
        self.size = self.FIRST
        self.view: Memory | None = None   # the compaction of call ``until``, when changed

    def compacted(self, j: int, mem: Memory) -> Memory | None:
        """Call j's trigger fired on ``mem``: the memory its compaction gives (None: not
        known, compact it)."""
        if j > self.until:
            self._look(j, mem)
        if j in self.same:
            return mem
        return self.view if j == self.until else None

    def _look(self, j: int, mem: Memory) -> None:
        """Guess the calls from j on: each memory the last plus the events since; decide
        the fired ones at once, up to the first the decision changes."""
        log, positions = self.rlog.log, self.positions
        fired, memories, grown, items = [], [], mem, 0
        t = j
        while t < len(positions) and len(fired) < self.size and items < self.ITEMS:
            if t > j:
                grown = grown.join(events(log, np.arange(positions[t - 1], positions[t])))
            if t == j or self.trigger.fires(reading(log, self.rlog.opens_turn, grown)):
                fired.append(t)
                memories.append(grown)
                items += len(grown)
            t += 1
        first, self.view = decided(log, memories, self.strategy, self.budget, self.settings)
        self.same = set(fired[:first])
        if first < len(fired):
            self.until = fired[first]     # the guess holds up to this call, not after
            self.size = max(self.FIRST, self.size // 2)
        else:
            self.until = t - 1
            self.size = min(self.MOST, self.size * 2)


def _replay_stretch(rlog: ReplayLog, trigger: Trigger, strategy: Strategy, budget: int,
                    positions: np.ndarray, should_stop=None) -> Replay | _State:
    """:func:`replay` of M0-M4, whose memory is the stretch ``[m, i)`` of the log (their
    views are suffixes and write nothing; :mod:`explorer.replay.stretch`), a compaction at
    a time: the next call the trigger fires at is searched for
    (:class:`~explorer.replay.stretch_calls.StretchTrigger`), its cut read by prefix sums,
    and once every memory's start is known the calls' figures are read off them at once
    (:func:`~explorer.replay.stretch_calls.stretch_columns`). Where M2 would add a
    placeholder, the state before that call, for the general replay to go on from."""
    log = rlog.log
    cuts = stretch.StretchCuts(log)
    at = np.asarray(positions)   # event positions: 32 bits where they fit (call_positions)
    fires = StretchTrigger(log, rlog.opens_turn, trigger, at, cuts.total)
    # a cut within the budget keeps all (M2 may still drop the RESULTs the memory opens with)
    kept_within_budget = strategy.family != "M2"
    fired, starts, befores = [], [], []
    m = j = 0
    handed_over = None
    while j < len(at):
        if len(fired) % 256 == 0:
            check(should_stop, "replay")
        j = fires.first(m, j)
        if j >= len(at):
            break
        k = cuts.cut(strategy.family, m, int(at[j]), budget)
        if k is None:   # M2 adds a placeholder: the memory leaves the log's order
            handed_over = j
            break
        if k != m:
            fired.append(j)
            starts.append(k)
            befores.append(m)
            m = k
        elif kept_within_budget:   # it fires again at each call, changing nothing
            j = max(j + 1, int(np.searchsorted(fires.total_at, cuts.total[m] + budget,
                                               "right")))
            continue
        j += 1
    made = len(at) if handed_over is None else handed_over
    start = np.zeros(made, dtype=at.dtype)
    before = np.zeros(made, dtype=at.dtype)
    if fired:   # the memory's start after each call: that of the latest compaction
        latest = np.searchsorted(fired, np.arange(made), side="right") - 1
        start = np.where(latest >= 0, np.asarray(starts, dtype=at.dtype)[latest],
                         at.dtype.type(0))
        before = start.copy()
        before[fired] = befores
        del latest
    calls = Calls(log, budget)
    if made:
        calls.extend(*stretch_columns(log, fires.opens, cuts.total, at[:made], start, before))
    if handed_over is not None:
        prev = int(at[made - 1]) if made else 0
        m = int(start[-1]) if made else 0
        base = calls.bases[-1] if made else Memory.empty()
        tail_from = int(calls.column("tail_from")[-1]) if made else 0
        return _State(calls, events(log, np.arange(m, prev)), prev, base, tail_from)
    return Replay(rlog, trigger, strategy, budget, calls, session_figures(calls))


def _recorded(log: SessionLog, mem: Memory, new: np.ndarray) -> Memory:
    """Append ``new`` as the log recorded it: archived events never; at each SUMMARY event
    the memory becomes its SYSTEM items plus that SUMMARY."""
    new = new[~log.archived[new]]
    summaries = np.flatnonzero(log.kind[new] == SUMMARY)
    if not len(summaries):
        return mem.join(events(log, new))
    last = int(summaries[-1])
    kept = mem.join(events(log, new[:last]))
    return kept.take(kept.kind == SYSTEM).join(events(log, new[last:]))


def orphans(m: Memory) -> tuple[int, int]:
    """The orphan RESULTs (no CALL of the id earlier in the request) and orphan CALLs (no
    RESULT of the id later; a placeholder is a RESULT) of a request; items without a call
    id take no part."""
    calls_seen, results_seen = set(), set()
    orphan_results = orphan_calls = 0
    pairs = [(k, c) for k, c in zip(m.kind.tolist(), m.call.tolist()) if c >= 0]
    for k, c in pairs:
        if k == CALL:
            calls_seen.add(c)
        elif k == RESULT and c not in calls_seen:
            orphan_results += 1
    for k, c in reversed(pairs):
        if k == RESULT:
            results_seen.add(c)
        elif k == CALL and c not in results_seen:
            orphan_calls += 1
    return orphan_results, orphan_calls


def session_figures(calls: Calls) -> dict:
    """calls, compactions, peak_cost, first_invalid_call, invalid_calls (REPLAY.md)."""
    invalid = calls.invalid()
    cost = calls.column("cost")
    return {"calls": len(calls), "compactions": int(np.count_nonzero(calls.column("compacted"))),
            "peak_cost": int(cost.max()) if len(cost) else 0,
            "first_invalid_call": int(invalid[0]) if len(invalid) else None,
            "invalid_calls": len(invalid)}
