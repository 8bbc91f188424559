"""The File → Open Recent menu: the last database opened and the last files imported, kept
in QSettings."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from explorer.ingest.postgres_url import is_database_url, without_password
from explorer.text_escape import visible
from widgets.plain_text import menu_entry, tooltip
from widgets.saved_state import app_settings

KEY = "recent_files"
DATABASE_KEY = "recent_database"
MAX_RECENT = 10


class RecentFiles(QObject):
    """Remembers the last database opened (``--db``) and the files imported (newest first,
    at most ``MAX_RECENT``), and fills ``menu``: the database first, then the files.

    Signals:
        open_requested(list): the user picked a file; the list holds its one path.
        database_requested(str): the user picked the database.
    """

    open_requested = Signal(list)
    database_requested = Signal(str)

    def __init__(self, menu: QMenu, settings: QSettings | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = menu
        self.settings = settings if settings is not None else app_settings()
        self._rebuild()

    def paths(self) -> list[str]:
        value = self.settings.value(KEY, [])
        if isinstance(value, str):  # QSettings gives a lone string for a list of one
            value = [value]
        return [str(v) for v in value or []]

    def database(self) -> str | None:
        value = self.settings.value(DATABASE_KEY)
        return value if isinstance(value, str) and value else None

    def add_database(self, path: str) -> None:
        self.settings.setValue(DATABASE_KEY, str(Path(path).resolve()))
        self._rebuild()

    def add(self, paths: list[str]) -> None:
        """Put ``paths`` at the top (the first of them first); a database URL is kept
        without its password."""
        fresh = [without_password(p) if is_database_url(p) else str(Path(p).resolve())
                 for p in paths]
        kept = [p for p in self.paths() if p not in fresh]
        self.settings.setValue(KEY, (fresh + kept)[:MAX_RECENT])
        self._rebuild()

    def clear(self) -> None:
        self.settings.setValue(KEY, [])
        self.settings.remove(DATABASE_KEY)
        self._rebuild()

    def _rebuild(self) -> None:
        self.menu.clear()
        paths, database = self.paths(), self.database()
        if database is not None:
            action = self._entry(f"Database  {menu_entry(visible(Path(database).name))}",
                                 database)
            action.triggered.connect(lambda _=False: self.database_requested.emit(database))
            self.menu.addSeparator()
        for n, path in enumerate(paths, 1):
            name = _database_name(path) if is_database_url(path) else Path(path).name
            action = self._entry(f"&{n % 10}  {menu_entry(visible(name))}", path)
            action.triggered.connect(lambda _=False, p=path: self.open_requested.emit([p]))
        if paths:
            self.menu.addSeparator()
        clear = QAction("Clear recent files", self.menu)
        clear.setEnabled(bool(paths) or database is not None)
        clear.triggered.connect(self.clear)
        self.menu.addAction(clear)
        self.menu.setToolTipsVisible(True)

    def _entry(self, text: str, path: str) -> QAction:
        # A path is shown as it is: no mnemonic from an "&", no markup in the tooltip.
        action = QAction(text, self.menu)
        action.setToolTip(tooltip(visible(path)))
        action.setStatusTip(visible(path))  # the status bar shows plain text
        action.setEnabled(is_database_url(path) or Path(path).exists())
        self.menu.addAction(action)
        return action


def _database_name(url: str) -> str:
    """A PostgreSQL URL as a menu shows it: ``database @ host``."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or dict(urllib.parse.parse_qsl(parts.query)).get("host", "local")
    return f"{parts.path.lstrip('/') or 'postgres'} @ {host} (PostgreSQL)"
