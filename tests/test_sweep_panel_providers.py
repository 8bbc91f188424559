"""The sweep panel's providers (widgets/sweep_providers.py): the providers checked reach the
sweep, and the plot of rejected_<provider> ÷ windows draws the sweep's figures."""

from __future__ import annotations

import pytest

from explorer.compaction.sweep import sweep
from explorer.model import Order
from explorer.providers.sweep_figures import rejected_figures
from widgets.sweep_panel import BUDGETS, SweepPanel
from widgets.workers import JobPool

WAIT = 20_000


@pytest.fixture
def jobs():
    pool = JobPool()
    yield pool
    pool.cancel_all()
    pool.wait()


def test_the_provider_plot_draws_the_sweeps_rejected_figures(qtbot, demo, jobs):
    panel = SweepPanel(demo, jobs)
    qtbot.addWidget(panel)
    strategies = ["M0", "M1", "M2"]
    panel.set_checked(strategies)
    panel.provider_choice.set_providers(["gemini", "anthropic"])
    assert panel.provider_choice.providers() == ("anthropic", "gemini")
    with qtbot.waitSignal(panel.finished, timeout=WAIT) as done:
        panel.run()
    want = sweep(demo, strategies, BUDGETS, Order.SEQ,
                 more=rejected_figures(("anthropic", "gemini")))
    assert done.args[0] == want
    assert any(r["rejected_anthropic"] for r in want)
    curves = panel.provider_plot.curves
    assert set(curves) == {(p, s) for p in ("anthropic", "gemini") for s in strategies}
    for s in strategies:
        rows = [r for r in want if r["strategy"] == s]
        for p, key in (("anthropic", "rejected_anthropic"), ("gemini", "rejected_gemini")):
            assert curves[(p, s)].xData.tolist() == list(BUDGETS)
            assert curves[(p, s)].yData.tolist() == pytest.approx(
                [r[key] / r["windows"] for r in rows], abs=0, rel=1e-12)
    assert len(panel.provider_plot.legend.items) == 2
    assert "2 providers checked" in panel.status.text()
    # no provider checked: no provider figure, no provider curve
    panel.provider_choice.set_providers([])
    with qtbot.waitSignal(panel.finished, timeout=WAIT) as done:
        panel.run()
    assert not any(k.startswith("rejected_") for k in done.args[0][0])
    assert panel.provider_plot.curves == {} and not panel.provider_plot.plot.listDataItems()


def test_compare_estimates_draws_one_curve_per_estimate(qtbot, demo, jobs):
    from explorer.model import CostSettings
    from widgets.sweep_panel import PLOTS
    panel = SweepPanel(demo, jobs)
    qtbot.addWidget(panel)
    strategies = ["M1", "M3"]
    panel.set_checked(strategies)
    panel.estimate_choice.set_estimates("1.5:4,1:1")
    with qtbot.waitSignal(panel.finished, timeout=WAIT) as done:
        panel.run()
    rows = done.args[0]
    for name, costs in (("1.5:4", CostSettings(1.5, 4)), ("1:1", CostSettings(1, 1))):
        want = sweep(demo, strategies, BUDGETS, Order.SEQ, costs)
        assert [{k: v for k, v in r.items() if k != "estimate"}
                for r in rows if r["estimate"] == name] == want
        for s in strategies:
            mine = [r for r in want if r["strategy"] == s]
            for _, figure, per_window in PLOTS:
                y = panel.curves[(figure, s, name)].yData.tolist()
                assert y == pytest.approx([r[figure] / r["windows"] if per_window
                                           else r[figure] for r in mine], abs=0, rel=1e-12)
    # the over-budget rate moves with the estimate: the two curves part
    a = panel.curves[("over_budget", "M1", "1.5:4")].yData
    b = panel.curves[("over_budget", "M1", "1:1")].yData
    assert (a != b).any()
    assert len(panel.curves) == 2 * 2 * len(PLOTS)
    assert "2 estimates compared" in panel.status.text()
    panel.estimate_choice.set_estimates("nonsense")
    panel.run()
    assert panel.status.text().startswith("Compare estimates: estimate 'nonsense'")
