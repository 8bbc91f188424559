"""The main window: the session list and findings (left), the session workspace and the
corpus sweep (centre and right), the import jobs.

Composition only: the work is done by :mod:`explorer` functions run in :mod:`widgets.workers`.
"""

from __future__ import annotations

from functools import partial
from itertools import pairwise

from PySide6.QtCore import QSettings, Qt, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QTableView,
    QWidget,
)

from explorer.ingest.imports import ImportReport
from explorer.ingest.rejected import rejected_count, rejected_lines
from explorer.model import Order
from explorer.store.db import Store
from explorer.store.save_as import save_as
from explorer.text_escape import elided, visible
from widgets import plot_export
from widgets.corpus_search import CorpusSearch
from widgets.database_dialog import DatabaseDialog
from widgets.dialogs import about_box, file_errors_box
from widgets.export_dialog import ExportJob
from widgets.file_drop import dropped_paths
from widgets.findings_panel import FindingsPanel
from widgets.follow_job import FollowJob
from widgets.help_dialogs import MarksDialog, ShortcutsDialog
from widgets.import_job import ImportJob
from widgets.import_report_dialog import show_import_report
from widgets.key_collapse_dialog import KeyCollapseEntry
from widgets.lab_panel import LabPanel
from widgets.limits_dialog import LimitsDialog
from widgets.rejected_dialog import RejectedDialog
from widgets.repair_dialog import RepairJob
from widgets.report_dialog import ReportJob
from widgets.request_panel import RequestPanel
from widgets.sessions_pane import SessionsPane
from widgets.subagent_nav import SubagentNav
from widgets.sweep_panel import SweepPanel
from widgets.table_copy import install_tsv_copy
from widgets.texts import DATABASE_FILTER, LOG_FILTER
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
        self._pending_step = 0  # F3 went on to another session: its first (+1) or last finding
        self._before_import: set[str] | None = None  # the sessions there when an import began
        self._closed = False

        self.jobs = JobPool(self)
        self._panels: list[tuple[str, QWidget]] = []   # (tab widget, panel), in tab order
        self.sessions = SessionsPane(store, self.jobs, self)
        self.sessions.observe(self.state)
        self.findings = self._add_panel("left", FindingsPanel(store, self.jobs, self))
        self.corpus_search = CorpusSearch(store, self.jobs, self)
        self.corpus_search.hit_activated.connect(self.go_to_finding)
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
        self.subagents = SubagentNav(self.session_panel, self.model, self)   # sub-agent links
        self.session_panel.add_header(self.subagents)
        self.subagents.session_requested.connect(self.go_to_finding)
        self.view_menu.addSeparator()
        self.view_menu.addActions(self.subagents.actions())
        self.key_collapse = KeyCollapseEntry(self, self.go_to_finding)   # View → Key collapse…
        self.view_menu.addAction(self.key_collapse.action)
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
        self.session_panel.across = self._finding_in_next_session
        self.workspace.session_shown.connect(self._on_workspace_session_shown)
        self._build_keyboard()
        self.follow_job = FollowJob(store, self.jobs, self, self.statusBar(), self.follow_action)
        self.plot_exports = plot_export.install(self)   # Export… in every plot's own menu

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
        self.view_menu = menus.view_menu
        self.open_action, self.recent = menus.open_action, menus.recent
        self.open_folder_action = menus.open_folder_action
        menus.open_action.triggered.connect(self.open_files)
        menus.open_folder_action.triggered.connect(self.open_folder)
        menus.open_database_action.triggered.connect(self.open_database)
        menus.save_database_action.triggered.connect(self.save_database_as)
        self.save_database_action = menus.save_database_action
        self.follow_action = menus.follow_action   # File → Follow… (widgets.follow_job)
        self.database_action = menus.database_action
        menus.database_action.triggered.connect(self.open_database_connection)
        menus.recent.open_requested.connect(self.import_paths)
        menus.recent.database_requested.connect(self.database_requested)
        self.exporter = ExportJob(self, menus.export_action)   # File → Export…
        self.repairer = RepairJob(self, menus.repair_action)   # File → Repair session…
        self.reporter = ReportJob(self, menus.report_action)   # File → Report…
        menus.rejected_action.triggered.connect(self.show_rejected)
        menus.import_report_action.triggered.connect(self.show_last_report)
        menus.limits_action.triggered.connect(
            lambda _=False: LimitsDialog(settings, self).exec())
        menus.quit_action.triggered.connect(self.close)
        menus.about_action.triggered.connect(self.show_about)
        menus.shortcuts_action.triggered.connect(self.show_shortcuts)
        menus.marks_action.triggered.connect(self.show_marks)
        menus.tab_requested.connect(self._on_menus_tab_requested)
        menus.focus_requested.connect(self.focus_part)

    def _build_keyboard(self) -> None:
        """Tab leaves every table (its arrows move within it), and goes round the panes in
        the order they are read: toolbar, session list, tree, detail, preview, plot."""
        for view in self.findChildren(QTableView):
            view.setTabKeyNavigation(False)
        # Ctrl+C copies a table's selected rows as TSV (the tree's events: as JSON)
        self.findings.view.setSelectionMode(QTableView.SelectionMode.ExtendedSelection)
        self._copy_shortcuts = [install_tsv_copy(v)
                                for v in (self.table, self.findings.view, self.preview.table)]
        panel = self.session_panel
        chain = [self.order_box, self.filter_edit, self.only_findings_box,
                 self.corpus_search.edit, self.corpus_search.results, self.table,
                 self.findings.rule_box, self.findings.session_box, self.findings.view,
                 panel.find_bar.edit, panel.tree, panel.detail, panel.rule_box,
                 *self.preview.focus_chain()]
        for first, second in pairwise(chain):
            QWidget.setTabOrder(first, second)

    def focus_target(self, part: str) -> QWidget:
        """The widget that takes the keyboard focus for ``part``: ``"tree"``, ``"find"``,
        ``"strategy"``, ``"budget"``, ``"compare"``, ``"sessions"``, ``"findings"``,
        ``"sweep"``."""
        return {"tree": self.session_panel.tree, "find": self.session_panel.find_bar.edit,
                "strategy": self.preview.picker.family,
                "budget": self.preview.budget_control.box, "compare": self.preview.table,
                "sessions": self.table, "findings": self.findings.view,
                "corpus": self.corpus_search.edit,
                "sweep": self.sweep.strategy_list}[part]

    @Slot(str)
    def focus_part(self, part: str) -> None:
        """Show the tab holding ``part`` (see :meth:`focus_target`) and give it the focus."""
        if part == "find":
            self.main_tabs.setCurrentWidget(self.workspace)
            self.session_panel.open_find()
            return
        widget = self.focus_target(part)
        if part in ("sessions", "findings", "corpus"):
            self.left_tabs.setCurrentIndex(0 if part != "findings" else
                                           self.left_tabs.indexOf(self.findings))
        else:
            self.main_tabs.setCurrentWidget(self.sweep if part == "sweep" else self.workspace)
        widget.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if part == "budget":
            self.preview.budget_control.box.selectAll()  # typing replaces the number
        elif part == "tree" and not widget.currentIndex().isValid() and widget.model().rowCount():
            widget.setCurrentIndex(widget.model().index(0, 0))

    def _build_central(self) -> None:
        area = PanelArea(self.totals, self.table, self._panels, self, above=self.corpus_search)
        self.left_tabs, self.main_tabs, self.splitter = area.left_tabs, area.main_tabs, area.splitter
        self.sessions_page = area.sessions_page
        self.setCentralWidget(area)

    # -- public ---------------------------------------------------------------------------
    def import_paths(self, paths: list[str]) -> Worker | None:
        """Import ``paths`` in the background, then recompute the audit; None when busy.
        Sessions the import adds to sessions already there are marked new in the list."""
        before = self._session_ids() if not self.importer.running() else None
        worker = self.importer.start(paths)
        if worker is not None:
            self._before_import = before
        return worker

    def _session_ids(self) -> set[str]:
        db = self.store.cursor()
        try:
            return {sid for (sid,) in db.run("session_names")}
        finally:
            db.close()

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
        """Show the session of a finding with its events selected in the tree (the first one
        current, shown in the detail)."""
        self.main_tabs.setCurrentWidget(self.workspace)
        # its first event current (in the detail), the others selected with it
        first = dict(events[0], also=list(events[1:])) if events else None
        if self.workspace.session_id == session_id and self.workspace.data is not None:
            self.workspace.select_event(first or {})
            self.sessions.reveal_session(session_id)
            return
        self.workspace.session_id = None  # so the list's selection loads it with the event
        self._pending_event = first
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
    def open_database(self) -> None:
        """File → Open Database…: the database picked opens in a new window."""
        path, _ = QFileDialog.getOpenFileName(self, "Open database", "", DATABASE_FILTER)
        if path:
            self.database_requested.emit(path)

    @Slot()
    def save_database_as(self, path: str | None = None) -> Worker | None:
        """File → Save Database As…: write this window's data to a new database file in
        the background (asked for when ``path`` is None); the worker, None when not started."""
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Save database as", "turnscope.duckdb",
                                                  DATABASE_FILTER)
        if not path or self.importer.running():
            return None
        worker = Worker(partial(save_as, self.store, path), "save database")
        worker.signals.progressed.connect(self.job_status.set_progress)
        worker.signals.finished.connect(self._on_saved)
        worker.signals.failed.connect(
            lambda exc: self.statusBar().showMessage(f"Not saved: {visible(reason(exc))}"))
        worker.signals.cancelled.connect(
            lambda: self.statusBar().showMessage("Saving cancelled: no file written"))
        self.statusBar().showMessage(f"Saving the database to {visible(path)}…")
        return self.jobs.start(worker)

    @Slot(object)
    def _on_saved(self, path) -> None:
        self.recent.add_database(str(path))
        self.statusBar().showMessage(f"Saved the database to {visible(str(path))} "
                                     "(File → Open Recent opens it)")

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

    def menu_actions(self) -> list[QAction]:
        """Every action of the menu bar, menu by menu (submenus included)."""
        out, menus = [], [a.menu() for a in self.menuBar().actions() if a.menu()]
        while menus:
            menu = menus.pop(0)
            for action in menu.actions():
                if action.menu():
                    menus.append(action.menu())
                elif not action.isSeparator():
                    out.append(action)
        return out

    @Slot()
    def show_shortcuts(self) -> ShortcutsDialog:
        dialog = ShortcutsDialog(self.menu_actions(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    @Slot()
    def show_marks(self) -> MarksDialog:
        dialog = MarksDialog(self)
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
        self.corpus_search.shutdown()
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
        widget = (self.main_tabs if tabs == "main" else self.left_tabs).widget(index)
        part = {self.table: "sessions", self.sessions_page: "sessions", self.findings: "findings", self.workspace: "tree",
                self.sweep: "sweep"}.get(widget)
        if part is not None:
            self.focus_part(part)

    def _finding_in_next_session(self, step: int, rule: str | None) -> bool:
        """F3 ran past the session's last finding (Shift+F3 before its first): show the
        next (previous) session of the list with a finding of ``rule`` at its first (last)
        finding; False when no other session has one."""
        session = self.sessions.next_flagged(step, rule)
        if session is None:
            return False
        self._pending_step = step
        self.statusBar().showMessage(f"Findings go on in session {elided(session)}", 4000)
        if not self.sessions.select_session(session):
            self._pending_step = 0
            return False
        return True

    @Slot(str)
    def _on_workspace_session_shown(self, _session_id: str) -> None:
        step, self._pending_step = self._pending_step, 0
        if step:
            self.session_panel.first_finding(step)

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
        before, self._before_import = self._before_import, None
        if before:   # merged into data already shown: say which sessions are new
            new = self._session_ids() - before
            self.sessions.mark_new(new)
            if new:
                self.statusBar().showMessage(
                    f"{self.statusBar().currentMessage()} · {len(new):,} new session(s), in "
                    "bold in the list")
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

