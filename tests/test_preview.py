"""The compaction preview: overlays equal the engine's views; the panel, picker, budget
control, metrics strip and comparison table show them."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.cli.demo import demo_paths
from explorer.compaction import Strategy, view, window
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import BY_NAME as FAMILIES
from explorer.compaction.strategies import DEFAULTS
from explorer.compaction.window import in_view
from explorer.model import CostSettings, Order
from explorer.session.data import load_session
from explorer.session.preview import StrategyParams, compare, overlay, strategy_texts, transform_key
from explorer.store.db import Store
from tests.helpers import jsonl, load

BUDGETS = (60, 400, 1600, 4000, 20000)
VARIANTS = (CompactionSettings(), CompactionSettings(keep_latest_turn=False, summary_cost=120,
                                                     placeholder_cost=3))


@pytest.fixture(scope="module")
def demo():
    """The demo corpus and a few of its sessions loaded in two orders."""
    store = Store()
    load(store, *demo_paths())
    names = [r[0] for r in store.run("session_names")]
    yield store, names
    store.close()


def _expected(log, text, budget, settings):
    """What the engine says: in_view, per-row errors, synthetic (after_row, kind, cost)."""
    strategy = Strategy.parse(text)
    items, metrics = view(log, strategy, budget, settings)
    w = window(log, strategy, budget, settings)
    errors, synthetic, last = {}, [], None
    for item in items:
        if item.synthetic:
            synthetic.append((last, item.kind, item.cost))
            continue
        last = item.index
        flags = tuple(f for f in item.flags if f in ("orphan_result", "orphan_call"))
        if flags:
            errors[item.index] = flags
    if metrics["pair_split"]:
        errors[w.cut - 1] = errors.get(w.cut - 1, ()) + ("pair_split",)
    return in_view(log, w), errors, synthetic, metrics


def test_overlay_equals_the_engine_for_every_strategy(demo):
    store, names = demo
    checked = synthetic_seen = errors_seen = 0
    for order in (Order.SEQ, Order.TS_UNSTABLE):
        for name in names[::6]:
            log = load_session(store, name, order).log
            for settings in VARIANTS:
                for text in strategy_texts():
                    for budget in BUDGETS:
                        o = overlay(log, text, budget, settings)
                        keep, errors, synthetic, metrics = _expected(log, text, budget, settings)
                        assert o.strategy == text and o.budget == budget
                        assert np.array_equal(o.in_view, keep)
                        assert o.metrics == metrics
                        assert o.errors == errors
                        assert [(s.after_row, s.kind, s.cost) for s in o.synthetic] == synthetic
                        checked += 1
                        synthetic_seen += len(synthetic)
                        errors_seen += len(errors)
    assert checked > 5000 and synthetic_seen > 100 and errors_seen > 100


SMALL = [
    {"seq": 1, "kind": "SYSTEM", "tokens": 10, "text": "be brief"},
    {"seq": 2, "kind": "USER", "tokens": 100, "text": "first"},
    {"seq": 3, "kind": "CALL", "call_id": "c1", "tool": "bash", "tokens": 50},
    {"seq": 4, "kind": "RESULT", "call_id": "c1", "tool": "bash", "tokens": 50},
    {"seq": 5, "kind": "USER", "tokens": 100, "text": "second"},
    {"seq": 6, "kind": "CALL", "call_id": "c2", "tool": "bash", "tokens": 20},
    {"seq": 7, "kind": "RESULT", "call_id": "c2", "tool": "bash", "tokens": 30},
    {"seq": 8, "kind": "CALL", "call_id": "c3", "tool": "bash", "tokens": 20},
    {"seq": 9, "kind": "ASSISTANT", "tokens": 40, "text": "done"},
]


@pytest.fixture
def small(store, tmp_path):
    load(store, jsonl(tmp_path / "small.jsonl", [{"session_id": "s", **r} for r in SMALL]))
    data = load_session(store, "s")
    assert data.log.cost.tolist() == [10, 100, 50, 50, 100, 20, 30, 20, 40]
    return data.log


def test_hand_worked_overlays(small):
    # M0 at 300: suffix(3) = 260 fits, so the cut is row 3, the RESULT of the dropped c1.
    o = overlay(small, "M0", 300)
    assert o.in_view.tolist() == [False] * 3 + [True] * 6
    assert o.errors == {3: ("orphan_result",), 2: ("pair_split",), 7: ("orphan_call",)}
    assert o.metrics["cost"] == 260 and o.metrics["pair_split"] and not o.synthetic
    # M2 at 220: M1 cuts at the USER of row 4; c3 (row 7) gets a placeholder after it.
    o = overlay(small, "M2", 220)
    assert o.errors == {}
    assert [(s.after_row, s.kind, s.cost, s.label) for s in o.synthetic] == [
        (7, "RESULT", 8, "placeholder RESULT for c3")]
    assert o.metrics["cost"] == 218 and o.metrics["repaired"] == 1
    # spring-summary:3: the raw cut (row 6) snaps to nothing, keep_latest_turn keeps the
    # turn of row 4; the SYSTEM row stays pinned, the prompt and summary follow it.
    o = overlay(small, "spring-summary:3", 50)
    assert np.flatnonzero(o.in_view).tolist() == [0, 4, 5, 6, 7, 8]
    assert [(s.after_row, s.kind, s.cost) for s in o.synthetic] == [(0, "USER", 0),
                                                                  (0, "SUMMARY", 300)]
    assert o.synthetic[1].label == "summary (300 tokens) standing for 3 dropped events"
    assert o.metrics["cost"] == 10 + 300 + 210 and o.metrics["over"]


def test_compare_rows_are_the_views_metrics(small):
    texts = strategy_texts(StrategyParams({"spring-events": (2,), "memory-window": (20, "1.x")}))
    assert "spring-events:2" in texts and {"memory-window:20:1.x", "memory-window:20:2.0"} <= set(texts)
    rows = compare(small, 300, texts, VARIANTS[1])
    assert [r["strategy"] for r in rows] == texts
    for row in rows:
        assert row == {"strategy": row["strategy"], **view(small, row["strategy"], 300, VARIANTS[1])[1]}


def test_strategy_texts_cover_every_family_and_parse():
    texts = strategy_texts()
    assert {Strategy.parse(t).family for t in texts} == set(FAMILIES)
    assert set(DEFAULTS) <= set(texts)


def test_transform_key_ignores_settings_of_transforms_that_are_off():
    base = CompactionSettings()
    assert transform_key(base) == transform_key(CompactionSettings(evict_chars=5, prune_keep=3,
                                                                   summary_cost=1))
    on = CompactionSettings(prune=True)
    assert transform_key(on) != transform_key(base)
    assert transform_key(on) != transform_key(CompactionSettings(prune=True, prune_chars=10))
    assert transform_key(on) == transform_key(CompactionSettings(prune=True, evict_chars=10))


# -- widgets ----------------------------------------------------------------------------------
def test_budget_control_syncs_both_ways_and_never_loops(qtbot):
    from widgets.budget_control import STEPS, BudgetControl, budget_at, position_of

    assert budget_at(0) == 100 and budget_at(STEPS) == 1_000_000
    assert all(budget_at(position_of(budget_at(p))) == budget_at(p) for p in range(0, STEPS, 37))
    control = BudgetControl(4000)
    qtbot.addWidget(control)
    seen: list[int] = []
    control.budget_changed.connect(seen.append)
    control.set_budget(4000)
    assert seen == []
    control.set_budget(12_345)
    assert seen == [12_345] and control.box.value() == 12_345
    assert control.slider.value() == position_of(12_345)
    control.set_budget(12_345)
    assert seen == [12_345]
    control.slider.setValue(STEPS // 2)  # the user drags the slider
    assert seen[-1] == budget_at(STEPS // 2) == 10_000 and control.box.value() == 10_000
    control.box.setValue(777)  # the user types a number
    assert seen[-1] == 777 and control.slider.value() == position_of(777)
    assert len(seen) == 3 and control.budget() == 777


def test_every_strategy_the_picker_produces_parses(qtbot):
    from widgets.strategy_picker import StrategyPicker

    picker = StrategyPicker()
    qtbot.addWidget(picker)
    emitted: list = []
    picker.changed.connect(lambda text, settings: emitted.append((text, settings)))
    for index in range(picker.family.count()):
        family = picker.family.itemData(index)
        picker.family.setCurrentIndex(index)
        for box in picker.arguments.values():
            box.setValue(7 + index)
        for variant in range(max([1, *(c.count() for c in picker.choices.values())])):
            for combo in picker.choices.values():
                combo.setCurrentIndex(variant)
            strategy = Strategy.parse(picker.strategy())
            assert strategy.family == family
            assert emitted[-1][0] == picker.strategy()
    assert {Strategy.parse(t).family for t, _ in emitted} == set(FAMILIES)
    for text in strategy_texts(StrategyParams({"agentscope": (50, 3), "memory-window": (4, "2.0")})):
        picker.set_strategy(text)
        assert picker.strategy() == text
    picker.transforms_button.click()
    picker.prune.setChecked(True)
    picker.summary_cost.setValue(99)
    assert emitted[-1][1] == CompactionSettings(prune=True, summary_cost=99)
    assert emitted[-1][1] == picker.settings()
    assert "prune on" in picker.transforms_button.text()
    assert picker.prune_chars.isEnabled() and not picker.evict_chars.isEnabled()


@pytest.fixture
def panel(qtbot, demo):
    from widgets.preview_panel import PreviewPanel

    store, _ = demo
    panel = PreviewPanel()
    qtbot.addWidget(panel)
    panel.set_session(load_session(store, "s000119"))
    return panel


def _recorder(signal) -> list:
    """The arguments of every emission (the argument itself for one-argument signals)."""
    seen: list = []
    signal.connect(lambda *args: seen.append(args[0] if len(args) == 1 else args))
    return seen


def test_moving_the_budget_shows_the_engines_view(panel):
    from widgets.budget_control import budget_at, position_of

    data = panel.session()
    overlays = _recorder(panel.overlay_changed)
    budgets = _recorder(panel.budget_changed)
    for strategy in ("M0", "M2", "spring-summary:10", "agentscope-tokens:50"):
        panel.set_strategy(strategy)
        for position in (position_of(300), position_of(3000), position_of(90_000)):
            panel.budget_control.slider.setValue(position)  # as a drag does
            budget = budget_at(position)
            assert budgets[-1] == budget == panel.budget()
            shown = overlays[-1]
            assert shown is panel.current_overlay() and shown.budget == budget
            items, metrics = view(data.log, strategy, budget, panel.settings())
            assert shown.metrics == metrics and shown.strategy == strategy
            assert np.flatnonzero(shown.in_view).tolist() == sorted(
                i.index for i in items if not i.synthetic)
            text = panel.strip.text()
            assert f"{metrics['cost']:,} / {budget:,} tokens" in text
            assert f"orphan results {metrics['orphan_results']}" in text
            assert f"dangling calls {metrics['orphan_calls']}" in text
            assert ("no pair split" not in text) == metrics["pair_split"]
            bad = panel.strip.highlighted()
            assert (bad.get("orphan_results") == "bad") == (metrics["orphan_results"] > 0)
            assert (bad.get("over") == "bad") == metrics["over"]
    panel.set_strategy("M0")
    panel.set_budget(3000)
    assert panel.current_overlay().metrics["orphan_results"] == 1  # a lost CALL in the demo
    assert panel.current_overlay().metrics["pair_split"]


def test_set_budget_emits_once_and_never_loops(panel):
    overlays = _recorder(panel.overlay_changed)
    budgets = _recorder(panel.budget_changed)
    # A peer that echoes every budget back (as the cost plot's line does) must not loop.
    panel.budget_changed.connect(panel.set_budget)
    panel.set_budget(panel.budget())
    assert overlays == [] and budgets == []
    panel.set_budget(2500)
    assert budgets == [2500] and len(overlays) == 1
    panel.set_budget(2500)
    assert budgets == [2500] and len(overlays) == 1


def test_settings_that_change_the_session_ask_for_a_reload(panel, demo):
    store, _ = demo
    reloads = _recorder(panel.reload_needed)
    orders = _recorder(panel.order_changed)
    overlays = _recorder(panel.overlay_changed)
    panel.picker.summary_cost.setValue(111)  # read by the strategy: no reload
    assert reloads == [] and overlays[-1] is not None
    panel.picker.prune.setChecked(True)  # changes the costs: reload, no stale overlay
    assert len(reloads) == 1 and overlays[-1] is None and panel.current_overlay() is None
    assert "transforms" in panel.strip.text()
    panel.set_session(load_session(store, "s000119", panel.order(), panel.cost_settings(),
                                   panel.settings()))
    assert overlays[-1] is not None and overlays[-1].metrics == view(
        panel.session().log, panel.strategy(), panel.budget(), panel.settings())[1]
    panel.set_order(Order.TS)  # programmatic: no signal, no overlay until the reload
    assert orders == [] and len(reloads) == 1 and panel.current_overlay() is None
    panel.order_box.setCurrentIndex(panel.order_box.findData(Order.TS_UNSTABLE.value))  # the user
    assert orders == [Order.TS_UNSTABLE] and len(reloads) == 2
    panel.cjk_ratio.setValue(2.0)
    assert len(reloads) == 3 and panel.cost_settings() == CostSettings(2.0, 4.0)
    panel.set_session(None)
    assert overlays[-1] is None and panel.compare.rowCount() == 0


def test_compare_model_equals_compare(panel, qtbot, qtmodeltester):
    from PySide6.QtCore import Qt

    model = panel.compare
    panel.set_strategy("M2")
    panel.set_budget(1600)
    with qtbot.waitSignal(model.refreshed, timeout=2000):
        pass  # debounced: recomputed once the budget stops moving
    data = panel.session()
    rows = compare(data.log, 1600, panel.picker.texts(), panel.settings())
    assert model.rows() == rows
    shown = [[model.index(r, c).data() for c in range(model.columnCount())]
             for r in range(model.rowCount())]
    assert [s[0] for s in shown] == [r["strategy"] for r in rows]
    assert [s[1] for s in shown] == [f"{r['cost']:,}" for r in rows]
    assert [s[2] == "yes" for s in shown] == [r["over"] for r in rows]
    current = [r for r in range(model.rowCount()) if model.index(r, 0).data(Qt.ItemDataRole.FontRole)]
    assert [rows[r]["strategy"] for r in current] == ["M2"]
    qtmodeltester.check(model)


def test_compare_model_waits_for_the_budget_to_stop(qtbot, small):
    from widgets.compare_model import CompareModel

    model = CompareModel()
    refreshed = _recorder(model.refreshed)
    for budget in (100, 200, 300, 400):
        model.schedule(small, budget, ["M0", "M1"], CompactionSettings())
    assert refreshed == [] and model.rows() == []
    qtbot.waitUntil(lambda: len(refreshed) == 1, timeout=2000)
    assert model.rows() == compare(small, 400, ["M0", "M1"])
