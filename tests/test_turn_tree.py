"""The turn tree: turns, pairs nested under their CALL, marks, lazy children, the preview
overlay (greying, view errors, synthetic rows), finding navigation, selection and detail."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from explorer.audits import counts as audits
from explorer.audits.marks import event_marks
from explorer.compaction import Strategy, evaluate, view, window
from explorer.compaction.window import in_view
from explorer.session.data import load_session
from explorer.session.view_overlay import (
    VIEW_ERROR_TEXT,
    VIEW_ERRORS,
    SyntheticItem,
    ViewOverlay,
)
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load
from widgets.mark_style import BADGES_ROLE, FINDING_KEYS, OUT_OF_VIEW_COLOUR, STYLES
from widgets.turn_tree_cells import MARK, VIEW
from widgets.turn_tree_model import TurnTreeModel

ROWS = [
    {"session_id": "s", "seq": 1, "kind": "SYSTEM", "text": "be brief"},
    {"session_id": "s", "seq": 2, "kind": "USER", "text": "<b>hello</b> there"},
    {"session_id": "s", "seq": 3, "kind": "CALL", "call_id": "a", "tool": "bash", "text": "ls"},
    {"session_id": "s", "seq": 4, "kind": "RESULT", "call_id": "lost", "text": "?"},
    {"session_id": "s", "seq": 5, "kind": "USER", "text": "next"},
    {"session_id": "s", "seq": 6, "kind": "RESULT", "call_id": "a", "text": "files"},
]
STRATEGIES = ("M0", "M1", "M2", "M3", "M4", "spring-tokens", "spring-summary:3",
              "agentscope-tokens:4", "memory-window:8:2.0")
BUDGETS = (150, 600, 2000)
Role = Qt.ItemDataRole


def engine_overlay(data, text: str, budget: int) -> ViewOverlay:
    """A ViewOverlay built from the compaction engine (what explorer.session.preview will produce)."""
    w = window(data.log, Strategy.parse(text), budget, data.settings)
    items, metrics = evaluate(data.log, w, budget, data.settings.placeholder_cost)
    errors = {it.index: tuple(f for f in it.flags if f in VIEW_ERRORS) for it in items
              if it.index is not None and set(it.flags) & set(VIEW_ERRORS)}
    if metrics["pair_split"]:
        errors[w.cut - 1] = errors.get(w.cut - 1, ()) + ("pair_split",)
    synthetic, after = [], None
    for it in items:
        if it.synthetic:
            label = f"placeholder for {it.call_id}" if it.call_id else f"{it.kind.lower()} (added)"
            synthetic.append(SyntheticItem(after, it.kind, it.cost, label))
        else:
            after = it.index
    return ViewOverlay(text, budget, in_view(data.log, w), errors, tuple(synthetic), metrics)


def _model(store, tmp_path, rows=ROWS, session="s"):
    load(store, jsonl(tmp_path / "t.jsonl", rows))
    frame = session_events(store, session)
    model = TurnTreeModel()
    model.set_session(frame, event_marks(frame))
    return model


def _texts(model, parent):
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def _walk(model, parent=QModelIndex()):
    """Every index under parent (column 0) in tree order, fetching turns on the way."""
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    for r in range(model.rowCount(parent)):
        index = model.index(r, 0, parent)
        yield index
        yield from _walk(model, index)


def _panel(qtbot, data):
    from widgets.session_panel import SessionPanel
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.set_data(data)
    return panel


def _expected_tree_rows(frame) -> list[int]:
    """Frame rows in tree order, from the frame alone: turns in order, each top-level event
    followed by the RESULT paired with it."""
    rows = frame.select("turn_no", "pos", "display_call_pos").rows()
    row_of_pos = {pos: i for i, (_, pos, _) in enumerate(rows)}
    nested = {row_of_pos[c]: i for i, (_, _, c) in enumerate(rows) if c is not None}
    out = []
    for turn in sorted({t for t, _, _ in rows}):
        for i, (t, _, c) in enumerate(rows):
            if t == turn and c is None:
                out += [i] + ([nested[i]] if i in nested else [])
    return out


# -- structure and marks ----------------------------------------------------------------
def test_turns_and_pairs(qtmodeltester, store, tmp_path):
    model = _model(store, tmp_path)
    turns = [model.index(r, 0) for r in range(model.rowCount())]
    assert [t.data() for t in turns] == ["Preamble — be brief", "Turn 1 — <b>hello</b> there",
                                         "Turn 2 — next"]
    assert model.rowCount(turns[1]) == 0 and model.canFetchMore(turns[1])  # lazy
    assert _texts(model, turns[1]) == ["USER — <b>hello</b> there", "CALL bash — ls",
                                       "RESULT — ?"]
    call = model.index(1, 0, turns[1])
    # the RESULT of call "a" sits in turn 2 of the log but shows under its CALL
    assert _texts(model, call) == ["RESULT — files"]
    assert _texts(model, turns[2]) == ["USER — next"]
    orphan = model.index(2, MARK, turns[1])
    assert orphan.data() == "orphan result" and audits.RULE_TEXT["orphan_results"] in orphan.data(Role.ToolTipRole)
    assert orphan.data(BADGES_ROLE) == [("orphan_results", "orphan result")]
    assert model.index(1, MARK).data(BADGES_ROLE) == [("orphan_results", "1")]  # turn badge
    assert model.index(1, 2).data() == "7"  # USER 5 + CALL 1 + orphan 0 + its pair's RESULT 1
    qtmodeltester.check(model)


def test_noted_events_show_their_note_and_open_no_turn(qtmodeltester, store, tmp_path):
    """FORMAT.md note: a USER event the harness wrote shows its note and stays in the turn
    it falls in; a thinking OTHER event shows `thinking`, under the assistant message after
    it (no message_id here: the next ASSISTANT of the turn; tests/test_thinking_rows.py)."""
    rows = [
        {"session_id": "s", "seq": 1, "kind": "USER", "text": "fix it"},
        {"session_id": "s", "seq": 2, "kind": "OTHER", "note": "thinking", "tokens": 0, "text": "hm"},
        {"session_id": "s", "seq": 3, "kind": "USER", "note": "command output", "text": "done"},
        {"session_id": "s", "seq": 4, "kind": "ASSISTANT", "text": "fixed"},
        {"session_id": "s", "seq": 5, "kind": "USER", "text": "thanks"},
    ]
    model = _model(store, tmp_path, rows)
    turns = [model.index(r, 0) for r in range(model.rowCount())]
    assert [t.data() for t in turns] == ["Turn 1 — fix it", "Turn 2 — thanks"]
    assert _texts(model, turns[0]) == ["USER — fix it", "USER (command output) — done",
                                       "ASSISTANT — fixed"]
    assert _texts(model, model.index(2, 0, turns[0])) == ["OTHER (thinking) — hm"]
    qtmodeltester.check(model)


def test_turn_cost_and_badges_add_up(demo):
    frame = session_events(demo, "k0002", "ts-unstable")
    marks = event_marks(frame)
    model = TurnTreeModel()
    model.set_session(frame, marks)
    cost = sum(int(model.index(r, 2).data().replace(",", "")) for r in range(model.rowCount()))
    assert cost == frame["cost"].sum()
    badges = {}
    for r in range(model.rowCount()):
        for key, count in model.index(r, MARK).data(BADGES_ROLE):
            badges[key] = badges.get(key, 0) + int(count)
    expected = {m: sum(m in row for row in marks) for m in FINDING_KEYS}
    assert badges == {m: n for m, n in expected.items() if n}


@pytest.mark.parametrize("order", ["seq", "ts-unstable"])
def test_pair_nesting_on_demo(demo, order):
    sessions = [r[0] for r in demo.con.execute(
        "SELECT session_id FROM events GROUP BY 1 ORDER BY count(*) DESC LIMIT 12").fetchall()]
    for session in sessions:
        frame = session_events(demo, session, order)
        marks = event_marks(frame)
        model = TurnTreeModel()
        model.set_session(frame, marks)
        rows = frame.select("pos", "turn_no", "kind", "call_id", "display_call_pos").rows()
        pos_row = {pos: i for i, (pos, *_rest) in enumerate(rows)}
        seen = []
        for index in _walk(model):
            row = model.frame_row(index)
            if row is None:
                continue
            seen.append(row)
            parent = index.parent()
            _, turn, kind, call_id, call_pos = rows[row]
            if call_pos is not None:  # the pair: under its CALL, wherever it sits
                assert model.frame_row(parent) == pos_row[call_pos]
            else:  # where it sits: under its own turn, marked when a RESULT with an id
                assert model.frame_row(parent) is None and parent.parent() == QModelIndex()
                assert parent.data().startswith("Preamble" if turn == 0 else f"Turn {turn} ")
                if kind == "RESULT" and call_id is not None:
                    assert marks[row] & {"orphan_results", "mispair", "duplicate_call_ids"}
                    assert index.siblingAtColumn(MARK).data()
        assert seen == _expected_tree_rows(frame)
        assert sorted(seen) == list(range(frame.height))  # every event exactly once


def test_demo_session_model(qtmodeltester, demo):
    frame = session_events(demo, "k0002", "ts-unstable")
    model = TurnTreeModel()
    model.set_session(frame, event_marks(frame))
    assert sum(1 for i in _walk(model) if model.frame_row(i) is not None) == frame.height
    qtmodeltester.check(model)


# -- overlay ----------------------------------------------------------------------------
def _greyed(model) -> dict[int, bool]:
    out = {}
    for index in _walk(model):
        row = model.frame_row(index)
        if row is not None:
            # model.data, not index.data: PySide6 6.12.0 loses a reference to None each time
            # an empty QVariant comes back to Python
            brush = model.data(index, Role.ForegroundRole)
            out[row] = brush is not None and brush.color().name() == OUT_OF_VIEW_COLOUR
    return out


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_overlay_greying_equals_the_engines_view(demo, strategy):
    for session in ("k0002", "s000051", "s000065"):
        data = load_session(demo, session, "seq")
        model = TurnTreeModel()
        model.set_session(data.frame, data.marks, data.texts)
        for budget in BUDGETS:
            model.set_overlay(engine_overlay(data, strategy, budget))
            items, metrics = view(data.log, strategy, budget, data.settings)
            kept = {it.index for it in items if not it.synthetic}
            assert _greyed(model) == {r: r not in kept for r in range(data.frame.height)}
            # turn rows count the events shown under them that stay in view
            for index in _walk(model):
                if model.frame_row(index) is None and index.parent() == QModelIndex() \
                        and model.node(index).turn is not None:
                    under = [model.frame_row(c) for c in _walk(model, index)]
                    under = [r for r in under if r is not None]
                    shown = f"{sum(r in kept for r in under):,}/{len(under):,} in view"
                    assert index.siblingAtColumn(VIEW).data() == shown
            flagged = {it.index: set(it.flags) & set(VIEW_ERRORS) for it in items
                       if not it.synthetic and set(it.flags) & set(VIEW_ERRORS)}
            for row, errors in flagged.items():
                cell = model.index_of_row(row).siblingAtColumn(MARK)
                assert {k for k, _ in cell.data(BADGES_ROLE)} >= {f"view:{e}" for e in errors}
                assert all(VIEW_ERROR_TEXT[e] in cell.data(Role.ToolTipRole) for e in errors)
            synthetic = sum(1 for it in items if it.synthetic)
            assert sum(1 for i in _walk(model) if model.node(i).item is not None) == synthetic
        model.set_overlay(None)
        assert not any(_greyed(model).values())
        assert not any(model.node(i).item is not None for i in _walk(model))


def test_m2_placeholders_sit_under_their_call(demo, qtmodeltester):
    found = 0
    for session, budget in (("s000051", 1500), ("s000065", 800), ("s000057", 300)):
        data = load_session(demo, session, "seq")
        w = window(data.log, Strategy.parse("M2"), budget)
        assert w.placeholders
        model = TurnTreeModel()
        model.set_session(data.frame, data.marks, data.texts)
        qtmodeltester.check(model)
        model.set_overlay(engine_overlay(data, "M2", budget))
        for call in w.placeholders:
            first = model.index(0, 0, model.index_of_row(call))
            assert model.node(first).item.kind == "RESULT"
            assert first.data() == f"RESULT — placeholder for {data.frame['call_id'][call]}"
            assert first.siblingAtColumn(VIEW).data() == "added"
            found += 1
    assert found >= 3


def test_summary_sits_at_the_front(store, tmp_path, demo):
    # no SYSTEM event: before the first turn, at top level
    data = load_session(demo, "s000051", "seq")
    model = TurnTreeModel()
    model.set_session(data.frame, data.marks, data.texts)
    model.set_overlay(engine_overlay(data, "spring-summary:2", 1000))
    assert [model.index(r, 0).data() for r in range(3)][:2] == ["USER — user (added)",
                                                                "SUMMARY — summary (added)"]
    assert model.index(2, 0).data().startswith("Turn 1")
    # after the pinned SYSTEM event of the preamble
    load(store, jsonl(tmp_path / "t.jsonl", ROWS))
    data = load_session(store, "s", "seq")
    model = TurnTreeModel()
    model.set_session(data.frame, data.marks, data.texts)
    model.set_overlay(engine_overlay(data, "agentscope:2:1", 1000))
    assert _texts(model, model.index(0, 0)) == ["SYSTEM — be brief", "SUMMARY — summary (added)"]


def test_expansion_and_selection_survive_overlay_changes(qtbot, demo, qtmodeltester):
    data = load_session(demo, "s000065", "seq")
    panel = _panel(qtbot, data)
    qtmodeltester.check(panel.model)
    tree, model = panel.tree, panel.model
    w = window(data.log, Strategy.parse("M2"), 800)
    call = w.placeholders[0]
    panel.select_row(call)
    tree.expand(model.index_of_row(call))
    expanded = [QPersistentModelIndex(model.index(r, 0)) for r in range(model.rowCount()) if r % 2]
    for index in expanded:
        tree.expand(index)
    inserted, removed, resets = [], [], []
    model.rowsInserted.connect(lambda *a: inserted.append(a))
    model.rowsRemoved.connect(lambda *a: removed.append(a))
    model.modelReset.connect(lambda: resets.append(1))
    for text, budget in (("M2", 800), ("M2", 5000), ("spring-summary:2", 800), ("M2", 300),
                         ("M0", 100), ("M2", 800)):
        panel.set_overlay(engine_overlay(data, text, budget))
        assert all(tree.isExpanded(QModelIndex(i)) for i in expanded)
        assert model.frame_row(tree.currentIndex()) == call
        assert tree.isExpanded(model.index_of_row(call))
    assert inserted and removed and not resets


def test_many_parents_relayout_instead(qtbot, demo, qtmodeltester, monkeypatch):
    from widgets import turn_tree_overlay
    monkeypatch.setattr(turn_tree_overlay, "_MANY_PARENTS", 3)
    data = load_session(demo, "k0002", "seq")
    panel = _panel(qtbot, data)
    panel.expand_all()
    qtmodeltester.check(panel.model)
    layouts = []
    panel.model.layoutChanged.connect(lambda *a: layouts.append(a))
    panel.select_row(40)
    for budget in (300, 3000, 800):
        overlay = engine_overlay(data, "M2", budget)
        panel.set_overlay(overlay)
        assert _greyed(panel.model) == {r: not overlay.in_view[r] for r in range(data.frame.height)}
        assert panel.model.frame_row(panel.tree.currentIndex()) == 40
    assert layouts
    assert all(panel.tree.isExpanded(i) for i in _walk(panel.model) if panel.model.rowCount(i))


def test_overlay_change_emits_ranges_per_parent(demo):
    from widgets.turn_tree_overlay import _ROWS_AT_ONCE
    data = load_session(demo, "k0002", "seq")
    model = TurnTreeModel()
    model.set_session(data.frame, data.marks, data.texts)
    model.fetch_all()
    model.set_overlay(engine_overlay(data, "M0", 2000))
    ranges = []
    model.dataChanged.connect(lambda a, b, roles: ranges.append((a.parent(), a.row(), b.row())))
    model.set_overlay(engine_overlay(data, "M0", 4000))
    old = engine_overlay(data, "M0", 2000).in_view
    changed = np.flatnonzero(old != engine_overlay(data, "M0", 4000).in_view).tolist()
    assert changed
    parents = {model.index_of_row(r).parent() for r in changed}
    assert {p for p, _, _ in ranges} == parents | {QModelIndex()}   # and the turn rows
    assert all(b - a < _ROWS_AT_ONCE for _, a, b in ranges)   # no view repaints it all
    for r in changed:
        index = model.index_of_row(r)
        assert any(p == index.parent() and a <= index.row() <= b for p, a, b in ranges)
        turn = index.parent()
        while turn.parent().isValid():
            turn = turn.parent()
        assert any(not p.isValid() and a <= turn.row() <= b for p, a, b in ranges)


def test_ranges_split_by_blocks_and_give_up_when_many():
    from widgets.turn_tree_cells import COLUMNS
    from widgets.turn_tree_overlay import _MANY_RANGES, _ROWS_AT_ONCE, ranges
    n = _ROWS_AT_ONCE
    assert 0 < n * len(COLUMNS) <= 200   # Qt repaints the whole viewport above 200 cells
    assert ranges(3, 3 + n - 1, [3, 3 + n - 1]) == [(3, 3 + n - 1)]
    assert ranges(3, 3 + n, [3, 10, 3 + n]) == [(3, 10), (3 + n, 3 + n)]
    assert ranges(3, 2 * n, [3, n + 1, 2 * n]) == [(3, 3), (n + 1, n + 1), (2 * n, 2 * n)]
    many = [k * n for k in range(_MANY_RANGES + 1)]
    assert ranges(0, many[-1], many) == [(0, many[-1])]
    assert len(ranges(0, many[-2], many[:-1])) == _MANY_RANGES


def test_overlay_for_another_session_is_refused(demo):
    data = load_session(demo, "s000051", "seq")
    model = TurnTreeModel()
    model.set_session(data.frame, data.marks, data.texts)
    with pytest.raises(ValueError):
        model.set_overlay(ViewOverlay("M0", 10, np.ones(data.frame.height + 1, dtype=bool)))


# -- navigation -------------------------------------------------------------------------
def test_f3_visits_the_marked_rows_in_tree_order_and_wraps(qtbot, demo):
    data = load_session(demo, "s000022", "ts-unstable")
    host = QWidget()
    qtbot.addWidget(host)
    other = QLineEdit(host)
    from widgets.session_panel import SessionPanel
    panel = SessionPanel(host)
    layout = QVBoxLayout(host)
    layout.addWidget(other)
    layout.addWidget(panel)
    panel.set_data(data)
    with qtbot.waitActive(host):
        host.show()
        host.activateWindow()
    other.setFocus()
    expected = [r for r in _expected_tree_rows(data.frame) if data.marks[r]]
    assert 3 < len(expected) < data.frame.height
    visited = []
    for _ in range(len(expected) + 1):
        qtbot.keyClick(other, Qt.Key.Key_F3)  # focus elsewhere in the window
        visited.append(panel.model.frame_row(panel.tree.currentIndex()))
    assert visited == expected + expected[:1]  # every marked row once, then wraps
    qtbot.keyClick(other, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert panel.model.frame_row(panel.tree.currentIndex()) == expected[-1]
    back = [panel.previous_finding() for _ in range(len(expected))]
    assert back == expected[-2::-1] + expected[-1:]
    index = panel.tree.currentIndex()
    assert panel.tree.isExpanded(index.parent())
    assert panel.tree.visualRect(index).intersects(panel.tree.viewport().rect())  # scrolled to


def test_f3_from_a_turn_row_and_without_findings(qtbot, store, tmp_path):
    load(store, jsonl(tmp_path / "t.jsonl", ROWS))
    panel = _panel(qtbot, load_session(store, "s", "seq"))
    panel.tree.setCurrentIndex(panel.model.index(2, 0))  # turn 2, after the orphan
    assert panel.next_finding() == 3  # wraps to the orphan RESULT in turn 1
    clean = [r for r in ROWS if r.get("call_id") != "lost"]
    load(store, jsonl(tmp_path / "c.jsonl", [dict(r, session_id="c") for r in clean]))
    panel.set_data(load_session(store, "c", "seq"))
    assert panel.next_finding() is None and panel.previous_finding() is None


def test_select_event_from_findings(qtbot, demo):
    data = load_session(demo, "k0001", "ts-unstable")
    panel = _panel(qtbot, data)
    findings = [f for f in audits.findings(demo, "ts-unstable") if f["session_id"] == "k0001"]
    assert len(findings) > 5
    frame = data.frame
    shown = [f for f in findings if f["rule"] != "duplicates"]  # a dropped copy is not shown
    assert {f["rule"] for f in shown} >= {"mispair", "turn_collisions", "duplicate_call_ids"}
    for finding in shown[:: max(1, len(shown) // 40)]:
        for event in finding["events"]:
            row = panel.select_event(event["seq"], event["sub"], event["kind"], event["call_id"])
            assert row is not None
            assert (frame["seq"][row], frame["kind"][row], frame["call_id"][row]) == \
                (event["seq"], event["kind"], event["call_id"])
            current = panel.tree.currentIndex()
            assert panel.model.frame_row(current) == row
            assert current.parent() == QModelIndex() or panel.tree.isExpanded(current.parent())
            assert f"seq: {event['seq']}" in panel.detail.toPlainText()
    assert panel.select_event(10**9, 0) is None


def test_keyboard_moves_update_the_detail(qtbot, store, tmp_path):
    load(store, jsonl(tmp_path / "t.jsonl", ROWS))
    panel = _panel(qtbot, load_session(store, "s", "seq"))
    panel.show()
    qtbot.waitExposed(panel)
    panel.tree.setFocus()
    panel.select_row(1)  # the USER of turn 1
    qtbot.keyClick(panel.tree, Qt.Key.Key_Down)
    assert panel.model.frame_row(panel.tree.currentIndex()) == 2
    assert "kind: CALL" in panel.detail.toPlainText()
    qtbot.keyClick(panel.tree, Qt.Key.Key_Right)  # opens the pair
    qtbot.keyClick(panel.tree, Qt.Key.Key_Down)
    assert panel.model.frame_row(panel.tree.currentIndex()) == 5
    assert "output:\nfiles" in panel.detail.toPlainText()


def test_expand_and_collapse_all(qtbot, demo):
    panel = _panel(qtbot, load_session(demo, "s000051", "seq"))
    panel.expand_all()
    parents = [i for i in _walk(panel.model) if panel.model.rowCount(i)]
    assert parents and all(panel.tree.isExpanded(i) for i in parents)
    panel.collapse_button.click()
    assert not any(panel.tree.isExpanded(i) for i in parents)


# -- detail, legend, rendering ----------------------------------------------------------
def test_event_detail_is_plain_text_with_view_state(qtbot, store, tmp_path):
    load(store, jsonl(tmp_path / "d.jsonl", ROWS))
    data = load_session(store, "s", "seq")
    panel = _panel(qtbot, data)
    panel.select_row(1)
    text = panel.detail.toPlainText()
    assert "kind: USER" in text and "<b>hello</b> there" in text
    assert "cost: 5 tokens (estimated from 1.5 CJK / 4 other characters per token)" in text
    assert "view (" not in text
    overlay = engine_overlay(data, "M0", 3)
    panel.set_overlay(overlay)  # the detail of the current row follows
    assert "view (M0 at 3 tokens): not in the view (greyed)" in panel.detail.toPlainText()
    panel.select_row(3)
    assert overlay.errors[3] == ("orphan_result",)
    assert f"view error orphan_result: {VIEW_ERROR_TEXT['orphan_result']}" in panel.detail.toPlainText()
    panel.set_overlay(engine_overlay(data, "agentscope:2:1", 1000))
    system = panel.model.index_of_row(0)
    panel.tree.setCurrentIndex(system.siblingAtRow(system.row() + 1))
    text = panel.detail.toPlainText()
    assert "synthetic item of the view (agentscope:2:1" in text and "kind: SUMMARY" in text
    assert "cost: 300 tokens" in text and "right after SYSTEM seq 1" in text


def test_reported_cost_is_said_so(qtbot, store, tmp_path):
    load(store, jsonl(tmp_path / "r.jsonl", [dict(ROWS[1], tokens=42)]))
    panel = _panel(qtbot, load_session(store, "s", "seq"))
    panel.select_row(0)
    assert "cost: 42 tokens (the writer's own count)" in panel.detail.toPlainText()
    assert "cost 42 tokens (42 the writer's own)" in panel.title.text()


def test_legend_has_every_mark_with_its_rule(qtbot):
    from widgets.tree_legend import TreeLegend
    legend = TreeLegend()
    qtbot.addWidget(legend)
    for key in FINDING_KEYS:
        assert audits.RULE_TEXT[key] in legend.entries[key].toolTip()
        assert not legend.entries[key].icon.pixmap().isNull()
    for error in VIEW_ERRORS:
        assert VIEW_ERROR_TEXT[error] in legend.entries[f"view:{error}"].toolTip()
    assert {"out_of_view", "synthetic"} <= set(legend.entries)
    labels = [e.label.text() for e in legend.entries.values()]
    assert len(set(labels)) == len(labels) == len(STYLES)


def test_show_session_and_clear(qtbot, store, tmp_path):
    from widgets.session_panel import SessionPanel
    load(store, jsonl(tmp_path / "d.jsonl", ROWS))
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.show_session(store, "s", "seq")
    assert panel.title.text().startswith("s: 6 events in 2 turns and a preamble, ")
    assert panel.model.rowCount() == 3
    panel.clear()
    assert panel.model.rowCount() == 0 and panel.next_finding() is None
    panel.set_overlay(None)  # nothing shown: no error


def test_cjk_session_renders(qtbot, store, tmp_path):
    rows = [{"session_id": "中文", "seq": 1, "kind": "USER", "text": "请帮我读取配置文件，然后检查错误。"},
            {"session_id": "中文", "seq": 2, "kind": "CALL", "call_id": "c1", "tool": "read_file",
             "text": "读取 config.yaml"},
            {"session_id": "中文", "seq": 3, "kind": "RESULT", "call_id": "c1", "text": "端口：八〇八〇"},
            {"session_id": "中文", "seq": 4, "kind": "RESULT", "call_id": "丢失", "text": "孤立的结果"}]
    load(store, jsonl(tmp_path / "cjk.jsonl", rows))
    data = load_session(store, "中文", "seq")
    panel = _panel(qtbot, data)
    panel.set_overlay(engine_overlay(data, "M2", 12))
    panel.expand_all()
    panel.select_row(3)
    assert panel.model.index(0, 0).data() == "Turn 1 — 请帮我读取配置文件，然后检查错误。"
    image = panel.grab().toImage()
    path = tmp_path / "cjk.png"
    assert panel.grab().save(str(path)) and path.stat().st_size > 0
    assert not image.isNull() and len({image.pixel(x, 60) for x in range(0, image.width(), 3)}) > 3
