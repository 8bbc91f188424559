"""The session plot: cost of the newest events against how many are kept, with a budget line.

The y axis is logarithmic (budgets span 100 to 1,000,000 tokens). pyqtgraph 0.14 maps curve
data through log10 itself, but an ``InfiniteLine`` is not log-aware: its value is the view
coordinate, log10 of the budget. The conversion lives in :func:`budget_of` / :func:`value_of`.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsItem, QLabel, QSizePolicy, QVBoxLayout, QWidget

from explorer.session.cost_curve import CostCurve, cost_curve
from explorer.session.data import SessionData, turns_text
from explorer.text_escape import elided
from widgets.plain_text import whole_tip

MIN_BUDGET, MAX_BUDGET = 100, 1_000_000
CURVE_PEN = pg.mkPen("#1f77b4", width=2)

#: The curve is handed to pyqtgraph as the envelope of this many stretches of the x range
#: shown (CostCurve.envelope: at most two points each), made again when the range changes:
#: the whole curve of a 3M-event session, held by pyqtgraph as well, cost 66 MB.
CURVE_BUCKETS = 4_096

#: At most this many turn boundaries are drawn: more cannot be told apart on any screen (a
#: 3M-event session has 536,000 turns, whose segments took 20 s to paint the first time).
MAX_TURN_LINES = 4_000

LINE_PEN = pg.mkPen("#d62728", width=2)
MARKER_PEN, MARKER_BRUSH = pg.mkPen("w"), pg.mkBrush("#d62728")
LINE_HOVER_PEN = pg.mkPen("#ff7f0e", width=3)


def turn_pen(turns: int) -> QPen:
    """Grey lines that fade as turns get dense: a few hundred lines stay readable, 2,000
    make a light wash instead of a grey wall."""
    alpha = int(min(110, max(18, 110 * 150 / max(turns, 1))))
    return pg.mkPen((120, 120, 120, alpha), width=1)


def drawn_boundaries(turn_x: np.ndarray, n: int, limit: int = MAX_TURN_LINES) -> np.ndarray:
    """The turn boundaries to draw: all of them up to ``limit``; past it the first of each of
    ``limit`` equal stretches of the x axis that holds one (every boundary drawn is a real
    one, and the wash the plot shows has the same extent)."""
    if len(turn_x) <= limit:
        return turn_x
    bucket = (turn_x.astype(np.int64) * limit) // max(n, 1)
    first = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    return turn_x[first]


def clamp_budget(budget: float) -> int:
    """A budget in whole tokens within the slider's range."""
    return int(min(MAX_BUDGET, max(MIN_BUDGET, round(budget))))


def budget_of(value: float) -> int:
    """The budget at the line's view coordinate (log10 of tokens)."""
    return clamp_budget(10.0 ** float(value))


def value_of(budget: int) -> float:
    """The line's view coordinate for ``budget``."""
    return math.log10(clamp_budget(budget))


class SessionCostPlot(QWidget):
    """Cost accumulated from the newest event backwards, turn boundaries, a budget line.

    Signals:
        budget_dragged(int): the user dragged the budget line to this budget (clamped to
            100..1,000,000); not emitted by :meth:`set_budget`.
    """

    budget_dragged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.readout = QLabel(self)
        self.readout.setTextFormat(Qt.TextFormat.PlainText)
        # Texts that change with the budget must not resize the plot (which would repaint it
        # whole): their width is whatever the layout gives them.
        for label in (self.title, self.readout):
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # The readout is longer than a narrow pane is wide: it wraps, in a height of two
        # lines whatever the text, so that it is read whole and still never resizes the plot.
        self.readout.setWordWrap(True)
        self.readout.setFixedHeight(2 * self.readout.fontMetrics().lineSpacing())
        self.plot_widget = pg.PlotWidget(self, background="w")
        plot = self.plot = self.plot_widget.getPlotItem()
        plot.setLogMode(x=False, y=True)
        plot.showGrid(x=True, y=True, alpha=0.2)
        plot.setLabel("left", "tokens of the newest events")
        plot.setLabel("bottom", "events kept, counted from the newest")
        plot.setMenuEnabled(False)   # its log/transform switches would desync the budget line
        # Turn boundaries: one item of vertical segments (connect='pairs'), however many turns.
        self.turns = pg.PlotDataItem(pen=turn_pen(0), connect="pairs")
        plot.addItem(self.turns, ignoreBounds=True)
        self.curve = pg.PlotDataItem(pen=CURVE_PEN)
        plot.addItem(self.curve)
        # Peak downsampling keeps each pixel column's min and max: exact for this monotone
        # curve. pyqtgraph's default keeps ~5 samples a pixel (10,000 points drawn at 800 px);
        # 2 halves the repaint of a 10,000-event session and looks the same. Set after
        # addItem, which gives the item the plot's own modes (off): set before, a session of
        # 3M events drew all its points (3 s for the first paint).
        self.curve.opts["autoDownsampleFactor"] = 2.0   # no setter in pyqtgraph 0.14
        self.curve.setDownsampling(auto=True, method="peak")
        self.curve.setClipToView(True)
        # The pen and brush made once: given as colour names, each move parsed them again.
        self.marker = pg.PlotDataItem(pen=None, symbol="o", symbolSize=9,
                                      symbolBrush=MARKER_BRUSH, symbolPen=MARKER_PEN)
        plot.addItem(self.marker, ignoreBounds=True)
        self.line = pg.InfiniteLine(angle=0, movable=True, pen=LINE_PEN, hoverPen=LINE_HOVER_PEN,
                                    bounds=(value_of(MIN_BUDGET), value_of(MAX_BUDGET)))
        self.line.setToolTip("Drag to change the budget")
        self.line.setZValue(10)
        plot.addItem(self.line, ignoreBounds=True)
        # The curve and the boundaries change only with the session: paint them once into a
        # pixmap, so that moving the budget line repaints the line, not 10,000 points.
        # The axes too: with the grid on, an axis item spans the whole view box, so each
        # move of the line replayed both axes' pictures (ticks, labels, grid lines).
        for item in (self.curve.curve, self.turns.curve,
                     *(plot.getAxis(name) for name in ("left", "bottom"))):
            item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        plot.getViewBox().sigXRangeChanged.connect(self._on_x_range_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.readout)
        self._curve: CostCurve | None = None
        self._drawn: tuple[int, int] | None = None   # the x span whose points are drawn
        self._budget = 4_000
        self._emitted: int | None = None
        self._marked: tuple[int, int | None] | None = None   # where the marker is drawn
        self.line.sigDragged.connect(self._on_line_dragged)
        self.set_session(None)

    # -- public API ---------------------------------------------------------------------
    def set_session(self, data: SessionData | None) -> None:
        """Show the curve of ``data`` (its log, in the viewed order); None clears the plot."""
        self._marked = None
        if data is None:
            self._curve = None
            self.curve.setData([], [])
            self.turns.setData([], [])
            self.title.setText("Select a session to see its cost curve.")
        else:
            curve = self._curve = cost_curve(data.log)
            self._drawn = None
            self._draw_curve(0, curve.n + 1)
            self.turns.setData(*self._turn_segments(curve))
            self.turns.setPen(turn_pen(len(curve.turn_x)))
            self.title.setText(f"{elided(data.session_id)}: {curve.n:,} events, "
                               f"{turns_text(len(curve.turn_x), data.has_preamble)}, {curve.total:,} tokens, "
                               f"{data.order.value} order")
        self.title.setToolTip((whole_tip(data.session_id) or "") if data else "")
        self._set_ranges()
        self._show_budget()

    def set_budget(self, budget: int) -> None:
        """Move the line to ``budget`` (from the slider): emits nothing."""
        self._budget = clamp_budget(budget)
        self._emitted = self._budget
        self.line.setValue(value_of(self._budget))
        self._show_budget()

    def budget(self) -> int:
        return self._budget

    def cost_curve(self) -> CostCurve | None:
        return self._curve

    # -- internals ----------------------------------------------------------------------
    def _draw_curve(self, low: float, high: float) -> None:
        """The curve's points for the x range ``[low, high]`` (every point of a small
        session; the range's envelope otherwise), unless those are drawn already."""
        curve = self._curve
        whole = curve.n <= 2 * CURVE_BUCKETS
        span = (0, curve.n + 1) if whole else (max(0, int(low)), math.ceil(high))
        if self._drawn == span:
            return
        self._drawn = span
        self.curve.setData(*curve.envelope(span[0], span[1], CURVE_BUCKETS))

    def _on_x_range_changed(self, _view, x_range) -> None:
        if self._curve is not None:
            self._draw_curve(*x_range)

    def _on_line_dragged(self, _line) -> None:
        self._budget = budget_of(self.line.value())
        self._show_budget()
        if self._budget != self._emitted:
            self._emitted = self._budget
            self.budget_dragged.emit(self._budget)

    def _show_budget(self) -> None:
        """The marker where the line meets the curve, and the line in words."""
        curve, budget = self._curve, self._budget
        if curve is None or curve.n == 0:
            self._mark(0, None)
            self.readout.setText(f"Budget {budget:,} tokens")
            return
        kept = curve.events_within(budget)
        self._mark(kept, max(curve.cost_of(kept), 1) if kept else None)
        turns = int(np.searchsorted(curve.turn_x, kept, side="right"))
        self.readout.setText(
            f"Budget {budget:,} tokens: the newest {kept:,} of {curve.n:,} events fit "
            f"({curve.cost_of(kept):,} tokens; {turns:,} whole turn(s))")

    def _mark(self, x: int, y: int | None) -> None:
        """The marker at (x, y) (None: no marker); left alone when it is already there
        (moves of the slider within one event's cost would rebuild the same point)."""
        if self._marked == (x, y):
            return
        self._marked = (x, y)
        if y is None:
            self.marker.setData([], [])
        else:
            self.marker.setData([x], [y])

    def _turn_segments(self, curve: CostCurve) -> tuple[np.ndarray, np.ndarray]:
        """Vertical segments at the turn boundaries, from 1 token to far above the plot."""
        top = 10.0 * max(MAX_BUDGET, curve.total)
        lines = drawn_boundaries(curve.turn_x, curve.n)
        xs = np.repeat(lines, 2).astype(float)
        ys = np.tile([1.0, top], len(lines))
        return xs, ys

    def _set_ranges(self) -> None:
        curve = self._curve
        n = curve.n if curve is not None else 0
        # the first positive cost (y never decreases), without a copy of the positive ones
        first = curve.events_within(0) if curve is not None else 0
        positive = curve is not None and first < curve.n
        low = min(MIN_BUDGET, curve.cost_of(first + 1) if positive else MIN_BUDGET) / 2
        high = 2.0 * max(MAX_BUDGET, curve.total if curve is not None else 0)
        y0, y1 = math.log10(max(low, 0.5)), math.log10(high)
        self.plot.setLimits(xMin=0, xMax=max(n, 1) + 1, yMin=y0 - 0.5, yMax=y1 + 0.5)
        self.plot.setXRange(0, max(n, 1) + 0.5, padding=0.02)
        self.plot.setYRange(y0, y1, padding=0)


if __name__ == "__main__":  # pragma: no cover
    import sys

    from PySide6.QtWidgets import QApplication

    from explorer.cli.demo import demo_paths
    from explorer.ingest.imports import import_paths
    from explorer.session.data import load_session
    from explorer.store.db import Store

    app = QApplication(sys.argv)
    store = Store()
    import_paths(store, [str(p) for p in demo_paths()])
    session = store.con.execute("SELECT session_id FROM events GROUP BY 1 "
                                "ORDER BY count(*) DESC LIMIT 1").fetchall()[0][0]
    widget = SessionCostPlot()
    widget.set_session(load_session(store, session))
    widget.set_budget(4_000)
    widget.budget_dragged.connect(lambda b: print("budget", b))
    widget.resize(800, 450)
    widget.show()
    sys.exit(app.exec())
