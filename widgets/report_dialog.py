"""File → Report…: asks for the file (HTML or Markdown, by the filter or suffix chosen) and
writes the report of the current session (the corpus's audit table with it; every session
when none is selected) off the GUI thread (explorer.report)."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox

from explorer.report import write_report
from explorer.store.db import Store
from explorer.text_escape import visible
from widgets.workers import Worker, reason

_FILTERS = "HTML report (*.html);;Markdown report (*.md)"


def report_format(path: str, chosen_filter: str = "") -> str:
    """``md`` for a ``.md`` file or the Markdown filter, else ``html``."""
    return "md" if path.lower().endswith(".md") or chosen_filter.startswith("Markdown") \
        else "html"


class ReportJob(QObject):
    """The File → Report… entry of one window.

    Signals:
        written(str): the path of a report that was written.
    """

    written = Signal(str)

    def __init__(self, window, action: QAction) -> None:
        """``window``: the MainWindow (its ``store``, ``jobs``, ``state``)."""
        super().__init__(window)
        self.window = window
        action.triggered.connect(self._on_action_triggered)

    @Slot()
    def _on_action_triggered(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self.window, "Write the report to",
                                                   "report.html", _FILTERS)
        if path:
            self.start(path, report_format(path, chosen))

    def start(self, path: str, fmt: str) -> Worker:
        """Write the report of the current session (all when none) to ``path``."""
        worker = Worker(partial(_report_task, self.window.store, self.window.state.session_id,
                                fmt, path), "report")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        self.window.statusBar().showMessage(f"Writing the report {visible(path)}…")
        return self.window.jobs.start(worker)

    @Slot(object)
    def _on_worker_finished(self, path) -> None:
        self.window.statusBar().showMessage(f"Wrote the report {visible(str(path))}")
        self.written.emit(str(path))

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        text = visible(reason(exc))
        self.window.statusBar().showMessage(f"Report failed: {text}")
        QMessageBox(QMessageBox.Icon.Warning, "Report failed", text,
                    QMessageBox.StandardButton.Ok, self.window).open()


def _report_task(store: Store, session_id: str | None, fmt: str, path: str,
                 progress, should_stop) -> str:
    db = store.cursor()
    sources = [row[1] for row in db.run("list_files")]
    write_report(db, sources, session_id, fmt, path)
    return path
