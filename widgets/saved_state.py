"""What the window remembers between runs, in QSettings: its geometry and toolbar state, its
splitters, the session list's sort, the preview's strategy, settings and budget, the order
and the token estimate; and the fit of a window to the screen it opens on.

A saved value is read back with care: one of the wrong type, out of range, from an older
version or unreadable is skipped (the default stays), never an error.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QRect, QSettings, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from widgets.sessions_model import COLUMNS

#: When set, the settings live in ``turnscope.ini`` in this folder (the tests set it), not in
#: the platform's place for them (on Linux ``~/.config/Turnscope/Turnscope.conf``).
CONFIG_DIR = "TURNSCOPE_CONFIG_DIR"

GEOMETRY, WINDOW_STATE = "window/geometry", "window/state"
#: The splitters, by key: the path of attributes from the window to each.
SPLITTERS = {"window/splitter": ("splitter",),
             "workspace/splitter": ("workspace", "splitter"),
             "workspace/right_splitter": ("workspace", "right_splitter")}
#: Added to a shared splitter's key: whether its widths are the user's (dragged) or shares.
DRAGGED = "_dragged"
SORT_COLUMN, SORT_ORDER = "sessions/sort_column", "sessions/sort_order"
STRATEGY, SETTINGS, BUDGET = "preview/strategy", "preview/settings", "preview/budget"
ORDER = "order"
TOKENIZER, CJK_RATIO, OTHER_RATIO = "estimate/tokenizer", "estimate/cjk_ratio", "estimate/other_ratio"


def app_settings() -> QSettings:
    """The user's settings (or those of the folder :data:`CONFIG_DIR` names)."""
    folder = os.environ.get(CONFIG_DIR)
    if folder:
        return QSettings(str(Path(folder) / "turnscope.ini"), QSettings.Format.IniFormat)
    return QSettings()


def fit_to_screen(window: QWidget, room: QRect | None = None) -> None:
    """Make ``window`` no larger than ``room`` (the available geometry of the screen it opens
    on) and move it onto it when it sticks out."""
    if room is None:
        screen = window.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        room = screen.availableGeometry()
    if window.windowHandle() is None:
        window.winId()   # the platform window, whose frame counts too (unknown before)
    margins = window.windowHandle().frameMargins()
    frame = QSize(margins.left() + margins.right(), margins.top() + margins.bottom())
    size = window.size().boundedTo(room.size() - frame)
    window.resize(size)
    place = QRect(window.pos(), window.size() + frame)
    if not room.contains(place):
        x = min(max(place.left(), room.left()), room.right() + 1 - place.width())
        y = min(max(place.top(), room.top()), room.bottom() + 1 - place.height())
        window.move(QPoint(max(x, room.left()), max(y, room.top())))


class SavedState(QObject):
    """Restores a :class:`~widgets.main_window.MainWindow`'s remembered state from
    ``settings`` (:meth:`restore`) and saves it when the window closes (an event filter on
    it) or on :meth:`save`. No signals."""

    def __init__(self, window, settings: QSettings) -> None:
        super().__init__(window)
        self.window = window
        self.settings = settings
        window.installEventFilter(self)

    def save(self) -> None:
        w, s = self.window, self.settings
        s.setValue(GEOMETRY, w.saveGeometry())
        s.setValue(WINDOW_STATE, w.saveState())
        for key, path in SPLITTERS.items():
            splitter = _follow(w, path)
            s.setValue(key, splitter.saveState())
            if hasattr(splitter, "dragged"):   # a SharedSplitter: the user's widths or shares
                s.setValue(key + DRAGGED, splitter.dragged)
        header = w.table.horizontalHeader()
        column = header.sortIndicatorSection()
        if 0 <= column < len(COLUMNS):
            s.setValue(SORT_COLUMN, COLUMNS[column])
            s.setValue(SORT_ORDER, "descending" if header.sortIndicatorOrder()
                       == Qt.SortOrder.DescendingOrder else "ascending")
        preview = w.preview
        s.setValue(STRATEGY, preview.strategy())
        s.setValue(SETTINGS, json.dumps(dataclasses.asdict(preview.settings())))
        s.setValue(BUDGET, preview.budget())
        s.setValue(ORDER, w.state.order.value)
        cost = preview.cost_settings()
        s.setValue(TOKENIZER, cost.tokenizer or "")
        s.setValue(CJK_RATIO, cost.cjk_ratio)
        s.setValue(OTHER_RATIO, cost.other_ratio)
        s.sync()

    def restore(self, order: bool = True) -> None:
        """Show what was saved; the saved order too when ``order``. Each value on its own:
        a bad one is skipped."""
        w, s = self.window, self.settings
        for key, restore in ((GEOMETRY, w.restoreGeometry), (WINDOW_STATE, w.restoreState)):
            value = s.value(key)
            if isinstance(value, (QByteArray, bytes)):
                restore(QByteArray(value))
        for key, path in SPLITTERS.items():
            self._restore_splitter(_follow(w, path), key)
        column, descending = s.value(SORT_COLUMN), s.value(SORT_ORDER)
        if column in COLUMNS and descending in ("ascending", "descending"):
            w.table.horizontalHeader().setSortIndicator(
                COLUMNS.index(column), Qt.SortOrder.DescendingOrder
                if descending == "descending" else Qt.SortOrder.AscendingOrder)
        self._restore_preview()
        saved_order = s.value(ORDER)
        if order and saved_order in [o.value for o in Order]:
            w.state.set_order(Order(saved_order))

    def _restore_splitter(self, splitter, key: str) -> None:
        """Its saved widths; a :class:`~widgets.pane_shares.SharedSplitter` keeps them only
        when the user had dragged them (else it shares its width again for this window)."""
        value, shared = self.settings.value(key), hasattr(splitter, "dragged")
        if shared:
            splitter.dragged = self.settings.value(key + DRAGGED) in (True, "true")
        done = isinstance(value, (QByteArray, bytes)) and splitter.restoreState(QByteArray(value))
        if shared and not done:
            splitter.dragged = False
            splitter.share()

    def _restore_preview(self) -> None:
        preview, s = self.window.preview, self.settings
        settings = _compaction_settings(s.value(SETTINGS))
        if settings is not None:
            preview.set_settings(settings)
        strategy = s.value(STRATEGY)
        if isinstance(strategy, str):
            try:
                preview.set_strategy(strategy)
            except ValueError:
                pass  # a strategy this version does not know
        budget = _number(s.value(BUDGET), int)
        if budget is not None and budget > 0:
            preview.set_budget(budget)
        cjk, other = _number(s.value(CJK_RATIO), float), _number(s.value(OTHER_RATIO), float)
        tokenizer = s.value(TOKENIZER)
        index = preview.estimator.findData(tokenizer or None)
        usable = index >= 0 and preview.estimator.model().item(index).isEnabled()
        if usable and cjk is not None and other is not None and cjk > 0 and other > 0:
            preview.set_cost_settings(CostSettings(cjk, other, tokenizer or None))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close:
            self.save()  # before the window's closeEvent shuts it down
        return False


def _follow(obj, path: tuple[str, ...]):
    for name in path:
        obj = getattr(obj, name)
    return obj


def _number(value, kind: type) -> int | float | None:
    """``value`` (a number, or its text in an INI file) as ``kind``; None when it is not."""
    if isinstance(value, bool):
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _compaction_settings(text) -> CompactionSettings | None:
    """The settings saved as JSON; fields unknown or of the wrong type are left at their
    defaults, and None is returned when ``text`` is not a JSON object."""
    try:
        saved = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(saved, dict):
        return None
    defaults, kept = CompactionSettings(), {}
    for field in dataclasses.fields(CompactionSettings):
        value, default = saved.get(field.name), getattr(defaults, field.name)
        if isinstance(default, tuple):
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                kept[field.name] = tuple(value)
        elif type(value) is type(default) and (type(value) is bool or 0 <= value < 2**31):
            kept[field.name] = value
    return dataclasses.replace(defaults, **kept)
