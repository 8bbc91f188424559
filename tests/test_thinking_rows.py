"""Thinking collapsed under its message (issue 17): a thinking block (OTHER, note thinking)
is a child row of the event of the assistant message it belongs to — the message's ASSISTANT
event, else its CALL (before that CALL's RESULT), else the next ASSISTANT or CALL of the turn —
collapsed until that row is expanded. Checked on the real Claude Code corpus session, the
owners read from the raw file here, and on small canonical logs for the fallbacks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.audits.marks import event_marks
from explorer.ingest.imports import import_paths
from explorer.model import Order
from explorer.session.data import load_session, load_tree
from explorer.session.view_overlay import SyntheticItem, ViewOverlay
from explorer.store.db import Store
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load
from widgets.turn_tree_model import TurnTreeModel

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude-code"
MAIN = CORPUS / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def raw_owners(path: Path) -> dict[str, str]:
    """Each thinking text of the file's main messages -> the first text block of its message
    (read from the raw lines: one block per line, a message's lines share message.id)."""
    thinking: dict[str, list[str]] = {}
    first_text: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        if record.get("type") != "assistant" or record.get("isSidechain"):
            continue
        for block in message.get("content") or []:
            if block.get("type") == "thinking":
                thinking.setdefault(message["id"], []).append(block["thinking"])
            elif block.get("type") == "text":
                first_text.setdefault(message["id"], block["text"])
    return {t: first_text[m] for m, texts in thinking.items() for t in texts}


@pytest.fixture(scope="module")
def spotter():
    if not MAIN.exists():
        pytest.skip("the shared corpus is not here")
    store = Store()
    import_paths(store, [MAIN])
    yield store
    store.close()


def test_each_thinking_block_sits_under_its_messages_text(spotter):
    expected = raw_owners(MAIN)
    assert len(expected) == 6
    frame = session_events(spotter, SESSION)          # the wide frame: texts in it
    texts, kinds = frame["text"].to_list(), frame["kind"].cast(str).to_list()
    owners = {texts[r]: int(p) - 1 for r, p in enumerate(frame["thinking_owner_pos"].to_list())
              if p is not None}
    assert {t: texts[o] for t, o in owners.items()} == expected
    assert {kinds[o] for o in owners.values()} == {"ASSISTANT"}
    # the tree read first (its few columns) places them alike, each right after its owner
    tree = load_tree(spotter, SESSION).tree
    at = tree.tree_pos
    assert sorted(tree.tree_order.tolist()) == list(range(frame.height))
    for thought, owner in owners.items():
        row = texts.index(thought)
        assert at[row] == at[owner] + 1 and tree.turn_of[row] == tree.turn_of[owner]
        assert row not in tree.top_rows[int(tree.turn_of[row])]


def test_the_tree_shows_thinking_collapsed_under_its_message(qtbot, qtmodeltester, spotter):
    from widgets.session_panel import SessionPanel
    panel = SessionPanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    panel.show_session(spotter, SESSION, Order.SEQ)
    model, tree = panel.model, panel.tree
    qtmodeltester.check(model)
    frame = panel.model._frame
    thinking = [r for r, (k, n) in enumerate(zip(frame["kind"].cast(str), frame["note"]))
                if k == "OTHER" and n == "thinking"]
    row = thinking[0]
    child = model.index_of_row(row)
    owner = child.parent()
    assert model.frame_row(owner) == int(frame["thinking_owner_pos"][row]) - 1
    assert model.index(0, 0, owner) == child            # the message's first child
    assert child.data().startswith("OTHER (thinking)")
    tree.setCurrentIndex(owner)
    tree.collapse(owner)
    assert model.hasChildren(owner) and not tree.isExpanded(owner)   # collapsed
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_Right)                            # expand it with a key
    assert tree.isExpanded(owner)
    qtbot.keyClick(tree, Qt.Key.Key_Down)
    assert tree.currentIndex() == child
    assert "thinking" in panel.detail.toPlainText()


# -- the fallbacks, on a small canonical log -----------------------------------------------
ROWS = [
    {"session_id": "s", "seq": 1, "kind": "USER", "text": "go"},
    {"session_id": "s", "seq": 2, "kind": "OTHER", "note": "thinking", "message_id": "m1",
     "text": "plan a call"},
    {"session_id": "s", "seq": 3, "kind": "CALL", "message_id": "m1", "call_id": "a",
     "tool": "bash", "text": "ls"},
    {"session_id": "s", "seq": 4, "kind": "RESULT", "call_id": "a", "text": "files"},
    {"session_id": "s", "seq": 5, "kind": "OTHER", "note": "thinking", "text": "no message"},
    {"session_id": "s", "seq": 6, "kind": "ASSISTANT", "message_id": "m2", "text": "done"},
    {"session_id": "s", "seq": 7, "kind": "OTHER", "note": "thinking", "message_id": "m3",
     "text": "last word"},
    {"session_id": "s", "seq": 8, "kind": "USER", "text": "again"},
    {"session_id": "s", "seq": 9, "kind": "ASSISTANT", "message_id": "m4", "text": "sure"},
    {"session_id": "s", "seq": 10, "kind": "CALL", "message_id": "m4", "call_id": "b",
     "tool": "bash", "text": "pwd"},
    {"session_id": "s", "seq": 11, "kind": "OTHER", "note": "thinking", "message_id": "m4",
     "text": "after the text"},
]


def _children(model, parent):
    if model.canFetchMore(parent):
        model.fetchMore(parent)
    return [model.index(r, 0, parent) for r in range(model.rowCount(parent))]


def test_a_thinking_block_without_a_text_goes_to_its_call_else_to_the_next(tmp_path):
    store = Store()
    load(store, jsonl(tmp_path / "t.jsonl", ROWS))
    frame = session_events(store, "s")
    seq = frame["seq"].to_list()
    owner = {seq[r]: (seq[p - 1] if p is not None else None)
             for r, p in enumerate(frame["thinking_owner_pos"].to_list())
             if frame["note"][r] == "thinking"}
    # its message's CALL; the next of the turn (no message_id); none (nothing after it in
    # its turn: it stays a row of the turn); its message's ASSISTANT, written before it
    assert owner == {2: 3, 5: 6, 7: None, 11: 9}
    data = load_session(store, "s")
    assert data.frame["thinking_owner_pos"].equals(frame["thinking_owner_pos"])
    model = TurnTreeModel()
    model.set_session(data.frame, event_marks(data.frame), data.texts)
    order = [seq[r] for r in model.tree.tree_order.tolist()]
    assert order == [1, 3, 2, 4, 6, 5, 7, 8, 9, 11, 10]
    turn1 = model.index(0, 0)
    tops = _children(model, turn1)
    assert [seq[model.frame_row(i)] for i in tops] == [1, 3, 6, 7]
    call = tops[1]
    assert [seq[model.frame_row(i)] for i in _children(model, call)] == [2, 4]   # before RESULT
    # a synthetic row after the CALL comes first under it, and goes again, the rest kept
    n = frame.height
    overlay = ViewOverlay("M0", 100, np.ones(n, dtype=bool),
                          synthetic=(SyntheticItem(2, "RESULT", 3, "placeholder"),
                                     SyntheticItem(1, "USER", 2, "after thinking")))
    model.set_overlay(overlay)
    under = _children(model, call)
    assert under[0].data().startswith("RESULT — placeholder")
    assert [model.frame_row(i) for i in under] == [None, 1, None, 3]
    model.set_overlay(None)
    assert [seq[model.frame_row(i)] for i in _children(model, call)] == [2, 4]
    assert model.index_of_row(4).parent() == tops[2]     # the thinking of seq 5 under seq 6
    store.close()
