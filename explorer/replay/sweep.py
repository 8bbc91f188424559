"""``sweep --trigger``: every session replayed under (trigger, strategy, budget), summed into
the corpus figures of REPLAY.md.

M0 and M1 are vectorised: their memory is one stretch ``[m, h)`` of its session, so the
replay steps every session's j-th call at once (a loop over j, numpy over the sessions),
reading triggers and figures off :mod:`explorer.replay.corpus_calls`. Every other strategy
is replayed session by session (:func:`explorer.replay.run.replay`), the yardstick the
vectorised path is tested against.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

import queries
from explorer.compaction.corpus import Corpus
from explorer.compaction.per_session import session_logs
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.sweep import positive_budgets, sweep_corpus
from explorer.jobs import check
from explorer.model import CostSettings, Order
from explorer.replay.corpus_calls import BIG, CorpusCalls, corpus_calls
from explorer.replay.run import ReplayLog, replay
from explorer.replay.triggers import Trigger
from explorer.store.db import Db

#: The keys of ``sweep --trigger --json`` after trigger, strategy and budget (REPLAY.md).
FIGURES = ("calls", "compactions", "invalid_calls", "peak_cost", "sessions_with_invalid_call")
#: The strategies replayed with whole arrays.
VECTORISED = ("M0", "M1")
#: The vectorised replay checks the requests of this many events at once (providers).
BATCH = 1_000_000


def uncounted_users(db: Db, c: Corpus) -> np.ndarray:
    """N: the USER events of ``c`` that a turn trigger does not count."""
    eids = np.array([r[0] for r in db.con.execute(
        queries.load("replay_uncounted_users")).fetchall()], dtype=np.int64)
    out = np.zeros(len(c.kind), dtype=bool)
    if len(eids):
        out[np.isin(c.eid, eids)] = True
    return out


def sweep_triggered(db: Db, triggers: Iterable[str], strategies: Iterable[str],
                    budgets: Iterable[int], order: Order = Order.SEQ,
                    cost_settings: CostSettings | None = None,
                    settings: CompactionSettings | None = None,
                    progress: Callable[[int, int], None] | None = None,
                    should_stop: Callable[[], bool] | None = None,
                    judge=None) -> list[dict]:
    """One row per (trigger, strategy, budget): triggers outer, then strategies, budgets.
    ``judge`` (:class:`explorer.providers.replay_checks.ReplayJudge`) adds its
    ``rejected_<provider>`` figures: the calls each provider rejects, summed."""
    cost_settings = cost_settings or CostSettings()
    settings = settings or CompactionSettings()
    parsed_t = [Trigger.parse(t) for t in triggers]
    parsed_s = [Strategy.parse(s) for s in strategies]
    budgets = positive_budgets(budgets)
    corpus = sweep_corpus(db, order, cost_settings, settings, progress, should_stop)
    calls = corpus_calls(corpus, uncounted_users(db, corpus))
    slow = None
    rows, total = [], len(parsed_t) * len(parsed_s) * len(budgets)
    for trigger in parsed_t:
        for strategy in parsed_s:
            for budget in budgets:
                check(should_stop, "sweep")
                if strategy.family in VECTORISED:
                    figures = replay_corpus(corpus, calls, trigger, strategy.family, budget,
                                            judge)
                else:
                    if slow is None:
                        slow = _replay_logs(db, corpus, order, cost_settings, settings)
                    figures = replay_sessions(slow, trigger, strategy, budget, settings,
                                              should_stop, judge=judge)
                rows.append({"trigger": trigger.text, "strategy": strategy.text,
                             "budget": budget, **figures})
                if progress:
                    progress(len(rows), total)
    return rows


def _replay_logs(db, corpus, order, cost_settings, settings) -> list[ReplayLog]:
    uncounted = uncounted_users(db, corpus)
    out = []
    for s, log in enumerate(session_logs(db, order, cost_settings, settings)):
        stretch = slice(corpus.start[s], corpus.ends[s])
        out.append(ReplayLog(log, (log.kind == 1) & ~uncounted[stretch]))
    return out


def replay_sessions(logs: list[ReplayLog], trigger: Trigger, strategy: Strategy, budget: int,
                    settings: CompactionSettings, should_stop=None, fast: bool = True,
                    judge=None) -> dict:
    """The corpus figures summed over one replay per session (``fast``: see
    :func:`~explorer.replay.run.replay`; ``judge``: the providers' figures)."""
    names = judge.names if judge else ()
    out = dict.fromkeys((*FIGURES, *names), 0)
    for rlog in logs:
        f = replay(rlog, trigger, strategy, budget, settings, should_stop, fast, judge).figures
        for key in ("calls", "compactions", "invalid_calls", *names):
            out[key] += f[key]
        out["peak_cost"] = max(out["peak_cost"], f["peak_cost"])
        out["sessions_with_invalid_call"] += f["first_invalid_call"] is not None
    return out


def replay_corpus(c: Corpus, cc: CorpusCalls, trigger: Trigger, family: str,
                  budget: int, judge=None) -> dict:
    """Every session replayed under ``trigger`` and M0 or M1 at ``budget``, call j of every
    session at once; ``judge``: the providers' figures, each call's request checked as the
    stretch ``[m, h)`` of the corpus (gathered over calls, checked a batch at a time).

    What a step reads of its calls is laid out in call order once (:class:`Steps`); what it
    reads of each memory's start ``m`` is kept per session and changes only where a
    compaction moves ``m``: a step touches no array of the corpus's length but at those."""
    names = judge.names if judge else ()
    rejected = dict.fromkeys(names, 0)
    held_lo: list[np.ndarray] = []
    held_hi: list[np.ndarray] = []
    held = 0

    def flush() -> None:
        nonlocal held
        if held_lo:
            verdicts = judge.stretches(c, np.concatenate(held_lo), np.concatenate(held_hi))
            for name, v in verdicts.items():
                rejected[name] += int(np.count_nonzero(v))
        held_lo.clear()
        held_hi.clear()
        held = 0

    st = steps(c, cc)
    cut = _cuts(c, cc, st, family, budget)
    at = _Starts(c, cc, c.start.astype(np.int64))
    invalid_session = np.zeros(len(c.start), dtype=bool)
    compactions = invalid = peak = 0
    for j in range(len(st.bounds) - 1):
        a, b = int(st.bounds[j]), int(st.bounds[j + 1])
        s, h = st.session[a:b], st.position[a:b]
        ms = at.m[s]
        fired = _fired(trigger, st, at, s, a, b)
        new = np.where(fired, np.maximum(ms, cut[a:b]), ms)
        moved = new != ms
        if moved.any():
            compactions += int(np.count_nonzero(moved))
            at.move(s[moved], new[moved])
        peak = max(peak, int((st.total[a:b] - at.total[s]).max()))
        bad = (at.first_orphan_result[s] < h) | (st.last_open_call[a:b] >= new)
        if bad.any():
            invalid += int(np.count_nonzero(bad))
            invalid_session[s[bad]] = True
        if names:
            held_lo.append(new)
            held_hi.append(h)
            held += int((h - new).sum())
            if held >= BATCH:
                flush()
    if names:
        flush()
    return {"calls": len(cc.position), "compactions": compactions, "invalid_calls": invalid,
            "peak_cost": peak,
            "sessions_with_invalid_call": int(np.count_nonzero(invalid_session)), **rejected}


@dataclass
class Steps:
    """The calls in step order (call number j, then session) and what a step reads of each
    call's position h: ``bounds[j]:bounds[j + 1]`` are step j's calls."""

    bounds: np.ndarray
    session: np.ndarray
    position: np.ndarray
    total: np.ndarray            # the corpus's prefix cost at h
    turns: np.ndarray            # turn_prefix[h]
    messages: np.ndarray         # message_prefix[h]
    last_open_call: np.ndarray   # last_open_call[h]


def steps(c: Corpus, cc: CorpusCalls) -> Steps:
    """The :class:`Steps` of ``cc`` (made once, kept on it: every trigger, strategy and
    budget steps the same calls)."""
    kept = cc.__dict__.get("_steps")
    if kept is None:
        order = np.argsort(cc.number, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(cc.number))] if len(order) else np.r_[0]
        h = cc.position[order]
        kept = cc.__dict__["_steps"] = Steps(
            bounds, cc.session[order], h, c.total[h], cc.turn_prefix[h], cc.message_prefix[h],
            cc.last_open_call[h])
        kept.order = order
    return kept


def _cuts(c: Corpus, cc: CorpusCalls, st: Steps, family: str, budget: int) -> np.ndarray:
    """Per call (step order), M0's or M1's cut of the stretch ``[?, h)`` at ``budget`` before
    the memory's start is taken into account: the cut is ``max(m, this)`` (M1's turn start
    past ``m`` is ``m``; a cut at ``h`` or past it is ``h``)."""
    h = cc.position   # ascending: the searches walk the corpus once
    k = np.searchsorted(c.total, c.total[h] - budget, side="left")
    if family == "M1":
        last = len(c.kind) - 1
        k = np.where(k >= h, h, c.turn_start[np.minimum(k, last)])
    return k[st.order]


class _Starts:
    """Per session, its memory's start m and what the steps read at m."""

    def __init__(self, c: Corpus, cc: CorpusCalls, m: np.ndarray) -> None:
        self.c, self.cc, self.m = c, cc, m
        last = max(len(c.kind) - 1, 0)
        self.total = c.total[m]
        self.turns = cc.turn_prefix[m]
        self.messages = cc.message_prefix[m]
        self.first_body = cc.next_body[np.minimum(m, last)]
        self.first_starts = cc.message_start[np.minimum(self.first_body, last)]
        self.first_orphan_result = cc.first_orphan_result[np.minimum(m, last)]
        self.first_orphan_result[m > last] = BIG

    def move(self, s: np.ndarray, m: np.ndarray) -> None:
        """The memories of sessions ``s`` start at ``m`` now."""
        part = _Starts(self.c, self.cc, m)
        for name in ("m", "total", "turns", "messages", "first_body", "first_starts",
                     "first_orphan_result"):
            getattr(self, name)[s] = getattr(part, name)


def _fired(trigger: Trigger, st: Steps, at: _Starts, s: np.ndarray, a: int,
           b: int) -> np.ndarray:
    """Whether the trigger fires on each memory [m, h) of step ``a:b`` (sessions ``s``)."""
    fired = np.zeros(b - a, dtype=bool)
    cost = None
    for name, value, window in trigger.parts:
        if name == "always":
            fired[:] = True
        elif name == "turns":
            fired |= st.turns[a:b] - at.turns[s] > value
        elif name in ("tokens", "fraction"):
            cost = st.total[a:b] - at.total[s] if cost is None else cost
            fired |= cost >= (value if name == "tokens" else value * window)
        else:
            inside = (at.first_body[s] < st.position[a:b]) & ~at.first_starts[s]
            count = st.messages[a:b] - at.messages[s] + inside
            fired |= count >= value
    return fired
