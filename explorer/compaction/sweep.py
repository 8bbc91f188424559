"""The corpus sweep: every session x strategy x budget -> the corpus figures of STRATEGIES.md.

Vectorized over whole columns: the cut of every session at once (numpy over the flat
corpus of :mod:`explorer.compaction.corpus`), then each metric as a masked count or a
prefix-sum difference. It gives exactly the figures of summing the per-session views.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from explorer.compaction import corpus_frameworks, mask_figures, transforms
from explorer.compaction.corpus import Corpus, cost_figures, load
from explorer.compaction.log import CALL, USER
from explorer.compaction.settings import CompactionSettings, Strategy
from explorer.jobs import check
from explorer.model import CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts

#: The keys of ``sweep --json``, in the order STRATEGIES.md gives them.
FIGURES = ("windows", "kept_cost", "max_cost", "over_budget", "empty", "orphan_results",
           "orphan_calls", "pair_splits", "partial_dropped", "fallback", "repaired",
           "over_ratio", "mixed_windows", "window_turn_collisions", "window_duplicate_call_ids")
#: Families computed over whole columns with prefix sums; the others (framework families and
#: ``recorded``) with per-event masks.
VECTORIZED = ("M0", "M1", "M2", "M3", "M4")
FRAMEWORKS = ("spring-turns", "spring-events", "spring-tokens", "spring-summary",
              "agentscope", "agentscope-tokens", "memory-window")


def sweep(db: Db, strategies: Iterable[str], budgets: Iterable[int], order: Order = Order.SEQ,
          cost_settings: CostSettings = CostSettings(),
          settings: CompactionSettings = CompactionSettings(),
          progress: Callable[[int, int], None] | None = None,
          should_stop: Callable[[], bool] | None = None) -> list[dict]:
    """One row of corpus figures per (strategy, budget), strategies outer, budgets inner."""
    parsed = [Strategy.parse(s) for s in strategies]
    budgets = [int(b) for b in budgets]
    if any(b < 1 for b in budgets):
        raise ValueError("budgets are positive numbers of tokens")
    # a tokenizer's counts, once per event: the long part, so it reports and stops
    token_counts.ensure(db, cost_settings, progress=progress, should_stop=should_stop)
    corpus, _ = load(db, order, cost_settings)
    corpus = transforms.for_corpus(db, corpus, settings, cost_settings)
    rows, total = [], len(parsed) * len(budgets)
    for strategy in parsed:
        for budget in budgets:
            check(should_stop, "sweep")
            if strategy.family in VECTORIZED:
                cut = _cut(corpus, strategy.family, budget)
                row = figures(corpus, cut, budget, settings.placeholder_cost)
            elif strategy.family in FRAMEWORKS:
                decision = corpus_frameworks.cuts(corpus, strategy, budget, settings)
                row = mask_figures.figures(corpus, decision, budget)
            else:  # recorded
                row = mask_figures.figures(corpus, corpus_frameworks.recorded(corpus), budget)
            rows.append({"strategy": strategy.text, "budget": budget,
                         **{name: row[name] for name in FIGURES}})
            if progress:
                progress(len(rows), total)
    return rows


def _k0(c: Corpus, budget: int) -> np.ndarray:
    """Per session, the naive cut as a global index: events whose suffix exceeds B come first."""
    over = c.suffix_from > budget
    counts = np.add.reduceat(over, c.start) if len(c.start) else np.zeros(0, dtype=np.int64)
    return c.start + counts


def _cut(c: Corpus, family: str, budget: int) -> dict:
    """The cut of every session (global index; the session end means an empty view)."""
    k0 = _k0(c, budget)
    inside = k0 < c.ends
    safe = np.minimum(k0, len(c.kind) - 1)
    plain = {"cut": k0, "raw": k0, "partial": np.zeros_like(inside), "fallback": np.zeros_like(inside),
             "placeholders": np.zeros_like(k0)}
    if family == "M0":
        return plain
    if family in ("M1", "M2"):
        k1 = np.where(inside, c.turn_start[safe], c.ends)
        if family == "M1":
            return plain | {"cut": k1}
        return plain | _repair(c, k1)
    at_turn = (k0 == c.start) | ~inside | (c.kind[safe] == USER)
    k3 = np.where(at_turn, k0, c.next_user[safe])
    if family == "M3":
        return plain | {"cut": k3, "partial": k3 > k0}
    fallback = k3 >= c.ends
    return plain | {"cut": np.where(fallback, k0, k3), "partial": ~fallback & (k3 > k0),
                    "fallback": fallback}


def _repair(c: Corpus, k1: np.ndarray) -> dict:
    """M2: skip RESULT heads with an id, then placeholders for the first turn's open CALLs."""
    inside = k1 < c.ends
    k = np.where(inside, c.after_heads[np.minimum(k1, len(c.kind) - 1)], c.ends)
    heads = k - k1
    has = k < c.ends
    safe = np.minimum(k, len(c.kind) - 1)
    after = np.minimum(safe + 1, len(c.kind) - 1)
    first_is_user = has & (c.kind[safe] == USER)
    end_user = np.where(k + 1 < c.ends, c.next_user[after], c.ends)
    end = np.where(first_is_user, end_user, np.where(has, c.next_user[safe], c.ends))
    placeholders = np.where(has, c.dangling_prefix[end] - c.dangling_prefix[k], 0)
    return {"cut": k, "placeholders": placeholders, "repaired": heads + placeholders}


def figures(c: Corpus, cut: dict, budget: int, placeholder_cost: int) -> dict:
    """The corpus figures of one (strategy, budget), from every session's cut."""
    k, ends, start = cut["cut"], c.ends, c.start
    placeholders = cut["placeholders"]
    cost = c.total[ends] - c.total[k] + placeholder_cost * placeholders
    res_g, res_session, res_prev = c.results
    ks = k[res_session]
    orphan_results = int(np.count_nonzero((res_g >= ks) & (res_prev < ks)))
    dangling = c.dangling_prefix[ends] - c.dangling_prefix[k] - placeholders
    before = np.maximum(k - 1, 0)
    split = (k > start) & (c.kind[before] == CALL) & c.has_id[before] & (c.next_result[before] >= k)
    dup_session, dup_pos = c.dup_ids
    turn_session, turn_pos = c.turn_groups
    return {
        **cost_figures(cost, budget),
        "empty": int(np.count_nonzero(c.content_prefix[ends] - c.content_prefix[k] == 0)),
        "orphan_results": orphan_results,
        "orphan_calls": int(dangling.sum()),
        "pair_splits": int(np.count_nonzero(split)),
        "partial_dropped": int(np.count_nonzero(cut["partial"])),
        "fallback": int(np.count_nonzero(cut["fallback"])),
        "repaired": int(cut.get("repaired", np.zeros(1, dtype=np.int64)).sum()),
        "mixed_windows": int(np.count_nonzero(c.mixed >= k)),
        "window_turn_collisions": int(np.count_nonzero(turn_pos >= k[turn_session])),
        "window_duplicate_call_ids": int(np.count_nonzero(dup_pos >= k[dup_session])),
    }
