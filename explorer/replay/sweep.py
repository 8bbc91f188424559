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

import numpy as np

import queries
from explorer.compaction.corpus import Corpus
from explorer.compaction.per_session import session_logs
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.sweep import positive_budgets, sweep_corpus
from explorer.jobs import check
from explorer.model import CostSettings, Order
from explorer.replay.corpus_calls import CorpusCalls, corpus_calls
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
    stretch ``[m, h)`` of the corpus (gathered over calls, checked a batch at a time)."""
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

    m = c.start.astype(np.int64).copy()
    by_number = np.argsort(cc.number, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(cc.number))] if len(cc.number) else np.r_[0]
    invalid_session = np.zeros(len(c.start), dtype=bool)
    compactions = invalid = peak = 0
    last = len(c.kind) - 1
    for j in range(len(bounds) - 1):
        sel = by_number[bounds[j]:bounds[j + 1]]
        s, h = cc.session[sel], cc.position[sel]
        ms = m[s]
        fired = _fired(c, cc, trigger, ms, h)
        k = np.maximum(ms, np.searchsorted(c.total, c.total[h] - budget, side="left"))
        if family == "M1":
            k = np.where(k >= h, h, np.maximum(ms, c.turn_start[np.minimum(k, last)]))
        new = np.where(fired, k, ms)
        m[s] = new
        compactions += int(np.count_nonzero(new != ms))
        cost = c.total[h] - c.total[new]
        peak = max(peak, int(cost.max()))
        bad = (cc.first_orphan_result[new] < h) | (cc.last_open_call[h] >= new)
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


def _fired(c: Corpus, cc: CorpusCalls, trigger: Trigger, m: np.ndarray,
           h: np.ndarray) -> np.ndarray:
    """Whether the trigger fires on each memory [m, h)."""
    fired = np.zeros(len(h), dtype=bool)
    cost = c.total[h] - c.total[m]
    for name, value, window in trigger.parts:
        if name == "always":
            fired[:] = True
        elif name == "turns":
            fired |= cc.turn_prefix[h] - cc.turn_prefix[m] > value
        elif name == "tokens":
            fired |= cost >= value
        elif name == "fraction":
            fired |= cost >= value * window
        else:
            first = cc.next_body[np.minimum(m, len(c.kind) - 1)]
            inside = (first < h) & ~cc.message_start[np.minimum(first, len(c.kind) - 1)]
            count = cc.message_prefix[h] - cc.message_prefix[m] + inside
            fired |= count >= value
    return fired
