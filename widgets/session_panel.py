"""The panel that shows one session as a turn tree (see :mod:`widgets.turn_tree_model`)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeView, QVBoxLayout, QWidget

from explorer.marks import event_marks
from explorer.model import Order
from explorer.store import Db
from explorer.turns import session_events
from widgets.turn_tree_model import TurnTreeModel


class SessionPanel(QWidget):
    """A title line and the turn tree of the selected session."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Select a session to see its turns.", self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.model = TurnTreeModel(self)
        self.tree = QTreeView(self)
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.tree, 1)

    def show_session(self, db: Db, session_id: str, order: Order) -> None:
        """Load one session (a single indexed query) and show its turns, the first expanded."""
        frame = session_events(db, session_id, order)
        self.model.set_session(frame, event_marks(frame))
        turns = frame["turn_no"].n_unique() if frame.height else 0
        self.title.setText(f"{session_id}: {frame.height:,} events in {turns:,} turn(s), "
                           f"{order.value} order")
        if self.model.rowCount():
            self.tree.expand(self.model.index(min(1, self.model.rowCount() - 1), 0))
