"""The key-collapse view for auditors (issue 17, AUDITS.md "Key collapse"): per storage key
that several user_ids share, its users, their events and logged turns, the colliding turns;
the figures computed here from the raw demo file (its collapsed keys), and the window's
View → Key collapse… driven with keys: a row chosen shows its key's session at that user's
first event."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.audits import counts as audits
from explorer.audits.key_collapse import key_collapse, runs_text
from explorer.cli.demo import demo_paths
from explorer.store.db import Store
from tests.helpers import jsonl, load
from widgets.app import make_window

WAIT = 60_000
KEY, CTRL, SHIFT = Qt.Key, Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def raw_users() -> dict[tuple[str, str], dict]:
    """(key, user_id) -> events, logged turns, collided turns, first seq: from the raw demo
    files, a repeated event (same session, event_id and content, FORMAT.md) counted once."""
    seen, users = set(), {}
    for path in demo_paths():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            records = [json.loads(line) for line in fh]
        for r in records:
            same = (r["session_id"], r.get("event_id"), r["kind"], r.get("call_id"),
                    r.get("tool"), r.get("text"))
            if r.get("event_id") is not None and same in seen:
                continue
            seen.add(same)
            if r.get("user_id") is None:
                continue
            u = users.setdefault((r["session_id"], r["user_id"]),
                                 {"events": 0, "turns": set(), "first": r["seq"]})
            u["events"] += 1
            u["first"] = min(u["first"], r["seq"])
            if r.get("turn") is not None:
                u["turns"].add(r["turn"])
    by_key = defaultdict(list)
    for (key, user) in users:
        by_key[key].append(user)
    out = {}
    for key, ids in by_key.items():
        if len(ids) < 2:
            continue
        for user in ids:
            mine = users[(key, user)]
            others = set().union(*(users[(key, o)]["turns"] for o in ids if o != user))
            out[(key, user)] = dict(mine, collided=mine["turns"] & others)
    return out


@pytest.fixture(scope="module")
def demo_store():
    store = Store()
    load(store, *demo_paths())
    yield store
    store.close()


def test_each_shared_key_lists_its_users_and_turns(demo_store):
    expected = raw_users()
    found = key_collapse(demo_store)
    got = {(u.session_id, u.user_id): {"events": u.events, "turns": set(u.turns),
                                       "first": u.first["seq"], "collided": set(u.collided)}
           for u in found.users}
    assert got == expected
    assert len({k for k, _ in expected}) == 12                 # the demo's 12 collapsed keys
    # the keys and colliding turns are the audit's collapsed_keys and turn_collisions
    counts = audits.corpus_counts(demo_store)
    assert found.keys == counts["collapsed_keys"]
    assert found.turn_collisions == counts["turn_collisions"]
    # each key's users in the order they first wrote
    for key in {k for k, _ in expected}:
        firsts = [u.first["seq"] for u in found.of(key)]
        assert firsts == sorted(firsts)


def test_only_the_turns_another_user_logged_collide(tmp_path):
    def ev(key, seq, user, turn, kind="USER"):
        return {"session_id": key, "seq": seq, "kind": kind, "text": "x", "user_id": user,
                "turn": turn}
    rows = [ev("k", 1, "a", 1), ev("k", 2, "a", 2), ev("k", 3, "b", 2), ev("k", 4, "b", 3),
            ev("k", 5, None, 3), ev("k", 6, "b", None, "ASSISTANT"),
            ev("alone", 1, "a", 1), ev("alone", 2, None, 1)]
    store = Store()
    load(store, jsonl(tmp_path / "k.jsonl", rows))
    found = key_collapse(store)
    assert [(u.session_id, u.user_id, u.events, u.turns, u.collided, u.first["seq"])
            for u in found.users] == [("k", "a", 2, (1, 2), (2,), 1),
                                      ("k", "b", 3, (2, 3), (2,), 3)]
    assert (found.keys, found.turn_collisions) == (1, 1)
    store.close()


def test_runs_text():
    assert runs_text([5, 1, 2, 3, 8, 7]) == "1–3, 5, 7–8"
    assert runs_text([]) == "" and runs_text([4]) == "4"


@pytest.fixture
def window(qtbot):
    window = make_window([])
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.import_paths([str(p) for p in demo_paths()])
    return window


def test_key_collapse_window_jumps_to_the_session_of_a_row(qtbot, window):
    expected = raw_users()
    window.session_panel.tree.setFocus()
    qtbot.keyClick(QApplication.focusWidget(), KEY.Key_U, CTRL | SHIFT)   # View → Key collapse…
    dialog = window.key_collapse.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == len(expected), timeout=WAIT)
    assert "12 storage key(s)" in dialog.summary.text()
    dialog.activateWindow()
    dialog.view.setFocus()
    panel = window.session_panel
    qtbot.keyClick(dialog.view, KEY.Key_Down)          # the first row: the session shown
    first = dialog.model.user(0)
    assert window.workspace.session_id == first.session_id
    qtbot.waitUntil(lambda: panel.tree.currentIndex().isValid(), timeout=WAIT)
    shown = window.workspace.data.event(panel.model.frame_row(panel.tree.currentIndex()))
    assert (shown["seq"], shown["user_id"]) == (first.first["seq"], first.user_id)
    last = dialog.model.user(dialog.model.rowCount() - 1)
    assert last.session_id != first.session_id
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        qtbot.keyClick(dialog.view, KEY.Key_End, CTRL)  # the last row becomes current
    user = dialog.model.user(dialog.view.currentIndex().row())
    assert user == last
    assert window.workspace.data.session_id == user.session_id
    assert window.sessions.selected_session() == user.session_id
    qtbot.waitUntil(lambda: panel.tree.currentIndex().isValid(), timeout=WAIT)
    event = window.workspace.data.event(panel.model.frame_row(panel.tree.currentIndex()))
    assert event["seq"] == expected[(user.session_id, user.user_id)]["first"]
    assert event["user_id"] == user.user_id
    # a row's cells: the whole key, the turns as runs
    row = dialog.view.currentIndex().row()
    cells = [dialog.model.index(row, c).data(Qt.ItemDataRole.UserRole) for c in range(7)]
    assert cells[:3] == [user.session_id, user.user_id, user.events]
    assert cells[3] == runs_text(expected[(user.session_id, user.user_id)]["turns"])
    dialog.close()
