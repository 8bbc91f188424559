"""The Lab tab (LAB.md): three experiments a teacher runs in front of a class.

Parameters on the left, the table and one plot on the right; an experiment runs in a
:class:`widgets.workers.Worker` with progress and Cancel. The experiments themselves are
:mod:`explorer.lab` (the command line's ``turnscope lab`` runs the same functions).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.lab import estimates, frames, trigger_gap
from explorer.model import CostSettings, Order
from explorer.store.db import Store
from widgets.latest_job import LatestJob
from widgets.window_state import WindowState
from widgets.workers import JobPool, Worker, reason

EXPERIMENTS = (("trigger-gap", "Trigger gap: check-act gap of a turn-count trigger"),
               ("frames", "Frames: JSON Lines against length + CRC-32"),
               ("estimates", "Estimates: which figures depend on the token estimate"))
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")


class RowsModel(QAbstractTableModel):
    """A lab table: one row per dict, one column per key."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[dict] = []
        self.keys: tuple[str, ...] = ()

    def set_rows(self, rows: list[dict], keys) -> None:
        self.beginResetModel()
        self.rows, self.keys = rows, tuple(keys)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.keys)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole,
                                               Qt.ItemDataRole.TextAlignmentRole):
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return str(self.rows[index.row()][self.keys[index.column()]])

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.keys[section] if section < len(self.keys) else None
        return str(section + 1)


def gap_task(cases, slots, seed, progress, should_stop):
    return trigger_gap.run(cases, slots, seed, should_stop, progress), trigger_gap.KEYS


def frames_task(n, ks, seed, progress, should_stop):
    from explorer.cli.lab import lab_records
    return frames.run(lab_records(n, seed), ks, should_stop=should_stop,
                      progress=progress), frames.KEYS


def estimates_task(store, chosen, budgets, order, progress, should_stop):
    rows = estimates.run(store.cursor(), chosen, budgets=budgets, order=order,
                         should_stop=should_stop, progress=progress)
    names = [n for n, _ in chosen]
    flat = [{"strategy": r["strategy"], "budget": r["budget"],
             **{f: " / ".join(str(r["figures"][f][n]) for n in names)
                + (" *" if f in r["changed"] else "") for f in r["figures"]},
             "_raw": r} for r in rows]
    keys = ("strategy", "budget", *(rows[0]["figures"] if rows else ()))
    return flat, keys


class LabPanel(QWidget):
    """The Lab tab; emits nothing."""

    TAB = ("Lab", ("Three experiments for teaching (LAB.md): a trigger's check-act gap, "
                  "newline framing against frames, what depends on the token estimate"))

    def __init__(self, store: Store, jobs: JobPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.job = LatestJob(jobs, self)
        self.order, self.cost_settings = Order.SEQ, CostSettings()
        self.rows: list[dict] = []
        self.experiment = QComboBox(self)
        for name, text in EXPERIMENTS:
            self.experiment.addItem(text, name)
        # its long texts must not widen the window (a small screen's 800 pixels)
        self.experiment.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.experiment.setMinimumContentsLength(16)
        self.forms = QStackedWidget(self)
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 1_000_000)
        self.seed.setValue(1)
        gap = QWidget(self)
        form = QFormLayout(gap)
        self.cases = QLineEdit(",".join(":".join(map(str, c)) for c in trigger_gap.DEFAULT_CASES))
        self.cases.setToolTip("maxTurns:W:G, comma-separated")
        self.slots = QSpinBox(self)
        self.slots.setRange(100, 2_000_000)
        self.slots.setSingleStep(10_000)
        self.slots.setValue(trigger_gap.DEFAULT_SLOTS)
        form.addRow("Cases", self.cases)
        form.addRow("Slots", self.slots)
        fr = QWidget(self)
        form = QFormLayout(fr)
        self.records = QSpinBox(self)
        self.records.setRange(10, 2_000_000)
        self.records.setSingleStep(10_000)
        self.records.setValue(200_000)
        self.ks = QLineEdit(",".join(map(str, frames.DEFAULT_KS)))
        form.addRow("Records", self.records)
        form.addRow("K", self.ks)
        est = QWidget(self)
        form = QFormLayout(est)
        self.estimates = QLineEdit(estimates.DEFAULT_ESTIMATES)
        self.budgets = QLineEdit(",".join(map(str, estimates.BUDGETS)))
        form.addRow("Estimates", self.estimates)
        form.addRow("Budgets", self.budgets)
        for page in (gap, fr, est):
            self.forms.addWidget(page)
        self.experiment.currentIndexChanged.connect(self.forms.setCurrentIndex)
        self.run_button = QPushButton("Run", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.status = QLabel("", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.addWidget(self.experiment)
        seed_row = QHBoxLayout()
        seed_row.addWidget(QLabel("Seed", self))
        seed_row.addWidget(self.seed, 1)
        lv.addLayout(seed_row)
        lv.addWidget(self.forms)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        lv.addLayout(buttons)
        lv.addWidget(self.progress)
        lv.addWidget(self.status)
        lv.addStretch(1)
        self.model = RowsModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.plot = pg.PlotWidget(self)
        self.plot.setBackground("w")
        self.plot.addLegend()
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.table)
        right.addWidget(self.plot)
        right.setSizes([400, 300])
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        split.setSizes([320, 1000])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def observe(self, state: WindowState) -> None:
        """The estimates experiment reads the window's order."""
        state.order_changed.connect(self._on_state_order_changed)
        self.order = state.order

    def run(self) -> Worker | None:
        """Run the chosen experiment in the background (a newer run replaces it)."""
        name = self.experiment.currentData()
        try:
            if name == "trigger-gap":
                cases = [tuple(int(v) for v in c.split(":")) for c in self.cases.text().split(",")
                         if c.strip()]
                if any(len(c) != 3 for c in cases):
                    raise ValueError("a case is maxTurns:W:G")
                fn = partial(gap_task, cases, self.slots.value(), self.seed.value())
            elif name == "frames":
                ks = [int(k) for k in self.ks.text().split(",") if k.strip()]
                fn = partial(frames_task, self.records.value(), ks, self.seed.value())
            else:
                chosen = estimates.parse_estimates(self.estimates.text())
                budgets = [int(b) for b in self.budgets.text().split(",") if b.strip()]
                fn = partial(estimates_task, self.store, chosen, budgets, self.order)
        except ValueError as exc:
            self.status.setText(str(exc))
            return None
        worker = Worker(fn, f"lab {name}")
        worker.signals.progressed.connect(self._on_worker_progressed)
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        worker.signals.cancelled.connect(self._on_worker_cancelled)
        self._running = name
        self.status.setText(f"Running {name}…")
        self.progress.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        return self.job.start(worker)

    # -- slots ----------------------------------------------------------------------------
    @Slot(int, int)
    def _on_worker_progressed(self, done: int, total: int) -> None:
        if self.job.is_current(self.sender()):
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)

    @Slot(object)
    def _on_worker_finished(self, result) -> None:
        if not self.job.is_current(self.sender()):
            return
        self.job.done()
        rows, keys = result
        self.rows = rows
        self.model.set_rows(rows, keys)
        self.table.resizeColumnsToContents()
        self._ended(f"{self._running}: {len(rows)} rows")
        self._draw(self._running, rows)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self.job.is_current(self.sender()):
            self.job.done()
            self._ended(f"Failed: {reason(exc)}")

    @Slot()
    def _on_worker_cancelled(self) -> None:
        if self.job.is_current(self.sender()):
            self.job.done()
            self._ended("Cancelled")

    @Slot()
    def _on_cancel_clicked(self) -> None:
        worker = self.job.drop()
        if worker is not None:
            self._ended("Cancelled")

    @Slot(object)
    def _on_state_order_changed(self, order) -> None:
        self.order = Order(order)

    def _ended(self, text: str) -> None:
        self.status.setText(text)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.cancel_button.setEnabled(False)

    def _draw(self, name: str, rows: list[dict]) -> None:
        """One plot per experiment: peaks against their bound; records lost per reader;
        over-budget views against the budget, one curve per estimate."""
        self.plot.clear()
        x = np.arange(len(rows))
        if name == "trigger-gap":
            self.plot.setLabel("bottom", "case (maxTurns, W, G) in table order")
            self.plot.setLabel("left", "turns in memory")
            self.plot.addItem(pg.BarGraphItem(x=x, height=[r["peak"] for r in rows], width=0.6,
                                              brush=COLOURS[1], name="peak (no fix)"))
            self.plot.plot(x, [r["bound"] for r in rows], pen=None, symbol="t",
                           symbolBrush=COLOURS[3], name="maxTurns + G·W")
            self.plot.plot(x, [r["peak_lock"] for r in rows], pen=pg.mkPen(COLOURS[2], width=2),
                           symbol="o", name="peak with a fix")
        elif name == "frames":
            self.plot.setLabel("bottom", "damage × K, in table order")
            self.plot.setLabel("left", "records lost")
            for i, reader in enumerate(frames.READERS):
                mine = [r for r in rows if r["reader"] == reader]
                self.plot.addItem(pg.BarGraphItem(
                    x=np.arange(len(mine)) + (i - 1) * 0.25, height=[r["lost"] for r in mine],
                    width=0.25, brush=COLOURS[i], name=reader))
        else:
            self.plot.setLabel("bottom", "budget (tokens)")
            self.plot.setLabel("left", "over-budget views (M1)")
            m1 = [r["_raw"] for r in rows if r["strategy"] == "M1"]
            if m1:
                names = list(m1[0]["figures"]["over_budget"])
                for i, n in enumerate(names):
                    self.plot.plot([r["budget"] for r in m1],
                                   [r["figures"]["over_budget"][n] for r in m1],
                                   pen=pg.mkPen(COLOURS[i % len(COLOURS)], width=2), symbol="o",
                                   name=n)
