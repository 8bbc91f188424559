"""The main window: the session list and findings (left), the session workspace and the
corpus sweep (centre and right), the import jobs.

Composition only: the work is done by :mod:`explorer` functions run in :mod:`widgets.workers`.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from explorer.ingest.imports import ImportReport
from explorer.ingest.rejected import rejected_count, rejected_lines
from explorer.model import Order
from explorer.store.db import Store
from explorer.text_escape import elided
from widgets.database_dialog import DatabaseDialog
from widgets.dialogs import about_box, file_errors_box
from widgets.export_dialog import ExportJob
from widgets.file_drop import dropped_paths
from widgets.findings_panel import FindingsPanel
from widgets.follow_job import FollowJob
from widgets.import_job import ImportJob
from widgets.import_report_dialog import show_import_report
from widgets.lab_panel import LabPanel
from widgets.limits_dialog import LimitsDialog
from widgets.rejected_dialog import RejectedDialog
from widgets.request_panel import RequestPanel
from widgets.sessions_pane import SessionsPane
from widgets.sweep_panel import SweepPanel
from widgets.texts import LOG_FILTER
from widgets.window_chrome import JobStatus, PanelArea, ViewToolbar, WindowMenus
from widgets.window_state import WindowState
from widgets.workers import JobPool, Worker, reason
from widgets.workspace import Workspace


class MainWindow(QMainWindow):
    """The Turnscope window over one :class:`Store`, which it owns and closes on close.

    The panels share a :class:`WindowState` (order, cost settings, compaction settings,
    selected session): each connects itself to it in its ``observe(state)``. ``settings``:
    where File → Open Recent keeps its entries (default: the application's).

    Signals:
        import_ended(str): an import ended: ``"finished"``, ``"cancelled"`` or ``"failed"``.
        audit_shown(object): the table now shows the audit in this :class:`Order`.
        database_requested(str): the user picked this database in File → Open Recent (the
            application opens it in a new window, :func:`widgets.app.run`).
    """

    import_ended = Signal(str)
    audit_shown = Signal(object)
    database_requested = Signal(str)

    def __init__(self, store: Store, order: Order = Order.SEQ, parent: QWidget | None = None,
                 settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.state = WindowState(order, self)
        self.last_report: ImportReport | None = None
        self.error_box: QMessageBox | None = None
        self._pending_event: dict | None = None
        self._closed = False

        self.jobs = JobPool(self)
        self._panels: list[tuple[str, QWidget]] = []   # (tab widget, panel), in tab order
        self.sessions = SessionsPane(store, self.jobs, self)
        self.sessions.observe(self.state)
        self.findings = self._add_panel("left", FindingsPanel(store, self.jobs, self))
        self.workspace = self._add_panel("main", Workspace(store, self.jobs, order, self))
        self.sweep = self._add_panel("main", SweepPanel(store, self.jobs, self))
        self.request = self._add_panel("main", RequestPanel(store, self.jobs, self))
        self.lab = self._add_panel("main", LabPanel(store, self.jobs, self))
        # Kept for the tests and the screenshot, which look at these parts directly.
        self.model, self.table, self.totals = self.sessions.model, self.sessions.view, self.sessions.totals
        self.session_panel, self.preview = self.workspace.session_panel, self.workspace.preview

        self.sessions.shown.connect(self._on_sessions_shown)
        self.sessions.failed.connect(self._on_audit_failed)
        self.sessions.audit_started.connect(self._on_sessions_audit_started)
        self.sessions.session_selected.connect(self._on_sessions_session_selected)
        self.findings.finding_activated.connect(self.go_to_finding)
        self.request.follow(self.preview)
        self.request.rows_requested.connect(self._on_request_rows_requested)

        self.setWindowTitle("Turnscope")
        self.setAcceptDrops(True)
        self.resize(1600, 1000)
        self._build_toolbar()
        self._build_central()
        self._build_menus(settings)
        self.job_status = JobStatus(self.statusBar())
        self.progress = self.job_status.progress
        self.cancel_button = self.job_status.cancel_button
        self.report_button = self.job_status.report_button
        self.cancel_button.clicked.connect(self.cancel_jobs)
        self.report_button.clicked.connect(self.show_last_report)
        self.jobs.busy_changed.connect(self.job_status.set_busy)
        self.importer = ImportJob(store, self.jobs, self.job_status, self.statusBar(), self)
        self.importer.running_changed.connect(self._on_importer_running_changed)
        self.importer.finished.connect(self._on_importer_finished)
        self.importer.failed.connect(self._on_importer_failed)
        self.importer.ended.connect(self.import_ended)
        self.sessions.audit_progressed.connect(self.job_status.set_step)
        self.follow_job = FollowJob(store, self.jobs, self, self.statusBar(), self.follow_action)

    # -- building -------------------------------------------------------------------------
    def _add_panel(self, tabs: str, panel: QWidget) -> QWidget:
        """Let ``panel`` observe the window's state; it gets a tab of the ``"left"`` or
        ``"main"`` tab widget, titled by the panel's ``TAB`` (title, tooltip)."""
        panel.observe(self.state)
        self._panels.append((tabs, panel))
        return panel

    def _build_toolbar(self) -> None:
        """The order box and the session list's filter, toggle and row count."""
        self.filter_edit = self.sessions.filter_edit
        self.only_findings_box = self.sessions.only_findings_box
        self.rows_label = self.sessions.rows_label
        bar = ViewToolbar(self.state.order, [self.filter_edit, self.only_findings_box],
                          self.rows_label, self)
        self.addToolBar(bar)
        self.order_box = bar.order_box
        self.order_box.order_picked.connect(self.state.set_order)
        self.state.order_changed.connect(self.order_box.set_order)

    def _build_menus(self, settings: QSettings | None) -> None:
        menus = WindowMenus(self.menuBar(), self.workspace, self, settings)
        self.open_action, self.recent = menus.open_action, menus.recent
        self.open_folder_action = menus.open_folder_action
        menus.open_action.triggered.connect(self.open_files)
        menus.open_folder_action.triggered.connect(self.open_folder)
        self.follow_action = menus.follow_action   # File → Follow… (widgets.follow_job)
        self.database_action = menus.database_action
        menus.database_action.triggered.connect(self.open_database_connection)
        menus.recent.open_requested.connect(self.import_paths)
        menus.recent.database_requested.connect(self.database_requested)
        self.exporter = ExportJob(self, menus.export_action)   # File → Export…
        menus.rejected_action.triggered.connect(self.show_rejected)
        menus.import_report_action.triggered.connect(self.show_last_report)
        menus.limits_action.triggered.connect(
            lambda _=False: LimitsDialog(settings, self).exec())
        menus.quit_action.triggered.connect(self.close)
        menus.about_action.triggered.connect(self.show_about)
        menus.tab_requested.connect(self._on_menus_tab_requested)

    def _build_central(self) -> None:
        area = PanelArea(self.totals, self.table, self._panels, self)
        self.left_tabs, self.main_tabs, self.splitter = area.left_tabs, area.main_tabs, area.splitter
        self.setCentralWidget(area)

    # -- public ---------------------------------------------------------------------------
    def import_paths(self, paths: list[str]) -> Worker | None:
        """Import ``paths`` in the background, then recompute the audit; None when busy."""
        return self.importer.start(paths)

    @property
    def order(self) -> Order:
        return self.state.order

    def refresh_audit(self, at_once: bool = True) -> Worker | None:
        """Show the audit in the current order: at once when its table is fresh (None is
        returned), else computed in the background (the worker is returned)."""
        worker = self.sessions.refresh(self.order, at_once=at_once)
        self.findings.refresh(self.order)
        return worker

    def set_order(self, order: Order) -> None:
        self.state.set_order(order)

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
            self.statusBar().showMessage(f"Session {elided(session_id)} is not in the list")

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
    def open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a folder of session logs")
        if folder:
            self.import_paths([folder])

    @Slot()
    def open_database_connection(self) -> DatabaseDialog:
        """File → Open Database Connection…: import a PostgreSQL database's sessions."""
        dialog = DatabaseDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.connection_chosen.connect(self.import_paths)
        dialog.open()
        return dialog

    def follow(self, path: str) -> None:
        """Follow a growing log (a file or a folder): File → Follow…, ``--follow PATH``."""
        if self.follow_job.following():
            self.follow_job.stop()
        self.follow_job.start(path)

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

    @Slot()
    def show_last_report(self):
        """The import report of the last import (None before any)."""
        if self.last_report is None:
            return None
        return show_import_report(self, self.last_report)

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
        self.follow_job.stop()
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
    @Slot(str, int)
    @Slot(object)
    def _on_request_rows_requested(self, rows) -> None:
        """Show the events a request's message or a pasted error points at."""
        self.main_tabs.setCurrentWidget(self.workspace)
        self.session_panel.select_row(rows[0])

    def _on_menus_tab_requested(self, tabs: str, index: int) -> None:
        (self.main_tabs if tabs == "main" else self.left_tabs).setCurrentIndex(index)

    @Slot()
    def _on_sessions_audit_started(self) -> None:
        if not self.importer.running():  # an import shows its own progress
            self.job_status.set_indeterminate()

    @Slot(bool)
    def _on_importer_running_changed(self, running: bool) -> None:
        self.open_action.setEnabled(not running)
        self.open_folder_action.setEnabled(not running)
        if not running and not self._closed:
            self.refresh_audit(at_once=False)  # shown after import_ended, like a new audit

    @Slot(object)
    def _on_importer_finished(self, report: ImportReport) -> None:
        self.last_report = report
        self.recent.add([f.path for f in report.files])
        self.report_button.show()
        if report.errors:
            self._show_file_errors([str(e) for e in report.errors])
        elif report.rejected:
            self.show_rejected()

    @Slot(object)
    def _on_importer_failed(self, exc: Exception) -> None:
        self._show_file_errors([self.importer.failure_text(exc)])

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
        self.state.set_session(session_id)
        if session_id != self.workspace.session_id or event is not None:
            self.workspace.show_session(session_id, event)

    def _show_file_errors(self, lines: list[str]) -> None:
        self.error_box = file_errors_box(self, lines)

