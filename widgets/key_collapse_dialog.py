"""View → Key collapse… (issue 17, AUDITS.md "Key collapse"): a window listing, per storage
key that several real conversations share, the ``user_id``s sharing it and the logged turns
each wrote (those another user_id logged too: the turn collisions). Selecting a row shows
that key's session with the user's first event selected; Ctrl+C copies rows as TSV.

The rows come from :func:`explorer.audits.key_collapse.key_collapse`, read off the GUI thread
when the window opens, after every import and on Refresh.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.audits.key_collapse import KeyCollapse, KeyUser, key_collapse, runs_text
from explorer.audits.rules import RULE_TEXT
from explorer.store.db import Store
from explorer.text_escape import elided, visible
from widgets.latest_job import LatestJob
from widgets.plain_text import tooltip
from widgets.table_copy import install_tsv_copy
from widgets.workers import JobPool, Worker, reason

COLUMNS = ("key", "user_id", "events", "logged turns", "collided turns", "files", "first event")
_TIPS = {
    "key": "The storage key (session_id) the user_ids share",
    "user_id": "One of the real owners whose events are stored under the key",
    "events": "The events of this user_id under the key",
    "logged turns": "The turn numbers this user_id's events logged (FORMAT.md turn)",
    "collided turns": RULE_TEXT.get("turn_collisions", "Logged turns another user_id wrote "
                                    "too") + " — those of this user_id",
    "files": "The input files this user_id's events under the key came from",
    "first event": "This user_id's first event under the key, in append order (seq.sub)",
}
_ROLE = Qt.ItemDataRole
Index = QModelIndex | QPersistentModelIndex


def key_collapse_task(store: Store, _progress: Callable[[int, int], None],
                      _should_stop: Callable[[], bool]) -> KeyCollapse:
    """Read the collapsed keys on this thread's own cursor."""
    db = store.cursor()
    try:
        return key_collapse(db)
    finally:
        db.close()


class KeyCollapseModel(QAbstractTableModel):
    """One row per (key, user_id) of a :class:`KeyCollapse`. Display text is plain, log
    values made visible and elided (whole in the tooltip and in ``UserRole``)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._users: tuple[KeyUser, ...] = ()

    def set_rows(self, found: KeyCollapse) -> None:
        self.beginResetModel()
        self._users = found.users
        self.endResetModel()

    def user(self, row: int) -> KeyUser:
        return self._users[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._users)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _ROLE.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == _ROLE.DisplayRole:
            return COLUMNS[section]
        if role == _ROLE.ToolTipRole:
            return _TIPS[COLUMNS[section]]
        return None

    def data(self, index: Index, role: int = _ROLE.DisplayRole) -> Any:
        if not index.isValid():
            return None
        user, name = self._users[index.row()], COLUMNS[index.column()]
        raw = self._raw(user, name)
        if role == _ROLE.DisplayRole:
            if name in ("key", "user_id"):
                return elided(raw)
            if isinstance(raw, int):
                return f"{raw:,}"
            return raw
        if role == _ROLE.UserRole:
            return raw
        if role == _ROLE.ToolTipRole and name in ("key", "user_id", "logged turns",
                                                   "collided turns"):
            return tooltip(visible(raw) if name in ("key", "user_id") else raw)
        if role == _ROLE.TextAlignmentRole and name in ("events", "files", "first event"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def _raw(user: KeyUser, name: str) -> Any:
        first = user.first
        return {"key": user.session_id, "user_id": user.user_id, "events": user.events,
                "logged turns": runs_text(user.turns),
                "collided turns": runs_text(user.collided), "files": user.files,
                "first event": (f"{first['seq']}.{first['sub']}" if first.get("sub")
                                else str(first.get("seq")))}[name]


class KeyCollapseDialog(QDialog):
    """The key-collapse window of one store (not modal: the main window stays usable).

    Signals:
        session_requested(str, list): show this session with these events selected (the
            window's ``go_to_finding``): a row's key and its user's first event.
    """

    session_requested = Signal(str, list)

    def __init__(self, store: Store, jobs: JobPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle("Turnscope: key collapse")
        self.resize(900, 520)
        self.model = KeyCollapseModel(self)
        self.found = KeyCollapse(())
        self._latest = LatestJob(jobs, self)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setTabKeyNavigation(False)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COLUMNS.index("key"), QHeaderView.ResizeMode.Stretch)
        # as wide as the header's text or a usual value, whichever is wider
        metrics, char = header.fontMetrics(), self.fontMetrics().averageCharWidth()
        for name, chars in (("key", 18), ("user_id", 16), ("events", 7), ("logged turns", 12),
                            ("collided turns", 12), ("files", 5), ("first event", 9)):
            header.resizeSection(COLUMNS.index(name),
                                 max(char * chars, metrics.horizontalAdvance(name) + 24))
        self._copy = install_tsv_copy(self.view)
        self.view.selectionModel().currentRowChanged.connect(self._on_view_current_row_changed)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setToolTip("Read the collapsed keys again")
        self.refresh_button.clicked.connect(self.refresh)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)

    def refresh(self) -> Worker:
        """Read the collapsed keys in the background; the table shows them when read."""
        worker = Worker(partial(key_collapse_task, self.store), "key collapse")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        self.summary.setText("Reading the storage keys that several user_ids share…")
        self.refresh_button.setEnabled(False)
        return self._latest.start(worker)

    @Slot(object)
    def _on_worker_finished(self, found: KeyCollapse) -> None:
        if not self._latest.is_current(self.sender()):
            return
        self.refresh_button.setEnabled(True)
        self.found = found
        self.model.set_rows(found)
        if not found.users:
            self.summary.setText("No storage key holds events of more than one user_id "
                                 "(null user_ids are ignored; AUDITS.md Key collapse).")
            return
        self.summary.setText(
            f"{found.keys:,} storage key(s) shared by {len(found.users):,} user_id(s) "
            f"(collapsed_keys), {found.turn_collisions:,} logged turn(s) written by more "
            "than one user_id (turn_collisions). Select a row to show its key's session at "
            "that user_id's first event.")

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self._latest.is_current(self.sender()):
            self.refresh_button.setEnabled(True)
            self.summary.setText(f"Could not read the keys: {reason(exc)}")

    @Slot(QModelIndex, QModelIndex)
    def _on_view_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            user = self.model.user(current.row())
            self.session_requested.emit(user.session_id, [dict(user.first)])


class KeyCollapseEntry(QObject):
    """View → Key collapse… of one window: the action (Ctrl+Shift+U) and its dialog, made
    on first use and read again after each import."""

    def __init__(self, window, go_to: Callable[[str, list], None]) -> None:
        """``window``: the MainWindow (its ``store``, ``jobs``, ``import_ended``)."""
        super().__init__(window)
        self.window, self._go_to = window, go_to
        self.dialog: KeyCollapseDialog | None = None
        self.action = QAction("&Key collapse…", window)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+U"))
        self.action.setToolTip("The storage keys that several user_ids share, their users "
                               "and logged turns (AUDITS.md Key collapse)")
        self.action.triggered.connect(self.show)
        window.import_ended.connect(self._on_window_import_ended)

    @Slot()
    def show(self) -> KeyCollapseDialog:
        if self.dialog is None:
            self.dialog = KeyCollapseDialog(self.window.store, self.window.jobs, self.window)
            self.dialog.session_requested.connect(self._go_to)
        self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        return self.dialog

    @Slot(str)
    def _on_window_import_ended(self, _how: str) -> None:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.refresh()

