"""Compaction strategies (STRATEGIES.md): the active view of one session, and the corpus sweep.

``view(log, strategy, budget)`` gives the items and metrics of one view; ``SessionLog``
holds what does not depend on the budget, so moving the budget redoes only the cut.
"""

from __future__ import annotations

from explorer.compaction import reference
from explorer.compaction.log import SessionLog
from explorer.compaction.recorded import recorded
from explorer.compaction.settings import CompactionSettings, Strategy
from explorer.compaction.window import Item, Window, evaluate, starts_inside_turn

_SIMPLE = {"M0": reference.m0, "M1": reference.m1, "M2": reference.m2, "M3": reference.m3,
           "M4": reference.m4, "recorded": recorded}


def window(log: SessionLog, strategy: Strategy, budget: int,
           settings: CompactionSettings = CompactionSettings()) -> Window:
    """The decision of ``strategy`` for this session at ``budget``."""
    if strategy.family in _SIMPLE:
        return _SIMPLE[strategy.family](log, budget)
    from explorer.compaction import frameworks
    return frameworks.window(log, strategy, budget, settings)


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
        metrics["starts_inside_turn"] = starts_inside_turn(log, w)
    return items, metrics


__all__ = ["CompactionSettings", "Item", "SessionLog", "Strategy", "Window", "view", "window"]
