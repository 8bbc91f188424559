"""The findings panel: every finding of the corpus, filterable by rule, one double-click from
its session and events."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial
from typing import Callable

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.audits import findings_cache
from explorer.audits.counts import FINDING_RULES, RULE_TEXT
from explorer.model import Order
from explorer.store.db import Store
from widgets.findings_model import COLUMNS, FindingsModel, rule_label
from widgets.flow_layout import FlowRow
from widgets.latest_job import LatestJob
from widgets.window_state import WindowState
from widgets.workers import JobPool, Worker, reason


@dataclass(frozen=True)
class FindingsResult:
    """The findings cache of one request."""

    order: Order
    table: str
    ranges: dict[str, tuple[int, int]]


def findings_task(store: Store, order: Order,
                  progress: Callable[[int, int], None],
                  should_stop: Callable[[], bool]) -> FindingsResult:
    """Compute (or find fresh) the findings of ``order`` on this thread's own cursor."""
    db = store.cursor()
    try:
        table = findings_cache.ensure(db, Order(order), progress, should_stop)
        return FindingsResult(Order(order), table,
                              findings_cache.rule_ranges(db, table))
    finally:
        db.close()


class FindingsPanel(QWidget):
    """A rule filter, the table of findings and a status line, over one :class:`Store`.

    Signals:
        finding_activated(str, list): a finding was double-clicked or entered: its
            session_id and its events (dicts with seq, sub, kind, call_id).
        findings_shown(object): the table now shows the findings of this :class:`Order`.
    """

    #: Its tab in the main window: title, tooltip.
    TAB = ("Findings", "Every finding of the loaded logs; double-click one to show its events")

    finding_activated = Signal(str, list)
    findings_shown = Signal(object)

    def __init__(self, store: Store, jobs: JobPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.jobs = jobs
        self.order: Order | None = None
        self._latest = LatestJob(jobs, self)
        self._session: str | None = None
        self._db = store.cursor()  # the model reads on the GUI thread: its own connection
        self.model = FindingsModel(self._db, self)
        self._build()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 2)
        label = QLabel("Rule", self)
        self.rule_box = QComboBox(self)
        self.rule_box.setToolTip("Show the findings of one rule of AUDITS.md")
        self.rule_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._fill_rules(None)
        self.rule_box.currentIndexChanged.connect(self._on_rule_box_changed)
        self.session_box = QCheckBox("Selected session only", self)
        self.session_box.setToolTip("Show only the findings of the session selected in the list")
        self.session_box.toggled.connect(self._on_session_box_toggled)
        # wraps on a narrow pane rather than widening the window
        bar = FlowRow([label, self.rule_box, self.session_box], self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COLUMNS.index("events"), QHeaderView.ResizeMode.Stretch)
        for name, chars in (("rule", 20), ("session", 16), ("count", 7)):
            header.resizeSection(COLUMNS.index(name), self.fontMetrics().averageCharWidth() * chars)
        # activated: Enter, and a double-click (or the platform's single click).
        self.view.activated.connect(self._on_view_activated)
        status = QHBoxLayout()
        self.status_label = QLabel(self)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)  # session ids are log text
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()
        status.addWidget(self.status_label, 1)
        status.addWidget(self.progress)
        layout.addWidget(bar)
        layout.addWidget(self.view, 1)
        layout.addLayout(status)
        self._show_status()

    # -- public ---------------------------------------------------------------------------
    def refresh(self, order: Order) -> Worker:
        """Show the findings of ``order``, computing them in the background when stale."""
        self.order = Order(order)
        worker = Worker(partial(findings_task, self.store, self.order), "findings")
        worker.signals.progressed.connect(self._on_worker_progressed)
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.cancelled.connect(self._on_worker_cancelled)
        self._latest.drop()  # before the status below: its cancellation is not shown
        self.progress.setRange(0, 0)
        self.progress.show()
        self.status_label.setText(f"Computing the findings ({self.order.value} order)…")
        return self._latest.start(worker)

    def observe(self, state: WindowState) -> None:
        """Follow the window's order and selected session."""
        state.order_changed.connect(self.refresh)
        state.session_changed.connect(self.set_session)

    def set_session(self, session_id: str | None) -> None:
        """The session selected elsewhere: what "Selected session only" filters by."""
        self._session = session_id
        if self.session_box.isChecked():
            self._apply_filter()

    def set_rule(self, rule: str | None) -> None:
        """Choose ``rule`` (None: all rules) in the filter."""
        self.rule_box.setCurrentIndex(max(self.rule_box.findData(rule or ""), 0))

    def rule_counts(self) -> dict[str, int]:
        """The count each rule shows in the filter (as the table holds them)."""
        return {rule: self.rule_box.itemData(i, Qt.ItemDataRole.UserRole + 1)
                for i in range(1, self.rule_box.count())
                for rule in [self.rule_box.itemData(i)]}

    def shutdown(self) -> None:
        """Stop the running job and close the model's connection (before the store closes)."""
        self._latest.drop()
        self.model.set_db(None)
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- slots ----------------------------------------------------------------------------
    @Slot(int, int)
    def _on_worker_progressed(self, done: int, total: int) -> None:
        if self._is_current():
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)

    @Slot(object)
    def _on_worker_finished(self, result: FindingsResult) -> None:
        if not self._is_current():
            return  # a newer request is on its way
        self._latest.done()
        self.progress.hide()
        self.model.set_table(result.table, result.ranges)
        self._fill_rules({rule: count for rule, (_, count) in result.ranges.items()})
        self._apply_filter()
        self.findings_shown.emit(result.order)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self._is_current():
            self._latest.done()
            self.progress.hide()
            self.status_label.setText(f"Findings failed: {reason(exc)}")

    @Slot()
    def _on_worker_cancelled(self) -> None:
        if self._is_current():
            self._latest.done()
            self.progress.hide()
            self.status_label.setText("Findings cancelled; the table shows what it showed before")

    @Slot(int)
    def _on_rule_box_changed(self, _index: int) -> None:
        self._apply_filter()

    @Slot(bool)
    def _on_session_box_toggled(self, _checked: bool) -> None:
        self._apply_filter()

    @Slot(QModelIndex)
    def _on_view_activated(self, index: QModelIndex) -> None:
        found = self.model.finding(index.row()) if index.isValid() else None
        if found is not None:
            self.finding_activated.emit(found["session_id"], found["events"])

    # -- helpers --------------------------------------------------------------------------
    def _is_current(self) -> bool:
        return self._latest.is_current(self.sender())

    def _fill_rules(self, counts: dict[str, int] | None) -> None:
        """One item for all rules and one per rule, with its count (None: not known yet)."""
        def label(text: str, count: int | None) -> str:
            return text if count is None else f"{text} ({count:,})"

        chosen = self.rule_box.currentData() or ""
        self.rule_box.blockSignals(True)
        self.rule_box.clear()
        total = sum(counts.values()) if counts is not None else None
        self.rule_box.addItem(label("All rules", total), "")
        self.rule_box.setItemData(0, "Every finding of every rule", Qt.ItemDataRole.ToolTipRole)
        for rule in FINDING_RULES:
            count = counts.get(rule, 0) if counts is not None else None
            self.rule_box.addItem(label(rule_label(rule), count), rule)
            i = self.rule_box.count() - 1
            self.rule_box.setItemData(i, RULE_TEXT[rule], Qt.ItemDataRole.ToolTipRole)
            self.rule_box.setItemData(i, count, Qt.ItemDataRole.UserRole + 1)
        self.rule_box.setCurrentIndex(max(self.rule_box.findData(chosen), 0))
        self.rule_box.blockSignals(False)

    def _apply_filter(self) -> None:
        session = self._session if self.session_box.isChecked() else None
        self.model.set_filter(self.rule_box.currentData() or None, session)
        self._show_status()

    def _show_status(self) -> None:
        model = self.model
        if model.table() is None:
            self.status_label.setText("No findings computed yet")
            return
        shown, total = model.rowCount(), model.total()
        text = f"{shown:,} of {total:,} findings" if shown != total else f"{total:,} findings"
        text += f" in {self.order.value} order" if self.order else ""
        if model.session_filter() is not None:
            text += f" · session {model.session_filter()}"
        self.status_label.setText(text)


if __name__ == "__main__":  # pragma: no cover
    from PySide6.QtWidgets import QApplication

    from explorer.cli.demo import demo_paths
    from explorer.ingest.imports import import_paths

    app = QApplication(sys.argv)
    demo = Store()
    import_paths(demo, [str(p) for p in demo_paths()])
    pool = JobPool()
    panel = FindingsPanel(demo, pool)
    panel.finding_activated.connect(lambda s, e: print(s, e))  # noqa: T201 - a preview
    panel.resize(900, 520)
    panel.show()
    panel.refresh(Order.SEQ)
    sys.exit(app.exec())
