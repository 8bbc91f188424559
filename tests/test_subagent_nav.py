"""Sub-agents one click away, and back (issue 17), with keys only: Enter on the Task CALL of
the real Claude Code corpus session shows its sub-agent's session (selected in the list),
Alt+Left goes back to the parent with that CALL selected, Alt+Right goes forward again. The
link is read from the raw files here (the parent's agent_progress records name the child's
agentId and the Task call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.session.subagents import children_by_call
from widgets.app import make_window
from widgets.turn_tree_cells import SUBAGENT_MARK

WAIT = 60_000
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "claude-code"
PARENT = CORPUS / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
CHILD = CORPUS / "marot-spotter__agent-aac57f5.jsonl"
KEY, ALT = Qt.Key, Qt.KeyboardModifier.AltModifier


def raw_link() -> tuple[str, str, str]:
    """(parent session, Task call id, child agent id) from the raw files."""
    agent = json.loads(CHILD.read_text(encoding="utf-8").splitlines()[0])["agentId"]
    for line in PARENT.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        data = record.get("data") or {}
        if data.get("type") == "agent_progress" and data.get("agentId") == agent:
            return record["sessionId"], record["parentToolUseID"], agent
    raise AssertionError("no agent_progress record names the child")


def focus():
    return QApplication.focusWidget()


def test_children_by_call():
    parents = {"p/a": ("p", "c1"), "p/b": ("p", "c2"), "q/a": ("q", "c1"), "p/z": ("p", None)}
    assert children_by_call(parents, "p") == {"c1": "p/a", "c2": "p/b"}
    assert children_by_call(parents, "x") == {}


@pytest.fixture
def window(qtbot):
    if not CHILD.exists():
        pytest.skip("the shared corpus is not here")
    window = make_window([])
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(PARENT), str(CHILD)])
    return window


def test_enter_opens_the_sub_agent_and_alt_left_comes_back_to_its_call(qtbot, window):
    parent, call, agent = raw_link()
    nav, panel = window.subagents, window.session_panel
    if window.workspace.session_id != parent:
        with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
            window.select_session(parent)
    qtbot.waitUntil(lambda: window.workspace.data is not None, timeout=WAIT)
    assert not nav.back_action.isEnabled()               # the parent has no parent
    frame = window.workspace.data.frame
    kinds, calls = frame["kind"].cast(str).to_list(), frame["call_id"].to_list()
    task = next(r for r, (k, c) in enumerate(zip(kinds, calls)) if k == "CALL" and c == call)
    other = next(r for r, k in enumerate(kinds) if k == "CALL" and r != task)
    panel.tree.setFocus()
    panel.select_row(other)
    assert not nav.open_action.isEnabled()               # another call: no sub-agent
    panel.select_row(task)
    assert nav.open_action.isEnabled() and agent in nav.open_action.toolTip()
    # the row says it started a sub-agent (that row only), its tooltip names the session
    marked = [r for r in range(len(kinds))
              if SUBAGENT_MARK in (panel.model.index_of_row(r).data() or "")]
    assert marked == [task]
    assert agent in panel.model.index_of_row(task).data(Qt.ItemDataRole.ToolTipRole)
    assert focus() is panel.tree
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        qtbot.keyClick(panel.tree, KEY.Key_Return)       # Enter on the Task row
    child = window.workspace.data.session_id
    assert child.startswith(parent) and child.endswith(agent)
    assert window.sessions.selected_session() == child    # selected in the list too
    assert nav.back_action.isEnabled() and not nav.open_action.isEnabled()
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        qtbot.keyClick(focus(), KEY.Key_Left, ALT)       # back
    assert window.workspace.data.session_id == parent
    assert window.sessions.selected_session() == parent
    current = panel.model.frame_row(panel.tree.currentIndex())
    assert current == task                               # the calling row selected
    assert nav.open_action.isEnabled()
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        qtbot.keyClick(focus(), KEY.Key_Right, ALT)      # and forward again
    assert window.workspace.data.session_id == child
    # both actions are in the View menu (Help → Keyboard shortcuts lists them)
    assert {nav.open_action, nav.back_action} <= set(window.menu_actions())
