"""The Qt table model of the findings cache: one row per finding, read lazily in blocks."""

from __future__ import annotations

import json
from typing import Any

import duckdb
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from explorer.audits import findings_cache
from explorer.audits.rules import RULE_TEXT
from explorer.store.db import Db
from explorer.text_escape import elided
from widgets.block_cache import BlockCache
from widgets.plain_text import whole_tip

#: The columns shown, in order.
COLUMNS = ("rule", "session", "events", "count")
_COLUMN_TEXT = {
    "rule": "The audit of AUDITS.md that found it (hover a row for the rule).",
    "session": "The session (storage key) it was found in.",
    "events": "The events involved: kind, call id and @seq (.sub when not 0).",
    "count": "How many events the finding points at.",
}
BLOCK = 256  # rows per read
_KEPT_BLOCKS = 64  # blocks kept in memory (least recently used dropped first)
_SHOWN_EVENTS = 4
_PLACEHOLDER = "…"
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter

Index = QModelIndex | QPersistentModelIndex


def rule_label(rule: str) -> str:
    """``orphan_results`` → ``orphan results``."""
    return rule.replace("_", " ")


def event_label(event: dict) -> str:
    """``RESULT call_3 @12`` (``@12.1`` for a later block of one record); plain text."""
    where = f"@{event['seq']}" + (f".{event['sub']}" if event.get("sub") else "")
    parts = [str(event.get("kind") or "?")]
    if event.get("call_id") is not None:
        parts.append(elided(str(event["call_id"])))
    return " ".join(parts + [where])


def events_summary(events: list[dict], shown: int = _SHOWN_EVENTS) -> str:
    """The first ``shown`` events, joined by `` · ``, and how many more there are."""
    text = " · ".join(event_label(e) for e in events[:shown])
    return text + (f" · … +{len(events) - shown:,} more" if len(events) > shown else "")


class FindingsModel(QAbstractTableModel):
    """Findings of one cache table (:mod:`explorer.audits.findings_cache`), in the order of ``n``.

    The row count is known before any row is read (from the rule ranges, or one count for a
    session filter); rows are read in blocks of :data:`BLOCK` when first shown, a range of
    ``n`` that touches only a row group or two, so reads stay on the calling thread.
    ``DisplayRole`` is plain text; ``UserRole`` the raw value. Emits the usual model signals.
    """

    def __init__(self, db: Db | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._db = db
        self._table: str | None = None
        self._ranges: dict[str, tuple[int, int]] = {}
        self._rule: str | None = None
        self._session: str | None = None
        self._lo, self._hi, self._count = 1, 0, 0
        self._cache = BlockCache(self._read_block, BLOCK, _KEPT_BLOCKS)

    # -- content --------------------------------------------------------------------------
    def set_db(self, db: Db | None) -> None:
        """Read through ``db`` (a connection of the thread the model lives in)."""
        self.beginResetModel()
        self._db = db
        self._recount()
        self.endResetModel()

    def set_table(self, table: str | None, ranges: dict[str, tuple[int, int]]) -> None:
        """Show ``table`` whose :func:`~explorer.audits.findings_cache.rule_ranges` are ``ranges``."""
        self.beginResetModel()
        self._table, self._ranges = table, dict(ranges)
        self._recount()
        self.endResetModel()

    def set_filter(self, rule: str | None = None, session_id: str | None = None) -> None:
        """Show only the findings of ``rule`` and of ``session_id`` (None: any)."""
        if (rule, session_id) == (self._rule, self._session):
            return
        self.beginResetModel()
        self._rule, self._session = rule or None, session_id
        self._recount()
        self.endResetModel()

    def table(self) -> str | None:
        return self._table

    def rule_filter(self) -> str | None:
        return self._rule

    def session_filter(self) -> str | None:
        return self._session

    def total(self) -> int:
        """Findings in the table, whatever the filter."""
        return sum(count for _, count in self._ranges.values())

    def finding(self, row: int) -> dict | None:
        """``{"rule", "session_id", "events"}`` of ``row`` (events: dicts with seq, sub,
        kind, call_id), or None when the row cannot be read."""
        found = self._row(row)
        if found is None:
            return None
        return {"rule": found[1], "session_id": found[2], "events": json.loads(found[3])}

    def _recount(self) -> None:
        self._cache.clear()
        if self._table is None or self._db is None:
            self._lo, self._hi, self._count = 1, 0, 0
            return
        if self._rule is not None:
            first, count = self._ranges.get(self._rule, (0, 0))
            self._lo, self._hi = first, first + count - 1
        else:
            self._lo, self._hi = 1, self.total()
        self._count = self._hi - self._lo + 1 if self._hi >= self._lo else 0
        if self._session is not None and self._count:
            self._count = self._read(findings_cache.count_session, self._lo, self._hi,
                                     self._session) or 0

    @property
    def blocks_read(self) -> int:
        """How many block reads ran (for tests and benchmarks)."""
        return self._cache.reads

    def _row(self, row: int) -> tuple | None:
        return self._cache.row(row) if 0 <= row < self._count else None

    def _read_block(self, number: int) -> list[tuple]:
        if self._session is None:
            # Rows of the range are numbered without gaps: read exactly the block's numbers.
            lo = self._lo + number * BLOCK
            return self._read(findings_cache.read_block, lo, min(lo + BLOCK - 1, self._hi),
                              rule=self._rule, limit=BLOCK) or []
        return self._read(findings_cache.read_block, self._lo, self._hi, rule=self._rule,
                          session_id=self._session, skip=number * BLOCK, limit=BLOCK) or []

    def _read(self, fn, *args, **kwargs) -> Any:
        try:
            return fn(self._db, self._table, *args, **kwargs)
        except duckdb.Error:
            return None  # the table went away under us (a newer result is on its way)

    # -- Qt model interface ---------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        col = index.column()
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if COLUMNS[col] == "count" else _LEFT
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole,
                        Qt.ItemDataRole.ToolTipRole):
            return None
        found = self._row(index.row())
        if found is None:
            return _PLACEHOLDER if role == Qt.ItemDataRole.DisplayRole else None
        _, rule, session_id, events, n_events, _, _ = found
        if role == Qt.ItemDataRole.ToolTipRole:
            # Our own fixed sentences, and the whole of a session id the cell shows less of.
            if COLUMNS[col] == "session":
                return whole_tip(session_id)
            return RULE_TEXT.get(rule) if COLUMNS[col] == "rule" else None
        raw = role == Qt.ItemDataRole.UserRole
        name = COLUMNS[col]
        if name == "rule":
            return rule if raw else rule_label(rule)
        if name == "session":
            return session_id if raw else elided(session_id)
        if name == "events":
            parsed = json.loads(events)
            return parsed if raw else events_summary(parsed)
        return n_events if raw else f"{n_events:,}"

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return super().headerData(section, orientation, role)
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return _COLUMN_TEXT[COLUMNS[section]]
        return None
