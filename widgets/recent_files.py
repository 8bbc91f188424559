"""The File → Open Recent menu: the last files opened, kept in QSettings."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from widgets.plain_text import menu_entry, tooltip

KEY = "recent_files"
MAX_RECENT = 10


class RecentFiles(QObject):
    """Remembers opened files (newest first, at most ``MAX_RECENT``) and fills ``menu``.

    Signals:
        open_requested(list): the user picked an entry; the list holds its one path.
    """

    open_requested = Signal(list)

    def __init__(self, menu: QMenu, settings: QSettings | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = menu
        self.settings = settings if settings is not None else QSettings()
        self._rebuild()

    def paths(self) -> list[str]:
        value = self.settings.value(KEY, [])
        if isinstance(value, str):  # QSettings gives a lone string for a list of one
            value = [value]
        return [str(v) for v in value or []]

    def add(self, paths: list[str]) -> None:
        """Put ``paths`` at the top (the first of them first)."""
        fresh = [str(Path(p).resolve()) for p in paths]
        kept = [p for p in self.paths() if p not in fresh]
        self.settings.setValue(KEY, (fresh + kept)[:MAX_RECENT])
        self._rebuild()

    def clear(self) -> None:
        self.settings.setValue(KEY, [])
        self._rebuild()

    def _rebuild(self) -> None:
        self.menu.clear()
        paths = self.paths()
        for n, path in enumerate(paths, 1):
            # A path is shown as it is: no mnemonic from an "&", no markup in the tooltip.
            action = QAction(f"&{n % 10}  {menu_entry(Path(path).name)}", self.menu)
            action.setToolTip(tooltip(path))
            action.setStatusTip(path)  # the status bar shows plain text
            action.setEnabled(Path(path).exists())
            action.triggered.connect(lambda _=False, p=path: self.open_requested.emit([p]))
            self.menu.addAction(action)
        if paths:
            self.menu.addSeparator()
        clear = QAction("Clear recent files", self.menu)
        clear.setEnabled(bool(paths))
        clear.triggered.connect(self.clear)
        self.menu.addAction(clear)
        self.menu.setToolTipsVisible(True)
