"""File → Export… (widgets/export_dialog.py): the dialog offers every export format and the
current session, and the export runs through the window's job pool and writes a file that
imports back with the same counts."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QDialog

from explorer.audits.counts import corpus_counts
from explorer.export import WRITERS
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.conftest import CORPUS
from tests.test_window import WAIT, loaded_window
from widgets.export_dialog import ExportDialog

SOURCE = CORPUS / "langfuse" / "langfuse-langfuse__openai-agents-2025-09-30.trace.json"


def test_the_dialog_offers_every_format_and_the_current_session(qtbot):
    dialog = ExportDialog("s\u202e1")
    qtbot.addWidget(dialog)
    names = [dialog.format_box.itemData(i) for i in range(dialog.format_box.count())]
    assert sorted(names) == sorted(WRITERS)
    assert dialog.current_button.isChecked()
    assert "\u202e" not in dialog.current_button.text()   # shown escaped (text_escape)
    dialog.path_edit.setText("/tmp/x.json")
    dialog.all_button.setChecked(True)
    dialog.format_box.setCurrentIndex(names.index("otel-json"))
    assert dialog.choice() == ("otel-json", None, "/tmp/x.json")
    none = ExportDialog(None)
    qtbot.addWidget(none)
    assert not none.current_button.isEnabled() and none.all_button.isChecked()


def test_file_export_writes_the_current_session_off_the_gui_thread(qtbot, tmp_path):
    window = loaded_window(qtbot, [SOURCE])
    session = json.loads(SOURCE.read_text())["trace"]["id"]
    window.state.set_session(session)
    file_menu = window.menuBar().actions()[0].menu()
    export_action = next(a for a in file_menu.actions() if a.text() == "&Export…")
    export_action.trigger()
    dialog = window.exporter.dialog
    assert isinstance(dialog, QDialog) and dialog.current_button.isChecked()
    out = tmp_path / "one.atif.json"
    dialog.path_edit.setText(str(out))
    with qtbot.waitSignal(window.exporter.finished, timeout=WAIT) as done:
        dialog.buttons.accepted.emit()
    assert done.args[0].sessions == 1
    assert "Exported 1 session(s)" in window.statusBar().currentMessage()
    store = Store()
    try:
        assert not import_paths(store, [out]).errors
        assert corpus_counts(store)["events"] == corpus_counts(window.store)["events"]
    finally:
        store.close()


def test_a_failed_export_is_said(qtbot, tmp_path):
    window = loaded_window(qtbot, [SOURCE])
    with qtbot.waitSignal(window.exporter.failed, timeout=WAIT):
        window.exporter.start("jsonl", None, str(tmp_path / "no such folder" / "x.jsonl"))
    assert window.statusBar().currentMessage().startswith("Export failed:")
