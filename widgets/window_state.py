"""What the window shows, as one object the panels observe: the reading order, the cost
settings (token ratios, estimator), the compaction settings and the current session.

Whoever changes a value calls a setter; every panel that depends on it connected itself in
its ``observe(state)`` and is told through a signal, so nothing fans the change out by hand.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order


class WindowState(QObject):
    """The window's shared settings; a setter emits its signal only when the value changes.

    Signals:
        order_changed(object): the :class:`Order` events are read in.
        cost_settings_changed(object): the :class:`CostSettings` costs are estimated with.
        settings_changed(object): the :class:`CompactionSettings` (strategy arguments and
            transforms) of the preview.
        session_changed(str): the session selected in the list.
    """

    order_changed = Signal(object)
    cost_settings_changed = Signal(object)
    settings_changed = Signal(object)
    session_changed = Signal(str)

    def __init__(self, order: Order = Order.SEQ, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.order = Order(order)
        self.cost_settings = CostSettings()
        self.settings = CompactionSettings()
        self.session_id: str | None = None

    def set_order(self, order: Order) -> None:
        self._set("order", Order(order), self.order_changed)

    def set_cost_settings(self, cost_settings: CostSettings) -> None:
        self._set("cost_settings", cost_settings, self.cost_settings_changed)

    def set_settings(self, settings: CompactionSettings) -> None:
        self._set("settings", settings, self.settings_changed)

    def set_session(self, session_id: str) -> None:
        self._set("session_id", session_id, self.session_changed)

    def _set(self, name: str, value, signal) -> None:
        if getattr(self, name) != value:
            setattr(self, name, value)
            signal.emit(value)
