"""File → Export…: the dialog that asks what to export (the format, the current session or
all, the file) and the job that writes it off the GUI thread (explorer.export), its
progress in the status bar's job widgets and its outcome in the status bar's message."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from explorer.export import WRITERS, ExportReport, export
from explorer.store.db import Store
from explorer.text_escape import visible
from widgets.workers import Worker, reason

#: The formats offered, in the order shown: (``--to`` name, label, file suffix).
FORMATS = (("atif", "ATIF trajectory (Harbor, v1.8)", ".atif.json"),
           ("otel-json", "OpenTelemetry GenAI spans (OTLP JSON)", ".otlp.json"),
           ("jsonl", "Canonical JSON Lines (FORMAT.md)", ".jsonl"))
assert {f[0] for f in FORMATS} == set(WRITERS)


class ExportDialog(QDialog):
    """Asks for the export's format, sessions (``session_id``, the current one, or all) and
    file; :meth:`choice` reads the answer after ``exec()`` accepted it."""

    def __init__(self, session_id: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export")
        self.session_id = session_id
        self.format_box = QComboBox(self)
        for name, label, _ in FORMATS:
            self.format_box.addItem(label, name)
        self.current_button = QRadioButton(
            f"Current session ({visible(session_id)})" if session_id else "Current session "
            "(none selected)", self)
        self.all_button = QRadioButton("All sessions", self)
        self.current_button.setEnabled(session_id is not None)
        (self.current_button if session_id else self.all_button).setChecked(True)
        self.path_edit = QLineEdit(self)
        self.path_edit.setPlaceholderText("the file to write")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._on_browse_clicked)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit)
        path_row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Format", self.format_box)
        sessions = QVBoxLayout()
        sessions.addWidget(self.current_button)
        sessions.addWidget(self.all_button)
        form.addRow("Sessions", sessions)
        form.addRow("File", path_row)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

    def choice(self) -> tuple[str, str | None, str]:
        """The format's name, the session to export (None: all) and the file."""
        session = self.session_id if self.current_button.isChecked() else None
        return self.format_box.currentData(), session, self.path_edit.text().strip()

    @Slot()
    def _on_browse_clicked(self) -> None:
        suffix = FORMATS[self.format_box.currentIndex()][2]
        path, _ = QFileDialog.getSaveFileName(self, "Export to", f"export{suffix}")
        if path:
            self.path_edit.setText(path)

    @Slot()
    def _on_buttons_accepted(self) -> None:
        if self.path_edit.text().strip():
            self.accept()


class ExportJob(QObject):
    """The File → Export… entry of one window: the dialog, then the export on its job pool.

    Signals:
        finished(object): the :class:`ExportReport` of an export that was written.
        failed(object): the exception an export failed with (also said in a message box).
    """

    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, window, action: QAction) -> None:
        """``window``: the MainWindow (its ``store``, ``jobs``, ``state``, ``job_status``)."""
        super().__init__(window)
        self.window = window
        self.dialog: ExportDialog | None = None
        action.triggered.connect(self._on_action_triggered)

    @Slot()
    def _on_action_triggered(self) -> None:
        self.dialog = ExportDialog(self.window.state.session_id, self.window)
        self.dialog.accepted.connect(self._on_dialog_accepted)
        self.dialog.open()

    @Slot()
    def _on_dialog_accepted(self) -> None:
        self.start(*self.dialog.choice())

    def start(self, to: str, session_id: str | None, path: str) -> Worker:
        """Export ``session_id`` (all when None) to ``path`` as ``to``, in the background."""
        worker = Worker(partial(_export_task, self.window.store, to, session_id, path), "export")
        worker.signals.progressed.connect(self.window.job_status.set_progress)
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.cancelled.connect(self._on_worker_cancelled)
        self.window.job_status.set_indeterminate()
        self.window.statusBar().showMessage(f"Exporting to {visible(path)}…")
        return self.window.jobs.start(worker)

    @Slot(object)
    def _on_worker_finished(self, report: ExportReport) -> None:
        self.window.statusBar().showMessage(
            f"Exported {report.sessions:,} session(s), {report.events:,} events and "
            f"{report.findings:,} findings to {visible(report.path)}")
        self.finished.emit(report)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        text = visible(reason(exc))
        self.window.statusBar().showMessage(f"Export failed: {text}")
        box = QMessageBox(QMessageBox.Icon.Warning, "Export failed", text,
                          QMessageBox.StandardButton.Ok, self.window)
        box.open()
        self.failed.emit(exc)

    @Slot()
    def _on_worker_cancelled(self) -> None:
        self.window.statusBar().showMessage("Export cancelled; nothing was written")


def _export_task(store: Store, to: str, session_id: str | None, path: str,
                 progress, should_stop) -> ExportReport:
    """The export on a pool thread, on a cursor of its own (explorer.store)."""
    return export(store.cursor(), to, path, session_id, progress, should_stop)


if __name__ == "__main__":
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    ExportDialog("demo-session").exec()
