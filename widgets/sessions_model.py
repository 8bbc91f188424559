"""The lazy Qt table model of the session list: an audit cache table read in blocks.

The row count comes first (one COUNT under the current filter); rows are read in blocks of
``block_size`` only when the view asks for them, and a few blocks are kept (least recently
used first out). Sorting and filtering are done by DuckDB (:mod:`explorer.audits.cache`).
The model reads on the GUI thread through its own cursor: a block is about a millisecond.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

import duckdb
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from explorer.audits import cache as audit_cache
from explorer.audits.cache import COLUMNS, ListQuery
from explorer.audits.counts import COUNT_NAMES, FINDING_RULES, RULE_TEXT
from explorer.store.db import Db, Store
from explorer.text_escape import elided, visible
from widgets.block_cache import BlockCache
from widgets.plain_text import tooltip, whole_tip

__all__ = ["COLUMNS", "SessionsModel", "header_label"]

_COLUMN_TEXT = {
    "session_id": "The storage key of the session.",
    "events": "Events kept in this session (duplicates dropped).",
    "turns": "USER events that open a turn (not those the harness wrote: they carry a note).",
    "calls": "Tool CALL events.",
    "results": "Tool RESULT events.",
    "users": "Distinct user_id values in this session.",
    "cost": "Estimated tokens of the whole session.",
} | RULE_TEXT

_FINDINGS = frozenset(COLUMNS.index(rule) for rule in FINDING_RULES)
_HIGHLIGHT = QBrush(QColor(255, 226, 184))  # soft amber: readable under light and dark text
_HIGHLIGHT_TEXT = QBrush(QColor(40, 30, 0))
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_HAS_FINDINGS = len(COLUMNS)  # where a row's has_findings sits, after the shown columns
#: Put before a sub-agent's session id (a session with a parent_session, FORMAT.md).
CHILD_MARK = "↳ "


@cache
def _bold() -> QFont:
    """The font of a new session's row (made once a QGuiApplication exists)."""
    font = QFont()
    font.setBold(True)
    return font

Index = QModelIndex | QPersistentModelIndex


def header_label(name: str) -> str:
    """``orphan_results`` → ``orphan results``."""
    return name.replace("_", " ")


class SessionsModel(QAbstractTableModel):
    """Sessions and their audit counts, read lazily from an audit cache table.

    ``DisplayRole`` is plain text, a session id made visible and elided
    (:mod:`explorer.text_escape`) with the whole of it in ``ToolTipRole``, a sub-agent's
    session marked :data:`CHILD_MARK` (its tooltip names the parent); ``UserRole`` is
    the raw value (int or str). Non-zero findings get a soft background. :meth:`sort` and
    :meth:`set_filter` move the rows with ``layoutChanged``: persistent indexes (the
    selection) follow their session, or become invalid when the filter hides it. :meth:`set_source` resets the model.
    ``block_reads`` counts the blocks read from the database.
    """

    def __init__(self, parent: QObject | None = None, *, block_size: int = 256,
                 cached_blocks: int = 64) -> None:
        super().__init__(parent)
        self.block_size = block_size
        self._cache = BlockCache(self._read_block, block_size, cached_blocks)
        self._db: Db | None = None
        self._owns_db = False
        self._table: str | None = None
        self._query = ListQuery()
        self._count = 0
        self._totals: dict[str, int] = dict.fromkeys(COUNT_NAMES, 0)
        self._widest: dict[str, Any] = {}
        self._parents: dict[str, tuple[str, str | None]] = {}

    # -- source, sort, filter -------------------------------------------------------------
    def set_source(self, source: Store | Db | None, table: str | None) -> None:
        """Show ``table`` (a name from :data:`explorer.audits.cache.TABLES`) of ``source``,
        keeping the current sort and filter; None empties the list. A :class:`Store` is read
        through a cursor of the model's own (closed on the next call); a plain :class:`Db` is
        used as it is and left open."""
        self.beginResetModel()
        self._release()
        if source is not None and table is not None:
            self._owns_db = isinstance(source, Store)
            self._db = source.cursor() if isinstance(source, Store) else source
            self._table = table
            self._totals = audit_cache.totals(self._db, table)
            self._widest = audit_cache.widest(self._db, table)
            self._parents = self._read_parents()
        self._count = self._counted()
        self.endResetModel()

    def close(self) -> None:
        """Let go of the database (before the store is closed)."""
        self.set_source(None, None)

    def table(self) -> str | None:
        return self._table

    def query(self) -> ListQuery:
        return self._query

    def set_filter(self, text: str, only_findings: bool) -> None:
        """Keep the sessions whose id holds ``text`` (any case, literally, not a pattern) and,
        when ``only_findings``, that have at least one non-zero finding."""
        self._change(replace(self._query, text=text, only_findings=bool(only_findings)))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by ``column`` then session id; descending is the exact reverse."""
        if not 0 <= column < len(COLUMNS):
            return
        descending = order == Qt.SortOrder.DescendingOrder
        self._change(replace(self._query, sort=COLUMNS[column], descending=descending))

    def _change(self, query: ListQuery) -> None:
        if query == self._query:
            return
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        moved = {i.row(): self.session_id(i.row()) for i in persistent}
        self._query = query
        self._cache.clear()
        self._count = self._counted()
        rows = {old: self.row_of(sid) if sid is not None else None for old, sid in moved.items()}
        self.changePersistentIndexList(persistent, [
            self.index(rows[i.row()], i.column()) if rows[i.row()] is not None else QModelIndex()
            for i in persistent])
        self.layoutChanged.emit()

    # -- reading --------------------------------------------------------------------------
    def session_id(self, row: int) -> str | None:
        values = self._row(row)
        return values[0] if values else None

    def has_findings(self, row: int) -> bool:
        values = self._row(row)
        return bool(values and values[_HAS_FINDINGS])

    def set_new(self, session_ids: set[str]) -> None:
        """Sessions shown in bold (new in the last import); kept across tables shown."""
        self._new = frozenset(session_ids)

    def new_sessions(self) -> frozenset[str]:
        return getattr(self, "_new", frozenset())

    def has_findings_of(self, row: int, rule: str | None) -> bool:
        """Whether the session of ``row`` has a finding of ``rule`` (None: of any rule)."""
        if rule is None:
            return self.has_findings(row)
        values = self._row(row)
        return bool(values and values[COLUMNS.index(rule)])

    def row_of(self, session_id: str) -> int | None:
        """The row of ``session_id`` under the current sort and filter; None when not shown."""
        if self._db is None:
            return None
        try:
            row = audit_cache.position(self._db, self._table, self._query, session_id,
                                       self._totals["sessions"])
        except duckdb.Error:
            return None
        return row if row is not None and row < self._count else None

    def row_of_unfiltered(self, session_id: str) -> int | None:
        """The row ``session_id`` would have under the current sort with no filter; None
        when the table does not hold it."""
        if self._db is None:
            return None
        return audit_cache.position(self._db, self._table, replace(self._query, text="",
                                    only_findings=False), session_id, self._totals["sessions"])

    def parent_of(self, session_id: str) -> tuple[str, str | None] | None:
        """(parent session, parent call) of a sub-agent's session; None for the others."""
        return self._parents.get(session_id)

    def parents(self) -> dict[str, tuple[str, str | None]]:
        """Every sub-agent's session -> (parent session, parent call)."""
        return dict(self._parents)

    def _read_parents(self) -> dict[str, tuple[str, str | None]]:
        try:
            return {sid: (parent, call) for sid, parent, call in self._db.run("child_sessions")}
        except duckdb.Error:
            return {}

    def totals(self) -> dict[str, int]:
        """The corpus counts of AUDITS.md over every session of the table (not the filter)."""
        return dict(self._totals)

    def total_sessions(self) -> int:
        return self._totals["sessions"]

    def widest_text(self, column: int) -> str:
        """The longest text ``column`` displays, for sizing it without reading every row."""
        value = self._widest.get(COLUMNS[column]) if 0 <= column < len(COLUMNS) else None
        if value is None:
            return ""
        return elided(value) if column == 0 else f"{value:,}"

    def _counted(self) -> int:
        if self._db is None:
            return 0
        try:
            return audit_cache.count(self._db, self._table, self._query)
        except duckdb.Error:
            return 0

    @property
    def block_reads(self) -> int:
        return self._cache.reads

    @block_reads.setter
    def block_reads(self, value: int) -> None:
        self._cache.reads = value

    def _row(self, row: int) -> tuple | None:
        return self._cache.row(row) if 0 <= row < self._count else None

    def _read_block(self, number: int) -> list[tuple] | None:
        try:
            return audit_cache.read_rows(self._db, self._table, self._query,
                                         number * self.block_size, self.block_size, self._count)
        except duckdb.Error:
            return None  # the table is being replaced or the store closed: blanks, read again later

    def _release(self) -> None:
        if self._db is not None and self._owns_db:
            self._db.close()
        self._db, self._owns_db, self._table = None, False, None
        self._cache.clear()
        self._totals = dict.fromkeys(COUNT_NAMES, 0)
        self._widest = {}
        self._parents = {}

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
            return _LEFT if col == 0 else _RIGHT
        if role == Qt.ItemDataRole.FontRole:
            values = self._row(index.row()) if self.new_sessions() else None
            return _bold() if values and values[0] in self.new_sessions() else None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole,
                        Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.BackgroundRole,
                        Qt.ItemDataRole.ForegroundRole):
            return None
        values = self._row(index.row())
        value = values[col] if values else None
        if role == Qt.ItemDataRole.UserRole:
            return value
        parent = self._parents.get(value) if col == 0 and value is not None else None
        if role == Qt.ItemDataRole.ToolTipRole:  # the whole id, when the cell shows less
            if parent is not None:
                call = f", call {visible(parent[1])}" if parent[1] else ""
                return tooltip(f"{visible(value)}\nsub-agent of {visible(parent[0])}{call}")
            return whole_tip(value) if col == 0 and value is not None else None
        if role == Qt.ItemDataRole.DisplayRole:
            if value is None:
                return ""
            if col == 0:
                return (CHILD_MARK if parent is not None else "") + elided(value)
            return f"{value:,}"
        if col in _FINDINGS and (value or 0) > 0:
            return _HIGHLIGHT if role == Qt.ItemDataRole.BackgroundRole else _HIGHLIGHT_TEXT
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return super().headerData(section, orientation, role)
        name = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return header_label(name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _COLUMN_TEXT.get(name)
        if role == Qt.ItemDataRole.UserRole:
            return name
        return None
