"""File paths with spaces, quotes (' and ") and non-Latin characters work everywhere (issue 6
§3): import, ``turnscope audit --json``, the window's open, recent files, drag and drop, the
status line, the rejected-lines and error dialogs, and ``turnscope screenshot``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, QUrl
from PySide6.QtGui import QDropEvent, QImage, Qt, QTextDocument  # QtGui's Qt has mightBeRichText

from explorer.cli.main import main
from explorer.ingest.imports import import_paths
from widgets.app import make_window
from widgets.screenshot import take

WAIT = 60_000
FOLDER = "日本 \"q\" 'x'"
BAD_LINE = "{torn"


def events(session: str) -> list[dict]:
    return [{"session_id": session, "seq": 1, "kind": "USER", "text": "hello"},
            {"session_id": session, "seq": 2, "kind": "CALL", "call_id": "c1", "tool": "ls",
             "text": "ls"},
            {"session_id": session, "seq": 3, "kind": "RESULT", "call_id": "c1", "text": "a b"}]


@pytest.fixture
def logs(tmp_path) -> dict[str, Path]:
    """The same kind of log as JSON Lines (with one torn line), Parquet and CSV, in a folder
    whose name holds spaces, both quotes and Japanese."""
    folder = tmp_path / FOLDER
    folder.mkdir()
    jsonl = folder / "ログ file & co.jsonl"
    jsonl.write_text("\n".join([*(json.dumps(e) for e in events("s jsonl")), BAD_LINE]) + "\n",
                     encoding="utf-8")
    parquet = folder / "ログ 'file' \"2\".parquet"
    pl.DataFrame(events("s parquet")).write_parquet(parquet)  # zstd, as polars writes it
    csv = folder / "ログ \"file\" 3.csv"
    pl.DataFrame(events("s csv")).write_csv(csv)
    return {"jsonl": jsonl, "parquet": parquet, "csv": csv}


def menu_label(text: str) -> str:
    """What a menu shows for an action's text: ``&x`` underlines x, ``&&`` is one ``&``."""
    return re.sub(r"&(.)", r"\1", text)


def tooltip_shows(text: str) -> str:
    if not Qt.mightBeRichText(text):
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def test_import_paths_reads_every_format_under_such_a_path(store, logs):
    report = import_paths(store, [str(p) for p in logs.values()])
    assert [f.path for f in report.files] == [str(p) for p in logs.values()]
    assert [f.events for f in report.files] == [3, 3, 3]
    assert report.rejected == 1 and not report.errors
    assert sorted(r[0] for r in store.con.execute(
        "SELECT DISTINCT session_id FROM events").fetchall()) == ["s csv", "s jsonl", "s parquet"]
    assert store.con.execute("SELECT path FROM files ORDER BY file_id").fetchall() == [
        (str(p),) for p in logs.values()]


def test_audit_json_names_such_paths_as_they_are(capsys, logs):
    paths = [str(p) for p in logs.values()]
    assert main(["audit", *paths, "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert [f["path"] for f in doc["files"]] == paths
    assert [f["events"] for f in doc["files"]] == [3, 3, 3]
    assert doc["events"] == 9 and doc["sessions"] == 3
    assert f"{logs['jsonl']}:4:" in captured.err  # the torn line, named by its path


@pytest.fixture
def window(qtbot, tmp_path):
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    # recent files kept in a settings file of the test, not the user's
    window.recent.settings = QSettings(str(tmp_path / "recent.ini"), QSettings.Format.IniFormat)
    window.recent.clear()
    yield window
    window.close()


def imported(qtbot, window, start) -> None:
    """Run ``start()`` (which begins an import) and wait for the import and the new audit."""
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        start()
    assert ended.args == ["finished"]
    qtbot.waitUntil(lambda: not window.jobs.is_busy(), timeout=WAIT)


def sessions(window) -> list[str]:
    return sorted(window.model.index(r, 0).data() for r in range(window.model.rowCount()))


def test_open_recent_drop_and_dialogs_work_with_such_paths(qtbot, window, logs, tmp_path):
    jsonl, parquet = logs["jsonl"], logs["parquet"]
    # File → Open (the window's open function, after the file dialog)
    imported(qtbot, window, lambda: window.import_paths([str(jsonl)]))
    assert sessions(window) == ["s jsonl"]
    assert window.statusBar().currentMessage().startswith("Imported 3 events from 1 file(s)")
    assert window.last_report.files[0].path == str(jsonl)
    # the rejected line is listed under its path
    dialog = window.show_rejected()
    qtbot.addWidget(dialog)
    lines = dialog.text.toPlainText().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{jsonl}:4: ") and lines[0].endswith(BAD_LINE)
    # recent files: the name in the menu, the whole path in the tooltip and status tip
    assert window.recent.paths() == [str(jsonl.resolve())]
    action = window.recent.menu.actions()[0]
    assert menu_label(action.text()) == f"1  {jsonl.name}"
    assert tooltip_shows(action.toolTip()) == action.statusTip() == str(jsonl.resolve())
    assert action.isEnabled()
    # dropped on the window
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(parquet))])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    imported(qtbot, window, lambda: window.dropEvent(drop))
    assert sessions(window) == ["s jsonl", "s parquet"]
    assert window.recent.paths() == [str(parquet.resolve()), str(jsonl.resolve())]
    assert menu_label(window.recent.menu.actions()[0].text()) == f"1  {parquet.name}"
    # picked again from Open Recent: the same file, found unchanged
    with qtbot.waitSignal(window.recent.open_requested, timeout=WAIT) as picked:
        imported(qtbot, window, window.recent.menu.actions()[1].trigger)
    assert picked.args == [[str(jsonl.resolve())]]
    assert sessions(window) == ["s jsonl", "s parquet"]
    assert window.store.con.execute("SELECT count(*) FROM events").fetchone()[0] == 6


def test_a_file_that_cannot_be_read_is_named_exactly_in_the_error_box(qtbot, window, logs):
    bad = logs["jsonl"].parent / "壊れた 'bad' \"file\" <b>x<b>.bin"
    bad.write_bytes(b"\x00\x01\x02 not a log \xff\xfe")
    with qtbot.waitSignal(window.import_ended, timeout=WAIT):
        window.import_paths([str(bad)])
    box = window.error_box
    assert box is not None and box.textFormat() == Qt.TextFormat.PlainText
    assert str(bad) in box.text()
    assert "1 file(s) failed" in window.statusBar().currentMessage()


def test_screenshot_reads_and_writes_such_paths(logs):
    out = logs["jsonl"].parent / "shot ログ 'x' \"y\".png"
    shown = take(str(out), [str(logs["jsonl"]), str(logs["csv"])], size="1000x700")
    assert shown in ("s jsonl", "s csv")
    image = QImage(str(out))
    assert not image.isNull() and image.width() >= 1000 and image.height() >= 700
