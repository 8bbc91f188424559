"""The main window: composes the session list, the session panel and the jobs.

Composition only: the work is done by :mod:`explorer` functions run in :mod:`widgets.workers`.
"""

from __future__ import annotations

import sys
from functools import partial

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar, QPushButton,
    QSizePolicy, QSplitter, QToolBar, QVBoxLayout, QWidget,
)

from explorer.ingest import ImportReport
from explorer.model import Order
from explorer.store import Store
from widgets.session_panel import SessionPanel
from widgets.sessions_pane import SessionsPane
from widgets.tasks import import_summary, import_task
from widgets.texts import LOG_FILTER, ORDER_TEXT
from widgets.workers import JobPool, Worker



class MainWindow(QMainWindow):
    """The Turnscope window over one :class:`Store`, which it owns and closes on close.

    Signals:
        import_ended(str): an import ended: ``"finished"``, ``"cancelled"`` or ``"failed"``.
        audit_shown(object): the table now shows the audit in this :class:`Order`.
    """

    import_ended = Signal(str)
    audit_shown = Signal(object)

    def __init__(self, store: Store, order: Order = Order.SEQ,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.order = Order(order)
        self.last_report: ImportReport | None = None
        self.error_box: QMessageBox | None = None
        self._import: Worker | None = None
        self._closed = False

        self.jobs = JobPool(self)
        self.sessions = SessionsPane(store, self.jobs, self)
        self.model = self.sessions.model
        self.sessions.shown.connect(self.audit_shown)
        self.sessions.failed.connect(self._on_audit_failed)
        self.sessions.session_selected.connect(self._on_sessions_session_selected)

        self.setWindowTitle("Turnscope")
        self.resize(1280, 800)
        self._build_menu()
        self._build_toolbar()
        self._build_central()
        self._build_status()
        self.jobs.busy_changed.connect(self._on_jobs_busy_changed)

    # -- building -------------------------------------------------------------------------
    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu("&File")
        self.open_action = QAction("&Open…", self)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self._on_open_action_triggered)
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        menu.addAction(self.open_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)

    def _build_toolbar(self) -> None:
        bar = QToolBar("View", self)
        bar.setObjectName("view_toolbar")
        bar.setMovable(False)
        self.addToolBar(bar)
        bar.addWidget(QLabel(" Order ", bar))
        self.order_box = QComboBox(bar)
        for order in Order:
            self.order_box.addItem(order.value, order.value)
            self.order_box.setItemData(self.order_box.count() - 1, ORDER_TEXT[order],
                                       Qt.ItemDataRole.ToolTipRole)
        self.order_box.setCurrentIndex(self.order_box.findData(self.order.value))
        self.order_box.setToolTip("The order events are read in; the audit is recomputed.")
        self.order_box.currentIndexChanged.connect(self._on_order_box_changed)
        bar.addWidget(self.order_box)
        bar.addSeparator()
        self.filter_edit = self.sessions.filter_edit
        bar.addWidget(self.filter_edit)
        self.only_findings_box = self.sessions.only_findings_box
        bar.addWidget(self.only_findings_box)
        spacer = QWidget(bar)
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        self.rows_label = self.sessions.rows_label
        bar.addWidget(self.rows_label)

    def _build_central(self) -> None:
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 0, 4, 0)
        self.totals = self.sessions.totals
        split = QSplitter(Qt.Orientation.Vertical, central)
        self.table = self.sessions.view
        split.addWidget(self.table)
        self.session_panel = SessionPanel(split)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        layout.addWidget(self.totals)
        layout.addWidget(split, 1)
        self.setCentralWidget(central)

    def _build_status(self) -> None:
        status = self.statusBar()
        self.progress = QProgressBar(status)
        self.progress.setMaximumWidth(240)
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel", status)
        self.cancel_button.setToolTip("Stop the running import or audit")
        self.cancel_button.clicked.connect(self.cancel_jobs)
        status.addPermanentWidget(self.progress)
        status.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()

    # -- public ---------------------------------------------------------------------------
    def import_paths(self, paths: list[str]) -> Worker | None:
        """Import ``paths`` in the background, then recompute the audit; None when busy."""
        if not paths or self._import is not None:
            return None
        worker = Worker(partial(import_task, self.store, [str(p) for p in paths]), "import")
        worker.signals.progressed.connect(self._on_import_progressed)
        worker.signals.finished.connect(self._on_import_finished)
        worker.signals.failed.connect(self._on_import_failed)
        worker.signals.cancelled.connect(self._on_import_cancelled)
        self._import = worker
        self.open_action.setEnabled(False)
        self.progress.setRange(0, 0)
        self.statusBar().showMessage(f"Importing {len(paths):,} file(s)…")
        return self.jobs.start(worker)

    def refresh_audit(self, at_once: bool = True) -> Worker | None:
        """Show the audit in the current order: at once when its table is fresh (None is
        returned), else computed in the background (the worker is returned)."""
        worker = self.sessions.refresh(self.order, at_once=at_once)
        if worker is not None and self._import is None:
            self.progress.setRange(0, 0)
        return worker

    def set_order(self, order: Order) -> None:
        self.order_box.setCurrentIndex(self.order_box.findData(Order(order).value))

    @Slot()
    def cancel_jobs(self) -> None:
        self.jobs.cancel_all()
        self.statusBar().showMessage("Cancelling…")

    @Slot()
    def shutdown(self) -> None:
        """Cancel the jobs, wait for them to return, close the database (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.jobs.cancel_all()
        self.jobs.wait()
        self.sessions.close()
        self.store.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- slots ----------------------------------------------------------------------------
    @Slot()
    def _on_open_action_triggered(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open session logs", "", LOG_FILTER)
        if paths:
            self.import_paths(paths)

    @Slot(int)
    def _on_order_box_changed(self, index: int) -> None:
        self.order = Order(self.order_box.itemData(index))
        self.refresh_audit()

    @Slot(int, int)
    def _on_import_progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    @Slot(object)
    def _on_import_finished(self, report: ImportReport) -> None:
        self._import_done()
        self.last_report = report
        self.statusBar().showMessage(import_summary(report))
        if report.errors:
            self._show_file_errors([str(e) for e in report.errors])
        self.import_ended.emit("finished")

    @Slot(str)
    def _on_import_failed(self, reason: str) -> None:
        self._import_done()
        self.statusBar().showMessage(f"Import failed: {reason}")
        self._show_file_errors([reason])
        self.import_ended.emit("failed")

    @Slot()
    def _on_import_cancelled(self) -> None:
        self._import_done()
        self.statusBar().showMessage("Import cancelled; files read before it are kept")
        self.import_ended.emit("cancelled")

    def _import_done(self) -> None:
        self._import = None
        self.open_action.setEnabled(True)
        if not self._closed:
            self.refresh_audit(at_once=False)  # shown after import_ended, like a new audit

    @Slot(str)
    def _on_audit_failed(self, reason: str) -> None:
        self.statusBar().showMessage(f"Audit failed: {reason}")

    @Slot(str)
    def _on_sessions_session_selected(self, session_id: str) -> None:
        self.session_panel.show_session(self.store, session_id, self.order)

    def _on_jobs_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    def _show_file_errors(self, lines: list[str]) -> None:
        shown = lines[:20] + ([f"… and {len(lines) - 20:,} more"] if len(lines) > 20 else [])
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Turnscope: files not imported")
        box.setTextFormat(Qt.TextFormat.PlainText)  # paths and reasons are not markup
        box.setText(f"{len(lines):,} file(s) could not be imported:\n\n" + "\n".join(shown))
        if len(lines) > 20:
            box.setDetailedText("\n".join(lines))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.error_box = box
        box.open()


if __name__ == "__main__":  # pragma: no cover
    from explorer.demo import demo_paths
    from widgets.app import run

    sys.exit(run([str(p) for p in demo_paths()], None, Order.SEQ))
