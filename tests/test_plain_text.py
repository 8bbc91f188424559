"""Nothing interpreted (issue 6 §3): log text shows as the characters it is, everywhere in the
window, and search text reaches SQL as a value.

One canonical log whose session ids, tool names, call ids, texts, user ids and file name hold
HTML and SQL is opened in the real window; every place that shows it is read back. What a
label or tooltip shows is computed as Qt decides it (rich text when ``Qt.mightBeRichText``
says so, unless the label is set to plain text), never taken from our own helpers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import Qt, QTextDocument  # QtGui adds mightBeRichText to Qt
from PySide6.QtWidgets import QLabel, QWidget

from widgets.app import make_window
from widgets.plain_text import menu_entry, tooltip
from widgets.rejected_dialog import RejectedDialog

WAIT = 60_000
HOSTILE = ('<img src=x onerror=alert(1)>', '<a href="http://e">link</a>', "<b>bold</b>",
           "'; DROP TABLE events; --")
#: Ids that LIKE would read as patterns (and one that only a pattern would match).
PATTERNS = ("a%b", "a_b", "a\\b", "axb", "AXB")
SESSIONS = HOSTILE + PATTERNS
#: Rejected lines, each holding markup.
BAD_LINES = ('<b>not json</b> <img src=x onerror=alert(1)> <a href="http://e">link</a>',
             json.dumps({"session_id": "<b>x</b>", "seq": 9, "kind": '<a href="http://e">link</a>'}))
#: A file name with markup, SQL, an ampersand and Japanese (no "/": it is a name).
FILE_NAME = "<b>bold <img src=x onerror=alert(1)> '; DROP TABLE events; -- & ログ.jsonl"
NEEDLES = ("'; DROP TABLE events; --", "%", "_", "\\", "a_b", "<b>", "x", "AX", "zzz")


def records(session: str) -> list[dict]:
    """USER, a CALL with its RESULT, and an orphan RESULT (so every session has a finding)."""
    base = {"session_id": session, "user_id": session}
    return [base | {"seq": 1, "kind": "USER", "text": f"{session} asks"},
            base | {"seq": 2, "kind": "CALL", "tool": session, "call_id": session, "text": session},
            base | {"seq": 3, "kind": "RESULT", "tool": session, "call_id": session,
                    "text": f"result {session}"},
            base | {"seq": 4, "kind": "RESULT", "tool": session, "call_id": f"{session} orphan",
                    "text": session}]


def tree_texts(session: str) -> list[str]:
    """What the event column of the turn tree shows for ``records(session)``, top down."""
    return [f"Turn 1 — {session} asks", f"USER — {session} asks",
            f"CALL {session} — {session}",
            f"RESULT {session} — result {session}",
            f"RESULT {session} — {session}"]


@pytest.fixture
def hostile_file(tmp_path) -> Path:
    folder = tmp_path / "日本 \"q\" 'x'"
    folder.mkdir()
    path = folder / FILE_NAME
    lines = [json.dumps(r) for s in SESSIONS for r in records(s)] + list(BAD_LINES)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def imported_window(qtbot, path: Path, wait: int = WAIT):
    """A window that imported ``path`` and lists its sessions, nothing left running."""
    window = make_window([str(path)])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.import_ended, timeout=wait) as ended:
        pass
    assert ended.args == ["finished"]
    qtbot.waitUntil(lambda: not window.jobs.is_busy() and window.model.rowCount() > 0,
                    timeout=wait)
    return window


@pytest.fixture
def window(qtbot, hostile_file):
    window = imported_window(qtbot, hostile_file)
    yield window
    window.close()


def shown(text: str, fmt: Qt.TextFormat = Qt.TextFormat.AutoText) -> str:
    """The characters Qt shows for ``text`` in a label (or a tooltip: always AutoText)."""
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText
                                             and Qt.mightBeRichText(text))
    if fmt == Qt.TextFormat.MarkdownText:
        doc = QTextDocument()
        doc.setMarkdown(text)
        return doc.toPlainText()
    if not rich:
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def label_shows(label: QLabel) -> str:
    return shown(label.text(), label.textFormat())


def holds_log_text(text: str) -> bool:
    return any(h in text for h in (*HOSTILE, "<b>x</b>", "ログ"))


def show_session(qtbot, window, session: str) -> None:
    """Select ``session`` in the list and wait until the workspace shows it."""
    data = window.workspace.data
    if data is not None and data.session_id == session and not window.workspace.loader.busy():
        return
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT,
                          check_params_cb=lambda s: s == session):
        assert window.select_session(session)
    qtbot.waitUntil(lambda: not window.jobs.is_busy(), timeout=WAIT)


def all_indexes(model, parent: QModelIndex = QModelIndex()):
    for row in range(model.rowCount(parent)):
        for column in range(model.columnCount(parent)):
            index = model.index(row, column, parent)
            yield index
        first = model.index(row, 0, parent)
        if model.rowCount(first) > 0:
            yield from all_indexes(model, first)


def check_widgets(widgets: list[QWidget]) -> int:
    """Every label and tooltip among ``widgets`` and their children shows log text literally;
    how many held log text."""
    seen = 0
    for top in widgets:
        for label in [top, *top.findChildren(QLabel)]:
            if isinstance(label, QLabel) and holds_log_text(label.text()):
                seen += 1
                assert label_shows(label) == label.text(), label.text()
        for widget in [top, *top.findChildren(QWidget)]:
            tip = widget.toolTip()
            for h in HOSTILE:
                if h in tip or h.replace("<", "&lt;") in tip:
                    seen += 1
                    assert h in shown(tip), tip
    return seen


def test_every_session_id_shows_literally_in_the_list(window):
    model = window.model
    ids = sorted(model.index(r, 0).data() for r in range(model.rowCount()))
    assert ids == sorted(SESSIONS)
    assert [model.index(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(model.rowCount())] \
        == [model.index(r, 0).data() for r in range(model.rowCount())]
    for column in range(model.columnCount()):
        tip = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert tip is None or shown(tip) == tip


def test_findings_list_shows_ids_and_call_ids_literally(qtbot, window):
    panel = window.findings
    qtbot.waitUntil(lambda: panel.model.table() is not None and not window.jobs.is_busy(),
                    timeout=WAIT)
    model = panel.model
    assert model.rowCount() == len(SESSIONS)  # one orphan result each
    rows = {model.index(r, 1).data(): r for r in range(model.rowCount())}
    assert sorted(rows) == sorted(SESSIONS)
    for session, row in rows.items():
        assert model.index(row, 2).data() == f"RESULT {session} orphan @4"
        assert model.index(row, 0).data() == "orphan results"
        for column in range(model.columnCount()):
            tip = model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)
            assert tip is None or (shown(tip) == tip and not holds_log_text(tip))
    assert label_shows(panel.status_label) == panel.status_label.text()


@pytest.mark.parametrize("session", HOSTILE)
def test_tree_title_and_detail_show_log_text_literally(qtbot, window, session):
    show_session(qtbot, window, session)
    panel = window.session_panel
    model = panel.model
    model.fetch_all()
    indexes = list(all_indexes(model))
    texts = [i.data() for i in indexes if i.column() == 0]
    assert texts == tree_texts(session)
    for index in indexes:
        tip = index.data(Qt.ItemDataRole.ToolTipRole)
        assert tip is None or shown(tip) == tip  # the marks' fixed sentences, never rich
    # the title: plain text, and its tooltip shows the same characters
    assert panel.title.textFormat() == Qt.TextFormat.PlainText
    assert panel.title.text().startswith(f"{session}: 4 events in 1 turn, ")
    assert shown(panel.title.toolTip()) == panel.title.text()
    for label in (window.workspace.cost_plot.title, window.workspace.preview.title):
        if label.text():
            assert label_shows(label) == label.text()
    # the detail of every event row holds every field as written
    for frame_row, record in enumerate(records(session)):
        panel.select_row(frame_row)
        detail = panel.detail.toPlainText()
        for name in ("tool", "call_id", "user_id"):
            if name in record:
                assert f"\n{name}: {record[name]}\n" in detail
        assert detail.startswith(f"session_id: {session}\n")
        heading = {"CALL": "arguments", "RESULT": "output"}.get(record["kind"], "text")
        assert f"\n{heading}:\n{record['text']}" in detail
    assert check_widgets([window]) >= 2  # the title and its tooltip at least


def test_status_bar_rejected_dialog_and_every_label_show_log_text_literally(qtbot, window,
                                                                          hostile_file):
    # the rejected-lines dialog opened after the import, and opened again from the menu
    dialogs = [window.show_rejected()]
    qtbot.addWidget(dialogs[0])
    text = dialogs[0].text.toPlainText().splitlines()
    assert text[0].startswith(f"{hostile_file}:{len(SESSIONS) * 4 + 1}: ")
    assert text[0].endswith(": " + BAD_LINES[0])
    assert text[1].startswith(f"{hostile_file}:{len(SESSIONS) * 4 + 2}: ")
    assert text[1].endswith(BAD_LINES[1])
    assert label_shows(dialogs[0].summary) == dialogs[0].summary.text()
    # the status bar draws plain text: what it holds is what it shows
    for session in HOSTILE:
        window.go_to_finding(f"{session} missing", [])
        assert window.statusBar().currentMessage() == f"Session {session} missing is not in the list"
    # every label and tooltip of the window and of its dialogs (the rejected lines, an import
    # report) that holds log text shows it as it is
    show_session(qtbot, window, HOSTILE[2])
    # (the window's dialogs are its children: searched with it)
    assert len(window.findChildren(RejectedDialog)) == 2  # after the import, and ours
    assert check_widgets([window]) >= 2


def test_recent_files_show_a_file_name_with_markup_and_ampersand_literally(window, hostile_file):
    recent = window.recent
    assert recent.paths()[0] == str(hostile_file.resolve())
    action = recent.menu.actions()[0]
    # "&&" is a literal "&" in a menu; a lone "&" marks the mnemonic
    label = action.text()
    literal = re.sub(r"&(.)", r"\1", label)
    assert label.startswith("&1  ") and literal == f"1  {FILE_NAME}"
    assert shown(action.toolTip()) == str(hostile_file.resolve())
    assert action.statusTip() == str(hostile_file.resolve())


@pytest.mark.parametrize("needle", NEEDLES)
def test_session_filter_matches_literally_and_harms_nothing(qtbot, window, needle):
    store = window.store
    before = {t: store.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("events", "rejected", "files")}
    window.filter_edit.setText(needle)
    model = window.model
    found = sorted(model.index(r, 0).data() for r in range(model.rowCount()))
    assert found == sorted(s for s in SESSIONS if needle.lower() in s.lower())
    assert window.rows_label.text().strip() == (
        f"{len(found):,} of {len(SESSIONS):,} sessions" if len(found) != len(SESSIONS)
        else f"{len(SESSIONS):,} sessions")
    window.filter_edit.clear()
    assert model.rowCount() == len(SESSIONS)
    after = {t: store.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in before}
    assert after == before == {"events": len(SESSIONS) * 4, "rejected": 2, "files": 1}


@pytest.mark.parametrize("session", HOSTILE + ("a%b", "a_b", "a\\b"))
def test_findings_filter_by_session_matches_exactly(qtbot, window, session):
    panel = window.findings
    qtbot.waitUntil(lambda: panel.model.table() is not None and not window.jobs.is_busy(),
                    timeout=WAIT)
    everything = [panel.model.finding(r) for r in range(panel.model.rowCount())]
    show_session(qtbot, window, session)
    panel.session_box.setChecked(True)
    got = [panel.model.finding(r) for r in range(panel.model.rowCount())]
    assert got == [f for f in everything if f["session_id"] == session] and len(got) == 1
    assert panel.status_label.text().endswith(f" · session {session}")
    assert label_shows(panel.status_label) == panel.status_label.text()
    panel.session_box.setChecked(False)
    assert window.store.con.execute("SELECT count(*) FROM events").fetchone()[0] \
        == len(SESSIONS) * 4


@pytest.mark.parametrize("text", [*HOSTILE, *BAD_LINES, FILE_NAME, "plain", "a  b\n  c",
                                  "<p>para</p>\n<br>", "&amp; &lt; <b>x", "<!-- c -->"])
def test_tooltip_helper_shows_exactly_its_text(qapp, text):
    tip = tooltip(text)
    assert shown(tip) == text
    assert tip == text or Qt.mightBeRichText(text)  # plain text is left as it is


def test_menu_entry_keeps_ampersands_and_one_line():
    assert menu_entry("Tom & Jerry\tlog\nfile.jsonl") == "Tom && Jerry log file.jsonl"
    assert re.sub(r"&(.)", r"\1", "&1  " + menu_entry("a && b")) == "1  a && b"


def test_import_report_shows_the_file_name_literally(qtbot, window, hostile_file):
    from widgets.import_report_dialog import ImportReportDialog

    dialog = ImportReportDialog(window.last_report, window)
    qtbot.addWidget(dialog)
    model = dialog.model
    assert model.index(0, 0).data() == str(hostile_file)
    assert shown(model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)) == str(hostile_file)
    for index in all_indexes(model):
        tip = index.data(Qt.ItemDataRole.ToolTipRole)
        assert tip is None or shown(tip) in (tip, str(hostile_file))
    for label in dialog.findChildren(QLabel):
        assert label_shows(label) == label.text()


def test_a_file_name_with_a_newline_and_bidi_control_is_shown_escaped(qtbot, tmp_path):
    from explorer.text_escape import visible
    from widgets.import_report_dialog import ImportReportDialog

    path = tmp_path / "a\nb\u202ecba\u200b.jsonl"
    path.write_text(json.dumps(records("s")[0]) + "\nnot json\n", encoding="utf-8")
    window = make_window([str(path)])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.import_ended, timeout=WAIT):
        pass
    qtbot.waitUntil(lambda: not window.jobs.is_busy(), timeout=WAIT)
    escaped = visible(str(path))
    assert escaped.endswith("a\\nb\\u202ecba\\u200b.jsonl")
    dialog = ImportReportDialog(window.last_report, window)
    qtbot.addWidget(dialog)
    assert dialog.model.index(0, 0).data() == escaped
    assert shown(dialog.model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)) == escaped
    rejected = window.show_rejected()
    qtbot.addWidget(rejected)
    assert rejected.text.toPlainText().splitlines()[0].startswith(f"{escaped}:2: ")
    action = window.recent.menu.actions()[0]
    assert "\u202e" not in action.text() and "\n" not in action.text()
    assert action.toolTip() == visible(str(path.resolve()))
    assert action.statusTip() == visible(str(path.resolve()))
    window.close()
