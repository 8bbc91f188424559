"""File → Repair session… (widgets/repair_dialog.py): the diff of a real session's repair is
planned off the GUI thread and shown before anything is written; the copy it writes imports
clean for the provider chosen."""

from __future__ import annotations

from explorer.repair import plan
from tests.test_repair import ORPHAN_ID, SESSION, _injected, _violations
from tests.test_window import WAIT, loaded_window
from widgets.repair_dialog import RepairChangesModel, RepairDialog


def test_the_changes_model(qtmodeltester, tmp_path):
    from explorer.ingest.imports import import_paths
    from explorer.store.db import Store
    s = Store()
    import_paths(s, [_injected(tmp_path)])
    model = RepairChangesModel()
    model.set_plan(plan(s, SESSION))
    s.close()
    qtmodeltester.check(model)
    shown = [[model.index(r, c).data() for c in range(3)] for r in range(model.rowCount())]
    assert shown[0] == ["−", "11", "RESULT"]
    assert [row[0] for row in shown[1:]] == ["+"] * 3
    assert all(row[1].startswith("after ") for row in shown[1:])


def test_file_repair_shows_the_diff_then_writes_the_copy(qtbot, tmp_path):
    window = loaded_window(qtbot, [_injected(tmp_path)])
    window.state.set_session(SESSION)
    file_menu = window.menuBar().actions()[0].menu()
    action = next(a for a in file_menu.actions() if a.text() == "Re&pair session…")
    action.trigger()
    dialog = window.repairer.dialog
    assert isinstance(dialog, RepairDialog)
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 4, timeout=WAIT)
    assert dialog.model.changes[0].call_id == ORPHAN_ID
    assert dialog.write_button.isEnabled() and "not touched" in dialog.summary.text()
    dialog.provider_box.setCurrentIndex(dialog.provider_box.findData("anthropic"))
    qtbot.waitUntil(lambda: dialog.write_button.isEnabled(), timeout=WAIT)
    assert dialog.plan.left == []
    out = tmp_path / "copy.jsonl"
    with qtbot.waitSignal(window.repairer.written, timeout=WAIT):
        dialog.write_requested.emit(str(out))
    assert _violations(out) == []
