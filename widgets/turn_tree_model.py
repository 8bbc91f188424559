"""The turn tree of one session: turns -> events, each CALL holding the RESULT paired with it.

A RESULT sits under the CALL that the one-to-one display pairing of AUDITS.md gives it,
wherever it is in the log; a RESULT with no such CALL (orphan, or before its CALL) stays
where it sits, marked. A turn's events are built when the turn is expanded.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from explorer.audits import RULE_TEXT

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("event", "seq", "cost", "marks")
MARK_LABELS = {
    "orphan_results": "orphan result", "dangling_calls": "dangling call", "mispair": "mispair",
    "duplicate_call_ids": "duplicate call id", "tie_inversions": "tie inversion",
    "clock_regressions": "clock regression", "turn_collisions": "key collision",
}
MARK_COLOURS = {
    "orphan_results": "#f8c9c4", "dangling_calls": "#fde2b8", "mispair": "#e7d3f5",
    "duplicate_call_ids": "#d7e3fb", "tie_inversions": "#f5efb3",
    "clock_regressions": "#f5efb3", "turn_collisions": "#cfeedd",
}
_PREVIEW = 80


class Node:
    """A turn (``row`` None) or an event (``row``: its row in the session frame)."""

    __slots__ = ("parent", "row", "turn", "children", "position")

    def __init__(self, parent: "Node | None", row: int | None, turn: int | None = None) -> None:
        self.parent = parent
        self.row = row
        self.turn = turn
        self.children: list[Node] | None = None  # None: not built yet (a turn not expanded)
        self.position = 0


class TurnTreeModel(QAbstractItemModel):
    """Turn tree of one session (see the module docstring). Emits the usual model signals."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = Node(None, None)
        self._root.children = []
        self._frame = pl.DataFrame()
        self._marks: list[frozenset[str]] = []
        self._by_turn: dict[int, list[int]] = {}
        self._result_of: dict[int, int] = {}

    # -- content --------------------------------------------------------------------------
    def set_session(self, frame: pl.DataFrame, marks: list[frozenset[str]]) -> None:
        """Show a :func:`explorer.turns.session_events` frame and its event marks."""
        self.beginResetModel()
        self._frame, self._marks = frame, marks
        self._by_turn = {}
        self._result_of = {}
        rows = frame.select("turn_no", "pos", "display_call_pos").rows() if frame.height else []
        row_of_pos = {pos: i for i, (_, pos, _) in enumerate(rows)}
        for i, (turn, _, call_pos) in enumerate(rows):
            if call_pos is not None:
                self._result_of[row_of_pos[call_pos]] = i
                continue
            self._by_turn.setdefault(turn, []).append(i)
        self._root.children = [Node(self._root, None, t) for t in sorted(self._by_turn)]
        for n, node in enumerate(self._root.children):
            node.position = n
        self.endResetModel()

    def node(self, index: Index) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    def event(self, row: int) -> dict:
        """One row of the session frame, as a dict."""
        return self._frame.row(row, named=True)

    def frame_row(self, index: Index) -> int | None:
        """The row of the session frame an index shows (None for a turn)."""
        return self.node(index).row

    # -- lazy children --------------------------------------------------------------------
    def canFetchMore(self, parent: Index) -> bool:
        node = self.node(parent)
        return node.row is None and node is not self._root and node.children is None

    def fetchMore(self, parent: Index) -> None:
        node = self.node(parent)
        if not self.canFetchMore(parent):
            return
        rows = self._by_turn.get(node.turn, [])
        self.beginInsertRows(parent, 0, len(rows) - 1)
        node.children = []
        for n, row in enumerate(rows):
            child = Node(node, row)
            child.position = n
            result = self._result_of.get(row)
            child.children = [Node(child, result)] if result is not None else []
            node.children.append(child)
        self.endInsertRows()

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        node = self.node(parent)
        if node.children is None:
            return bool(self._by_turn.get(node.turn))
        return bool(node.children)

    # -- structure ------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        node = self.node(parent)
        if node.children is None or not (0 <= row < len(node.children)) or not (0 <= column < len(COLUMNS)):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        parent = index.internalPointer().parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.position, 0, parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        children = self.node(parent).children
        return len(children) if children is not None else 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    # -- data -----------------------------------------------------------------------------
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = index.internalPointer()
        if node.row is None:
            return self._turn_data(node, index.column(), role)
        return self._event_data(node.row, index.column(), role)

    def _turn_rows(self, turn: int) -> list[int]:
        rows = list(self._by_turn.get(turn, []))
        return rows + [self._result_of[r] for r in rows if r in self._result_of]

    def _turn_data(self, node: Node, column: int, role: int) -> Any:
        rows = self._turn_rows(node.turn)
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                first = self._frame.row(rows[0], named=True) if rows else {}
                title = "Preamble" if node.turn == 0 else f"Turn {node.turn}"
                return f"{title} — {_preview(first.get('text'))}" if first.get("text") else title
            if column == 2:
                return f"{sum(self._frame['cost'][r] for r in rows):,}"
            if column == 3:
                counts: dict[str, int] = {}
                for r in rows:
                    for mark in self._marks[r]:
                        counts[mark] = counts.get(mark, 0) + 1
                return ", ".join(f"{n} {MARK_LABELS[m]}" for m, n in sorted(counts.items()))
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _event_data(self, row: int, column: int, role: int) -> Any:
        marks = self._marks[row]
        if role == Qt.ItemDataRole.DisplayRole:
            e = self._frame.row(row, named=True)
            if column == 0:
                head = " ".join(str(v) for v in (e["kind"], e["tool"], e["call_id"]) if v)
                return f"{head} — {_preview(e['text'])}" if e["text"] else head
            if column == 1:
                return f"{e['seq']}.{e['sub']}" if e["sub"] else str(e["seq"])
            if column == 2:
                return f"{e['cost']:,}"
            if column == 3:
                return ", ".join(MARK_LABELS[m] for m in sorted(marks))
        if role == Qt.ItemDataRole.ToolTipRole and marks:
            return "\n".join(f"{MARK_LABELS[m]}: {RULE_TEXT[m]}" for m in sorted(marks))
        if role == Qt.ItemDataRole.BackgroundRole and marks:
            return QBrush(QColor(MARK_COLOURS[sorted(marks)[0]]))
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def _preview(text: str | None) -> str:
    """The first words of a text, on one line."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= _PREVIEW else flat[:_PREVIEW - 1] + "…"
