"""File → Repair session…: the dialog that shows, before anything is written, the diff of
events a repair of the current session makes (explorer.repair: what goes, what is added,
what becomes text, and why), and the job that plans and writes the copy off the GUI thread."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, Signal, Slot
from PySide6.QtGui import QAction, QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.providers import LABELS, PROVIDERS
from explorer.repair import ORPHANS, UNANSWERED, WRITERS, Plan, plan, repair
from explorer.store.db import Store
from explorer.text_escape import elided, visible
from widgets.workers import Worker, reason

#: How each action is shown in the diff: sign, word, background.
_ACTIONS = {"drop": ("−", "goes", "#fde2e1"), "add": ("+", "added", "#dff3e0"),
            "text": ("~", "made text", "#fff4d6")}
_COLUMNS = ("", "event", "kind", "call id", "change", "text", "why")
_ROOT = QModelIndex()


class RepairChangesModel(QAbstractTableModel):
    """The changes of one plan as rows of a diff (one row per event changed, in seq order)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.changes: list = []

    def set_plan(self, found: Plan | None) -> None:
        self.beginResetModel()
        self.changes = sorted(found.changes, key=lambda c: (c.seq, c.sub, c.action != "drop")) \
            if found else []
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.changes)

    def columnCount(self, parent: QModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        c = self.changes[index.row()]
        sign, word, colour = _ACTIONS[c.action]
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(QColor(colour))
        if role == Qt.ItemDataRole.ToolTipRole:
            return visible(c.reason)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if index.column() == 0:
            return sign
        if index.column() == 1:
            where = f"{c.seq}" + (f".{c.sub}" if c.sub else "")
            return f"after {where}" if c.action == "add" else where
        if index.column() == 2:
            return "RESULT (placeholder)" if c.action == "add" else c.kind
        if index.column() == 3:
            return elided(c.call_id or "")
        if index.column() == 4:
            return word
        if index.column() == 5:
            return elided((c.text or "").replace("\n", " "))
        return visible(c.reason)


class RepairDialog(QDialog):
    """The repair's options and the diff of its changes; Write… asks for the file.

    Signals:
        options_changed(): an option changed; the plan is asked again.
        write_requested(str): the file to write the copy to.
    """

    options_changed = Signal()
    write_requested = Signal(str)

    def __init__(self, session_id: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Repair session")
        self.session_id = session_id
        self.plan: Plan | None = None
        self.orphans_box = _combo(self, [(o, o) for o in ORPHANS])
        self.unanswered_box = _combo(self, [(u, u) for u in UNANSWERED])
        self.provider_box = _combo(self, [("structure only", None)]
                                   + [(LABELS[p], p) for p in PROVIDERS])
        for box in (self.orphans_box, self.unanswered_box, self.provider_box):
            box.currentIndexChanged.connect(self._on_option_changed)
        form = QFormLayout()
        form.addRow("Session", QLabel(visible(session_id or "(none selected)"), self))
        form.addRow("Orphan results", self.orphans_box)
        form.addRow("Unanswered calls", self.unanswered_box)
        form.addRow("Provider rules", self.provider_box)
        self.summary = QLabel("Planning…", self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.model = RepairChangesModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(5, 220)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.write_button = self.buttons.addButton("Write copy…",
                                                   QDialogButtonBox.ButtonRole.AcceptRole)
        self.write_button.setEnabled(False)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(1000, 480)

    def options(self) -> tuple[str, str, str | None]:
        """--orphans, --unanswered and --provider as chosen."""
        return (self.orphans_box.currentData(), self.unanswered_box.currentData(),
                self.provider_box.currentData())

    def show_plan(self, found: Plan) -> None:
        """Show the diff of ``found``; Write… is offered when its format has a writer."""
        self.plan = found
        self.model.set_plan(found)
        counts = found.counts()
        text = (f"{found.events:,} events read from {found.path} ({found.format}): "
                f"{counts['drop']:,} go, {counts['add']:,} placeholder results added, "
                f"{counts['text']:,} made text. The source is not touched.")
        if found.left:
            text += f" {len(found.left)} violation(s) no change removes: " + \
                "; ".join(v.rule for v in found.left)
        if found.format not in WRITERS:
            text += f" No repair writer for {found.format} yet: the copy cannot be written."
        self.summary.setText(visible(text))
        self.write_button.setEnabled(found.format in WRITERS)

    def show_error(self, text: str) -> None:
        self.plan = None
        self.model.set_plan(None)
        self.summary.setText(visible(text))
        self.write_button.setEnabled(False)

    @Slot()
    def _on_option_changed(self) -> None:
        self.write_button.setEnabled(False)
        self.summary.setText("Planning…")
        self.options_changed.emit()

    @Slot()
    def _on_buttons_accepted(self) -> None:
        if self.plan is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Write the repaired copy to",
                                              "repaired.jsonl")
        if path:
            self.write_requested.emit(path)
            self.accept()


def _combo(parent: QWidget, items) -> QComboBox:
    box = QComboBox(parent)
    for label, value in items:
        box.addItem(label, value)
    return box


class RepairJob(QObject):
    """The File → Repair session… entry of one window: the dialog, its plan and its copy,
    each worked out on the window's job pool.

    Signals:
        written(str): the path of a copy that was written.
    """

    written = Signal(str)

    def __init__(self, window, action: QAction) -> None:
        """``window``: the MainWindow (its ``store``, ``jobs``, ``state``)."""
        super().__init__(window)
        self.window = window
        self.dialog: RepairDialog | None = None
        self._asked = 0
        action.triggered.connect(self._on_action_triggered)

    @Slot()
    def _on_action_triggered(self) -> None:
        self.open(self.window.state.session_id)

    def open(self, session_id: str | None) -> RepairDialog:
        self.dialog = RepairDialog(session_id, self.window)
        self.dialog.options_changed.connect(self._on_dialog_options_changed)
        self.dialog.write_requested.connect(self._on_dialog_write_requested)
        self.dialog.open()
        if session_id is None:
            self.dialog.show_error("Select a session first.")
        else:
            self._on_dialog_options_changed()
        return self.dialog

    @Slot()
    def _on_dialog_options_changed(self) -> None:
        self._asked += 1
        task = partial(_plan_task, self.window.store, self.dialog.session_id,
                       *self.dialog.options(), self._asked)
        worker = Worker(task, "repair plan")
        worker.signals.finished.connect(self._on_plan_finished)
        worker.signals.failed.connect(self._on_plan_failed)
        self.window.jobs.start(worker)

    @Slot(object)
    def _on_plan_finished(self, answer) -> None:
        asked, found = answer
        if self.dialog is not None and asked == self._asked:   # only the newest plan
            self.dialog.show_plan(found)

    @Slot(object)
    def _on_plan_failed(self, exc: Exception) -> None:
        if self.dialog is not None:
            self.dialog.show_error(f"Cannot repair: {reason(exc)}")

    @Slot(str)
    def _on_dialog_write_requested(self, path: str) -> None:
        worker = Worker(partial(_write_task, self.window.store, self.dialog.plan, path),
                        "repair")
        worker.signals.finished.connect(self._on_write_finished)
        worker.signals.failed.connect(self._on_write_failed)
        self.window.jobs.start(worker)

    @Slot(object)
    def _on_write_finished(self, path) -> None:
        self.window.statusBar().showMessage(f"Wrote the repaired copy {visible(str(path))}")
        self.written.emit(str(path))

    @Slot(object)
    def _on_write_failed(self, exc: Exception) -> None:
        text = visible(reason(exc))
        self.window.statusBar().showMessage(f"Repair failed: {text}")
        QMessageBox(QMessageBox.Icon.Warning, "Repair failed", text,
                    QMessageBox.StandardButton.Ok, self.window).open()


def _plan_task(store: Store, session_id: str, orphans: str, unanswered: str,
               provider: str | None, asked: int, progress, should_stop):
    return asked, plan(store.cursor(), session_id, orphans, unanswered, provider)


def _write_task(store: Store, found: Plan, path: str, progress, should_stop):
    return repair(store.cursor(), found, path)
