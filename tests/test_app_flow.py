"""The assembled window: cancelled imports, the screenshot command, CJK text, drops."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDropEvent, QFont, QImage, QPainter

from explorer.cli import main
from explorer.demo import demo_paths
from explorer.generate import generate
from explorer.model import Order
from explorer.store import Store, data_version
from widgets.app import make_window

WAIT = 120_000
TABLES = ("events", "event_details", "rejected", "duplicates", "conflicts", "files")


def snapshot(store: Store) -> dict:
    """Every row of the imported data, table by table, and the data version."""
    return {t: sorted(map(repr, store.con.execute(f"SELECT * FROM {t}").fetchall()))
            for t in TABLES} | {"version": data_version(store)}


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    generate(path, sessions=4000, turns=6)
    return path


def test_a_cancelled_import_leaves_the_database_as_it_was(qtbot, tmp_path, big_file):
    db = tmp_path / "kept.duckdb"
    window = make_window([str(p) for p in demo_paths()], db=str(db))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    before = snapshot(window.store)
    sessions = window.model.rowCount()
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        worker = window.import_paths([str(big_file)])
        with qtbot.waitSignal(worker.signals.progressed, timeout=WAIT):
            pass  # the import is under way: its first block was read
        window.cancel_button.click()
    assert ended.args == ["cancelled"]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert snapshot(window.store) == before
    assert window.model.rowCount() == sessions
    window.close()
    reopened = Store(db)  # and the file holds the same after closing
    assert snapshot(reopened) == before
    reopened.close()


def test_dropping_files_imports_them(qtbot, tmp_path):
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert window.model.rowCount() == 0
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in demo_paths()])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        window.dropEvent(drop)
    assert ended.args == ["finished"]
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    assert window.model.rowCount() == len(window.store.run("session_names")) > 0
    assert [Path(p).name for p in window.recent.paths()[:3]] == sorted(
        (p.name for p in demo_paths()), key=[p.name for p in demo_paths()].index)


def _glyphs(text: str) -> QImage:
    image = QImage(120, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setFont(QFont(QFont().family(), 20))
    painter.setPen(QColor("black"))
    painter.drawText(4, 30, text)
    painter.end()
    return image


def test_cjk_text_has_real_glyphs(qapp):
    """With a CJK font installed, two different ideographs draw differently (missing glyphs
    would all be the same empty box) and differ from a code point no font has."""
    first, second, missing = _glyphs("中"), _glyphs("文"), _glyphs("\U000f0000")
    assert first != second
    assert first != missing and second != missing


def test_screenshot_command_renders_the_window(tmp_path, capsys):
    out = tmp_path / "window.png"
    status = main(["screenshot", str(out), "--demo", "--session", "k0002",
                   "--strategy", "spring-events:20", "--budget", "1500", "--size", "1400x900"])
    assert status == 0, capsys.readouterr().err
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    assert "session k0002" in capsys.readouterr().err


def test_screenshot_command_reports_bad_arguments(tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["screenshot", str(out), "--strategy", "M9"]) == 2
    assert "unknown strategy" in capsys.readouterr().err
    assert main(["screenshot", str(out), "--size", "big"]) == 2
    assert "--size" in capsys.readouterr().err
    assert main(["screenshot", str(out), "--demo", "--session", "no such"]) == 2
    assert "no such session" in capsys.readouterr().err
    assert not out.exists()
