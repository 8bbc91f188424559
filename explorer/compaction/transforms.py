"""The tool-result transforms of STRATEGIES.md, applied to the costs before any cut.

Eviction first: a RESULT over ``evict_chars`` characters (tool not excluded) becomes a
notice plus its first and last characters. Then pruning: walking the RESULTs from the
newest back, those within the first ``prune_protect`` tokens are protected; older RESULTs
over ``prune_chars`` characters (tool not excluded) become their first and last
characters, but only when these candidates total at least ``prune_minimum`` tokens.
Pairing is kept. One implementation serves one session and the whole corpus.

Where STRATEGIES.md is silent: a RESULT is protected when the RESULT costs from it to the
newest, itself included, are within ``prune_protect``; "what would be pruned" is the sum
of the candidates' costs (after eviction), as in the pruning this models.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from explorer.compaction.log import RESULT, SessionLog
from explorer.compaction.settings import EVICTION_NOTICE, CompactionSettings
from explorer.model import CostSettings
from explorer.store.db import Db
from explorer.tokens import counts as token_counts
from explorer.tokens.estimate import NON_CJK_RE2


def active(settings: CompactionSettings) -> bool:
    return settings.evict or settings.prune


def transformed_costs(kind, cost, session, ends, eid, rows, settings: CompactionSettings):
    """New costs and the evicted / pruned masks. ``session`` and ``ends`` delimit the
    sessions (positions are global); ``rows`` are transform_costs.sql rows keyed by eid."""
    n = len(kind)
    evictable = np.zeros(n, dtype=bool)
    prunable = np.zeros(n, dtype=bool)
    evicted_cost = np.zeros(n, dtype=np.int64)
    pruned_cost = np.zeros(n, dtype=np.int64)
    if rows:
        by_eid = np.argsort(eid)
        position = by_eid[np.searchsorted(eid[by_eid], [r[0] for r in rows])]
        evictable[position] = [r[1] for r in rows]
        evicted_cost[position] = [r[2] for r in rows]
        prunable[position] = [r[3] for r in rows]
        pruned_cost[position] = [r[4] for r in rows]
    evicted = evictable & settings.evict
    cost = np.where(evicted, evicted_cost, cost)
    pruned = np.zeros(n, dtype=bool)
    if settings.prune:
        is_result = kind == RESULT
        later = np.r_[0, np.cumsum(np.where(is_result, cost, 0))]
        newer_inclusive = later[ends[session]] - later[np.arange(n)]
        candidate = is_result & prunable & (newer_inclusive > settings.prune_protect)
        total = np.bincount(session[candidate], weights=cost[candidate], minlength=len(ends))
        pruned = candidate & (total[session] >= settings.prune_minimum)
        cost = np.where(pruned, pruned_cost, cost)
    return cost, evicted, pruned


def _rows(db: Db, session_id: str | None, settings: CompactionSettings,
          cost_settings: CostSettings) -> list[tuple]:
    """transform_costs.sql's rows; with a real tokenizer, the transformed texts it holds are
    counted by it (the ratios still cost a result given as chars without text)."""
    tokenizer = cost_settings.tokenizer
    fragments = {"bpetext": ", text, ek, pk" if tokenizer else ""}
    rows = db.run("transform_costs", fragments, session_id=session_id, non_cjk=NON_CJK_RE2,
                  **settings.transform_params(), **cost_settings.params())
    if tokenizer is None:
        return rows
    out = []
    for eid, evictable, evicted, prunable, pruned, text, ek, pk in rows:
        if text is not None:
            head_tail = (text[:ek], text[len(text) - ek:])
            evicted = token_counts.count(tokenizer, head_tail[0] + EVICTION_NOTICE + head_tail[1])
            pruned = token_counts.count(tokenizer, text[:pk] + text[len(text) - pk:])
        out.append((eid, evictable, evicted, prunable, pruned))
    return out


def for_log(db: Db, log: SessionLog, settings: CompactionSettings,
            cost_settings: CostSettings = CostSettings()) -> SessionLog:
    """The session with its costs transformed (the same log when both switches are off)."""
    if not active(settings):
        return log
    rows = _rows(db, log.session_id, settings, cost_settings)
    session = np.zeros(log.n, dtype=np.int64)
    cost, evicted, pruned = transformed_costs(log.kind, log.cost, session, np.array([log.n]),
                                              log.eid, rows, settings)
    notes = {i: "evicted" for i in np.flatnonzero(evicted).tolist()}
    notes.update({i: "pruned" for i in np.flatnonzero(pruned).tolist()})
    return dataclasses.replace(log, cost=cost, notes=notes)


def for_corpus(db: Db, corpus, settings: CompactionSettings,
               cost_settings: CostSettings = CostSettings()):
    """The corpus with its costs transformed (the same corpus when both are off)."""
    if not active(settings):
        return corpus
    rows = _rows(db, None, settings, cost_settings)
    cost, _, _ = transformed_costs(corpus.kind, corpus.cost, corpus.session, corpus.ends,
                                   corpus.eid, rows, settings)
    return dataclasses.replace(corpus, cost=cost, total=None)   # prefix costs made again
