"""The Qt table model of the per-session audit table (one row per session, AUDITS.md counts)."""

from __future__ import annotations

from typing import Any

import polars as pl
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from explorer import audits
from explorer.audits import FINDING_RULES, RULE_TEXT

#: The columns shown, in order: identity, sizes, every finding of AUDITS.md, users, cost.
COLUMNS = ("session_id", "events", "turns", "calls", "results", *FINDING_RULES, "users", "cost")

_COLUMN_TEXT = {
    "session_id": "The storage key of the session.",
    "events": "Events kept in this session (duplicates dropped).",
    "turns": "USER events.",
    "calls": "Tool CALL events.",
    "results": "Tool RESULT events.",
    "users": "Distinct user_id values in this session.",
    "cost": "Estimated tokens of the whole session.",
} | RULE_TEXT

_FINDINGS = frozenset(FINDING_RULES)
_HIGHLIGHT = QBrush(QColor(255, 226, 184))  # soft amber: readable under light and dark text
_HIGHLIGHT_TEXT = QBrush(QColor(40, 30, 0))
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter

Index = QModelIndex | QPersistentModelIndex


def header_label(name: str) -> str:
    """``orphan_results`` → ``orphan results``."""
    return name.replace("_", " ")


def empty_frame() -> pl.DataFrame:
    """An audit table with no sessions."""
    return pl.DataFrame(schema={c: pl.String if c == "session_id" else pl.Int64 for c in COLUMNS})


class SessionsModel(QAbstractTableModel):
    """Sessions and their audit counts, read from a polars frame (never copied into items).

    ``DisplayRole`` is plain text; ``UserRole`` is the raw value (int or str). Non-zero
    findings get a soft background. :meth:`sort` re-sorts the frame itself.
    """

    def __init__(self, frame: pl.DataFrame | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._frame = empty_frame()
        self._series: list[pl.Series] = []
        self._flagged: list[bool] = []
        self._mask_key: tuple[str, bool] | None = None
        self._mask: list[bool] = []
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._adopt(frame if frame is not None else empty_frame())

    # -- data -----------------------------------------------------------------------------
    def set_frame(self, frame: pl.DataFrame) -> None:
        """Show ``frame`` (a ``session_counts`` table), keeping the current sort."""
        self.beginResetModel()
        self._adopt(frame)
        if self._sort is not None:
            self._frame = self._sorted(self._frame, *self._sort)
            self._refresh()
        self.endResetModel()

    def frame(self) -> pl.DataFrame:
        return self._frame

    def totals(self) -> dict[str, int]:
        """The corpus counts of AUDITS.md (as ``explorer.audits.corpus_counts``), from the frame."""
        return audits.totals(self._frame)

    def widest_text(self, column: int) -> str:
        """The longest text ``column`` displays (to size the column without asking every row)."""
        series = self._series[column]
        if series.is_empty() or series.null_count() == series.len():
            return ""
        if column == 0:
            return series[series.str.len_chars().arg_max()]
        low, high = series.min(), series.max()
        return max(f"{low:,}", f"{high:,}", key=len)

    def session_id(self, row: int) -> str:
        return self._series[0][row]

    def has_findings(self, row: int) -> bool:
        return self._flagged[row]

    def row_matches(self, row: int, text: str, only_findings: bool) -> bool:
        """Whether ``row`` holds ``text`` in its session id (any case) and, if asked, findings."""
        key = (text.lower(), only_findings)
        if key != self._mask_key:
            self._mask = self._matching(*key)
            self._mask_key = key
        return self._mask[row]

    def _matching(self, text: str, only_findings: bool) -> list[bool]:
        keep = pl.lit(True)
        if text:
            keep = keep & pl.col("session_id").str.to_lowercase().str.contains(text, literal=True)
        if only_findings:
            keep = keep & pl.any_horizontal([pl.col(c) > 0 for c in FINDING_RULES])
        return self._frame.select(keep.fill_null(False).alias("keep"))["keep"].to_list()

    def _adopt(self, frame: pl.DataFrame) -> None:
        missing = [c for c in COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"audit table lacks columns: {', '.join(missing)}")
        self._frame = frame.select(COLUMNS)
        self._refresh()

    def _refresh(self) -> None:
        """Derived views of the frame, recomputed whenever its rows move."""
        self._series = self._frame.get_columns()
        self._flagged = self._frame.select(
            pl.any_horizontal([pl.col(c) > 0 for c in FINDING_RULES]).fill_null(False).alias("f")
        )["f"].to_list() if self._frame.height else []
        self._mask_key = None

    # -- Qt model interface ---------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._frame.height

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            value = self._series[col][row]
            if value is None:
                return ""
            return value if col == 0 else f"{value:,}"
        if role == Qt.ItemDataRole.UserRole:
            return self._series[col][row]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _LEFT if col == 0 else _RIGHT
        if role in (Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole):
            if COLUMNS[col] in _FINDINGS and (self._series[col][row] or 0) > 0:
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

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        self._sort = (column, order)
        self.layoutAboutToBeChanged.emit()
        ranked = self._sorted(self._frame.with_row_index("__old"), column, order)
        old_rows = ranked["__old"].to_list()
        self._frame = ranked.drop("__old")
        self._refresh()
        persistent = self.persistentIndexList()
        if persistent:
            new_row = {old: new for new, old in enumerate(old_rows)}
            self.changePersistentIndexList(
                persistent,
                [self.index(new_row[i.row()], i.column()) for i in persistent])
        self.layoutChanged.emit()

    @staticmethod
    def _sorted(frame: pl.DataFrame, column: int, order: Qt.SortOrder) -> pl.DataFrame:
        # Stable: equal values keep the order they had, so sorting by two keys works by clicks.
        descending = order == Qt.SortOrder.DescendingOrder
        return frame.sort(COLUMNS[column], descending=descending, nulls_last=True,
                          maintain_order=True)
