"""File → Open Database Connection…: the window imports a real PostgreSQL server's Spring AI
sessions (the server of tests/test_postgres_source.py); the password typed is used for the
connection and kept nowhere (not in the files table, not in Open Recent)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from tests.postgres_server import PASSWORD
from tests.test_postgres_source import all_rows, server  # noqa: F401  (the fixture)
from widgets.app import make_window

pytest.importorskip("psycopg")


def test_open_database_connection_imports_and_keeps_no_password(qtbot, server, tmp_path,  # noqa: F811
                                                                  monkeypatch):
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = make_window([], settings=settings)
    qtbot.addWidget(window)
    dialog = window.open_database_connection()
    assert not dialog.open_button.isEnabled()   # no URL yet
    dialog.url_edit.setText(server.url())
    dialog.password_edit.setText(PASSWORD)
    with qtbot.waitSignal(window.import_ended, timeout=60_000) as ended:
        dialog.open_button.click()
    assert ended.args == ["finished"]
    sessions = len({r["session_id"] for r in all_rows()})
    qtbot.waitUntil(lambda: window.model.rowCount() == sessions, timeout=60_000)
    files = window.store.frame("list_files").to_dicts()
    assert [f["path"] for f in files] == [server.url()] and files[0]["records"] == len(all_rows())
    assert window.recent.paths() == [server.url()]
    text = (tmp_path / "settings.ini").read_text() if (tmp_path / "settings.ini").exists() else ""
    settings.sync()
    text += (tmp_path / "settings.ini").read_text()
    assert PASSWORD not in text
    entry = [a for a in window.recent.menu.actions() if a.text().startswith("&1")][0]
    assert entry.isEnabled() and "postgres @" in entry.text()
    window.close()
