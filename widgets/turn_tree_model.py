"""The turn tree of one session: turns -> events, each CALL holding the RESULT paired with it,
with the audit marks and, when a compaction preview is laid over it, the view's state.

A RESULT sits under the CALL that the one-to-one display pairing of AUDITS.md gives it,
wherever it is in the log; a RESULT with no such CALL (orphan, or before its CALL) stays
where it sits, marked. A turn's events are built when the turn is expanded; the turns
themselves a block at a time (:data:`TURN_BLOCK`), as the view scrolls to the last made.

A :class:`~explorer.session.view_overlay.ViewOverlay` greys the events the view drops, marks its
errors and adds its synthetic items as rows: under the CALL they follow, else right after
the row they follow (before the first turn when they follow nothing). Changing the overlay
inserts and removes only the synthetic rows that changed and emits ``dataChanged`` once per
parent over the rows whose state changed, so expansion and selection survive.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from explorer.session.event_texts import FrameTexts, Texts
from explorer.session.turn_tree import TurnTree
from explorer.session.view_overlay import SyntheticItem, ViewOverlay
from widgets.gui_gc import collection_paused
from widgets.mark_style import BADGES_ROLE, OUT_OF_VIEW_COLOUR, STYLES
from widgets.turn_tree_cells import COLUMNS, COST, MARK, SEQ, TurnTreeCells
from widgets.turn_tree_overlay import Node, TurnTreeOverlay, number

Index = QModelIndex | QPersistentModelIndex
_NCOLUMNS = len(COLUMNS)
_ROLE = Qt.ItemDataRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
#: Turns made at once: on open, then each time the view scrolls to the end of those made
#: (a session of 536,000 turns: the view lays out 1,000 rows, not all of them, on each
#: change, and opening makes 1,000 rows instead of 536,000 in 1.2 s).
TURN_BLOCK = 1000


class TurnTreeModel(TurnTreeOverlay, TurnTreeCells, QAbstractItemModel):
    """Turn tree of one session (see the module docstring). Emits the usual model signals."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._italic = QFont()
        self._italic.setItalic(True)
        self._grey = QBrush(QColor(OUT_OF_VIEW_COLOUR))
        self._brushes = {k: QBrush(QColor(s.background)) for k, s in STYLES.items() if s.background}
        self.set_session(pl.DataFrame(), [])

    # -- content --------------------------------------------------------------------------
    def set_session(self, frame: pl.DataFrame, marks: Sequence[frozenset[str]],
                    texts: Texts | None = None, tree: TurnTree | None = None) -> None:
        """Show a :func:`explorer.tokens.session_events.session_events` frame and its event
        marks (no overlay); ``texts`` reads the texts of a narrow frame (default: the
        frame's own ``text`` column); ``tree`` is the frame's :class:`TurnTree` when it was
        built already (off the GUI thread). Only the turns are made: a turn's rows are made
        when it is expanded (:meth:`fetchMore`)."""
        self.beginResetModel()
        self._overlay = None
        self._synth: dict[int | None, tuple[SyntheticItem, ...]] = {}
        self._errors: dict[int, tuple[str, ...]] = {}
        self._in_view: np.ndarray | None = None
        self._take(frame, marks, texts, tree if tree is not None else TurnTree.build(frame, marks))
        self._turn_in_view = self._turn_size
        self._turn_errors: dict[int, dict[str, int]] = defaultdict(dict)  # turns with errors
        self._node_of: dict[int, Node] = {}   # the rows built (their turn expanded once)
        self._root = Node(None)
        self._root.children = []
        self._turns: list[Node] = []   # the turns made so far, in order (a prefix)
        self._add_turns(TURN_BLOCK)
        self.endResetModel()

    def _add_turns(self, count: int) -> int:
        """Make the next ``count`` turns' rows (after the synthetic rows at the top, if any);
        the first row added."""
        start, end = len(self._turns), min(len(self._turns) + count, len(self._top_rows))
        # Many turns at once (expand all on a big session): the cyclic GC, run again and
        # again over a heap of millions of objects while they are made, took 1.1 s of 1.6.
        with collection_paused():
            made = [Node(self._root, turn=t) for t in range(start, end)]
        self._turns += made
        at = len(self._root.children)
        self._root.children += made
        number(self._root.children, at)
        return at

    def _fetch_turns(self, count: int) -> None:
        """Add ``count`` more turns at the end of the tree (told to the views)."""
        if len(self._turns) >= len(self._top_rows):
            return
        at, count = len(self._root.children), min(count, len(self._top_rows) - len(self._turns))
        self.beginInsertRows(QModelIndex(), at, at + count - 1)
        self._add_turns(count)
        self.endInsertRows()

    def _turn(self, turn: int) -> Node:
        """The row of turn ``turn``, the turns before it made first if need be."""
        if turn >= len(self._turns):
            self._fetch_turns(turn + 1 - len(self._turns))
        return self._turns[turn]

    def turn_count(self) -> int:
        """How many turns the session has (the tree shows them a block at a time)."""
        return len(self._top_rows)

    def _take(self, frame: pl.DataFrame, marks: Sequence[frozenset[str]], texts: Texts | None,
              tree: TurnTree) -> None:
        self._frame, self._marks = frame, marks
        self._texts = texts if texts is not None else FrameTexts(frame)
        self.tree = tree
        self._findings: list[int] | None = None
        self._kind, self._tool, self._call = tree.kind, tree.tool, tree.call_id
        self._note = tree.note
        self._seq, self._sub, self._cost = tree.seq, tree.sub, tree.cost
        self._result_of, self._call_of = tree.result_of, tree.call_of
        self._thinking = tree.thinking if tree.thinking is not None and len(tree.thinking) else None
        self._turn_no, self._top_rows = tree.turn_no, tree.top_rows
        self._tree_order, self._tree_pos, self._turn_of = tree.tree_order, tree.tree_pos, tree.turn_of
        self._turn_size, self._turn_cost = tree.turn_size, tree.turn_cost
        self._turn_marks = tree.turn_marks

    def complete_session(self, frame: pl.DataFrame, marks: Sequence[frozenset[str]],
                         texts: Texts | None, tree: TurnTree) -> bool:
        """Take the full frame and the marks of the session shown, read after its tree
        (:func:`explorer.session.data.load_tree`): when it holds the same events in the same
        order, the rows made, the expansion and the selection stay, and only their cells
        change (True); else the tree is shown anew (:meth:`set_session`, False)."""
        old = self._frame
        same = (frame.height == old.height and "eid" in old.columns
                and np.array_equal(frame["eid"].to_numpy(), old["eid"].to_numpy()))
        if not same:
            self.set_session(frame, marks, texts, tree)
            return False
        if self._texts is not texts:
            self._texts.close()
        self.layoutAboutToBeChanged.emit()
        self._take(frame, marks, texts, tree)
        if self._overlay is None:
            self._turn_in_view = self._turn_size
        self.layoutChanged.emit()
        return True

    def node(self, index: Index) -> Node:
        return index.internalPointer() if index.isValid() else self._root

    def event(self, row: int) -> dict:
        """One row of the session frame, as a dict, with its text and raw record."""
        return self._frame.row(row, named=True) | self._texts.detail(row)

    def frame_row(self, index: Index) -> int | None:
        """The row of the session frame an index shows (None for a turn or a synthetic row)."""
        return self.node(index).row

    @property
    def overlay(self) -> ViewOverlay | None:
        return self._overlay

    def clear(self) -> None:
        """Show nothing."""
        self.set_session(pl.DataFrame(), [])

    def first_turn(self) -> QModelIndex:
        """The first turn opened by a USER event (the preamble is turn 0), else the first."""
        if not self._turns:
            return QModelIndex()
        turn = self._turn(1 if len(self._top_rows) > 1 and self._turn_no[0] == 0 else 0)
        return self.createIndex(turn.position, 0, turn)

    def event_count(self) -> int:
        """How many events (frame rows) the session has."""
        return len(self._kind)

    def finding_rows(self) -> list[int]:
        """The frame rows that carry a finding mark, in tree order (what F3 steps through)."""
        if self._findings is None:
            self._findings = self.tree.finding_rows(self._marks)
        return self._findings

    def finding_positions(self, rows: list[int]) -> list[int]:
        """The tree positions of frame rows (see :meth:`tree_position`)."""
        return self._tree_pos[rows].tolist()

    def tree_position(self, index: Index) -> float:
        """Where an index sits in the tree order of events (a turn just before its first)."""
        node = self.node(index)
        if node.row is not None:
            return float(self._tree_pos[node.row])
        if node.turn is not None:
            top = self._top_rows[node.turn]
            return float(self._tree_pos[top[0]]) - 0.5 if top else -0.5
        after = node.item.after_row if node.item is not None else None
        return -1.0 if after is None else float(self._tree_pos[after]) + 0.5

    def index_of_row(self, row: int) -> QModelIndex:
        """The index of a frame row, building its turn first if needed."""
        turn = self._turn(int(self._turn_of[row]))
        if turn.children is None:
            self.fetchMore(self.createIndex(turn.position, 0, turn))
        node = self._node_of[row]
        return self.createIndex(node.position, 0, node)

    def fetch_all(self) -> None:
        """Build every turn (before an expand-all)."""
        self._fetch_turns(len(self._top_rows))
        for turn in self._turns:
            if turn.children is None:
                self.fetchMore(self.createIndex(turn.position, 0, turn))

    # -- lazy children --------------------------------------------------------------------
    def canFetchMore(self, parent: Index) -> bool:
        if not parent.isValid():   # the turns: a block at a time, as the view scrolls down
            return len(self._turns) < len(self._top_rows)
        node = self.node(parent)
        return node.turn is not None and node.children is None

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        if not parent.isValid():
            self._fetch_turns(TURN_BLOCK)
            return
        node = self.node(parent)
        children = self._build(node, self._top_rows[node.turn])
        self.beginInsertRows(parent, 0, len(children) - 1)
        node.children = children
        self.endInsertRows()

    def _build(self, parent: Node, rows: list[int]) -> list[Node]:
        """Nodes for event rows under ``parent``, with their nested thinking, RESULT and
        synthetic rows (a CALL's synthetic rows first: :meth:`_replace_synthetic`)."""
        out: list[Node] = []
        for row in rows:
            node = Node(parent, row)
            self._node_of[row] = node
            out.append(node)
            thinking = self._thinking[row] if self._thinking is not None else ()
            if self._kind[row] == "CALL":
                inner = [Node(node, item=item) for item in self._synth.get(row, ())]
                result = self._result_of.get(row)
                node.children = (inner + (self._build(node, thinking) if thinking else [])
                                 + (self._build(node, [result]) if result is not None else []))
                number(node.children)
            else:
                node.children = self._build(node, thinking) if thinking else []
                out += [Node(parent, item=item) for item in self._synth.get(row, ())]
        number(out)
        return out

    # The view calls these few methods for every row it lays out: kept lean on purpose.
    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        if not parent.isValid():
            return bool(self._root.children)
        if parent.column():
            return False
        node = parent.internalPointer()
        children = node.children
        return self._top_rows.size(node.turn) > 0 if children is None else bool(children)

    # -- structure ------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        if parent.isValid():
            children = None if parent.column() else parent.internalPointer().children
        else:
            children = self._root.children
        if children is None or not 0 <= row < len(children) or not 0 <= column < _NCOLUMNS:
            return QModelIndex()
        return self.createIndex(row, column, children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        parent = index.internalPointer().parent
        if parent is self._root or parent is None:
            return QModelIndex()
        return self.createIndex(parent.position, 0, parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self._root.children)
        if parent.column():
            return 0
        children = parent.internalPointer().children
        return len(children) if children is not None else 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _ROLE.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _ROLE.DisplayRole:
            return COLUMNS[section]
        return None

    # -- data -----------------------------------------------------------------------------
    def data(self, index: Index, role: int = _ROLE.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = index.internalPointer()
        if role == BADGES_ROLE and index.column() != MARK:
            return []
        if role == _ROLE.TextAlignmentRole:
            return _RIGHT if index.column() in (SEQ, COST) else None
        if node.row is not None:
            return self._event_data(node.row, index.column(), role)
        if node.turn is not None:
            return self._turn_data(node.turn, index.column(), role)
        return self._synthetic_data(node.item, index.column(), role)
