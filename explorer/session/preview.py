"""The compaction preview of one session: the overlay the turn tree shows while the budget
moves, and the compact comparison of every strategy at one budget.

One :func:`overlay` call is a strategy's decision (:func:`explorer.compaction.window`) plus
whole-array metrics: unlike :func:`explorer.compaction.view` it builds no item per event,
so moving the budget over a 10,000-event session stays within a few milliseconds. Its
metrics are those of ``view`` (tests compare them for every family).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.compaction import window as decide
from explorer.compaction.log import SessionLog
from explorer.compaction import strategies
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import BY_NAME, FAMILIES, Strategy
from explorer.compaction.strategies.messages import messages
from explorer.compaction.strategies.one_session import corpus_of, metrics_of
from explorer.compaction.view_groups import groups
from explorer.compaction.window import Window, in_view, starts_inside_turn
from explorer.model import KINDS
from explorer.providers.sweep_figures import figure_name
from explorer.providers.view_checks import error_counts
from explorer.session.view_overlay import SyntheticItem, ViewOverlay

#: Metric keys of a view, in the order of STRATEGIES.md ("Metrics of one view").
METRICS = ("cost", "over", "empty", "orphan_results", "orphan_calls", "pair_split",
           "partial_dropped", "fallback", "repaired")


@dataclass(frozen=True)
class StrategyParams:
    """The arguments of the families that take some, by family name (N, T, K, the
    memory-window variant); a family absent from ``values`` has its defaults
    (STRATEGIES.md's starting values, the frameworks' own)."""

    values: dict = field(default_factory=dict)

    def args(self, family: str) -> tuple:
        spec = BY_NAME[family]
        return tuple(self.values.get(family, tuple(a.default for a in spec.arguments)))

    def text(self, family: str) -> str:
        """The strategy text of ``family`` with these arguments, e.g. ``agentscope:50:20``."""
        return BY_NAME[family].text(self.args(family))


def strategy_texts(params: StrategyParams = StrategyParams()) -> list[str]:
    """Every strategy the app offers, in the registry's order, with the current arguments
    (some in more than one form: memory-window in both variants)."""
    return strategies.texts({f.name: params.args(f.name) for f in FAMILIES})


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
    return overlay_and_window(log, strategy, budget, settings)[0]


def overlay_and_window(log: SessionLog, strategy: Strategy | str, budget: int,
                       settings: CompactionSettings = CompactionSettings()
                       ) -> tuple[ViewOverlay, Window]:
    """:func:`overlay` and the window it shows (for the provider check of the same view)."""
    strategy, w, keep, (orphan_result, orphan_call), metrics = _decided(log, strategy, budget,
                                                                         settings)
    errors = _errors(orphan_result, orphan_call, w.cut - 1 if metrics["pair_split"] else None)
    synthetic = _synthetic(log, w, keep, settings.placeholder_cost)
    return ViewOverlay(strategy.text, int(budget), keep, errors, synthetic, metrics), w


def prepare(log: SessionLog) -> None:
    """Build what every strategy's preview of ``log`` reuses and keeps on it (the session as
    a corpus of one, its pair groups, its messages), off the GUI thread: the first preview
    of a session of 3M events spent 4 of its 5.5 s building them."""
    corpus = corpus_of(log)
    groups(corpus)
    messages(corpus)


def compare(log: SessionLog, budget: int, strategies, settings: CompactionSettings =
            CompactionSettings(), providers=()) -> list[dict]:
    """One row per strategy: ``{"strategy": text, **metrics}`` (the metrics of its view),
    and per provider asked ``rejected_<provider>``: the errors it would return (0: accepted)."""
    rows, windows, keeps = [], [], []
    for text in strategies:
        strategy, w, keep, _, metrics = _decided(log, text, budget, settings)
        rows.append({"strategy": strategy.text, **metrics})
        windows.append(w)
        keeps.append(keep)
    # every strategy's view checked at once, each distinct view once (view_checks)
    for row, counts in zip(rows, error_counts(log, windows, keeps, providers)):
        row.update({figure_name(p): n for p, n in counts.items()})
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
    metrics, *orphans = metrics_of(log, w, budget, settings.placeholder_cost)
    if strategy.family == "recorded":
        metrics["starts_inside_turn"] = starts_inside_turn(log, keep)
    return strategy, w, keep, orphans, metrics


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

