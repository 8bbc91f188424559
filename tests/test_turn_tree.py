"""The turn tree model: turns, pairs nested under their CALL, marks, lazy children."""

from __future__ import annotations

from explorer.demo import demo_paths
from explorer.marks import event_marks
from explorer.turns import session_events
from tests.helpers import jsonl, load
from widgets.turn_tree_model import TurnTreeModel

ROWS = [
    {"session_id": "s", "seq": 1, "kind": "SYSTEM", "text": "be brief"},
    {"session_id": "s", "seq": 2, "kind": "USER", "text": "<b>hello</b> there"},
    {"session_id": "s", "seq": 3, "kind": "CALL", "call_id": "a", "tool": "bash", "text": "ls"},
    {"session_id": "s", "seq": 4, "kind": "RESULT", "call_id": "lost", "text": "?"},
    {"session_id": "s", "seq": 5, "kind": "USER", "text": "next"},
    {"session_id": "s", "seq": 6, "kind": "RESULT", "call_id": "a", "text": "files"},
]


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


def test_turns_and_pairs(qtmodeltester, store, tmp_path):
    model = _model(store, tmp_path)
    turns = [model.index(r, 0) for r in range(model.rowCount())]
    assert [t.data() for t in turns] == ["Preamble — be brief", "Turn 1 — <b>hello</b> there",
                                         "Turn 2 — next"]
    assert model.rowCount(turns[1]) == 0 and model.canFetchMore(turns[1])  # lazy
    assert _texts(model, turns[1]) == ["USER — <b>hello</b> there", "CALL bash a — ls",
                                       "RESULT lost — ?"]
    call = model.index(1, 0, turns[1])
    # the RESULT of call "a" sits in turn 2 of the log but shows under its CALL
    assert _texts(model, call) == ["RESULT a — files"]
    assert _texts(model, turns[2]) == ["USER — next"]
    orphan = model.index(2, 3, turns[1])
    assert orphan.data() == "orphan result" and "no call" in orphan.data(3)  # tooltip
    qtmodeltester.check(model)


def test_demo_session_model(qtmodeltester, store):
    load(store, *demo_paths())
    frame = session_events(store, "k0002", "ts-unstable")
    model = TurnTreeModel()
    model.set_session(frame, event_marks(frame))
    for r in range(model.rowCount()):
        model.fetchMore(model.index(r, 0))
    shown = sum(model.rowCount(model.index(r, 0)) for r in range(model.rowCount()))
    nested = sum(model.rowCount(model.index(c, 0, model.index(r, 0)))
                 for r in range(model.rowCount()) for c in range(model.rowCount(model.index(r, 0))))
    assert shown + nested == frame.height  # every event once
    qtmodeltester.check(model)


def test_event_detail_is_plain_text(qtbot, store, tmp_path):
    from widgets.session_panel import SessionPanel
    load(store, jsonl(tmp_path / "d.jsonl", ROWS))
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.show_session(store, "s", "seq")
    turn = panel.model.index(1, 0)
    if panel.model.canFetchMore(turn):
        panel.model.fetchMore(turn)
    panel.tree.setCurrentIndex(panel.model.index(0, 0, turn))
    text = panel.detail.toPlainText()
    assert "kind: USER" in text and "<b>hello</b> there" in text
    assert "cost: 5 tokens (estimated from the content)" in text
