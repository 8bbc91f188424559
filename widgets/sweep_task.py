"""The corpus sweep as a worker job: its own cursor, and a way to interrupt its query.

:func:`explorer.compaction.sweep.sweep` polls ``should_stop`` between steps, but its first
step, loading the corpus, is one long query: :meth:`SweepTask.interrupt` stops that query on
the task's own cursor (DuckDB's ``interrupt`` on a cursor cancels what that cursor runs).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

from explorer.compaction.settings import CompactionSettings
from explorer.compaction.sweep import sweep
from explorer.jobs import Cancelled
from explorer.model import CostSettings, Order
from explorer.providers.sweep_figures import rejected_figures
from explorer.store.db import Db, Store


@dataclass(frozen=True)
class SweepRequest:
    """What one sweep computes."""

    strategies: tuple[str, ...]
    budgets: tuple[int, ...]
    order: Order = Order.SEQ
    cost_settings: CostSettings = CostSettings()
    settings: CompactionSettings = CompactionSettings()
    providers: tuple[str, ...] = ()     # rejected_<provider> figures (PROVIDERS.md)
    #: "Compare estimates" (LAB.md): (name, cost settings) per estimate; the sweep runs
    #: once under each, in place of ``cost_settings``, each row with its ``estimate``
    estimates: tuple[tuple[str, CostSettings], ...] = ()


@dataclass(frozen=True)
class SweepResult:
    """The rows of :func:`sweep` for ``request``, and how long they took."""

    request: SweepRequest
    rows: list[dict]
    seconds: float


class SweepTask:
    """Call it as ``task(progress, should_stop)`` in a :class:`widgets.workers.Worker`."""

    def __init__(self, store: Store, request: SweepRequest) -> None:
        self.store = store
        self.request = request
        self._lock = threading.Lock()
        self._db: Db | None = None

    def __call__(self, progress: Callable[[int, int], None],
                 should_stop: Callable[[], bool]) -> SweepResult:
        started = time.perf_counter()
        db = self.store.cursor()
        with self._lock:
            self._db = db
        try:
            if should_stop():
                raise Cancelled("sweep")
            r = self.request
            more = rejected_figures(r.providers) if r.providers else None
            if not r.estimates:
                rows = sweep(db, r.strategies, r.budgets, r.order, r.cost_settings, r.settings,
                             progress, should_stop, more=more)
            else:
                rows = []
                for i, (name, costs) in enumerate(r.estimates):
                    part = sweep(db, r.strategies, r.budgets, r.order, costs, r.settings,
                                 _share(progress, i, len(r.estimates)), should_stop, more=more)
                    rows += [{"estimate": name, **row} for row in part]
        finally:
            with self._lock:
                self._db = None
                db.close()
        return SweepResult(self.request, rows, time.perf_counter() - started)

    def interrupt(self) -> None:
        """Cancel the query the task is running now, if any; safe from any thread.

        DuckDB forgets an interrupt that arrives between two queries: call it again until
        the worker has ended (the panel does, on a timer)."""
        with self._lock:
            if self._db is not None:
                self._db.con.interrupt()


def _share(progress, i: int, n: int):
    """The progress of the i-th of n sweeps, as a share of the whole."""
    if progress is None:
        return None
    return lambda done, total: progress(i * total + done, n * total)
