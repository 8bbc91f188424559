"""The desktop application: QApplication, the Store, the MainWindow; cancels jobs on quit."""

from __future__ import annotations

import sys
from importlib import resources

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from explorer.model import Order
from explorer.store.db import Store, StoreError
from explorer.store.durability import unfinished_message
from widgets.main_window import MainWindow

APP_NAME = "Turnscope"


def application() -> QApplication:
    """The running QApplication, created (named "Turnscope") if there is none yet."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName("io.github.turnscope.Turnscope")   # packaging/turnscope.desktop
    app.setWindowIcon(QIcon(str(resources.files("widgets") / "icons" / "turnscope.svg")))
    return app  # type: ignore[return-value]


def make_window(paths: list[str], db: str | None = None, order: Order = Order.SEQ) -> MainWindow:
    """A window on the database ``db`` (in memory when None), importing ``paths`` in the
    background; not shown. Raises :class:`StoreError` when ``db`` cannot be used."""
    application()
    store = Store(db)
    window = MainWindow(store, Order(order))
    # A database of an older schema is rebuilt from the files it was made from.
    sources = list(dict.fromkeys([*store.rebuild_sources, *map(str, paths)]))
    if sources:
        window.import_paths(sources)
    else:
        window.refresh_audit()
    unfinished = [p for p in store.unfinished if p not in sources]
    if unfinished:
        window.unfinished_box = _unfinished_box(window, unfinished)
    return window


def _unfinished_box(window: MainWindow, paths: list[str]) -> QMessageBox:
    """Say which files an earlier import did not finish (the process stopped), and offer to
    import them again (explorer.store.durability); not modal."""
    box = QMessageBox(QMessageBox.Icon.Warning, APP_NAME, "", parent=window)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText("\n".join(unfinished_message(p) for p in paths))
    again = box.addButton("Import again", QMessageBox.ButtonRole.AcceptRole)
    again.clicked.connect(lambda: window.import_paths(list(paths)))
    box.addButton(QMessageBox.StandardButton.Close)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.show()
    return box


def run(paths: list[str], db: str | None = None, order: Order = Order.SEQ) -> int:
    """Open the window and run the event loop; the exit status (2: unusable database)."""
    app = application()
    try:
        window = make_window(paths, db, order)
    except StoreError as exc:
        box = QMessageBox(QMessageBox.Icon.Critical, APP_NAME, "")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"Cannot open the database:\n\n{exc}")
        box.exec()
        return 2
    app.aboutToQuit.connect(window.shutdown)
    window.show()
    return app.exec()
