"""The call scrubber and the context-size plot of a replay (REPLAY.md), under the preview.

A trigger box (the strategy and budget are the preview's), a slider over the model calls
(arrow keys step one call), the chosen call's figures, a button to the first invalid call,
and the sawtooth of request cost over calls: simulated compactions as orange triangles,
compactions the log recorded as purple diamonds, invalid requests as red crosses, the
trigger's token threshold as a dashed line. Clicking the plot selects the nearest call.
With "Show the call in the tree" on, the tree shows the chosen call's request. With a
provider picked (the preview's Provider), every call is also checked against its rules:
the calls it rejects are red circles, and the button goes to the first of them.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from explorer.compaction.positions import position_type
from explorer.providers import LABELS
from explorer.providers.replay_checks import ReplayJudge
from explorer.providers.sweep_figures import figure_name
from explorer.replay.run import Replay, ReplayLog, replay
from explorer.replay.triggers import Trigger
from explorer.session.data import SessionData
from explorer.session.replay_view import (
    first_rejected_call,
    rejected_calls,
    request_overlay,
    sawtooth,
)
from widgets.latest_job import LatestJob
from widgets.workers import JobPool, Worker, reason

COST_PEN = pg.mkPen("#1f77b4", width=2)
CALL_PEN = pg.mkPen("#2ca02c", width=1)
THRESHOLD_PEN = pg.mkPen("#d62728", width=1, style=Qt.PenStyle.DashLine)
TURNS_PEN = pg.mkPen("#8c564b", width=1)
TURN_LINE_PEN = pg.mkPen("#8c564b", width=1, style=Qt.PenStyle.DashLine)


def replay_task(data: SessionData, trigger: str, strategy: str, budget: int, progress,
                should_stop, provider: str | None = None) -> Replay:
    rlog = ReplayLog.from_frame(data.session_id, data.frame, data.log)
    return replay(rlog, trigger, strategy, budget, data.settings, should_stop,
                  judge=ReplayJudge((provider,)) if provider else None)


class ReplayStrip(QWidget):
    """A replay of the session shown, under the preview's strategy and budget.

    Signals:
        overlay_chosen(object): the :class:`ViewOverlay` of the chosen call's request while
            "Show the call in the tree" is on; None when it is switched off (the tree goes
            back to the preview).
        call_chosen(int): the chosen call's index.
    """

    overlay_chosen = Signal(object)
    call_chosen = Signal(int)

    def __init__(self, jobs: JobPool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = LatestJob(jobs, self)
        self.data: SessionData | None = None
        self.replay: Replay | None = None
        self.strategy, self.budget = "M1", 4000
        self.provider: str | None = None
        # a budget dragged over many values replays once it rests, not at every step
        self.rest = QTimer(self)
        self.rest.setSingleShot(True)
        self.rest.setInterval(300)
        self.rest.timeout.connect(self.run)
        self.trigger_edit = QLineEdit("turns:20", self)
        self.trigger_edit.setToolTip("The trigger checked before each model call: always, "
                                     "turns:N, tokens:T, messages:N, fraction:F:W, or A|B")
        self.trigger_edit.editingFinished.connect(self.run)
        self.trigger_edit.setMinimumWidth(90)
        self.in_tree = QCheckBox("Show the call in the tree", self)
        self.in_tree.toggled.connect(self._on_in_tree_toggled)
        # As wide as its longest label from the start: set later (the session's replay is
        # worked out in the background), a longer one was cut in a pane shared already.
        self.first_invalid = QPushButton("First invalid call (#9999999)", self)
        self.first_invalid.setMinimumWidth(self.first_invalid.sizeHint().width())
        self.first_invalid.setText("First invalid call")
        self.first_invalid.clicked.connect(self._on_first_invalid_clicked)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setSingleStep(1)
        self.slider.setPageStep(10)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.label = QLabel("No session", self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        # a wrapped label under-reports its height: room for the three lines it takes in a
        # narrow pane, or the splitter squeezes the strip and the legend covers the axis
        self.label.setMinimumHeight(3 * self.label.fontMetrics().lineSpacing() + 4)
        self.plot = pg.PlotWidget(self)
        self.plot.setBackground("w")
        self.plot.setLabel("bottom", "model call")
        self.plot.setLabel("left", "request cost (tokens)")
        self.plot.showGrid(y=True, alpha=0.2)
        self.plot.setMenuEnabled(False)
        self.plot.setMinimumHeight(200)
        self.curve = self.plot.plot([], [], pen=COST_PEN, stepMode=None)
        self.simulated = pg.ScatterPlotItem(symbol="t", size=10, brush="#ff7f0e", pen=None)
        self.recorded = pg.ScatterPlotItem(symbol="d", size=14, brush="#9467bd", pen="k")
        self.invalid = pg.ScatterPlotItem(symbol="x", size=8, brush="#d62728", pen=None)
        self.rejected = pg.ScatterPlotItem(symbol="o", size=13, brush=None,
                                           pen=pg.mkPen("#d62728", width=1.5))
        for item in (self.simulated, self.recorded, self.invalid, self.rejected):
            self.plot.addItem(item)
        self.threshold = pg.InfiniteLine(angle=0, pen=THRESHOLD_PEN, movable=False)
        self.threshold.hide()
        self.cursor = pg.InfiniteLine(angle=90, pen=CALL_PEN, movable=False)
        self.plot.addItem(self.threshold)
        self.plot.addItem(self.cursor)
        # a turn trigger counts turns, not tokens: the turns each request holds and N on a
        # right-hand axis of their own
        item = self.plot.getPlotItem()
        self.turn_view = pg.ViewBox()
        item.scene().addItem(self.turn_view)
        item.getAxis("right").linkToView(self.turn_view)
        item.getAxis("right").setLabel("turns held")
        self.turn_view.setXLink(item)
        self.turn_curve = pg.PlotCurveItem(pen=TURNS_PEN)
        self.turn_line = pg.InfiniteLine(angle=0, pen=TURN_LINE_PEN, movable=False)
        self.turn_view.addItem(self.turn_curve)
        self.turn_view.addItem(self.turn_line)
        item.vb.sigResized.connect(self._on_plot_resized)
        # three short lines, not word wrap: a wrapped label under-reports its height (the
        # plot overflowed the strip) and one long line widened the whole right pane
        legend = QLabel("▲ simulated  ◆ recorded compaction\n× invalid request  ○ rejected by "
                        "the provider\n- - threshold (turns: right axis)", self)
        self.plot.scene().sigMouseClicked.connect(self._on_plot_clicked)

        top = QHBoxLayout()
        top.addWidget(QLabel("Trigger", self))
        top.addWidget(self.trigger_edit, 1)
        # a second row: the pane is narrow on a small screen (1024 px)
        actions = QHBoxLayout()
        actions.addWidget(self.in_tree)
        actions.addWidget(self.first_invalid)
        actions.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(top)
        layout.addLayout(actions)
        layout.addWidget(self.slider)
        layout.addWidget(self.label)
        layout.addWidget(self.plot, 1)
        layout.addWidget(legend)

    # -- public ---------------------------------------------------------------------------
    def set_session(self, data: SessionData | None) -> None:
        self.data = data
        self.run()

    def wait(self, why: str) -> None:
        """No replay until the next :meth:`set_session`: the label says ``why``."""
        self.set_session(None)
        self.label.setText(why)

    def set_strategy(self, overlay) -> None:
        """Follow the preview's strategy and budget (an overlay it emitted)."""
        if overlay is None or (overlay.strategy, overlay.budget) == (self.strategy, self.budget):
            return
        self.strategy, self.budget = overlay.strategy, overlay.budget
        self.job.drop()
        self.rest.start()

    def set_provider(self, provider: str | None) -> None:
        """Check every call against ``provider`` (None: none) and go to the first call it
        rejects; replays again when it changes."""
        if provider == self.provider:
            return
        self.provider = provider
        if self.data is not None:
            self.run()

    def run(self) -> Worker | None:
        """Replay the session in the background (the newest request wins)."""
        self.rest.stop()
        if self.data is None:
            self.job.drop()
            self._show(None)
            return None
        text = self.trigger_edit.text().strip() or "always"
        try:
            Trigger.parse(text)
        except ValueError as exc:
            self.label.setText(str(exc))
            return None
        self.label.setText(f"Replaying {self.data.log.n:,} events under {text} × "
                           f"{self.strategy}…")
        worker = Worker(partial(replay_task, self.data, text, self.strategy, self.budget,
                                provider=self.provider), "replay")
        worker.signals.finished.connect(self._on_worker_finished)
        worker.signals.failed.connect(self._on_worker_failed)
        return self.job.start(worker)

    def choose(self, j: int) -> None:
        """Select call ``j``."""
        self.slider.setValue(j)

    # -- slots ----------------------------------------------------------------------------
    @Slot(object)
    def _on_worker_finished(self, rp: Replay) -> None:
        if not self.job.is_current(self.sender()):
            return
        self.job.done()
        self._show(rp)

    @Slot(object)
    def _on_worker_failed(self, exc: Exception) -> None:
        if self.job.is_current(self.sender()):
            self.job.done()
            self.label.setText(f"Replay failed: {reason(exc)}")

    def _show(self, rp: Replay | None) -> None:
        same = (rp is not None and self.replay is not None
                and self.replay.rlog.log.session_id == rp.rlog.log.session_id)
        chosen = self.slider.value()
        self.replay = rp
        calls = len(rp.calls) if rp is not None else 0
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(calls - 1, 0))
        # the call chosen stays chosen when the same session is replayed again
        self.slider.setValue(min(chosen, calls - 1) if same else max(calls - 1, 0))
        self.slider.blockSignals(False)
        self.slider.setEnabled(calls > 0)
        if rp is None or not calls:
            self.curve.setData([], [])
            for item in (self.simulated, self.recorded, self.invalid, self.rejected):
                item.setData([], [])
            self.threshold.hide()
            self._show_turns(None, None)
            self.first_invalid.setEnabled(False)
            self.label.setText("No model call in this session" if rp is not None else "No session")
            return
        s = sawtooth(rp)
        x = np.arange(calls, dtype=position_type(calls))   # kept by the plot
        self.curve.setData(x, s.cost)
        self.simulated.setData(s.compacted, s.cost[s.compacted] if len(s.compacted) else [])
        self.recorded.setData(s.recorded, s.cost[s.recorded] if len(s.recorded) else [])
        self.invalid.setData(s.invalid, s.cost[s.invalid] if len(s.invalid) else [])
        if s.threshold is not None:
            self.threshold.setValue(s.threshold)
            self.threshold.show()
        else:
            self.threshold.hide()
        self._show_turns(s.turns, s.turn_threshold)
        provider = self._judged(rp)
        rejected = rejected_calls(rp, provider) if provider else np.zeros(0, dtype=np.int64)
        self.rejected.setData(rejected, s.cost[rejected] if len(rejected) else [])
        first = first_rejected_call(rp, provider)
        # short: the strip shares the right pane with the preview (the tooltip names it)
        what = "First rejected" if provider else "First invalid call"
        self.first_invalid.setEnabled(first is not None)
        self.first_invalid.setText(what + (f" (#{first})" if first is not None else ": none"))
        self.first_invalid.setToolTip(
            f"The first call whose request {LABELS[provider]} rejects (PROVIDERS.md)"
            if provider else "The first call whose request has an orphan result or call")
        self._on_slider_value_changed(self.slider.value())

    def _show_turns(self, turns, threshold) -> None:
        """The turns curve and N on the right axis, for a turn trigger only."""
        shown = threshold is not None and turns is not None
        self.plot.getPlotItem().showAxis("right", shown)
        self.turn_curve.setVisible(shown)
        self.turn_line.setVisible(shown)
        if shown:
            self.turn_curve.setData(np.arange(len(turns), dtype=turns.dtype), turns)
            self.turn_line.setValue(threshold)
            self.turn_view.setYRange(0, max(int(turns.max(initial=0)), threshold) * 1.1 + 1)
        self._on_plot_resized()

    @Slot()
    def _on_plot_resized(self) -> None:
        self.turn_view.setGeometry(self.plot.getPlotItem().vb.sceneBoundingRect())

    @Slot(int)
    def _on_slider_value_changed(self, j: int) -> None:
        rp = self.replay
        if rp is None or not rp.calls:
            return
        f = rp.calls[j].figures
        event = f["event"]
        figures = rp.figures
        self.cursor.setValue(j)
        self.label.setText(
            f"Call {j:,} of {len(rp.calls):,} (before event {event['seq']}"
            f"{'.' + str(event['sub']) if event['sub'] else ''}): {f['cost']:,} tokens, "
            f"{'compacted, ' + format(int(f['dropped']), ',') + ' dropped, ' if f['compacted'] else ''}"
            f"{int(rp.calls[j].turns):,} turns, "
            f"{int(f['orphan_results']):,} orphan results, "
            f"{int(f['orphan_calls']):,} orphan calls"
            f"{', recorded compaction' if rp.calls[j].recorded else ''}.  Session: "
            f"{figures['compactions']:,} compactions, peak {figures['peak_cost']:,}, "
            f"{figures['invalid_calls']:,} invalid calls{self._verdict(rp, j)}  "
            f"[{rp.trigger.text} × {rp.strategy.text}]")
        self.call_chosen.emit(j)
        if self.in_tree.isChecked():
            self.overlay_chosen.emit(request_overlay(rp, j))

    def _judged(self, rp: Replay) -> str | None:
        """The provider ``rp`` was checked against (the one picked when it ran)."""
        p = self.provider
        return p if p and rp.calls and figure_name(p) in rp.calls[0].figures else None

    def _verdict(self, rp: Replay, j: int) -> str:
        p = self._judged(rp)
        if p is None:
            return ""
        name = figure_name(p)
        said = "rejects this call" if rp.calls[j].figures[name] else "accepts this call"
        return f"; {LABELS[p]} {said}, rejects {rp.figures[name]} calls"

    @Slot(bool)
    def _on_in_tree_toggled(self, on: bool) -> None:
        if on and self.replay is not None and self.replay.calls:
            self.overlay_chosen.emit(request_overlay(self.replay, self.slider.value()))
        elif not on:
            self.overlay_chosen.emit(None)

    @Slot()
    def _on_first_invalid_clicked(self) -> None:
        if self.replay is not None:
            first = first_rejected_call(self.replay, self._judged(self.replay))
            if first is not None:
                self.choose(first)

    def _on_plot_clicked(self, event) -> None:
        if self.replay is None or not self.replay.calls:
            return
        point = self.plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        self.choose(int(min(max(round(point.x()), 0), len(self.replay.calls) - 1)))
