"""The corpus sweep panel: four corpus figures against budget, one curve per strategy, and
the windows each provider checked rejects (:mod:`widgets.sweep_providers`).

The sweep runs in a :class:`widgets.workers.Worker` on its own cursor (:mod:`widgets.sweep_task`).
Curves are drawn only from a complete answer to the current request: a run that was cancelled,
or whose order or settings changed meanwhile, draws nothing.
"""

from __future__ import annotations

import math
from functools import partial

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from explorer.compaction.settings import CompactionSettings
from explorer.compaction.sweep_plots import (
    BUDGETS,
    CHECKED,
    COLOURS,
    PLOTS,
    STRATEGIES,
    curve_values,
)
from explorer.model import CostSettings, Order
from explorer.store.db import Store
from widgets.latest_job import LatestJob
from widgets.sweep_estimates import EstimateChoice
from widgets.sweep_estimates import style as estimate_style
from widgets.sweep_providers import ProviderChoice, ProviderPlot
from widgets.sweep_task import SweepRequest, SweepResult, SweepTask
from widgets.window_state import WindowState
from widgets.workers import JobPool, Worker, reason

#: The pen styles and symbols strategies cycle through with the colours (13 strategies:
#: no two share colour and style).
STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine)
SYMBOLS = ("o", "s", "t")


def line_style(index: int) -> tuple[str, Qt.PenStyle, str]:
    """The colour, pen style and symbol of the strategy at ``index`` of STRATEGIES."""
    turn = index // len(COLOURS)
    return (COLOURS[index % len(COLOURS)], STYLES[turn % len(STYLES)],
            SYMBOLS[turn % len(SYMBOLS)])
INTERRUPT_MS = 100


def point_tip(strategy: str, title: str, log_y: bool, x: float, y: float, data=None) -> str:
    """The tooltip of one point of a sweep plot (``x``, and ``y`` when ``log_y``, are the
    plot's log10 coordinates): its strategy, budget and value."""
    value = 10 ** y if log_y else y
    return f"{strategy}\nbudget {round(10 ** x):,} tokens\n{title}: {value:.4g}"


class SweepPanel(QWidget):
    """A strategy checklist, Run / Cancel, a progress bar, four plots and a status line.

    Signals:
        finished(list): the rows of the sweep just drawn (``sweep --json``'s objects).
    """

    #: Its tab in the main window: title, tooltip.
    TAB = ("Corpus sweep", "Every strategy over every session, against the budget")

    finished = Signal(list)

    def __init__(self, store: Store, jobs: JobPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store, self.jobs = store, jobs
        self.order, self.cost_settings = Order.SEQ, CostSettings()
        self.settings = CompactionSettings()
        self.budgets = BUDGETS
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}   # (figure, strategy)
        self.earlier: list[tuple[str, pg.PlotDataItem]] = []   # earlier runs, faint: (figure, curve)
        self._latest = LatestJob(jobs, self)
        self._task: SweepTask | None = None
        self._stopping: dict[Worker, SweepTask] = {}   # cancelled, still running
        self._build()
        self._interrupter = QTimer(self)
        self._interrupter.setInterval(INTERRUPT_MS)
        self._interrupter.timeout.connect(self._on_interrupter_timeout)
        self._set_running(False)
        self._say("Choose strategies and press Run to sweep every session.")

    # -- building -----------------------------------------------------------------------
    def _build(self) -> None:
        self.strategy_list = QListWidget(self)
        self.strategy_list.setIconSize(QSize(14, 14))
        for i, text in enumerate(STRATEGIES):
            item = QListWidgetItem(_swatch(line_style(i)[0]), text)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if text in CHECKED else Qt.CheckState.Unchecked)
            self.strategy_list.addItem(item)
        self.strategy_list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.strategy_list.setMaximumWidth(200)
        budgets = QLabel("Budgets: " + ", ".join(_short(b) for b in self.budgets), self)
        budgets.setTextFormat(Qt.TextFormat.PlainText)
        budgets.setWordWrap(True)
        budgets.setMaximumWidth(200)
        self.run_button = QPushButton("Run", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.clear_button = QPushButton("Clear earlier runs", self)
        self.clear_button.setToolTip("Remove the faint curves of the earlier runs")
        self.clear_button.setEnabled(False)
        self.clear_button.clicked.connect(self.clear_earlier)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(200)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setBackground("w")
        self.plots: dict[str, pg.PlotItem] = {}
        for i, (title, figure, _) in enumerate(PLOTS):
            plot = self.graphics.addPlot(row=i // 2, col=i % 2, title=title)
            # over_ratio spans 0.001 (huge budgets) to 100 (views far over): log y.
            plot.setLogMode(x=True, y=figure == "over_ratio")
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setLabel("bottom", "budget (tokens)")
            plot.setMenuEnabled(False)
            # Before the first run: the budget range (view coordinates, log10) and 0..1.
            plot.setXRange(math.log10(min(self.budgets)), math.log10(max(self.budgets)))
            plot.setYRange(*((-2, 2) if figure == "over_ratio" else (0, 1)))
            self.plots[figure] = plot
        # kept = budget; an InfiniteLine's position is a view coordinate, log10(1) = 0.
        self.plots["over_ratio"].addItem(pg.InfiniteLine(
            pos=0, angle=0, pen=pg.mkPen((120, 120, 120), style=Qt.PenStyle.DashLine)))
        self.provider_plot = ProviderPlot(self.graphics, row=2, col=0, colspan=2)
        self.legend = pg.LegendItem(offset=None, colCount=6)
        self.graphics.addItem(self.legend, row=3, col=0, colspan=2)
        self.provider_choice = ProviderChoice(self)
        self.provider_choice.setMaximumWidth(200)
        self.estimate_choice = EstimateChoice(self)
        self.estimate_choice.setMaximumWidth(200)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        side = QVBoxLayout()
        side.addWidget(QLabel("Strategies", self))
        side.addWidget(self.strategy_list, 1)
        side.addWidget(budgets)
        side.addWidget(self.provider_choice)
        side.addWidget(self.estimate_choice)
        side.addLayout(buttons)
        side.addWidget(self.clear_button)
        side.addWidget(self.progress)
        top = QHBoxLayout()
        top.addLayout(side)
        top.addWidget(self.graphics, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top, 1)
        layout.addWidget(self.status)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)

    # -- public API ---------------------------------------------------------------------
    def strategies(self) -> list[str]:
        """The checked strategies, in the list's order."""
        items = (self.strategy_list.item(i) for i in range(self.strategy_list.count()))
        return [it.text() for it in items if it.checkState() == Qt.CheckState.Checked]

    def set_checked(self, strategies: list[str]) -> None:
        for i in range(self.strategy_list.count()):
            item = self.strategy_list.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in strategies
                               else Qt.CheckState.Unchecked)

    def observe(self, state: WindowState) -> None:
        """Sweep in the window's order with its cost settings and compaction settings."""
        self.set_order(state.order)
        self.set_cost_settings(state.cost_settings)
        state.order_changed.connect(self.set_order)
        state.cost_settings_changed.connect(self.set_cost_settings)
        state.settings_changed.connect(self.set_settings)

    def set_order(self, order: Order) -> None:
        self._change("order", Order(order))

    def set_cost_settings(self, cost_settings: CostSettings) -> None:
        self._change("cost_settings", cost_settings)

    def set_settings(self, settings: CompactionSettings) -> None:
        self._change("settings", settings)

    def is_running(self) -> bool:
        return self._latest.busy()

    def run(self) -> None:
        """Sweep the checked strategies over every budget, in the background."""
        strategies = self.strategies()
        if not strategies:
            self._say("Check at least one strategy to sweep.")
            return
        try:
            estimates = self.estimate_choice.estimates()
        except ValueError as exc:
            self._say(f"Compare estimates: {exc}")
            return
        self._drop_current()
        self._clear_curves()
        request = SweepRequest(tuple(strategies), tuple(self.budgets), self.order,
                               self.cost_settings, self.settings,
                               self.provider_choice.providers(), estimates)
        self._task = SweepTask(self.store, request)
        worker = Worker(self._task, name="sweep")
        signals = worker.signals
        signals.progressed.connect(self._on_worker_progressed)
        signals.finished.connect(self._on_worker_finished)
        signals.failed.connect(self._on_worker_failed)
        signals.ended.connect(self._on_worker_ended)
        self._set_running(True)
        self._say(f"Loading the corpus in {self.order.value} order…")
        self._latest.start(worker)

    def cancel(self) -> None:
        """Stop the running sweep at once: nothing of it will be drawn."""
        if self._latest.busy():
            self._abandon("Cancelled: no curves drawn. Press Run to sweep again.")

    # -- worker signals (GUI thread) ----------------------------------------------------
    def _is_current(self) -> bool:
        return self._latest.is_current(self.sender())

    def _on_worker_progressed(self, done: int, total: int) -> None:
        if self._is_current():
            self.progress.setRange(0, total)
            self.progress.setValue(done)
            self._say(f"Sweeping: {done:,} of {total:,} strategy × budget steps…")

    def _on_worker_finished(self, result: SweepResult) -> None:
        if not self._is_current():
            return  # cancelled, or the order or settings changed while it ran
        self._latest.done()   # idle from now on; ``ended`` follows
        self._task = None
        self._set_running(False)
        self._draw(result)
        self.finished.emit(result.rows)

    def _on_worker_failed(self, exc: Exception) -> None:
        if self._is_current():
            self._latest.done()
            self._task = None
            self._set_running(False)
            self._say(f"The sweep failed: {reason(exc)}")

    def _on_worker_ended(self, worker: Worker) -> None:
        self._stopping.pop(worker, None)
        if not self._stopping:
            self._interrupter.stop()
        if worker is self._latest.worker:
            self._latest.done()
            self._task = None
            self._set_running(False)

    def _on_interrupter_timeout(self) -> None:
        for task in self._stopping.values():
            task.interrupt()

    # -- internals ----------------------------------------------------------------------
    def _change(self, name: str, value) -> None:
        if getattr(self, name) == value:
            return
        setattr(self, name, value)
        running = self._latest.busy()
        if running or self.curves:
            what = "order" if name == "order" else "settings"
            self._abandon(f"The {what} changed ({'run stopped' if running else 'curves kept faint'}"
                          "): press Run to sweep again.")

    def _abandon(self, text: str) -> None:
        """Forget the current run and its curves, and say why."""
        self._drop_current()
        self._clear_curves()
        self._set_running(False)
        self.progress.setValue(0)
        self._say(text)

    def _drop_current(self) -> None:
        """Stop the current worker (if any) and keep interrupting its query until it ends."""
        worker = self._latest.drop()
        if worker is None:
            return
        self._task.interrupt()
        self._stopping[worker] = self._task
        self._interrupter.start()
        self._task = None

    def _draw(self, result: SweepResult) -> None:
        self._clear_curves()
        rows, request = result.rows, result.request
        chosen = self.strategy_list.currentItem()
        chosen = chosen.text() if chosen is not None else None
        # "Compare estimates": a curve per estimate (its line style), keyed by it too
        names = [name for name, _ in request.estimates] or [None]
        for i, name in enumerate(names):
            under = [r for r in rows if r.get("estimate") == name]
            for strategy in request.strategies:
                mine = [r for r in under if r["strategy"] == strategy]
                colour, style, symbol = line_style(STRATEGIES.index(strategy))
                if name is not None:
                    style = estimate_style(i)
                on_top = strategy == chosen   # the strategy picked in the list: over the others
                budgets = [r["budget"] for r in mine]
                for title, figure, per_window in PLOTS:
                    curve = self.plots[figure].plot(
                        budgets, curve_values(mine, figure, per_window),
                        pen=pg.mkPen(colour, width=4 if on_top else 2, style=style),
                        symbol=symbol, symbolSize=7 if on_top else 5,
                        symbolBrush=colour, symbolPen=colour)
                    curve.setZValue(10 if on_top else 0)
                    # values on hover: the point's strategy, budget and figure in a tooltip
                    curve.scatter.opts["hoverable"] = True
                    curve.scatter.opts["tip"] = partial(point_tip, strategy, title,
                                                        figure == "over_ratio")
                    curve.scatter.setAcceptHoverEvents(True)
                    key = (figure, strategy) if name is None else (figure, strategy, name)
                    self.curves[key] = curve
                if i == 0:
                    first_key = (PLOTS[0][1], strategy) if name is None else (
                        PLOTS[0][1], strategy, name)
                    self.legend.addItem(self.curves[first_key], strategy)
            if name is not None:
                self.legend.addItem(pg.PlotDataItem([], [], pen=pg.mkPen(
                    "#444", width=2, style=estimate_style(i))), f"estimate {name}")
        for sample, _label in self.legend.items:   # a click shows or hides it in every plot
            sample.sigClicked.connect(self._on_legend_clicked)
        first = [r for r in rows if r.get("estimate") == names[0]]
        self.provider_plot.draw(first, request.strategies, request.providers,
                                lambda s: line_style(STRATEGIES.index(s))[0])
        for plot in self.plots.values():
            plot.enableAutoRange()
        windows = rows[0]["windows"] if rows else 0
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        checked = (f", {len(request.providers)} providers checked" if request.providers
                   else ", no provider checked")
        if request.estimates:
            checked += (f", {len(request.estimates)} estimates compared (providers under "
                        f"{names[0]})" if request.providers
                        else f", {len(request.estimates)} estimates compared")
        self._say(f"{windows:,} sessions × {len(request.strategies)} strategies × "
                  f"{len(request.budgets)} budgets in {request.order.value} order{checked}, "
                  f"swept in {result.seconds:.2f} s.")

    def _on_legend_clicked(self, item) -> None:
        """A legend entry was clicked: its strategy shown or hidden in all four plots."""
        strategy = next((key[1] for key, c in self.curves.items() if c is item), None)
        for key, curve in self.curves.items():
            if key[1] == strategy:
                curve.setVisible(item.isVisible())

    def _clear_curves(self) -> None:
        """The current run's curves become faint ones, kept under the next run's until
        :meth:`clear_earlier` (a re-run or a cancel no longer throws them away)."""
        for key, curve in self.curves.items():
            pen = curve.opts["pen"]
            colour = QColor(pen.color())
            colour.setAlpha(70)
            curve.setPen(pg.mkPen(colour, width=1, style=pen.style()))
            curve.setSymbol(None)
            curve.setZValue(-10)
            curve.setVisible(True)
            curve.scatter.opts["hoverable"] = False
            self.earlier.append((key[0], curve))
        self.clear_button.setEnabled(bool(self.earlier))
        self.curves.clear()
        self.legend.clear()
        self.provider_plot.clear()

    def clear_earlier(self) -> None:
        """Remove the faint curves of the earlier runs."""
        for figure, curve in self.earlier:
            self.plots[figure].removeItem(curve)
        self.earlier.clear()
        self.clear_button.setEnabled(False)

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.strategy_list.setEnabled(not running)
        self.provider_choice.setEnabled(not running)
        self.estimate_choice.setEnabled(not running)
        if running:
            self.progress.setRange(0, 0)   # busy until the load query has finished
        elif self.progress.maximum() == 0:
            self.progress.setRange(0, 1)
            self.progress.setValue(0)

    def _say(self, text: str) -> None:
        self.status.setText(text)


def _swatch(colour: str) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)


def _short(budget: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if budget >= size and budget % size == 0:
            return f"{budget // size}{unit}"
    return str(budget)

