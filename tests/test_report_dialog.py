"""File → Report… (widgets/report_dialog.py): the report of the current session is written
off the GUI thread, in the format the file's suffix names."""

from __future__ import annotations

from tests.test_repair import FULL, SESSION
from tests.test_window import WAIT, loaded_window
from widgets.report_dialog import report_format


def test_the_format_follows_the_suffix_or_the_filter():
    assert report_format("/tmp/r.md") == "md"
    assert report_format("/tmp/r", "Markdown report (*.md)") == "md"
    assert report_format("/tmp/r.html", "HTML report (*.html)") == "html"


def test_file_report_writes_the_current_session(qtbot, tmp_path):
    window = loaded_window(qtbot, [FULL])
    window.state.set_session(SESSION)
    file_menu = window.menuBar().actions()[0].menu()
    assert "Re&port…" in [a.text() for a in file_menu.actions()]
    out = tmp_path / "r.md"
    with qtbot.waitSignal(window.reporter.written, timeout=WAIT):
        window.reporter.start(str(out), "md")
    text = out.read_text(encoding="utf-8")
    assert f"## Session {SESSION}" in text and "| dangling\\_calls | 3 |" in text
    assert str(FULL).replace("_", "\\_") in text
    assert "Wrote the report" in window.statusBar().currentMessage()
