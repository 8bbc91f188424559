"""The session workspace: the turn tree and detail (centre), the compaction preview and the
cost plot (right), kept in step: one budget, one overlay, one session loaded off-thread.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explorer.model import Order
from explorer.session.data import SessionData, SessionTree
from explorer.session.preview import transform_key
from explorer.store.db import Store
from explorer.text_escape import elided, visible
from widgets.cost_plot import SessionCostPlot
from widgets.pane_shares import SharedSplitter
from widgets.plain_text import tooltip
from widgets.preview_panel import PreviewPanel
from widgets.replay_strip import ReplayStrip
from widgets.session_loader import SessionLoader
from widgets.session_panel import SessionPanel
from widgets.window_state import WindowState
from widgets.workers import JobPool, reason


class Workspace(QWidget):
    """One session at a time: ``show_session(id)`` loads it in the background, then the tree,
    the preview and the plot show it. The preview's budget and the plot's line move together.

    Signals:
        tree_shown(str): the session's turn tree is shown (the rest is being read).
        session_shown(str): the session is loaded and shown (with its preview applied).
        order_changed(object): the user picked another order in the preview panel.
        settings_changed(): the token ratios, the transforms or the strategy's settings
            changed (the audit and the sweep read them: see :meth:`observe`).
    """

    #: Its tab in the main window: title, tooltip.
    TAB = ("Session", "")

    tree_shown = Signal(str)
    session_shown = Signal(str)
    order_changed = Signal(object)
    settings_changed = Signal()

    def __init__(self, store: Store, jobs: JobPool, order: Order = Order.SEQ,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.order = Order(order)
        self.session_id: str | None = None
        self.data: SessionData | None = None
        self._pending_event: dict | None = None
        self._requested: tuple | None = None  # what the newest load was asked with
        self._replay_waits: SessionData | None = None   # replayed once the comparison is in
        self.loader = SessionLoader(store, jobs, self)
        self.session_panel = SessionPanel(self)
        self.preview = PreviewPanel(parent=self, jobs=jobs)
        self.preview.set_order(self.order)
        self.preview.title.hide()  # the session panel's title says the same, next to it
        self.cost_plot = SessionCostPlot(self)
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.preview)
        right.addWidget(self.cost_plot)
        self.replay = ReplayStrip(jobs, self)   # the call scrubber and the sawtooth
        right.addWidget(self.replay)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setStretchFactor(2, 2)
        right.setSizes([600, 360, 360])
        right.setChildrenCollapsible(False)
        # A readable plot under the comparison (six rows at least, the preview's own minimum);
        # below that the pane scrolls.
        row = self.preview.table.verticalHeader().defaultSectionSize()
        self.cost_plot.setMinimumHeight(9 * row)
        self.right_splitter = right
        # On a small screen the right pane scrolls rather than squeezing its controls.
        self.right_pane = QScrollArea(self)
        self.right_pane.setWidgetResizable(True)
        self.right_pane.setFrameShape(QFrame.Shape.NoFrame)
        self.right_pane.setWidget(right)
        # The tree gives way first, down to its least width, so that the right pane's
        # controls stay whole; narrower still, the right pane scrolls.
        split = SharedSplitter(self)
        split.add_pane(self.session_panel, 680, self.session_panel.least_width)
        split.add_pane(self.right_pane, 480, self._right_least)
        split.setSizes([680, 480])
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

        self.loader.tree_loaded.connect(self._on_loader_tree_loaded)
        self.loader.loaded.connect(self._on_loader_loaded)
        self.loader.failed.connect(self._on_loader_failed)
        self.preview.overlay_changed.connect(self.session_panel.set_overlay)
        self.preview.budget_changed.connect(self.cost_plot.set_budget)
        self.cost_plot.budget_dragged.connect(self.preview.set_budget)
        self.preview.reload_needed.connect(self._on_preview_reload_needed)
        self.preview.order_changed.connect(self._on_preview_order_changed)
        self.preview.settings_changed.connect(self.settings_changed)
        self.cost_plot.set_budget(self.preview.budget())
        self.preview.overlay_changed.connect(self.replay.set_strategy)
        self.replay.set_provider(self.preview.provider_picker.provider())
        self.preview.provider_picker.provider_changed.connect(self.replay.set_provider)
        self.replay.overlay_chosen.connect(self._on_replay_overlay_chosen)
        self.preview.compare.settled.connect(self._on_compare_settled)
        # Tab into the right pane: it scrolls to the control with the focus.
        QApplication.instance().focusChanged.connect(self._on_app_focus_changed)

    # -- public ---------------------------------------------------------------------------
    def show_session(self, session_id: str, event: dict | None = None) -> None:
        """Load ``session_id`` in the background; then select ``event`` (seq, sub, kind,
        call_id) in the tree when given."""
        self.session_id = session_id
        self._pending_event = event
        self._requested = self._request()
        self.loader.load(session_id, self.order, self.preview.cost_settings(),
                         self.preview.settings())

    def select_event(self, event: dict) -> None:
        """Select an event of the session shown, or of the one loading once it is shown."""
        if self.loader.busy() or self.data is None or self.data.session_id != self.session_id:
            self._pending_event = event
            return
        self._select(event)

    def _select(self, event: dict) -> None:
        """Select ``event`` (the current row) and, added to the selection, the events of its
        ``"also"`` list (the other events of a finding)."""
        self.session_panel.select_event(event.get("seq"), event.get("sub"),
                                        event.get("kind"), event.get("call_id"))
        for other in event.get("also", ()):
            self.session_panel.select_event(other.get("seq"), other.get("sub"),
                                            other.get("kind"), other.get("call_id"), add=True)

    def set_order(self, order: Order) -> None:
        """Read sessions in ``order`` (the window's order box); reloads the session shown."""
        order = Order(order)
        if order == self.order:
            return
        self.order = order
        self.preview.set_order(order)
        self._reload()

    def observe(self, state: WindowState) -> None:
        """Follow the window's order, and tell it the order, the cost settings and the
        compaction settings the user picks here."""
        self._state = state
        state.order_changed.connect(self.set_order)
        self.order_changed.connect(state.set_order)
        self.settings_changed.connect(self._on_settings_changed)

    def _right_least(self) -> int:
        """The right pane's controls whole, and room for its vertical scroll bar."""
        pane = self.right_pane
        return (self.right_splitter.minimumSizeHint().width() + 2 * pane.frameWidth()
                + pane.verticalScrollBar().sizeHint().width())

    # The turn tree's commands, offered to the window's View menu.
    def next_finding(self) -> int | None:
        return self.session_panel.next_finding()

    def previous_finding(self) -> int | None:
        return self.session_panel.previous_finding()

    def expand_all(self) -> None:
        self.session_panel.expand_all()

    def collapse_all(self) -> None:
        self.session_panel.collapse_all()

    def clear(self) -> None:
        self.session_id = None
        self.data = self._replay_waits = None
        self.session_panel.clear()
        self.preview.set_session(None)
        self.cost_plot.set_session(None)
        self.replay.set_session(None)

    # -- slots ----------------------------------------------------------------------------
    def _request(self) -> tuple:
        """What a load depends on: the session, the order, the ratios, the transforms."""
        return (self.session_id, self.order, self.preview.cost_settings(),
                transform_key(self.preview.settings()))

    def _reload(self) -> None:
        """Load the session again if what it depends on changed since the last request."""
        if self.session_id is not None and self._request() != self._requested:
            self.show_session(self.session_id, self._pending_event)

    @Slot(object)
    def _on_loader_tree_loaded(self, first: SessionTree) -> None:
        """The session's tree, before the rest: shown at once; the preview and the plot wait
        for the rest (they read every event's cost)."""
        self.data = None
        self.session_panel.set_tree(first)
        self.cost_plot.set_session(None)
        self.preview.set_session(None, reading=first.session_id)
        self.tree_shown.emit(first.session_id)

    @Slot(object)
    def _on_loader_loaded(self, data: SessionData) -> None:
        self.data = data
        self.session_panel.set_data(data)
        self.cost_plot.set_session(data)
        self.preview.set_session(data)  # emits the overlay, which the tree takes
        if self.preview.compare.busy():
            # a big session: replayed once its comparison is in, so that the two jobs'
            # peaks of memory come one after the other (3M events: 2.06 GB together)
            self._replay_waits = data
            self.replay.wait(f"The replay of {data.log.n:,} events starts once the "
                             "strategies are compared…")
        else:
            self._replay_waits = None
            self.replay.set_session(data)
        if self._pending_event is not None:
            event, self._pending_event = self._pending_event, None
            self._select(event)
        self.session_shown.emit(data.session_id)

    @Slot()
    def _on_compare_settled(self) -> None:
        data, self._replay_waits = self._replay_waits, None
        if data is not None and data is self.data:
            self.replay.set_session(data)

    @Slot(QWidget, QWidget)
    def _on_app_focus_changed(self, old: QWidget | None, now: QWidget | None) -> None:
        inner = self.right_pane.widget()
        if now is not None and inner is not None and inner.isAncestorOf(now):
            self.right_pane.ensureWidgetVisible(now)

    @Slot(object)
    def _on_replay_overlay_chosen(self, overlay) -> None:
        """A call's request in the tree; None: back to the preview's view."""
        self.session_panel.set_overlay(overlay if overlay is not None
                                       else self.preview.current_overlay())

    @Slot(object)
    def _on_loader_failed(self, exc: Exception) -> None:
        text = f"Cannot read {elided(self.session_id or '')}: {visible(reason(exc))}"
        self.session_panel.title.setText(text)
        self.session_panel.title.setToolTip(tooltip(text))

    @Slot()
    def _on_preview_reload_needed(self) -> None:
        if self.preview.order() == self.order:  # an order change is handled on its own
            self.settings_changed.emit()
        self._reload()

    @Slot()
    def _on_settings_changed(self) -> None:
        self._state.set_cost_settings(self.preview.cost_settings())
        self._state.set_settings(self.preview.settings())

    @Slot(object)
    def _on_preview_order_changed(self, order: Order) -> None:
        self.order_changed.emit(Order(order))
        self.set_order(order)
