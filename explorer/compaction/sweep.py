"""The corpus sweep: every session x strategy x budget -> the corpus figures of STRATEGIES.md.

Vectorized over whole columns: the cut of every session at once (numpy over the flat
corpus of :mod:`explorer.compaction.corpus`), then each metric as a masked count or a
prefix-sum difference. It gives exactly the figures of summing the per-session views.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from explorer.compaction import mask_figures, transforms
from explorer.compaction.corpus import Corpus, cost_figures, load
from explorer.compaction.log import CALL
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy, reference
from explorer.compaction.strategies.decision import Decision
from explorer.jobs import check
from explorer.model import CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts

#: The keys of ``sweep --json``, in the order STRATEGIES.md gives them.
FIGURES = ("windows", "kept_cost", "max_cost", "over_budget", "empty", "orphan_results",
           "orphan_calls", "pair_splits", "partial_dropped", "fallback", "repaired",
           "over_ratio", "mixed_windows", "window_turn_collisions", "window_duplicate_call_ids")
#: The reference strategies M0-M4 (the command line's default); their views, like any
#: decision's whose views are suffixes, are counted with prefix sums, the others' with
#: per-event masks (:mod:`explorer.compaction.mask_figures`).
VECTORIZED = tuple(f.name for f in reference.FAMILIES)


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
            decision = strategy.corpus_decision(corpus, budget, settings)
            if decision.suffix_only:
                row = figures(corpus, decision, budget, settings.placeholder_cost)
            else:
                row = mask_figures.figures(corpus, decision, budget)
            rows.append({"strategy": strategy.text, "budget": budget,
                         **{name: row[name] for name in FIGURES}})
            if progress:
                progress(len(rows), total)
    return rows


def figures(c: Corpus, decision: Decision, budget: int, placeholder_cost: int) -> dict:
    """The corpus figures of one (strategy, budget) whose views are suffixes (and M2's
    placeholders), from every session's cut."""
    k, ends, start = decision.cut, c.ends, c.start
    placeholders = decision.placeholders(c)
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
        "partial_dropped": int(np.count_nonzero(decision.partial)),
        "fallback": int(np.count_nonzero(decision.fallback)) if decision.fallback is not None else 0,
        "repaired": int(decision.repaired(c).sum()),
        "mixed_windows": int(np.count_nonzero(c.mixed >= k)),
        "window_turn_collisions": int(np.count_nonzero(turn_pos >= k[turn_session])),
        "window_duplicate_call_ids": int(np.count_nonzero(dup_pos >= k[dup_session])),
    }
