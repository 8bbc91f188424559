"""The small window parts: rejected-lines dialog, recent files, dropped paths, session loader."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSettings, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from explorer.cli.demo import demo_paths
from explorer.compaction.settings import CompactionSettings
from explorer.ingest.imports import import_paths
from explorer.ingest.rejected import rejected_count, rejected_lines
from explorer.model import CostSettings, Order
from explorer.tokens.session_events import session_events
from widgets.file_drop import dropped_paths
from widgets.recent_files import MAX_RECENT, RecentFiles
from widgets.rejected_dialog import RejectedDialog
from widgets.session_loader import SessionLoader
from widgets.workers import JobPool

GOOD = '{"session_id": "s1", "seq": 1, "kind": "USER", "text": "hi"}'


def test_rejected_dialog_lists_every_rejected_line_as_plain_text(qtbot, store, write_lines):
    path = write_lines("bad.jsonl", GOOD, "{not json <b>bold</b>", GOOD.replace('"seq": 1', '"seq": "abc"'))
    report = import_paths(store, [path])
    lines = rejected_lines(store)
    assert rejected_count(store) == report.rejected == len(lines) == 2
    assert [line.line for line in lines] == [2, 3]
    dialog = RejectedDialog(lines, rejected_count(store))
    qtbot.addWidget(dialog)
    text = dialog.text.toPlainText().splitlines()
    assert text == [line.as_text() for line in lines]
    assert text[0].startswith(f"{path}:2: ") and text[0].endswith("{not json <b>bold</b>")
    dialog.copy_all()
    assert QGuiApplication.clipboard().text() == dialog.text.toPlainText()


def test_rejected_dialog_says_when_only_the_first_lines_are_shown(qtbot, store, write_lines):
    path = write_lines("bad.jsonl", GOOD, *["{torn"] * 5)
    import_paths(store, [path])
    dialog = RejectedDialog(rejected_lines(store, limit=2), rejected_count(store))
    qtbot.addWidget(dialog)
    assert "5 input line(s)" in dialog.summary.text() and "first 2 shown" in dialog.summary.text()
    assert len(dialog.text.toPlainText().splitlines()) == 2


def test_recent_files_newest_first_without_repeats(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "recent.ini"), QSettings.Format.IniFormat)
    menu = QMenu()
    recent = RecentFiles(menu, settings)
    files = [tmp_path / f"log {i} é.jsonl" for i in range(MAX_RECENT + 2)]
    for f in files:
        f.write_text(GOOD + "\n", encoding="utf-8")
        recent.add([str(f)])
    recent.add([str(files[3])])
    expected = [str(files[3])] + [str(f) for f in reversed(files) if f != files[3]][:MAX_RECENT - 1]
    assert recent.paths() == expected
    assert RecentFiles(QMenu(), settings).paths() == expected  # kept in the settings
    first = menu.actions()[0]
    with qtbot.waitSignal(recent.open_requested) as blocker:
        first.trigger()
    assert blocker.args == [[str(files[3])]]
    files[3].unlink()
    recent.add([str(files[0])])
    missing = [a for a in menu.actions() if a.toolTip() == str(files[3])]
    assert missing and not missing[0].isEnabled()
    recent.clear()
    assert recent.paths() == [] and len(menu.actions()) == 1


def test_dropped_paths_keeps_local_files_only(tmp_path):
    mime = QMimeData()
    local = tmp_path / "a b.jsonl"
    mime.setUrls([QUrl.fromLocalFile(str(local)), QUrl("https://example.com/x.jsonl")])
    assert dropped_paths(mime) == [str(local)]
    assert dropped_paths(QMimeData()) == []


def test_session_loader_delivers_only_the_newest_request(qtbot, store):
    import_paths(store, [str(p) for p in demo_paths()])
    names = [r[0] for r in store.run("session_names")]
    jobs = JobPool()
    loader = SessionLoader(store, jobs)
    got = []
    loader.loaded.connect(got.append)
    for name in names[:3]:
        loader.load(name, Order.TS, CostSettings(), CompactionSettings())
    qtbot.waitUntil(lambda: not jobs.is_busy(), timeout=30_000)
    assert [d.session_id for d in got] == [names[2]]
    expected = session_events(store, names[2], Order.TS)
    # the window's frame is read compact (ids as numbers): the columns both hold are equal
    shared = [c for c in got[0].frame.columns if c in expected.columns]
    assert len(shared) > 20
    assert got[0].frame.select(shared).equals(expected.select(shared))
    assert got[0].log.n == expected.height


def test_the_import_summary_names_the_formats_read(store):
    from tests.conftest import CORPUS
    from widgets.tasks import import_summary

    paths = [CORPUS / "gemini-cli" / "jnarowski-agentcmd__session-2025-10-29T10-39-a63242d9.json",
             *demo_paths()]
    report = import_paths(store, [str(p) for p in paths])
    text = import_summary(report)
    assert text.startswith(f"Imported {sum(f.events for f in report.files):,} events from 4 file(s)"
                           " read as canonical-jsonl, gemini-cli")
