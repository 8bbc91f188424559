"""The corpus sweep: every session x strategy x budget -> the corpus figures of STRATEGIES.md.

Vectorized over whole columns: the cut of every session at once (numpy over the flat
corpus of :mod:`explorer.compaction.corpus`), then the metrics of every view by session
(:mod:`explorer.compaction.view_metrics`, the very values one session's view shows),
summed into the figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from explorer.compaction import transforms
from explorer.compaction.corpus import Corpus, load
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy, reference
from explorer.compaction.view_metrics import figures, measured
from explorer.jobs import check
from explorer.model import CostSettings, Order
from explorer.store.db import Db
from explorer.tokens import counts as token_counts

#: The keys of ``sweep --json``, in the order STRATEGIES.md gives them.
FIGURES = ("windows", "kept_cost", "max_cost", "over_budget", "empty", "orphan_results",
           "orphan_calls", "pair_splits", "partial_dropped", "fallback", "repaired",
           "over_ratio", "mixed_windows", "window_turn_collisions", "window_duplicate_call_ids")
#: The reference strategies M0-M4 (the command line's default); their views, like any
#: decision's whose views are suffixes, are measured with prefix sums
#: (:func:`~explorer.compaction.view_metrics.measure_suffix`), the others' per event.
VECTORIZED = tuple(f.name for f in reference.FAMILIES)


def positive_budgets(budgets: Iterable[int]) -> list[int]:
    """The budgets as integers (ValueError unless each is a positive number of tokens)."""
    budgets = [int(b) for b in budgets]
    if any(b < 1 for b in budgets):
        raise ValueError("budgets are positive numbers of tokens")
    return budgets


def sweep_corpus(db: Db, order: Order, cost_settings: CostSettings,
                 settings: CompactionSettings,
                 progress: Callable[[int, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> Corpus:
    """The corpus a sweep reads (this one and ``sweep --trigger``'s): in ``order``, costed
    by ``cost_settings``, with the transforms ``settings`` switch on."""
    # a tokenizer's counts, once per event: the long part, so it reports and stops
    token_counts.ensure(db, cost_settings, progress=progress, should_stop=should_stop)
    corpus, _ = load(db, order, cost_settings)
    return transforms.for_corpus(db, corpus, settings, cost_settings)


def sweep(db: Db, strategies: Iterable[str], budgets: Iterable[int], order: Order = Order.SEQ,
          cost_settings: CostSettings = CostSettings(),
          settings: CompactionSettings = CompactionSettings(),
          progress: Callable[[int, int], None] | None = None,
          should_stop: Callable[[], bool] | None = None,
          more: Callable | None = None) -> list[dict]:
    """One row of corpus figures per (strategy, budget), strategies outer, budgets inner;
    ``more(corpus, decision)`` adds figures of its own after them (the providers')."""
    parsed = [Strategy.parse(s) for s in strategies]
    budgets = positive_budgets(budgets)
    corpus = sweep_corpus(db, order, cost_settings, settings, progress, should_stop)
    rows, total = [], len(parsed) * len(budgets)
    for strategy in parsed:
        for budget in budgets:
            check(should_stop, "sweep")
            decision = strategy.corpus_decision(corpus, budget, settings)
            row = figures(measured(corpus, decision, settings.placeholder_cost), budget)
            rows.append({"strategy": strategy.text, "budget": budget,
                         **{name: row[name] for name in FIGURES},
                         **(more(corpus, decision) if more else {})})
            if progress:
                progress(len(rows), total)
    return rows
