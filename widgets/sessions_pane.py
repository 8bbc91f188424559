"""The session list's wiring: the table, its filter box and toggle, the rows label, the totals
strip, and the background job that keeps the audit table fresh.

The window places the widgets (``view``, ``filter_edit``, ``only_findings_box``,
``rows_label``, ``totals``) and listens to the signals; the pane does the rest.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit

from explorer.audits import cache as audit_cache
from explorer.model import CostSettings, Order
from explorer.store.db import Store
from widgets.sessions_model import SessionsModel
from widgets.sessions_view import SessionsView
from widgets.tasks import AuditResult, audit_task
from widgets.totals_strip import TotalsStrip
from widgets.window_state import WindowState
from widgets.latest_job import LatestJob
from widgets.workers import JobPool, Worker

_SELECT = (QItemSelectionModel.SelectionFlag.ClearAndSelect
           | QItemSelectionModel.SelectionFlag.Rows)


class SessionsPane(QObject):
    """The session list of one :class:`Store`: a lazy :class:`SessionsModel` over the audit
    cache table of the order shown, refreshed by :meth:`refresh`.

    Signals:
        session_selected(str): the current session became this id (again after a refresh,
            whose audit may differ; not when only the sort or filter moved it).
        shown(object): the list now shows the audit in this :class:`Order`.
        audit_started(): a worker started computing the audit table.
        audit_progressed(str, int, int): what it is doing, in words ("Computing the audit
            table: 2 of 4 steps"), and the steps done out of all.
        failed(object): computing the audit table failed with this exception (logged).
    """

    session_selected = Signal(str)
    shown = Signal(object)
    audit_started = Signal()
    audit_progressed = Signal(str, int, int)
    failed = Signal(object)

    def __init__(self, store: Store, jobs: JobPool, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.jobs = jobs
        self.cost_settings = CostSettings()
        self.order: Order | None = None  # the order shown, once a table is shown
        self._latest = LatestJob(jobs, self)
        self._serial = 0  # bumped by each table shown: a session selected again is re-sent
        self._selected: tuple[str, int] | None = None
        self._closed = False

        self.model = SessionsModel(self)
        self.view = SessionsView()
        self.view.setModel(self.model)
        self.view.fit_columns()
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by session id")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setFixedWidth(280)
        self.only_findings_box = QCheckBox("Only sessions with findings")
        self.rows_label = QLabel()
        self.rows_label.setTextFormat(Qt.TextFormat.PlainText)
        self.totals = TotalsStrip()

        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.only_findings_box.toggled.connect(self._on_filter_changed)
        self.view.selectionModel().currentRowChanged.connect(self._on_view_current_changed)
        self.model.modelReset.connect(self._on_model_rows_changed)
        self.model.layoutChanged.connect(self._on_model_rows_changed)
        self.model.layoutChanged.connect(self._on_model_rows_moved)
        self._on_model_rows_changed()

    # -- public ---------------------------------------------------------------------------
    def refresh(self, order: Order, *, at_once: bool = True) -> Worker | None:
        """Show the audit of ``order``: at once when its table is fresh (and ``at_once``),
        else once a worker has computed it (the worker is returned; the list shown until
        then stays). A newer call supersedes an older one still running."""
        order = Order(order)
        self._latest.drop()
        if at_once and audit_cache.is_fresh(self.store, order, self.cost_settings):
            self._show(order, audit_cache.table_name(order))
            return None
        worker = Worker(partial(audit_task, self.store, order, self.cost_settings), "audit")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.progressed.connect(self._on_worker_progressed)
        self._latest.start(worker)
        self.audit_started.emit()
        return worker

    def observe(self, state: WindowState) -> None:
        """Show the audit again when the window's order or cost settings change."""
        self._state = state
        self.cost_settings = state.cost_settings
        state.order_changed.connect(self.refresh)
        state.cost_settings_changed.connect(self._on_state_cost_settings_changed)

    def selected_session(self) -> str | None:
        current = self.view.currentIndex()
        return self.model.session_id(current.row()) if current.isValid() else None

    def first_flagged(self, scan: int = 2_000) -> str | None:
        """The first session of the list with a finding (among the first ``scan`` rows),
        else the first session; None when the list is empty."""
        model = self.model
        for row in range(min(model.rowCount(), scan)):
            if model.has_findings(row):
                return model.session_id(row)
        return model.session_id(0) if model.rowCount() else None

    def next_flagged(self, step: int, rule: str | None = None) -> str | None:
        """The next session of the list (``step`` -1: the previous one), going round its
        end, with a finding of ``rule`` (None: any); None when no other session has one."""
        model, count = self.model, self.model.rowCount()
        current = self.view.currentIndex()
        start = current.row() if current.isValid() else (-1 if step > 0 else count)
        for k in range(1, count + (not current.isValid())):
            row = (start + k * step) % count
            if row == start:
                break
            if model.has_findings_of(row, rule):
                return model.session_id(row)
        return None

    def mark_new(self, session_ids: set[str]) -> None:
        """Show these sessions in bold (new in the last import), the others as usual."""
        self.model.set_new(session_ids)
        self.view.viewport().update()
        self._on_model_rows_changed()

    def select_session(self, session_id: str) -> bool:
        """Make ``session_id`` the current row and scroll to it; False when it is not shown."""
        row = self.model.row_of(session_id)
        if row is None:
            return False
        index = self.model.index(row, 0)
        self.view.selectionModel().setCurrentIndex(index, _SELECT)
        self.view.scrollTo(index)
        return True

    def reveal_session(self, session_id: str) -> bool:
        """Select ``session_id``, clearing the filter box and toggle first if they hide it
        (a jump from elsewhere, e.g. a finding); False when the list does not hold it."""
        if self.select_session(session_id):
            return True
        if self.model.row_of_unfiltered(session_id) is None:
            return False
        self.filter_edit.blockSignals(True)
        self.only_findings_box.blockSignals(True)
        self.filter_edit.clear()
        self.only_findings_box.setChecked(False)
        self.filter_edit.blockSignals(False)
        self.only_findings_box.blockSignals(False)
        self._on_filter_changed()
        return self.select_session(session_id)

    def close(self) -> None:
        """Stop the audit job and let go of the database (before the store is closed)."""
        self._closed = True
        self._latest.drop()
        self.model.close()

    # -- internals ------------------------------------------------------------------------
    def _show(self, order: Order, table: str) -> None:
        selected = self.selected_session() or (self._selected[0] if self._selected else None)
        self.order = order
        self._serial += 1
        self.model.set_source(self.store, table)
        self.totals.set_counts(self.model.totals())
        self.view.fit_columns()
        if selected is not None:
            self.select_session(selected)
        self.shown.emit(order)

    @Slot(object)
    def _on_worker_finished(self, result: AuditResult) -> None:
        if not self._latest.is_current(self.sender()) or self._closed:
            return  # a newer request is on its way
        self._latest.done()
        self._show(result.order, result.table)

    @Slot(int, int)
    def _on_worker_progressed(self, done: int, total: int) -> None:
        if not self._latest.is_current(self.sender()) or self._closed:
            return
        text = progress_text(done, total)
        self.rows_label.setText(text + "  ")   # not "0 sessions" while the table is made
        self.audit_progressed.emit(text, done, total)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self._latest.is_current(self.sender()):
            self._latest.done()
            self.failed.emit(exc)

    @Slot(object)
    def _on_state_cost_settings_changed(self, cost_settings: CostSettings) -> None:
        self.cost_settings = cost_settings
        self.refresh(self._state.order)

    @Slot()
    def _on_filter_changed(self) -> None:
        self.model.set_filter(self.filter_edit.text().strip(), self.only_findings_box.isChecked())
        if not self.view.currentIndex().isValid() and self._selected is not None:
            self.select_session(self._selected[0])  # back in view once the filter lets it

    @Slot(QModelIndex, QModelIndex)
    def _on_view_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        session = self.model.session_id(current.row()) if current.isValid() else None
        if session is None or (session, self._serial) == self._selected:
            return
        self._selected = (session, self._serial)
        self.session_selected.emit(session)

    @Slot()
    def _on_model_rows_moved(self) -> None:
        # The rows under the scroll position are others now: show the selected one, or the top.
        current = self.view.currentIndex()
        if current.isValid():
            self.view.scrollTo(current, SessionsView.ScrollHint.PositionAtCenter)
        else:
            self.view.scrollToTop()

    @Slot()
    def _on_model_rows_changed(self) -> None:
        shown, total = self.model.rowCount(), self.model.total_sessions()
        text = f"{total:,} sessions" if shown == total else f"{shown:,} of {total:,} sessions"
        new = len(self.model.new_sessions())
        self.rows_label.setText(text + (f" ({new:,} new, in bold)" if new else "") + "  ")


def progress_text(done: int, total: int) -> str:
    """The words of the audit's progress: the step it is at, out of all."""
    return f"Computing the audit table: {min(done + 1, total):,} of {total:,} steps"


if __name__ == "__main__":  # pragma: no cover
    import sys

    from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

    from explorer.cli.demo import demo_paths
    from explorer.ingest.imports import import_paths

    app = QApplication(sys.argv)
    demo = Store()
    import_paths(demo, [str(p) for p in demo_paths()])
    pane = SessionsPane(demo, JobPool())
    window = QWidget()
    layout = QVBoxLayout(window)
    for widget in (pane.filter_edit, pane.only_findings_box, pane.rows_label, pane.totals,
                   pane.view):
        layout.addWidget(widget)
    pane.refresh(Order.SEQ)
    window.resize(1200, 700)
    window.show()
    sys.exit(app.exec())
