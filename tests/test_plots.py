"""The plots: the session cost curve (core and widget) and the corpus sweep panel."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from explorer.cli.demo import demo_paths
from explorer.compaction.sweep import sweep
from explorer.model import Order
from explorer.session.cost_curve import cost_curve
from explorer.session.data import load_session
from tests.helpers import jsonl, load
from widgets import sweep_task
from widgets.cost_plot import MAX_BUDGET, MIN_BUDGET, SessionCostPlot, value_of
from widgets.sweep_panel import BUDGETS, PLOTS, SweepPanel
from widgets.workers import JobPool

WAIT = 20_000


@pytest.fixture
def demo(store):
    load(store, *demo_paths())
    return store


@pytest.fixture
def jobs():
    pool = JobPool()
    yield pool
    pool.cancel_all()
    pool.wait()


def _sessions(db) -> list[str]:
    return [r[0] for r in db.con.execute(
        "SELECT DISTINCT session_id FROM events ORDER BY 1").fetchall()]


def _reference(costs: list[int], kinds: list[str]):
    """Plain Python: cost of the newest x events for x = 1..n; turn starts counted from the end."""
    n, ys, total = len(costs), [], 0
    for cost in reversed(costs):
        total += cost
        ys.append(total)
    turns = sorted(n - i for i, k in enumerate(kinds) if k == "USER")
    return ys, turns


def _within(ys: list[int], budget: int) -> int:
    return max((x for x, y in enumerate(ys, start=1) if y <= budget), default=0)


# -- the core curve ---------------------------------------------------------------------
@pytest.mark.parametrize("order, step", [("ts-unstable", 1), ("seq", 5)])
def test_cost_curve_equals_plain_python_on_the_demo_sessions(demo, order, step):
    for session in _sessions(demo)[::step]:   # each session in one order, some in two
        data = load_session(demo, session, Order(order))
        costs = data.frame["cost"].to_list()
        kinds = [str(k) for k in data.frame["kind"].to_list()]
        ys, turns = _reference(costs, kinds)
        curve = cost_curve(data.log)
        assert curve.x.tolist() == list(range(1, len(costs) + 1)), session
        assert curve.y.tolist() == ys, session
        assert curve.turn_x.tolist() == turns, session
        assert curve.turn_y.tolist() == [ys[x - 1] for x in turns], session
        for budget in (0, 1, 100, 777, 4_000, 10**9):
            assert curve.events_within(budget) == _within(ys, budget), (session, budget)
            # M0's cut keeps exactly these events (STRATEGIES.md: n - k0)
            assert curve.events_within(budget) == data.log.n - data.log.k0(budget)


def test_cost_curve_of_a_hand_worked_log(store, tmp_path):
    rows = [{"session_id": "s", "seq": i + 1, "kind": k, "tokens": t}
            for i, (k, t) in enumerate([("SYSTEM", 5), ("USER", 10), ("ASSISTANT", 0),
                                        ("USER", 3), ("ASSISTANT", 7)])]
    load(store, jsonl(tmp_path / "s.jsonl", rows))
    curve = cost_curve(load_session(store, "s").log)
    assert curve.y.tolist() == [7, 10, 10, 20, 25]
    assert curve.turn_x.tolist() == [2, 4]          # keep 2 -> starts at USER seq 4
    assert curve.turn_y.tolist() == [10, 20]
    assert [curve.events_within(b) for b in (6, 7, 10, 19, 25)] == [0, 1, 3, 3, 5]
    assert curve.total == 25 and curve.cost_of(0) == 0



def test_the_envelope_of_a_curve_keeps_each_stretch_s_lowest_and_highest_point():

    from explorer.compaction.log import ASSISTANT
    rng = np.random.default_rng(3)
    n = 1_000
    cost = rng.integers(0, 9, n)
    curve = cost_curve(_log_double(cost, np.full(n, ASSISTANT)))
    assert curve.y.tolist() == np.cumsum(cost[::-1]).tolist()   # the newest x events' cost
    xs, ys = curve.envelope(0, n + 1, 500)            # few enough: every point
    assert xs.tolist() == list(range(1, n + 1)) and np.array_equal(ys, curve.y)
    xs, ys = curve.envelope(101, 900, 10)             # 10 stretches of the range
    assert np.array_equal(ys, curve.y[xs - 1])        # real points
    assert xs[0] == 100 and xs[-1] == 901             # one point beyond each side
    edges = np.linspace(99, 901, 11).astype(int)      # the stretches' first rows
    want = sorted({*edges[:-1].tolist(), *(edges[1:] - 1).tolist()})
    assert (xs - 1).tolist() == want
    xs, _ = curve.envelope(400, 410, 10)              # zoomed in: every point again
    assert xs.tolist() == list(range(399, 412))


# -- the session plot -------------------------------------------------------------------
def _plot(qtbot, demo, session="k0006"):
    plot = SessionCostPlot()
    qtbot.addWidget(plot)
    data = load_session(demo, session)
    plot.set_session(data)
    return plot, data


def test_session_plot_draws_the_cost_curve_and_turns(qtbot, demo):
    plot, data = _plot(qtbot, demo)
    curve = cost_curve(data.log)
    assert np.array_equal(plot.curve.xData, curve.x)
    assert np.array_equal(plot.curve.yData, curve.y)
    xs = plot.turns.xData
    assert xs[::2].tolist() == curve.turn_x.tolist() == xs[1::2].tolist()  # one segment each
    assert "k0006" in plot.title.text()
    plot.set_session(None)
    assert len(plot.curve.xData or []) == 0 and len(plot.turns.xData or []) == 0


def test_dragging_the_line_emits_the_budget(qtbot, demo):
    plot, data = _plot(qtbot, demo)
    curve = cost_curve(data.log)
    seen = []
    plot.budget_dragged.connect(seen.append)
    plot.line.setValue(math.log10(2_500))
    plot.line.sigDragged.emit(plot.line)     # what a mouse drag emits after moving the line
    assert seen == [2_500]
    kept = curve.events_within(2_500)
    assert plot.marker.xData.tolist() == [kept]
    assert plot.marker.yData.tolist() == [curve.cost_of(kept)]
    assert f"newest {kept:,} of" in plot.readout.text()
    plot.line.setValue(9.0)                  # beyond the bounds a drag allows: clamped
    plot.line.sigDragged.emit(plot.line)
    plot.line.setValue(0.5)
    plot.line.sigDragged.emit(plot.line)
    assert seen == [2_500, MAX_BUDGET, MIN_BUDGET]


def test_set_budget_moves_the_line_without_emitting(qtbot, demo):
    plot, data = _plot(qtbot, demo)
    seen = []
    plot.budget_dragged.connect(seen.append)
    plot.set_budget(12_345)
    assert plot.line.value() == pytest.approx(math.log10(12_345))
    assert plot.budget() == 12_345 and seen == []
    kept = cost_curve(data.log).events_within(12_345)
    assert plot.marker.xData.tolist() == [kept]
    plot.set_budget(5)                        # clamped to the slider's range
    assert plot.line.value() == pytest.approx(value_of(MIN_BUDGET)) and seen == []
    # a drag that lands on the budget just set is not news either
    plot.line.sigDragged.emit(plot.line)
    assert seen == []


# -- the sweep panel --------------------------------------------------------------------
def _panel(qtbot, demo, jobs, strategies=None):
    panel = SweepPanel(demo, jobs)
    qtbot.addWidget(panel)
    if strategies is not None:
        panel.set_checked(strategies)
    return panel


def test_sweep_panel_curves_equal_the_sweep(qtbot, demo, jobs):
    strategies = ["M0", "M1", "M4", "recorded", "spring-events:20", "memory-window:20:2.0"]
    panel = _panel(qtbot, demo, jobs, strategies)
    panel.set_order(Order.TS_UNSTABLE)
    with qtbot.waitSignal(panel.finished, timeout=WAIT) as done:
        panel.run()
    expected = sweep(demo, strategies, BUDGETS, Order.TS_UNSTABLE)
    assert done.args[0] == expected
    for strategy in strategies:
        rows = [r for r in expected if r["strategy"] == strategy]
        for _, figure, per_window in PLOTS:
            curve = panel.curves[(figure, strategy)]
            assert curve.xData.tolist() == list(BUDGETS)
            want = [r[figure] / r["windows"] if per_window else r[figure] for r in rows]
            assert curve.yData.tolist() == pytest.approx(want, abs=0, rel=1e-12)
    assert len(panel.curves) == len(strategies) * len(PLOTS)
    assert len(panel.legend.items) == len(strategies)
    windows = expected[0]["windows"]
    assert windows > 0 and f"{windows:,} sessions" in panel.status.text()
    assert not panel.is_running() and panel.run_button.isEnabled()


def test_cancel_leaves_a_clear_status_and_no_curves(qtbot, demo, jobs):
    panel = _panel(qtbot, demo, jobs)
    with qtbot.waitSignal(panel.finished, timeout=WAIT):
        panel.run()
    assert panel.curves
    finished = []
    panel.finished.connect(finished.append)
    panel.run()
    panel.cancel()        # the answer, even if already computed, is still queued: dropped
    qtbot.waitUntil(lambda: not jobs.is_busy(), timeout=WAIT)
    qtbot.wait(50)        # let any queued worker signal arrive
    assert finished == [] and panel.curves == {}
    # the first run's curves stay, faint, until cleared; nothing of the cancelled one
    faint = {id(c) for _, c in panel.earlier}
    assert len(faint) == len(PLOTS) * len(panel.strategies())
    assert all(id(i) in faint for p in panel.plots.values() for i in p.listDataItems())
    assert all(c.opts["pen"].color().alpha() < 100 for _, c in panel.earlier)
    panel.clear_button.click()
    assert all(not p.listDataItems() for p in panel.plots.values()) and not panel.earlier
    assert panel.status.text().startswith("Cancelled")
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_a_run_whose_order_changed_is_dropped(qtbot, demo, jobs):
    panel = _panel(qtbot, demo, jobs)
    finished = []
    panel.finished.connect(finished.append)
    panel.run()
    panel.set_order(Order.TS)
    qtbot.waitUntil(lambda: not jobs.is_busy(), timeout=WAIT)
    qtbot.wait(50)
    assert finished == [] and panel.curves == {}
    assert "order changed" in panel.status.text()
    with qtbot.waitSignal(panel.finished, timeout=WAIT) as done:
        panel.run()
    assert done.args[0] == sweep(demo, panel.strategies(), BUDGETS, Order.TS)


def test_cancel_interrupts_the_load_query(qtbot, demo, jobs, monkeypatch):
    started = threading.Event()

    def endless(db, *args, **kwargs):
        started.set()   # a query that would run for hours unless interrupted
        db.con.execute("SELECT count(*) FROM range(1000000000000) t(a) WHERE a % 7 = 3").fetchall()
        raise AssertionError("the query was not interrupted")

    monkeypatch.setattr(sweep_task, "sweep", endless)
    panel = _panel(qtbot, demo, jobs)
    panel.run()
    qtbot.waitUntil(started.is_set, timeout=WAIT)
    panel.cancel()
    assert panel.status.text().startswith("Cancelled")
    qtbot.waitUntil(lambda: not jobs.is_busy(), timeout=5_000)
    assert panel.curves == {}


def test_dense_turn_boundaries_are_thinned_to_real_ones():
    """Past MAX_TURN_LINES boundaries, the plot draws one per stretch of the axis, each a real
    boundary, spread over the same extent; below it, every one."""
    from widgets.cost_plot import MAX_TURN_LINES, drawn_boundaries
    few = np.arange(1, 3_000, 3)
    assert drawn_boundaries(few, 3_000).tolist() == few.tolist()
    many = np.sort(np.random.default_rng(3).choice(3_000_000, 536_000, replace=False)) + 1
    drawn = drawn_boundaries(many, 3_000_000)
    assert MAX_TURN_LINES // 2 < len(drawn) <= MAX_TURN_LINES
    assert np.isin(drawn, many).all() and np.all(np.diff(drawn) > 0)
    assert drawn[0] == many[0] and drawn[-1] > 0.99 * many[-1]


def test_sweep_lines_differ_the_chosen_one_on_top_and_the_legend_acts_on_every_plot(
        qtbot, demo, jobs):
    from widgets.sweep_panel import STRATEGIES, line_style
    styles = [line_style(i) for i in range(len(STRATEGIES))]
    assert len(set(styles)) == len(STRATEGIES)          # no two strategies drawn alike
    assert len({(c, s) for c, s, _ in styles}) == len(STRATEGIES)
    strategies = ["M0", "M1", "M2"]
    panel = _panel(qtbot, demo, jobs, strategies)
    chosen = next(i for i in range(panel.strategy_list.count())
                  if panel.strategy_list.item(i).text() == "M1")
    panel.strategy_list.setCurrentRow(chosen)
    with qtbot.waitSignal(panel.finished, timeout=WAIT):
        panel.run()
    for _, figure, _ in PLOTS:
        z = {s: panel.curves[(figure, s)].zValue() for s in strategies}
        assert z["M1"] > z["M0"] and z["M1"] > z["M2"]
    # values on hover: each point's strategy, budget and figure
    from widgets.sweep_panel import point_tip
    curve = panel.curves[("over_ratio", "M1")]
    assert curve.scatter.opts["hoverable"]
    tip = curve.scatter.opts["tip"](x=3.0, y=0.0, data=None)
    assert tip == "M1\nbudget 1,000 tokens\nover ratio (kept ÷ budget × windows): 1"
    assert point_tip("M0", "empty ÷ windows", False, 2.0, 0.25) == (
        "M0\nbudget 100 tokens\nempty ÷ windows: 0.25")
    sample = next(sample for sample, label in panel.legend.items if label.text == "M0")
    sample.mouseClickEvent(_LeftClick())               # hides M0 in all four plots
    assert all(not panel.curves[(f, "M0")].isVisible() for _, f, _ in PLOTS)
    assert all(panel.curves[(f, "M2")].isVisible() for _, f, _ in PLOTS)
    sample.mouseClickEvent(_LeftClick())
    assert all(panel.curves[(f, "M0")].isVisible() for _, f, _ in PLOTS)


class _LeftClick:
    """The little of a pyqtgraph mouse click event a legend sample reads."""

    def button(self):
        from PySide6.QtCore import Qt
        return Qt.MouseButton.LeftButton

    def accept(self):
        pass


def _log_double(cost: np.ndarray, kind: np.ndarray):
    """What a plot reads of a SessionLog: its costs, their prefix sums, its kinds."""
    from types import SimpleNamespace
    return SimpleNamespace(cost=cost, prefix=np.r_[0, np.cumsum(cost)], kind=kind)


def _big_session_plot(qtbot, n: int, seed: int, shown: bool = False):
    """A plot of a random session of ``n`` events (one in five a USER), and its log."""
    from types import SimpleNamespace

    from explorer.compaction.log import ASSISTANT, USER
    rng = np.random.default_rng(seed)
    log = _log_double(rng.integers(1, 50, n), np.where(rng.random(n) < 0.2, USER, ASSISTANT))
    plot = SessionCostPlot()
    qtbot.addWidget(plot)
    if shown:
        plot.resize(600, 400)
        plot.show()
    plot.set_session(SimpleNamespace(log=log, session_id="s", order=Order.SEQ,
                                     has_preamble=False))
    return plot, log


def test_a_long_curve_is_drawn_downsampled_to_the_pixels(qtbot):
    """The curve of a session of many events draws about two points a pixel column (peak
    downsampling: each column's lowest and highest cost, real points of it), not one
    per event: given before the item joined the plot, the mode was reset and a session of
    3M events drew all of them (3 s for the first paint)."""
    n = 200_000
    plot, log = _big_session_plot(qtbot, n, seed=5, shown=True)
    plot.grab()
    drawn_x, drawn_y = plot.curve.curve.xData, plot.curve.curve.yData
    width = plot.curve.getViewBox().width()
    assert 0 < len(drawn_x) <= 5 * width < n
    curve = cost_curve(log)
    costs = np.rint(10.0 ** drawn_y).astype(np.int64)   # drawn in log10: real points of it
    assert np.isin(costs, curve.y).all()
    assert costs.min() == curve.y[0] and costs.max() > 0.99 * curve.total


def test_a_big_session_s_curve_is_held_as_the_envelope_of_the_range_shown(qtbot):
    """pyqtgraph is handed at most two points a stretch of the x range shown (the range's
    envelope), not a copy of every point; zoomed in, every point of the new range."""
    from widgets.cost_plot import CURVE_BUCKETS
    n = 200_000
    plot, log = _big_session_plot(qtbot, n, seed=7)
    curve = cost_curve(log)
    xs = np.asarray(plot.curve.xData, dtype=np.int64)
    assert len(xs) <= 2 * CURVE_BUCKETS + 2 < n
    assert xs[0] == 1 and xs[-1] == n
    assert np.array_equal(plot.curve.yData, curve.y[xs - 1])
    assert np.diff(xs).max() <= n // CURVE_BUCKETS + 1
    plot.plot.setXRange(50_000, 52_000, padding=0)
    xs = np.asarray(plot.curve.xData, dtype=np.int64)
    assert xs[0] <= 50_000 and xs[-1] >= 52_000
    assert (np.diff(xs) == 1).all() and np.array_equal(plot.curve.yData, curve.y[xs - 1])
