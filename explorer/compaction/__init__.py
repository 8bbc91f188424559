"""Compaction strategies (STRATEGIES.md): the active view of one session, and the corpus sweep.

``view(log, strategy, budget)`` gives the items and metrics of one view; ``SessionLog``
holds what does not depend on the budget, so moving the budget redoes only the cut. The
strategies themselves are registered in :mod:`explorer.compaction.strategies`.
"""

from __future__ import annotations

from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.strategies.one_session import metrics_of
from explorer.compaction.window import Item, Window, in_view, starts_inside_turn, view_items


def window(log: SessionLog, strategy: Strategy, budget: int,
           settings: CompactionSettings = CompactionSettings()) -> Window:
    """The decision of ``strategy`` for this session at ``budget``."""
    return strategy.decide(log, budget, settings)


def evaluate(log: SessionLog, w: Window, budget: int, placeholder_cost: int) -> tuple[list[Item], dict]:
    """The items of the view of ``w`` (a Window of :func:`window`) and its metrics."""
    metrics, orphan_result, orphan_call = metrics_of(log, w, budget, placeholder_cost)
    keep = in_view(log, w)
    return view_items(log, w, keep, orphan_result, orphan_call, placeholder_cost), metrics


def view(log: SessionLog, strategy: Strategy | str, budget: int,
         settings: CompactionSettings = CompactionSettings()) -> tuple[list[Item], dict]:
    """The items of the active view and the metrics of STRATEGIES.md."""
    if isinstance(strategy, str):
        strategy = Strategy.parse(strategy)
    if budget < 1:
        raise ValueError("the budget is a positive number of tokens")
    w = window(log, strategy, budget, settings)
    items, metrics = evaluate(log, w, budget, settings.placeholder_cost)
    if strategy.family == "recorded":
        metrics["starts_inside_turn"] = starts_inside_turn(log, in_view(log, w))
    return items, metrics


__all__ = ["CompactionSettings", "Item", "SessionLog", "Strategy", "Window", "evaluate", "view",
           "window"]
