"""The desktop application: QApplication, the Store, the MainWindow; cancels jobs on quit."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Slot
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from explorer.model import Order
from explorer.process_memory import return_freed_blocks
from explorer.store import durability
from explorer.store.db import Store, StoreError
from explorer.text_escape import visible
from widgets.gui_gc import collect_on_gui_thread
from widgets.limits_dialog import apply_saved
from widgets.main_window import MainWindow
from widgets.qt_environment import install_message_filter, use_utf8_locale
from widgets.saved_state import SavedState, app_settings, fit_to_screen

APP_NAME = "Turnscope"


def application() -> QApplication:
    """The running QApplication, created (named "Turnscope") if there is none yet."""
    app = QApplication.instance()
    if app is None:
        return_freed_blocks()   # a session's big arrays leave no heap behind when freed
        use_utf8_locale()
        install_message_filter()
        app = QApplication(sys.argv[:1])
    collect_on_gui_thread(app)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName("io.github.turnscope.Turnscope")   # packaging/turnscope.desktop
    app.setWindowIcon(QIcon(str(resources.files("widgets") / "icons" / "turnscope.svg")))
    return app  # type: ignore[return-value]


def make_window(paths: list[str], db: str | None = None, order: Order | None = Order.SEQ,
                settings: QSettings | None = None, follow: str | None = None) -> MainWindow:
    """A window on the database ``db`` (in memory when None), importing ``paths`` in the
    background; not shown. Raises :class:`StoreError` when ``db`` cannot be used.

    With ``settings``, the window shows what they saved (the saved order when ``order`` is
    None), saves itself there on close and offers ``db`` in File → Open Recent. ``follow``:
    a growing log the window follows (File → Follow…)."""
    application()
    store = Store(db)
    window = MainWindow(store, Order(order or Order.SEQ), settings=settings)
    if settings is not None:
        apply_saved(settings)  # File → Import limits…, under the command line's flags
        window.saved_state = SavedState(window, settings)
        window.saved_state.restore(order=order is None)
        if db:
            window.recent.add_database(db)
    # A database of an older schema is rebuilt from the files it was made from.
    sources = list(dict.fromkeys([*store.rebuild_sources, *map(str, paths)]))
    # Read before the import below starts (it writes from a worker thread).
    unfinished = [(p, durability.unfinished_message(p)) for p in store.unfinished
                  if p not in sources]
    unfinished += [(p, f"{visible(p)}: {durability.failed_message(reason)}")
                   for p, reason in durability.failed_imports(store) if p not in sources]
    if sources:
        window.import_paths(sources)
    else:
        window.refresh_audit()
    if follow:
        window.follow(follow)
    if unfinished:
        window.unfinished_box = _unfinished_box(window, unfinished)
    return window


def _unfinished_box(window: MainWindow, files: list[tuple[str, str]]) -> QMessageBox:
    """Say which files an earlier import did not finish (the process stopped) or failed on,
    each (path, message), and offer to import them again (explorer.store.durability); not
    modal."""
    paths = [path for path, _ in files]
    box = QMessageBox(QMessageBox.Icon.Warning, APP_NAME, "", parent=window)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText("\n".join(message for _, message in files))
    again = box.addButton("Import again", QMessageBox.ButtonRole.AcceptRole)
    again.clicked.connect(lambda: window.import_paths(list(paths)))
    box.addButton(QMessageBox.StandardButton.Close)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.show()
    return box


class WindowHost(QObject):
    """Holds the window of :func:`run`: a database picked in File → Open Recent opens in a
    new window, which replaces this one (kept when that database cannot be opened)."""

    def __init__(self, window: MainWindow, settings: QSettings) -> None:
        super().__init__()
        self.settings = settings
        self.window = window
        self._adopt(window)

    def _adopt(self, window: MainWindow) -> None:
        self.window = window
        window.database_requested.connect(self.open_database)
        application().aboutToQuit.connect(window.shutdown)

    @Slot(str)
    def open_database(self, path: str) -> MainWindow | None:
        current = self.window.store.path
        if current is not None and current.resolve() == Path(path).resolve():
            self.window.statusBar().showMessage(f"{visible(path)} is the database open")
            return None
        self.window.saved_state.save()  # the new window starts from this one's state
        try:
            window = make_window([], path, None, self.settings)
        except StoreError as exc:
            self.window.error_box = _database_error_box(exc, self.window)
            return None
        old = self.window
        self._adopt(window)
        fit_to_screen(window)
        window.show()
        old.close()
        # Deleted by the event loop, between events: left to the garbage collector, a
        # window in reference cycles can be destroyed in the middle of a paint (gui_gc).
        old.deleteLater()
        return window


def _database_error_box(exc: StoreError, parent: MainWindow | None = None) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Critical, APP_NAME, "", parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(f"Cannot open the database:\n\n{visible(str(exc))}")
    return box


def run(paths: list[str], db: str | None = None, order: Order | None = None,
        follow: str | None = None) -> int:
    """Open the window (fitted to the screen, as the user left it) and run the event loop;
    the exit status (2: unusable database). ``order`` None: the saved order, else seq."""
    app = application()
    settings = app_settings()
    try:
        window = make_window(paths, db, order, settings, follow)
    except StoreError as exc:
        _database_error_box(exc).exec()
        return 2
    host = WindowHost(window, settings)
    fit_to_screen(host.window)
    host.window.show()
    return app.exec()
