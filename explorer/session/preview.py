"""The compaction preview of one session: the overlay the turn tree shows while the budget
moves, and the compact comparison of every strategy at one budget.

One :func:`overlay` call is a strategy's decision (:func:`explorer.compaction.window`) plus
whole-array metrics: unlike :func:`explorer.compaction.view` it builds no item per event,
so moving the budget over a 10,000-event session stays within a few milliseconds. Its
metrics are those of ``view`` (tests compare them for every family).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.compaction import window as decide
from explorer.compaction.log import SUMMARY, USER, SessionLog
from explorer.compaction.settings import DEFAULTS, CompactionSettings, Strategy
from explorer.compaction.window import Window, in_view, view_metrics
from explorer.model import KINDS
from explorer.session.view_overlay import SyntheticItem, ViewOverlay

#: The reference strategies, offered first, then ``recorded``, then the framework families.
REFERENCE = ("M0", "M1", "M2", "M3", "M4")
#: Metric keys of a view, in the order of STRATEGIES.md ("Metrics of one view").
METRICS = ("cost", "over", "empty", "orphan_results", "orphan_calls", "pair_split",
           "partial_dropped", "fallback", "repaired")


def _default(family: str, position: int):
    text = next(d for d in DEFAULTS if d.startswith(family + ":"))
    return Strategy.parse(text).args[position]


@dataclass(frozen=True)
class StrategyParams:
    """The arguments of every framework strategy (N, T, K, the memory-window variant);
    the defaults are STRATEGIES.md's starting values (the frameworks' own)."""

    spring_turns: int = _default("spring-turns", 0)
    spring_events: int = _default("spring-events", 0)
    spring_summary: int = _default("spring-summary", 0)
    agentscope_threshold: int = _default("agentscope", 0)
    agentscope_keep: int = _default("agentscope", 1)
    agentscope_tokens_threshold: int = _default("agentscope-tokens", 0)
    memory_window: int = _default("memory-window", 0)
    memory_variant: str = _default("memory-window", 1)

    def text(self, family: str) -> str:
        """The strategy text of ``family`` with these arguments, e.g. ``agentscope:50:20``."""
        args = {
            "spring-turns": (self.spring_turns,), "spring-events": (self.spring_events,),
            "spring-summary": (self.spring_summary,),
            "agentscope": (self.agentscope_threshold, self.agentscope_keep),
            "agentscope-tokens": (self.agentscope_tokens_threshold,),
            "memory-window": (self.memory_window, self.memory_variant),
        }.get(family, ())
        return ":".join([family, *map(str, args)])


#: The framework families, in the order of STRATEGIES.md.
FRAMEWORKS = ("spring-turns", "spring-events", "spring-tokens", "spring-summary",
              "agentscope", "agentscope-tokens", "memory-window")


def strategy_texts(params: StrategyParams = StrategyParams()) -> list[str]:
    """Every strategy the app offers: M0-M4, recorded, each framework family with the
    current arguments (memory-window in both variants, which STRATEGIES.md lists apart)."""
    texts = [*REFERENCE, "recorded"]
    for family in FRAMEWORKS:
        texts.append(params.text(family))
        if family == "memory-window":
            other = "1.x" if params.memory_variant == "2.0" else "2.0"
            texts.append(f"memory-window:{params.memory_window}:{other}")
    return texts


_TRANSFORM_FIELDS = {
    "evict": ("evict_chars", "evict_keep", "evict_excluded"),
    "prune": ("prune_protect", "prune_minimum", "prune_chars", "prune_keep", "prune_excluded"),
}


def transform_key(settings: CompactionSettings) -> tuple:
    """What of ``settings`` changes the costs of a loaded session: the settings of each
    transform that is switched on. Two settings with equal keys give the same SessionLog."""
    return tuple((switch, tuple(getattr(settings, f) for f in names))
                 if getattr(settings, switch) else (switch, None)
                 for switch, names in _TRANSFORM_FIELDS.items())


def overlay(log: SessionLog, strategy: Strategy | str, budget: int,
            settings: CompactionSettings = CompactionSettings()) -> ViewOverlay:
    """The preview of ``strategy`` at ``budget``: rows in view, their errors, the synthetic
    items where they sit, and the metrics of :func:`explorer.compaction.view`."""
    strategy, w, keep, (orphan_result, orphan_call), metrics = _decided(log, strategy, budget,
                                                                         settings)
    errors = _errors(orphan_result, orphan_call, w.cut - 1 if metrics["pair_split"] else None)
    synthetic = _synthetic(log, w, keep, settings.placeholder_cost)
    return ViewOverlay(strategy.text, int(budget), keep, errors, synthetic, metrics)


def compare(log: SessionLog, budget: int, strategies, settings: CompactionSettings =
            CompactionSettings()) -> list[dict]:
    """One row per strategy: ``{"strategy": text, **metrics}`` (the metrics of its view)."""
    rows = []
    for text in strategies:
        strategy, *_, metrics = _decided(log, text, budget, settings)
        rows.append({"strategy": strategy.text, **metrics})
    return rows


def _decided(log: SessionLog, strategy: Strategy | str, budget: int,
             settings: CompactionSettings):
    """The strategy, its window, the rows in view, the orphan masks and the view's metrics."""
    if isinstance(strategy, str):
        strategy = Strategy.parse(strategy)
    if budget < 1:
        raise ValueError("the budget is a positive number of tokens")
    w = decide(log, strategy, budget, settings)
    keep = in_view(log, w)
    metrics, *orphans = view_metrics(log, w, keep, budget, settings.placeholder_cost)
    if strategy.family == "recorded":
        metrics["starts_inside_turn"] = _starts_inside_turn(log, keep)
    return strategy, w, keep, orphans, metrics


def _starts_inside_turn(log: SessionLog, keep: np.ndarray) -> bool:
    """A recorded view whose first event after the summary is not a USER event."""
    kinds = log.kind[keep]
    after = kinds[kinds != SUMMARY]
    return bool(len(after)) and bool(after[0] != USER)


def _errors(orphan_result: np.ndarray, orphan_call: np.ndarray,
            split_call: int | None) -> dict[int, tuple[str, ...]]:
    """Per row, what the view gets wrong there (VIEW_ERRORS); rows without error are absent."""
    errors: dict[int, tuple[str, ...]] = {}
    for name, flags in (("orphan_result", orphan_result), ("orphan_call", orphan_call)):
        for row in np.flatnonzero(flags).tolist():
            errors[row] = errors.get(row, ()) + (name,)
    if split_call is not None:
        errors[split_call] = errors.get(split_call, ()) + ("pair_split",)
    return errors


def _synthetic(log: SessionLog, w: Window, keep: np.ndarray,
               placeholder_cost: int) -> tuple[SyntheticItem, ...]:
    """Front items after the last pinned row (as the engine orders them), then each
    placeholder RESULT right after its CALL."""
    items: list[SyntheticItem] = []
    if w.front:
        before = np.flatnonzero(keep[:w.cut])
        if w.mask is not None:  # only SYSTEM rows before the cut are pinned under a mask
            before = before[log.is_system[before]]
        after_row = int(before[-1]) if len(before) else None
        dropped = log.n - int(np.count_nonzero(keep))
        items += [SyntheticItem(after_row, kind, int(cost), front_label(kind, int(cost), dropped))
                  for kind, cost in w.front]
    items += [SyntheticItem(int(row), "RESULT", int(placeholder_cost),
                            f"placeholder RESULT for {log.call_ids[row]}")
              for row in w.placeholders]
    return tuple(items)


def front_label(kind: str, cost: int, dropped: int) -> str:
    """Plain text naming a synthetic item a strategy puts at the front of its view."""
    if kind == "SUMMARY":
        return f"summary ({cost:,} tokens) standing for {dropped:,} dropped events"
    if kind == "USER":
        return f"synthetic USER prompt ({cost:,} tokens) asking for the summary"
    return f"synthetic {kind if kind in KINDS else 'event'} ({cost:,} tokens)"

