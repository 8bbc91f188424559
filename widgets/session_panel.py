"""The panel that shows one session as a turn tree (see :mod:`widgets.turn_tree_model`)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QLabel, QSplitter, QTreeView, QVBoxLayout, QWidget

from explorer.marks import event_marks
from explorer.model import Order
from explorer.store import Db
from explorer.turns import session_events
from widgets.event_detail import EventDetail
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
        self.detail = EventDetail(self)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        self.session_id = ""
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)

    def show_session(self, db: Db, session_id: str, order: Order) -> None:
        """Load one session (a single indexed query) and show its turns, the first expanded."""
        frame = session_events(db, session_id, order)
        self.session_id = session_id
        self.model.set_session(frame, event_marks(frame))
        self.detail.show_event(None)
        turns = frame["turn_no"].n_unique() if frame.height else 0
        self.title.setText(f"{session_id}: {frame.height:,} events in {turns:,} turn(s), "
                           f"{Order(order).value} order")
        if self.model.rowCount():
            self.tree.expand(self.model.index(min(1, self.model.rowCount() - 1), 0))

    def _on_tree_current_changed(self, current, _previous) -> None:
        row = self.model.frame_row(current) if current.isValid() else None
        event = self.model.event(row) if row is not None else None
        self.detail.show_event(event, self.session_id)
