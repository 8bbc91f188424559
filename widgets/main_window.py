"""The main window: the session list and findings (left), the session workspace and the
corpus sweep (centre and right), the import jobs.

Composition only: the work is done by :mod:`explorer` functions run in :mod:`widgets.workers`.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.ingest.imports import ImportReport
from explorer.ingest.rejected import rejected_count, rejected_lines
from explorer.model import Order
from explorer.store.db import Store
from widgets.dialogs import about_box, file_errors_box
from widgets.file_drop import dropped_paths
from widgets.findings_panel import FindingsPanel
from widgets.rejected_dialog import RejectedDialog
from widgets.sessions_pane import SessionsPane
from widgets.sweep_panel import SweepPanel
from widgets.tasks import import_summary, import_task
from widgets.texts import LOG_FILTER
from widgets.window_chrome import build_menus, build_status, build_toolbar
from widgets.workers import JobPool, Worker, reason
from widgets.workspace import Workspace


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
        self._pending_event: dict | None = None
        self._closed = False

        self.jobs = JobPool(self)
        self.sessions = SessionsPane(store, self.jobs, self)
        self.model = self.sessions.model
        self.findings = FindingsPanel(store, self.jobs, self)
        self.workspace = Workspace(store, self.jobs, self.order, self)
        self.session_panel = self.workspace.session_panel
        self.preview = self.workspace.preview
        self.sweep = SweepPanel(store, self.jobs, self)
        self.sweep.set_order(self.order)
        self.sessions.shown.connect(self._on_sessions_shown)
        self.sessions.failed.connect(self._on_audit_failed)
        self.sessions.session_selected.connect(self._on_sessions_session_selected)
        self.findings.finding_activated.connect(self.go_to_finding)
        self.workspace.order_changed.connect(self.set_order)
        self.workspace.settings_changed.connect(self._on_workspace_settings_changed)
        self.preview.picker.changed.connect(self._on_picker_changed)

        self.setWindowTitle("Turnscope")
        self.setAcceptDrops(True)
        self.resize(1600, 1000)
        build_toolbar(self)
        self.order_box.currentIndexChanged.connect(self._on_order_box_changed)
        self._build_central()
        build_menus(self)
        build_status(self)
        self.jobs.busy_changed.connect(self._on_jobs_busy_changed)

    # -- building -------------------------------------------------------------------------

    def _build_central(self) -> None:
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 0, 4, 0)
        self.totals = self.sessions.totals
        self.table = self.sessions.view
        self.left_tabs = QTabWidget(central)
        self.left_tabs.addTab(self.table, "Sessions")
        self.left_tabs.addTab(self.findings, "Findings")
        self.left_tabs.setTabToolTip(1, "Every finding of the loaded logs; double-click one "
                                        "to show its events")
        self.main_tabs = QTabWidget(central)
        self.main_tabs.addTab(self.workspace, "Session")
        self.main_tabs.addTab(self.sweep, "Corpus sweep")
        self.main_tabs.setTabToolTip(1, "Every strategy over every session, against the budget")
        split = QSplitter(Qt.Orientation.Horizontal, central)
        split.addWidget(self.left_tabs)
        split.addWidget(self.main_tabs)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([430, 1170])
        layout.addWidget(self.totals)
        layout.addWidget(split, 1)
        self.setCentralWidget(central)

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
        self.findings.refresh(self.order)
        if worker is not None and self._import is None:
            self.progress.setRange(0, 0)
        return worker

    def set_order(self, order: Order) -> None:
        self.order_box.setCurrentIndex(self.order_box.findData(Order(order).value))

    def select_session(self, session_id: str) -> bool:
        """Select ``session_id`` in the list (clearing a filter that hides it) and show it."""
        return self.sessions.reveal_session(session_id)

    def first_flagged_session(self) -> str | None:
        """The first session (in the list's order) with a finding, else the first session."""
        return self.sessions.first_flagged()

    @Slot(str, list)
    def go_to_finding(self, session_id: str, events: list) -> None:
        """Show the session of a finding with its first event selected in the tree."""
        self.main_tabs.setCurrentWidget(self.workspace)
        if self.workspace.session_id == session_id and self.workspace.data is not None:
            self.workspace.select_event(events[0] if events else {})
            self.sessions.reveal_session(session_id)
            return
        self.workspace.session_id = None  # so the list's selection loads it with the event
        self._pending_event = events[0] if events else None
        if not self.sessions.reveal_session(session_id):
            self._pending_event = None
            self.statusBar().showMessage(f"Session {session_id} is not in the list")

    def show_sweep(self, run: bool = False) -> None:
        """Show the corpus sweep tab; ``run`` starts a sweep with the current settings."""
        self.main_tabs.setCurrentWidget(self.sweep)
        if run:
            self.sweep.run()

    @Slot()
    def open_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open session logs", "", LOG_FILTER)
        if paths:
            self.import_paths(paths)

    @Slot()
    def show_rejected(self) -> RejectedDialog:
        """The rejected input lines in a dialog the user can copy from."""
        dialog = RejectedDialog(rejected_lines(self.store), rejected_count(self.store), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    @Slot()
    def show_about(self) -> QMessageBox:
        return about_box(self)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = dropped_paths(event.mimeData())
        if paths and self.import_paths(paths) is not None:
            event.acceptProposedAction()
        elif paths:
            self.statusBar().showMessage("An import is running: drop the files again after it")

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
        self.sweep.cancel()  # interrupts its DuckDB query, which cancel_all alone does not
        self.findings.shutdown()
        self.jobs.cancel_all()
        self.jobs.wait()
        self.sessions.close()
        self.store.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- slots ----------------------------------------------------------------------------
    @Slot(int)
    def _on_order_box_changed(self, index: int) -> None:
        self.order = Order(self.order_box.itemData(index))
        self.refresh_audit()  # the findings too
        self.workspace.set_order(self.order)
        self.sweep.set_order(self.order)

    @Slot(int, int)
    def _on_import_progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    @Slot(object)
    def _on_import_finished(self, report: ImportReport) -> None:
        self._import_done()
        self.last_report = report
        self.recent.add([f.path for f in report.files])
        self.statusBar().showMessage(import_summary(report))
        self.report_button.show()
        if report.errors:
            self._show_file_errors([str(e) for e in report.errors])
        elif report.rejected:
            self.show_rejected()
        self.import_ended.emit("finished")

    @Slot(object)
    def _on_import_failed(self, exc: Exception) -> None:
        self._import_done()
        self.statusBar().showMessage(f"Import failed: {reason(exc)}")
        self._show_file_errors([reason(exc)])
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

    @Slot(object)
    def _on_sessions_shown(self, order: Order) -> None:
        if self.sessions.selected_session() is None and self.model.rowCount():
            # A first look: the first session with a finding, so the tree has something to show.
            self.sessions.select_session(self.first_flagged_session())
        self.audit_shown.emit(order)

    @Slot(object)
    def _on_audit_failed(self, exc: Exception) -> None:
        self.statusBar().showMessage(f"Audit failed: {reason(exc)}")

    @Slot(str)
    def _on_sessions_session_selected(self, session_id: str) -> None:
        event, self._pending_event = self._pending_event, None
        self.findings.set_session(session_id)
        if session_id != self.workspace.session_id or event is not None:
            self.workspace.show_session(session_id, event)

    @Slot()
    def _on_workspace_settings_changed(self) -> None:
        cost_settings = self.preview.cost_settings()
        self.sweep.set_cost_settings(cost_settings)
        self.sweep.set_settings(self.preview.settings())
        if cost_settings != self.sessions.cost_settings:
            self.sessions.cost_settings = cost_settings
            self.refresh_audit()

    @Slot(str, object)
    def _on_picker_changed(self, _strategy: str, settings) -> None:
        self.sweep.set_settings(settings)  # a no-op unless they changed

    def _on_jobs_busy_changed(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    def _show_file_errors(self, lines: list[str]) -> None:
        self.error_box = file_errors_box(self, lines)

