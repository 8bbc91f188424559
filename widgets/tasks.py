"""The plain functions the window runs in workers: import files, compute the audit table.

Each takes its inputs, then ``progress`` and ``should_stop`` (see :mod:`widgets.workers`), and
opens its own DuckDB cursor: connections are not shared between threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import polars as pl

from explorer.audits import session_counts
from explorer.ingest import ImportReport, import_paths
from explorer.model import Order
from explorer.store import Store


@dataclass(frozen=True)
class AuditResult:
    """The per-session audit table of one request (``generation`` tells stale ones apart)."""

    generation: int
    order: Order
    frame: pl.DataFrame


def import_task(store: Store, paths: list[str],
                progress: Callable[[int, int], None],
                should_stop: Callable[[], bool]) -> ImportReport:
    """Import ``paths`` into ``store`` on the calling thread's own cursor."""
    db = store.cursor()
    try:
        return import_paths(db, paths, progress, should_stop)
    finally:
        db.close()


def audit_task(store: Store, order: Order, generation: int,
               progress: Callable[[int, int], None],
               should_stop: Callable[[], bool]) -> AuditResult:
    """The audit table of everything in ``store``, in ``order``."""
    db = store.cursor()
    try:
        return AuditResult(generation, Order(order), session_counts(db, Order(order)))
    finally:
        db.close()


def import_summary(report: ImportReport) -> str:
    """The status-bar line after an import (plain text)."""
    parts = [f"Imported {sum(f.events for f in report.files):,} events "
             f"from {len(report.files):,} file(s)"]
    if report.rejected:
        parts.append(f"{report.rejected:,} lines rejected")
    if report.errors:
        parts.append(f"{len(report.errors):,} file(s) failed")
    return " · ".join(parts)
