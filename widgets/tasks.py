"""The plain functions the window runs in workers: import files, make the audit table fresh.

Each takes its inputs, then ``progress`` and ``should_stop`` (see :mod:`widgets.workers`), and
opens its own DuckDB cursor: connections are not shared between threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from explorer.audits import cache as audit_cache
from explorer.ingest.imports import ImportReport, import_paths
from explorer.model import CostSettings, Order
from explorer.store.db import Store


@dataclass(frozen=True)
class AuditResult:
    """The audit cache table of one request."""

    order: Order
    table: str


def import_task(store: Store, paths: list[str],
                progress: Callable[[int, int], None],
                should_stop: Callable[[], bool]) -> ImportReport:
    """Import ``paths`` into ``store`` on the calling thread's own cursor."""
    db = store.cursor()
    try:
        return import_paths(db, paths, progress, should_stop)
    finally:
        db.close()


def audit_task(store: Store, order: Order, settings: CostSettings,
               progress: Callable[[int, int], None],
               should_stop: Callable[[], bool]) -> AuditResult:
    """Make the audit table of everything in ``store``, in ``order``, fresh (computed only
    when stale: see :func:`explorer.audits.cache.ensure`)."""
    db = store.cursor()
    try:
        table = audit_cache.ensure(db, Order(order), settings, progress, should_stop)
        return AuditResult(Order(order), table)
    finally:
        db.close()


def import_summary(report: ImportReport) -> str:
    """The status-bar line after an import (plain text): events kept, then the records
    skipped (with their most frequent reasons), dropped as copies and rejected, the files
    found unchanged and the files that failed."""
    formats = sorted({f.format for f in report.files})
    read_as = f" read as {', '.join(formats)}" if formats else ""
    fresh = [f for f in report.files if not f.unchanged]
    parts = [f"Imported {sum(f.events for f in fresh):,} events "
             f"from {len(report.files):,} file(s){read_as}"]
    skipped = sum(f.skipped for f in fresh)
    if skipped:
        reasons = ImportReport(fresh).skipped_by_reason()
        named = [f"{reason} {n:,}" for reason, n in list(reasons.items())[:2]]
        more = ", …" if len(reasons) > 2 else ""
        parts.append(f"{skipped:,} records skipped ({', '.join(named)}{more})")
    duplicates = sum(f.duplicates for f in fresh)
    if duplicates:
        parts.append(f"{duplicates:,} duplicate records dropped")
    if report.rejected:
        parts.append(f"{report.rejected:,} lines rejected")
    unchanged = len(report.files) - len(fresh)
    if unchanged:
        parts.append(f"{unchanged:,} file(s) unchanged since imported")
    if report.errors:
        parts.append(f"{len(report.errors):,} file(s) failed")
    if report.not_logs:
        parts.append(f"{len(report.not_logs):,} file(s) not logs")
    return " · ".join(parts)
