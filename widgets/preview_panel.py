"""The compaction preview panel: strategy, reading order, token ratios, budget, the metrics
of the view and the comparison of every strategy, for the session shown in the tree.

The live path is synchronous: a budget or strategy change computes one
:func:`explorer.session.preview.overlay` (a few milliseconds) and emits it. Everything that changes
the loaded session itself (order, ratios, transforms) is left to the owner, which reloads
the :class:`SessionData` off the GUI thread and calls :meth:`PreviewPanel.set_session`.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.compaction.settings import CompactionSettings
from explorer.model import CostSettings, Order
from explorer.session.data import SessionData
from explorer.session.preview import overlay_and_window, transform_key
from explorer.session.provider_view import ProviderView, provider_view
from explorer.session.view_overlay import ViewOverlay
from explorer.text_escape import elided
from widgets.budget_control import BudgetControl
from widgets.compare_model import CompareModel
from widgets.estimate_inputs import estimator_box, ratio_box
from widgets.metrics_strip import MetricsStrip
from widgets.plain_text import whole_tip
from widgets.provider_picker import ProviderPicker
from widgets.strategy_picker import StrategyPicker
from widgets.texts import ORDER_TEXT
from widgets.workers import JobPool


class PreviewPanel(QWidget):
    """Previews a compaction strategy on one session.

    Signals:
        overlay_changed(object): the :class:`ViewOverlay` of the current strategy and budget,
            emitted synchronously after every budget, strategy or session change; None when
            there is no session or the loaded one does not match the panel's settings.
        budget_changed(int): the budget changed (slider, number box or :meth:`set_budget`).
        order_changed(object): the user picked another :class:`Order`.
        reload_needed(): the order, a token ratio or a transform changed: the session must
            be loaded again with :meth:`order`, :meth:`cost_settings` and :meth:`settings`.
        settings_changed(object): the strategy picker gave these :class:`CompactionSettings`
            (emitted on every pick, after ``reload_needed`` when that is emitted too).
        provider_view_changed(object): the picked provider's
            :class:`~explorer.session.provider_view.ProviderView` of the view (None: no
            provider or no view), emitted with ``overlay_changed``.
    """

    overlay_changed = Signal(object)
    budget_changed = Signal(int)
    order_changed = Signal(object)
    reload_needed = Signal()
    settings_changed = Signal(object)
    provider_view_changed = Signal(object)

    def __init__(self, budget: int = 4000, parent: QWidget | None = None,
                 jobs: JobPool | None = None) -> None:
        super().__init__(parent)
        self._data: SessionData | None = None
        self._titled: SessionData | None = None   # the session whose title is shown
        self._reading = ""   # the session whose tree is shown while the rest is read
        self._overlay: ViewOverlay | None = None
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.picker = StrategyPicker(self)
        self.provider_picker = ProviderPicker(self)
        self._provider_view: ProviderView | None = None
        self._settings = self.picker.settings()
        self.order_box = QComboBox(self)
        for i, order in enumerate(Order):
            self.order_box.addItem(order.value, order.value)
            self.order_box.setItemData(i, ORDER_TEXT[order], Qt.ItemDataRole.ToolTipRole)
        self.order_box.setToolTip("The order the session's events are read in.")
        defaults = CostSettings()
        self.cjk_ratio = ratio_box(self, defaults.cjk_ratio, "CJK characters per token.")
        self.other_ratio = ratio_box(self, defaults.other_ratio, "Other characters per token.")
        self.estimator = estimator_box(self)
        self.budget_control = BudgetControl(budget, self)
        self.strip = MetricsStrip(self)
        self.compare = CompareModel(self, jobs)   # jobs: a big session compared off the GUI thread
        self.table = QTableView(self)
        self.table.setModel(self.compare)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setToolTip("Every strategy at the current budget; double-click one to preview it.")
        self._layout()
        self.picker.changed.connect(self._on_picker_changed)
        self.provider_picker.provider_changed.connect(self._on_provider_picker_provider_changed)
        self.order_box.currentIndexChanged.connect(self._on_order_box_current_index_changed)
        self.cjk_ratio.valueChanged.connect(self._on_ratio_value_changed)
        self.other_ratio.valueChanged.connect(self._on_ratio_value_changed)
        self.estimator.currentIndexChanged.connect(self._on_estimator_current_index_changed)
        self.budget_control.budget_changed.connect(self._on_budget_control_budget_changed)
        self.table.activated.connect(self._on_table_activated)
        self.compare.modelReset.connect(self._show_current_row)
        self._update()

    def _layout(self) -> None:
        strategy = QGroupBox("Strategy", self)
        box = QVBoxLayout(strategy)
        box.addWidget(self.picker)
        provider = QHBoxLayout()
        provider.addWidget(QLabel("Provider", strategy))
        provider.addWidget(self.provider_picker, 1)
        box.addLayout(provider)
        reading = QGroupBox("Reading", self)
        form = QFormLayout(reading)
        form.setContentsMargins(6, 2, 6, 2)
        first = QHBoxLayout()
        first.addWidget(self.order_box, 1)
        first.addWidget(QLabel("Estimate", reading))
        first.addWidget(self.estimator, 2)
        form.addRow("Order", first)
        ratios = QHBoxLayout()
        ratios.addWidget(self.cjk_ratio)
        ratios.addWidget(QLabel("other", reading))
        ratios.addWidget(self.other_ratio)
        form.addRow("CJK", ratios)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(strategy)
        layout.addWidget(reading)
        layout.addWidget(self.budget_control)
        layout.addWidget(self.strip)
        layout.addWidget(self.table, 1)
        # Room for the header and at least six strategies (the previewed one kept in view).
        self.table.setMinimumHeight(self.table_height(6))

    def table_height(self, rows: int) -> int:
        """The comparison's height showing ``rows`` rows, its header and scroll bar."""
        table = self.table
        return (table.horizontalHeader().sizeHint().height()
                + rows * table.verticalHeader().defaultSectionSize()
                + table.horizontalScrollBar().sizeHint().height() + 2 * table.frameWidth())

    def focus_chain(self) -> list[QWidget]:
        """Its inputs in the order Tab visits them: top to bottom."""
        return [*self.picker.focus_chain(), self.order_box, self.estimator, self.cjk_ratio,
                self.other_ratio, self.budget_control.slider, self.budget_control.box,
                self.table]

    # -- public API -------------------------------------------------------------------------
    def set_session(self, data: SessionData | None, reading: str = "") -> None:
        """Preview on ``data`` (None: no session, or the session ``reading`` whose tree is
        shown while the rest is read); emits ``overlay_changed``."""
        self._data, self._reading = data, reading if data is None else ""
        self.compare.clear()
        self._update()
        self.compare.refresh()  # a new session: the table need not wait for the budget

    def session(self) -> SessionData | None:
        return self._data

    def budget(self) -> int:
        return self.budget_control.budget()

    def set_budget(self, budget: int) -> None:
        """Show ``budget``; a new value emits ``budget_changed`` and ``overlay_changed`` once,
        an unchanged one nothing."""
        self.budget_control.set_budget(budget)

    def order(self) -> Order:
        return Order(self.order_box.currentData())

    def set_order(self, order: Order) -> None:
        """Show ``order`` without emitting ``order_changed`` or ``reload_needed``: the caller
        reloads the session; until then no overlay is shown for the other order."""
        self.order_box.blockSignals(True)
        self.order_box.setCurrentIndex(self.order_box.findData(Order(order).value))
        self.order_box.blockSignals(False)
        self._update()

    def strategy(self) -> str:
        return self.picker.strategy()

    def set_strategy(self, text: str) -> None:
        """Preview the strategy ``text`` (ValueError when it does not parse)."""
        self.picker.set_strategy(text)
        self._update()

    def settings(self) -> CompactionSettings:
        return self._settings

    def set_settings(self, settings: CompactionSettings) -> None:
        """Show ``settings``, with the signals of a pick in the strategy picker."""
        self.picker.set_settings(settings)
        self._on_picker_changed(self.strategy(), self.picker.settings())

    def set_cost_settings(self, cost: CostSettings) -> None:
        """Show ``cost`` (ratios, tokenizer), with the signals of one change by the user."""
        boxes = (self.cjk_ratio, self.other_ratio, self.estimator)
        for box in boxes:
            box.blockSignals(True)
        self.cjk_ratio.setValue(cost.cjk_ratio)
        self.other_ratio.setValue(cost.other_ratio)
        self.estimator.setCurrentIndex(max(self.estimator.findData(cost.tokenizer), 0))
        for box in boxes:
            box.blockSignals(False)
        self._on_ratio_value_changed(0.0)

    def cost_settings(self) -> CostSettings:
        return CostSettings(self.cjk_ratio.value(), self.other_ratio.value(),
                            self.estimator.currentData())

    def current_overlay(self) -> ViewOverlay | None:
        return self._overlay

    def stale_reason(self) -> str:
        """Why the loaded session cannot be previewed with the panel's settings ("" if it can)."""
        data = self._data
        if data is None:
            return (f"Reading {elided(self._reading)}: its costs…" if self._reading
                    else "No session selected.")
        if data.order != self.order():
            return f"Reloading the session in {self.order().value} order…"
        if data.cost_settings != self.cost_settings():
            return "Reloading the session with the new token estimate…"
        if transform_key(data.settings) != transform_key(self._settings):
            return "Reloading the session with the new tool-result transforms…"
        return ""

    # -- the live path ----------------------------------------------------------------------
    def _update(self) -> None:
        """Recompute the overlay, show its metrics, emit it; schedule the comparison."""
        self.compare.set_current(self.strategy())
        self.budget_control.set_ignored(not self.picker.uses_budget())
        self._show_current_row()
        reason = self.stale_reason()
        data = self._data
        self._show_title(reason, data)
        self._provider_view = None
        if reason:
            self._overlay = None
            self.strip.set_metrics(None, self.budget(), reason)
            self.compare.clear()
        else:
            budget = self.budget()
            self._overlay, w = overlay_and_window(data.log, self.strategy(), budget,
                                                  self._settings)
            provider = self.provider_picker.provider()
            if provider is not None:
                self._provider_view = provider_view(data.log, self.strategy(), budget,
                                                    self._settings, provider,
                                                    (w, self._overlay.in_view))
                self._overlay = self._provider_view.marked(self._overlay)
            self.strip.set_metrics(self._overlay.metrics, budget)
            self.compare.schedule(data.log, budget, self.picker.texts(), self._settings)
        self.strip.set_verdict(self._provider_view)
        self.overlay_changed.emit(self._overlay)
        self.provider_view_changed.emit(self._provider_view)

    def _show_title(self, reason: str, data: SessionData | None) -> None:
        """The session and its size (its turn count costs a pass over the events: counted
        once a session, not once a slider move)."""
        if data is None:
            self._titled = None
            self.title.setText(reason)
            self.title.setToolTip("")
            return
        if self._titled is not data:
            self._titled = data
            self.title.setText(f"{elided(data.session_id)}: {data.log.n:,} events in "
                               f"{data.turns_text()}")
            self.title.setToolTip(whole_tip(data.session_id) or "")

    def current_provider_view(self) -> ProviderView | None:
        return self._provider_view

    @Slot(object)
    def _on_provider_picker_provider_changed(self, provider) -> None:
        self.compare.set_provider(provider)
        self._update()

    def _show_current_row(self) -> None:
        """Scroll the comparison to the previewed strategy's row (its rows may be new)."""
        row = self.compare.current_row()
        if row is not None:
            self.table.scrollTo(self.compare.index(row, 0))

    @Slot(int)
    def _on_budget_control_budget_changed(self, budget: int) -> None:
        self._update()
        self.budget_changed.emit(budget)

    @Slot(str, object)
    def _on_picker_changed(self, _strategy: str, settings: CompactionSettings) -> None:
        reload = transform_key(settings) != transform_key(self._settings)
        self._settings = settings
        self._update()
        if reload:
            self.reload_needed.emit()
        self.settings_changed.emit(settings)

    @Slot(int)
    def _on_order_box_current_index_changed(self, _index: int) -> None:
        self._update()
        self.order_changed.emit(self.order())
        self.reload_needed.emit()

    @Slot(float)
    def _on_ratio_value_changed(self, _value: float) -> None:
        self._update()
        self.reload_needed.emit()

    @Slot(int)
    def _on_estimator_current_index_changed(self, _index: int) -> None:
        self._update()
        self.reload_needed.emit()

    @Slot(QModelIndex)
    def _on_table_activated(self, index: QModelIndex) -> None:
        rows = self.compare.rows()
        if index.isValid() and index.row() < len(rows):
            self.set_strategy(rows[index.row()]["strategy"])


def main() -> int:
    """Show the panel on a demo session: ``python -m widgets.preview_panel [SESSION]``."""
    import sys

    from explorer.cli.demo import demo_paths
    from explorer.ingest.imports import import_paths
    from explorer.session.data import load_session
    from explorer.store.db import Store
    app = QApplication.instance() or QApplication(sys.argv[:1])
    store = Store()
    import_paths(store, [str(p) for p in demo_paths()])
    session = sys.argv[1] if len(sys.argv) > 1 else store.run("session_names")[0][0]
    panel = PreviewPanel()

    def reload() -> None:  # on the GUI thread here: a demo session loads in milliseconds
        panel.set_session(load_session(store, session, panel.order(), panel.cost_settings(),
                                       panel.settings()))

    panel.reload_needed.connect(reload)
    reload()
    panel.resize(460, 820)
    panel.show()
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
