"""The corpus figures computed the straightforward way: one session at a time, one view at
a time, each with the metrics ``turnscope view`` shows. Kept as the yardstick of the
vectorized sweep (tests and benchmark compare them): it checks the corpus decisions, the
prefix-sum metrics and the grouping across sessions against one view at a time."""

from __future__ import annotations

from typing import Iterable

from explorer.compaction import transforms, view
from explorer.compaction import window as decide
from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.compaction.strategies.one_session import corpus_of
from explorer.compaction.view_metrics import measure
from explorer.model import CostSettings, Order
from explorer.store.db import Db
from explorer.tokens.session_events import session_events


def session_logs(db: Db, order: Order, cost_settings: CostSettings,
                 settings: CompactionSettings = CompactionSettings()) -> list[SessionLog]:
    """Every session of the database as a SessionLog, by session id (costs transformed
    when the settings switch a transform on)."""
    names = [r[0] for r in db.run("session_names")]
    return [transforms.for_log(db, SessionLog.from_frame(s, session_events(db, s, order, cost_settings)),
                               settings, cost_settings) for s in names]


def sweep_by_sessions(logs: list[SessionLog], strategies: Iterable[str], budgets: Iterable[int],
                      settings: CompactionSettings = CompactionSettings()) -> list[dict]:
    """Sum the per-session views into the corpus figures of STRATEGIES.md."""
    rows = []
    for text in strategies:
        strategy = Strategy.parse(text)
        for budget in budgets:
            totals = dict.fromkeys((
                "kept_cost", "max_cost", "over_budget", "empty", "orphan_results",
                "orphan_calls", "pair_splits", "partial_dropped", "fallback", "repaired",
                "mixed_windows", "window_turn_collisions", "window_duplicate_call_ids"), 0)
            for log in logs:
                _, m = view(log, strategy, budget, settings)
                totals["kept_cost"] += m["cost"]
                totals["max_cost"] = max(totals["max_cost"], m["cost"])
                for figure, metric in (("over_budget", "over"), ("empty", "empty"),
                                       ("orphan_results", "orphan_results"),
                                       ("orphan_calls", "orphan_calls"),
                                       ("pair_splits", "pair_split"),
                                       ("partial_dropped", "partial_dropped"),
                                       ("fallback", "fallback"), ("repaired", "repaired")):
                    totals[figure] += int(m[metric])
                w = decide(log, strategy, budget, settings)
                one = measure(corpus_of(log), w.decision, settings.placeholder_cost)
                for figure in ("mixed_windows", "window_turn_collisions",
                               "window_duplicate_call_ids"):
                    totals[figure] += int(getattr(one, figure)[0])
            windows = len(logs)
            over_ratio = round(totals["kept_cost"] / (budget * windows), 6) if windows else 0.0
            rows.append({"strategy": text, "budget": budget, "windows": windows, **totals,
                         "over_ratio": over_ratio})
    return rows
