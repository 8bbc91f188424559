"""The window driven by the keyboard alone (issue 17): the Tab order, the shortcuts that move
the focus, F3 over one rule's findings and on into the next session, Escape to the tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog

from explorer.cli.demo import demo_paths
from widgets.app import make_window

WAIT = 60_000
CLAUDE = (Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude-code"
          / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
KEY = Qt.Key
CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def focus():
    return QApplication.focusWidget()


def press(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """One key, where a user's would go: to the widget with the focus."""
    qtbot.keyClick(focus(), key, modifier)


def current_event(window) -> dict:
    panel = window.session_panel
    row = panel.model.frame_row(panel.tree.currentIndex())
    return window.workspace.data.frame.row(row, named=True) | {"row": row}


@pytest.fixture
def shown_window(qtbot):
    """An empty window, shown and active (shortcuts only reach an active window)."""
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.session_panel.tree.setFocus()
    return window


def test_open_pick_step_read_and_change_the_budget_with_keys_only(qtbot, shown_window,
                                                                   monkeypatch):
    window = shown_window
    paths = [str(p) for p in demo_paths()]
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: (paths, ""))
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        press(qtbot, KEY.Key_O, CTRL)          # open: the first session with findings shows
    assert window.model.rowCount() > 2

    press(qtbot, KEY.Key_L, CTRL)              # the session list, with the focus in it
    assert focus() is window.table
    first = window.sessions.selected_session()
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        press(qtbot, KEY.Key_Down)             # pick the next session
    picked = window.sessions.selected_session()
    assert picked != first and window.workspace.data.session_id == picked
    assert any(window.workspace.data.marks)    # the demo's second session has findings

    press(qtbot, KEY.Key_Escape)               # back to the tree
    assert focus() is window.session_panel.tree
    press(qtbot, KEY.Key_F3)                   # step to a finding
    event = current_event(window)
    assert window.workspace.data.marks[event["row"]], "F3 stops on a marked event"

    press(qtbot, KEY.Key_Tab)                  # read it: Tab goes from the tree to the detail
    assert focus() is window.session_panel.detail
    text = window.session_panel.detail.toPlainText()
    assert f"seq: {event['seq']}\n" in text and f"kind: {event['kind']}\n" in text

    press(qtbot, KEY.Key_B, CTRL)              # change the budget
    assert focus() is window.preview.budget_control.box
    qtbot.keyClicks(focus(), "8000")
    press(qtbot, KEY.Key_Return)
    assert window.preview.budget() == 8000
    assert window.preview.current_overlay().budget == 8000
    assert window.workspace.cost_plot.budget() == 8000


def test_tab_leaves_the_tables_and_shift_tab_into_the_list_keeps_the_session(qtbot,
                                                                            shown_window):
    window = shown_window
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(p) for p in demo_paths()])
    chosen = window.sessions.selected_session()
    press(qtbot, KEY.Key_K, CTRL | SHIFT)      # the strategy comparison
    table = window.preview.table
    assert focus() is table
    press(qtbot, KEY.Key_Tab)
    assert focus() is not table                # one Tab and it is out
    # Back from the tree, Shift+Tab lands in the list without switching the session.
    press(qtbot, KEY.Key_Escape)
    assert focus() is window.session_panel.tree
    press(qtbot, KEY.Key_Backtab, SHIFT)
    assert focus() is window.table
    assert window.sessions.selected_session() == chosen
    press(qtbot, KEY.Key_Tab)
    assert focus() is window.session_panel.tree
    # Ctrl+Shift+F shows the findings with the focus in their table.
    press(qtbot, KEY.Key_F, CTRL | SHIFT)
    assert focus() is window.findings.view and window.left_tabs.currentWidget() is window.findings


def test_f3_over_one_rule_goes_on_to_the_next_session_with_its_findings(qtbot, shown_window):
    window = shown_window
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(p) for p in demo_paths()])
    panel = window.session_panel
    # The rule with findings in the most sessions: F3 has a next session to go on to.
    rules = {rule: [r for r in range(window.model.rowCount())
                    if window.model.has_findings_of(r, rule)]
             for rule in (panel.rule_box.itemData(i) for i in range(1, panel.rule_box.count()))}
    rule, rows = max(rules.items(), key=lambda kv: len(kv[1]))
    assert len(rows) >= 2
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session(window.model.session_id(rows[0]))
    panel.set_finding_rule(rule)
    marks = window.workspace.data.marks
    expected = [r for r in panel.model.finding_rows() if rule in marks[r]]
    assert expected
    press(qtbot, KEY.Key_Escape)
    seen = []
    for _ in expected:
        press(qtbot, KEY.Key_F3)
        seen.append(current_event(window)["row"])
    assert seen == expected                    # only that rule's events, in tree order
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        press(qtbot, KEY.Key_F3)               # past the last: the next session with one
    assert window.sessions.selected_session() == window.model.session_id(rows[1])
    event = current_event(window)
    assert rule in window.workspace.data.marks[event["row"]]
    assert event["row"] == panel.finding_rows()[0]
    # and Shift+F3 from its first finding goes back to the previous session's last one
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        press(qtbot, KEY.Key_F3, SHIFT)
    assert window.sessions.selected_session() == window.model.session_id(rows[0])
    assert current_event(window)["row"] == expected[-1]


def test_ctrl_f_finds_the_sessions_events_holding_the_words(qtbot, shown_window):
    window = shown_window
    if not CLAUDE.exists():
        pytest.skip("the shared corpus is not here")
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(CLAUDE)])
    panel = window.session_panel
    frame = window.workspace.data.frame
    texts = [panel.model.event(r).get("text") or "" for r in range(frame.height)]
    word = "mix"   # in the user's asks, the tools' arguments (mix test) and their output
    expected = {r for r, t in enumerate(texts) if word.lower() in t.lower()}
    assert 0 < len(expected) < frame.height
    assert {"USER", "CALL", "RESULT"} <= {frame["kind"][r] for r in expected}
    press(qtbot, KEY.Key_F, CTRL)
    assert focus() is panel.find_bar.edit
    qtbot.keyClicks(focus(), word.upper())           # case folded
    press(qtbot, KEY.Key_Return)
    assert set(panel.hits()) == expected
    seen = [current_event(window)["row"]]
    for _ in range(len(expected) - 1):
        press(qtbot, KEY.Key_Return)
        seen.append(current_event(window)["row"])
    assert set(seen) == expected and len(seen) == len(expected)
    assert panel.find_bar.count_label.text() == f"{len(expected)} of {len(expected)}"
    press(qtbot, KEY.Key_Return, SHIFT)              # and back
    assert current_event(window)["row"] == seen[-2 if len(seen) > 1 else -1]
    # the hits are marked in the tree; other rows are not
    model = panel.model
    hit = model.index_of_row(seen[0])
    assert hit.data(Qt.ItemDataRole.BackgroundRole) is not None
    other = next(r for r in range(frame.height) if r not in expected
                 and not window.workspace.data.marks[r])
    assert model.index_of_row(other).data(Qt.ItemDataRole.BackgroundRole) is None
    press(qtbot, KEY.Key_Escape)
    assert focus() is panel.tree


def test_ctrl_c_copies_events_as_json_and_tables_as_tsv(qtbot, shown_window):
    window = shown_window
    if not CLAUDE.exists():
        pytest.skip("the shared corpus is not here")
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(CLAUDE)])
    panel = window.session_panel
    lines = CLAUDE.read_text(encoding="utf-8").splitlines()
    press(qtbot, KEY.Key_Escape)
    press(qtbot, KEY.Key_Down)                       # the first event of the first turn
    press(qtbot, KEY.Key_Down, SHIFT)                # and the next one
    rows = panel.selected_rows()
    assert len(rows) == 2
    press(qtbot, KEY.Key_C, CTRL)
    copied = [json.loads(line) for line in QApplication.clipboard().text().splitlines()]
    assert len(copied) == 2
    for row, item in zip(rows, copied):
        event = panel.model.event(row)
        assert item["event"]["session_id"] == window.workspace.data.session_id
        assert item["event"]["kind"] == event["kind"] and item["event"]["seq"] == event["seq"]
        assert item["event"].get("text") == event.get("text")
        # the raw record is the file's line (the reader numbers events by line)
        record = json.loads(lines[event["seq"] - 1])
        assert item["raw"]["uuid"] == record["uuid"] == item["event"]["event_id"]
    # the comparison: three rows selected, copied as TSV with a header and unformatted values
    window.preview.compare.refresh()
    press(qtbot, KEY.Key_K, CTRL | SHIFT)
    press(qtbot, KEY.Key_Home, CTRL)
    for _ in range(2):
        press(qtbot, KEY.Key_Down, SHIFT)
    press(qtbot, KEY.Key_C, CTRL)
    tsv = [line.split("\t") for line in QApplication.clipboard().text().splitlines()]
    compare = window.preview.compare
    assert tsv[0] == [compare.headerData(c, Qt.Orientation.Horizontal)
                      for c in range(compare.columnCount())]
    assert [(r[0], int(r[1])) for r in tsv[1:]] == [(r["strategy"], r["cost"])
                                                    for r in compare.rows()[:3]]


def test_open_marks_the_new_sessions_and_save_database_as_keeps_them(qtbot, shown_window,
                                                                      monkeypatch, tmp_path):
    from explorer.formats.file_patterns import PATTERNS
    from explorer.formats.registry import READERS
    from explorer.store.db import Store
    from widgets.texts import LOG_FILTER
    window = shown_window
    first, *others = [str(p) for p in demo_paths()]
    # the default filter lists every reader's files, then one filter per format
    filters = LOG_FILTER.split(";;")
    default = filters[0]
    for name in ("*.traj", "*.json", "*.yaml", "*.eval", "*.jsonl", "*.parquet", "*.csv"):
        assert name in default.split("(")[1].rstrip(")").split()
    assert [f.split(" (")[0] for f in filters[1:-1]] == [PATTERNS[r.NAME][0] for r in READERS]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        window.import_paths([first])
    before = {window.model.session_id(r) for r in range(window.model.rowCount())}
    assert not window.sessions.model.new_sessions()     # a first import marks nothing
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: (others, ""))
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        press(qtbot, KEY.Key_O, CTRL)
    after = {window.model.session_id(r) for r in range(window.model.rowCount())}
    assert after > before
    assert window.sessions.model.new_sessions() == after - before
    for row in range(window.model.rowCount()):
        bold = window.model.index(row, 0).data(Qt.ItemDataRole.FontRole)
        assert (bold is not None and bold.bold()) == (window.model.session_id(row) not in before)
    assert f"({len(after - before)} new, in bold)" in window.rows_label.text()
    # File → Save Database As… writes every session to a file that opens
    out = tmp_path / "saved.duckdb"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    offered = []   # File → Open Recent offers it (not kept: the settings are the suite's)
    monkeypatch.setattr(window.recent, "add_database", offered.append)
    assert window.save_database_as() is not None
    # it may end before a waitSignal connected now would hear it: wait for what it does
    qtbot.waitUntil(lambda: offered == [str(out)], timeout=WAIT)
    saved = Store(out)
    try:
        assert {sid for (sid,) in saved.run("session_names")} == after
    finally:
        saved.close()


def test_help_lists_every_shortcut_and_every_mark(qtbot, shown_window):
    from widgets.mark_style import STYLES
    window = shown_window
    dialog = window.show_shortcuts()
    shown = {dialog.table.topLevelItem(i).text(0): dialog.table.topLevelItem(i).text(1)
             for i in range(dialog.table.topLevelItemCount())}
    for action in window.menu_actions():
        if not action.shortcut().isEmpty():
            assert action.shortcut().toString(QKeySequence.SequenceFormat.NativeText) in shown
    for keys in ("Ctrl+L", "Ctrl+F", "Ctrl+B", "Esc", "F3 / Shift+F3", "Ctrl+C"):
        assert keys in shown, keys
    dialog.close()
    marks = window.show_marks()
    keys = [marks.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(marks.list.count())]
    assert keys == list(STYLES)
    assert all(STYLES[k].rule in marks.list.item(i).text() for i, k in enumerate(keys))
    marks.close()


def test_the_session_id_column_stays_when_the_list_scrolls_sideways(qtbot, shown_window):
    window = shown_window
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(p) for p in demo_paths()])
    table = window.table
    window.splitter.setSizes([260, 1000])           # a narrow list: it scrolls sideways
    qtbot.waitUntil(lambda: table.horizontalScrollBar().maximum() > 0)
    table.horizontalScrollBar().setValue(table.horizontalScrollBar().maximum())
    frozen = table.frozen
    assert frozen.isVisible() and frozen.focusPolicy() == Qt.FocusPolicy.NoFocus
    assert frozen.x() == table.frameWidth() and frozen.columnWidth(0) == table.columnWidth(0)
    assert frozen.selectionModel() is table.selectionModel()
    # it shows the id of each row the table shows, the selection moving in both
    table.verticalScrollBar().setValue(table.verticalScrollBar().maximum())
    assert frozen.verticalScrollBar().value() == table.verticalScrollBar().value()
    top = table.rowAt(0)
    assert frozen.rowAt(0) == top
    assert frozen.indexAt(frozen.viewport().rect().topLeft()).data() == \
        window.model.index(top, 0).data()


def test_the_corpus_search_lists_the_sessions_holding_the_words(qtbot, shown_window):
    window = shown_window
    if not CLAUDE.exists():
        pytest.skip("the shared corpus is not here")
    agent = CLAUDE.with_name("marot-spotter__agent-aac57f5.jsonl")
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(CLAUDE), str(agent)])
    # the events of each session whose text holds the word, counted here in Python
    expected = {}
    for session_id, text in window.store.con.execute(
            "SELECT e.session_id, d.text FROM events e JOIN event_details d USING (eid)"
            " WHERE d.text IS NOT NULL").fetchall():
        if "otel" in text.lower():
            expected[session_id] = expected.get(session_id, 0) + 1
    assert len(expected) == 2                          # the parent and its sub-agent
    press(qtbot, KEY.Key_L, CTRL | SHIFT)
    search = window.corpus_search
    assert focus() is search.edit
    qtbot.keyClicks(focus(), "OTEL")
    press(qtbot, KEY.Key_Return)
    qtbot.waitUntil(lambda: bool(search.hits()), timeout=WAIT)
    assert {h.session_id: h.events for h in search.hits()} == expected
    counts = [h.events for h in search.hits()]
    assert counts == sorted(counts, reverse=True)
    target = search.hits()[-1]
    press(qtbot, KEY.Key_Tab)                          # into the results
    assert focus() is search.results
    search.results.setCurrentItem(search.results.topLevelItem(len(search.hits()) - 1))
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        press(qtbot, KEY.Key_Return)
    event = current_event(window)
    assert window.workspace.data.session_id == target.session_id
    assert (event["seq"], event["sub"]) == (target.first["seq"], target.first["sub"])
    assert "otel" in (window.session_panel.model.event(event["row"]).get("text") or "").lower()
