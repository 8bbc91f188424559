"""The panel that shows one session as a turn tree (see :mod:`widgets.turn_tree_model`), its
legend, the detail of the selected row, and the finding navigation (F3 / Shift+F3)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable

import polars as pl
from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Slot
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from explorer.audits.marks import MARKS
from explorer.audits.rules import RULE_TEXT
from explorer.model import Order
from explorer.session.data import SessionData, SessionTree, load_session
from explorer.session.event_json import events_json
from explorer.session.view_overlay import ViewOverlay
from explorer.store.db import Db
from explorer.text_escape import elided, visible
from widgets.event_detail import EventDetail, ViewState
from widgets.find_bar import FindBar
from widgets.flow_layout import FlowRow
from widgets.mark_style import BadgeDelegate
from widgets.plain_text import tooltip
from widgets.tree_legend import TreeLegend
from widgets.turn_tree_cells import COST, EVENT, MARK, SEQ, VIEW
from widgets.turn_tree_model import TurnTreeModel

#: Text as wide as each column's usual content (the event column stretches).
_WIDTH_SAMPLES = {SEQ: "00000.0", COST: "000,000", VIEW: "000/000 in view",
                  MARK: "00 orphan result 0"}
_EVENT_MIN = 220


class SessionPanel(QWidget):
    """A title line, expand/collapse and finding buttons, the turn tree with its legend, and
    the detail of the current row. Emits no signals of its own (the tree's selection
    model says what is current).

    ``across``: called as ``across(step, rule)`` when F3 (``step`` +1) runs past the last
    finding of the session or Shift+F3 (-1) before the first, ``rule`` the one F3 is limited
    to (None: all); it returns True when it went on to another session (the window's list),
    False to wrap around in this one. None (the default): always wrap.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data: SessionData | None = None
        self.first: SessionTree | None = None   # the tree shown before ``data`` came
        self.session_id = ""
        self.across: Callable[[int, str | None], bool] | None = None
        self._shown: tuple = ()  # what the detail shows, to skip rewriting the same text
        self.title = QLabel("Select a session to see its turns.", self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        # A long title wraps (the reported usage on a line of its own), never widens the
        # window (the tooltip holds all of it).
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setWordWrap(True)
        self.model = TurnTreeModel(self)
        self.tree = QTreeView(self)
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # several rows for Ctrl+C (copied as JSON); the current row is the one the detail shows
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setItemDelegateForColumn(MARK, BadgeDelegate(self.tree))
        header = self.tree.header()
        header.setStretchLastSection(False)
        # Not ResizeToContents: it measures every row again on each dataChanged (seconds per
        # slider move on a big session). Widths from sample texts, then the user's; the
        # event column takes the rest of the width, never less than _EVENT_MIN (then the
        # tree scrolls sideways).
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        metrics = self.tree.fontMetrics()
        for column, sample in _WIDTH_SAMPLES.items():
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 16)
        self.tree.viewport().installEventFilter(self)
        self.legend = TreeLegend(self)
        self.detail = EventDetail(self)
        self.find_bar = FindBar(self)
        self._hits: list[int] = []   # frame rows holding the searched words, in tree order
        self.find_bar.searched.connect(self.find)
        self.find_bar.stepped.connect(self.step_hit)
        self._build_layout()
        self._build_shortcuts()
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)

    def _build_layout(self) -> None:
        self.expand_button = QPushButton("Expand all", self)
        self.collapse_button = QPushButton("Collapse all", self)
        self.previous_button = QPushButton("◀ Finding", self)
        self.next_button = QPushButton("Finding ▶", self)
        self.previous_button.setToolTip("Select the previous event with a finding (Shift+F3).")
        self.next_button.setToolTip("Select the next event with a finding (F3); past the last "
                                    "one, the first of the next session with findings.")
        # Reached by keyboard through F3, Shift+F3 and the View menu: out of the Tab chain.
        for button in (self.expand_button, self.collapse_button, self.previous_button,
                       self.next_button):
            button.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.rule_box = QComboBox(self)
        self.rule_box.setToolTip("The findings F3 and Shift+F3 step through: those of every "
                                 "rule, or of one")
        self.rule_box.addItem("all rules", "")
        for rule in MARKS:
            self.rule_box.addItem(rule.replace("_", " "), rule)
            self.rule_box.setItemData(self.rule_box.count() - 1, RULE_TEXT[rule],
                                      Qt.ItemDataRole.ToolTipRole)
        self.rule_box.currentIndexChanged.connect(self._show_finding_count)
        self.finding_label = QLabel(self)
        self.finding_label.setTextFormat(Qt.TextFormat.PlainText)
        # On a narrow pane the row wraps onto two lines rather than widening the window.
        buttons = FlowRow([self.expand_button, self.collapse_button, self.previous_button,
                           self.next_button, self.rule_box, self.finding_label], self)
        self.expand_button.clicked.connect(self.expand_all)
        self.collapse_button.clicked.connect(self.tree.collapseAll)
        self.previous_button.clicked.connect(self.previous_finding)
        self.next_button.clicked.connect(self.next_finding)
        left = QWidget(self)
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.tree, 1)
        column.addWidget(self.legend)
        # the detail below the tree: in the window the panel shares its width with the preview
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(left)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([600, 220])
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # the title (it wraps) and, at its right, other parts' controls (add_header)
        self._title_row = QHBoxLayout()
        self._title_row.setContentsMargins(0, 0, 0, 0)
        self._title_row.addWidget(self.title, 1)
        layout.addLayout(self._title_row)
        layout.addWidget(buttons)
        layout.addWidget(self.find_bar)
        layout.addWidget(split, 1)

    def least_width(self) -> int:
        """The width under which the panel is not whole: the tree's event column at its least
        (the other columns scroll sideways), or its controls at their widest."""
        tree = self.tree
        return max(self.minimumSizeHint().width(), _EVENT_MIN + 2 * tree.frameWidth()
                   + tree.verticalScrollBar().sizeHint().width())

    def add_header(self, widget: QWidget) -> None:
        """Put ``widget`` at the right of the title line (another part's controls for the
        session shown, e.g. :class:`widgets.subagent_nav.SubagentNav`); the title wraps
        beside it, so the panel grows no wider."""
        self._title_row.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)

    def _build_shortcuts(self) -> None:
        self.next_shortcut = QShortcut(QKeySequence("F3"), self)
        self.previous_shortcut = QShortcut(QKeySequence("Shift+F3"), self)
        for shortcut in (self.next_shortcut, self.previous_shortcut):
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.next_shortcut.activated.connect(self.next_finding)
        self.previous_shortcut.activated.connect(self.previous_finding)
        self.copy_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), self.tree)
        self.copy_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.copy_shortcut.activated.connect(self.copy_events)

    def selected_rows(self) -> list[int]:
        """The frame rows of the selected event rows, in tree order (turn and synthetic rows
        are not events: left out)."""
        rows = {self.model.frame_row(i) for i in self.tree.selectionModel().selectedRows()}
        rows.discard(None)
        return sorted(rows, key=lambda r: self.model.finding_positions([r])[0])

    @Slot()
    def copy_events(self) -> str:
        """Copy the selected events as JSON Lines (the canonical event and its raw record,
        :mod:`explorer.session.event_json`); the text copied."""
        rows = self.selected_rows()
        if not rows or self.data is None:
            return ""
        text = events_json([self.model.event(r) for r in rows], self.session_id)
        QGuiApplication.clipboard().setText(text)
        return text

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            header = self.tree.header()
            others = sum(header.sectionSize(c) for c in range(1, header.count()))
            header.resizeSection(EVENT, max(_EVENT_MIN, self.tree.viewport().width() - others))
        return super().eventFilter(watched, event)

    # -- content --------------------------------------------------------------------------
    def set_tree(self, first: SessionTree) -> None:
        """Show a session's turn tree before the rest of it is read (no marks yet, the
        first turn expanded); :meth:`set_data` then completes it in place."""
        self._release()
        self.data, self.first, self.session_id = None, first, first.session_id
        self.model.set_session(first.frame, first.marks, first.texts, first.tree)
        self.detail.show_event(None)
        self._shown = ()
        self._set_title(first.session_id, f": {first.frame.height:,} events in "
                        f"{first.turns:,} turn(s), {Order(first.order).value} order · "
                        "reading its costs and marks…")
        if self.model.rowCount():
            self.tree.expand(self.model.first_turn())
        self.finding_label.setText("reading the marks…")
        self.next_button.setEnabled(False)
        self.previous_button.setEnabled(False)

    def set_data(self, data: SessionData) -> None:
        """Show a session already loaded (no database access here); the first turn expanded.
        When its tree is shown already (:meth:`set_tree`, same session and order), the tree
        takes the rest in place: what the user expanded and selected meanwhile stays."""
        first, self.first = self.first, None
        completes = (first is not None and data.tree is not None
                     and (first.session_id, first.order) == (data.session_id, data.order))
        if not completes:
            self._release()
        self.data, self.session_id = data, data.session_id
        if not completes or not self.model.complete_session(data.frame, data.marks,
                                                            data.texts, data.tree):
            self.model.set_session(data.frame, data.marks, data.texts, data.tree)
            if self.model.rowCount():
                self.tree.expand(self.model.first_turn())
        self.detail.show_event(None)
        self._shown = ()
        about = (f": {data.frame.height:,} events in {data.turns_text()}, "
                 f"{Order(data.order).value} order · {data.cost_text()}")
        if data.usage.responses:
            about += f"\n{data.usage.text()} (as the writer reported it; never the cost)"
        self._set_title(data.session_id, about)
        self._show_finding_count()
        self._show_current(self.tree.currentIndex())
        self._hits = []
        if self.find_bar.isVisible() and self.find_bar.text():
            self.find(self.find_bar.text(), select=False)   # the same words in this session

    def _set_title(self, session_id: str, about: str) -> None:
        # the session id is log text: elided in the title, whole (escaped) in its tooltip
        self.title.setText(elided(session_id) + about)
        self.title.setToolTip(tooltip(visible(session_id) + about))

    def show_session(self, db: Db, session_id: str, order: Order) -> None:
        """Load one session on this thread and show it (until the window loads off-thread)."""
        self.set_data(load_session(db, session_id, Order(order)))

    def clear(self) -> None:
        """Show nothing."""
        self._release()
        self.data, self.first, self.session_id = None, None, ""
        self.model.clear()
        self.detail.show_event(None)
        self._shown = ()
        self.title.setText("Select a session to see its turns.")
        self.title.setToolTip("")
        self.finding_label.clear()
        self._hits = []
        self.find_bar.set_count("")

    def _release(self) -> None:
        """Let go of the shown session's text reads (their cursor)."""
        for shown in (self.data, self.first):
            if shown is not None and shown.texts is not None:
                shown.texts.close()

    def set_overlay(self, overlay: ViewOverlay | None) -> None:
        """Lay a compaction preview over the tree; the detail of the current row follows."""
        if self.data is None:
            return
        self.model.set_overlay(overlay)
        self._show_current(self.tree.currentIndex())

    def expand_all(self) -> None:
        self.model.fetch_all()
        self.tree.expandAll()

    def collapse_all(self) -> None:
        self.tree.collapseAll()

    # -- search ---------------------------------------------------------------------------
    def open_find(self) -> None:
        """Show the search bar with the focus in it (Ctrl+F)."""
        self.find_bar.open()

    @Slot(str)
    def find(self, text: str, select: bool = True) -> list[int]:
        """Mark the events whose text holds ``text`` (case folded; tool input and output
        included) and, with ``select``, select the first at or after the current row; the
        frame rows found, in tree order."""
        rows: list[int] = []
        if text and self.data is not None and self.data.texts is not None:
            rows = self.data.texts.search(text)
        if rows:
            positions = self.model.finding_positions(rows)
            rows = [r for _, r in sorted(zip(positions, rows))]
        self._hits = rows
        self.model.set_hits(rows)
        self.tree.viewport().update()
        self.find_bar.set_count("" if not text else f"{len(rows):,} event(s)" if rows
                                else "not found")
        if rows and select:
            current = self.tree.currentIndex()
            at = self.model.tree_position(current) if current.isValid() else -1.0
            n = bisect_left(self.model.finding_positions(rows), at) % len(rows)
            self.select_row(rows[n])
            self.find_bar.set_count(f"{n + 1:,} of {len(rows):,}")
        return rows

    @Slot(int)
    def step_hit(self, step: int) -> int | None:
        """Select the next (``step`` +1) or previous (-1) event the search found (wrapping)."""
        rows = self._hits
        if not rows:
            return None
        positions = self.model.finding_positions(rows)
        current = self.tree.currentIndex()
        at = self.model.tree_position(current) if current.isValid() else -1.0
        n = bisect_right(positions, at) if step > 0 else bisect_left(positions, at) - 1
        n %= len(rows)
        self.find_bar.set_count(f"{n + 1:,} of {len(rows):,}")
        return self.select_row(rows[n])

    def hits(self) -> list[int]:
        return list(self._hits)

    # -- navigation -----------------------------------------------------------------------
    def select_row(self, frame_row: int, add: bool = False) -> int | None:
        """Expand to a frame row, select it and scroll to it; ``add``: add it to the
        selection, the current row staying where it is."""
        if not 0 <= frame_row < self.model.event_count():
            return None
        index = self.model.index_of_row(frame_row)
        parent = index.parent()
        while parent.isValid():
            self.tree.expand(parent)
            parent = parent.parent()
        if add:
            self.tree.selectionModel().select(index, QItemSelectionModel.SelectionFlag.Select
                                              | QItemSelectionModel.SelectionFlag.Rows)
            return frame_row
        flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                 | QItemSelectionModel.SelectionFlag.Rows)
        self.tree.selectionModel().setCurrentIndex(index, flags)
        self.tree.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        return frame_row

    def select_event(self, seq: int, sub: int | None, kind: str | None = None,
                     call_id: str | None = None, add: bool = False) -> int | None:
        """Select the event of this session with ``seq`` (and ``sub``, ``kind``, ``call_id``
        when given; an exact ``sub`` is preferred; no ``seq``: the first of that ``call_id``);
        the frame row, or None when absent."""
        if self.data is None or (seq is None and call_id is None):
            return None
        # a filter, not a Python tuple per event
        match = pl.col("seq") == seq if seq is not None else pl.lit(True)
        if kind is not None:
            match &= pl.col("kind").cast(pl.String) == kind
        if call_id is not None:
            match &= pl.col("call_id") == call_id
        candidates = (self.data.frame.with_row_index("row").filter(match)
                      .select("row", "sub").rows())
        exact = [r for r, s in candidates if s == sub or (sub is None and not s)]
        rows = exact or [r for r, _ in candidates]
        return self.select_row(rows[0], add) if rows else None

    def finding_rule(self) -> str | None:
        """The rule F3 is limited to (None: every rule)."""
        return self.rule_box.currentData() or None

    def set_finding_rule(self, rule: str | None) -> None:
        self.rule_box.setCurrentIndex(max(self.rule_box.findData(rule or ""), 0))

    def finding_rows(self) -> list[int]:
        """The frame rows F3 steps through, in tree order: those with a mark of the chosen
        rule (of any rule when none is chosen)."""
        rows = self.model.finding_rows()
        rule = self.finding_rule()
        if rule is None or self.data is None:
            return rows
        marks = self.data.marks
        return [r for r in rows if rule in marks[r]]

    @Slot()
    def next_finding(self) -> int | None:
        """Select the next event with a finding mark in tree order; past the last, the
        :attr:`across` hook may go on to another session (None is returned), else it wraps."""
        return self._step_finding(+1)

    @Slot()
    def previous_finding(self) -> int | None:
        """Select the previous event with a finding mark in tree order (see
        :meth:`next_finding`)."""
        return self._step_finding(-1)

    def first_finding(self, step: int = +1) -> int | None:
        """Select the first finding of the session (the last for ``step`` -1), never
        leaving it: where F3 lands in the next session."""
        rows = self.finding_rows()
        if not rows:
            return None
        n = 0 if step > 0 else len(rows) - 1
        row = self.select_row(rows[n])
        self._say_finding(n, len(rows))
        return row

    def _step_finding(self, step: int) -> int | None:
        rows = self.finding_rows()
        if not rows:
            if self.across is not None and self.across(step, self.finding_rule()):
                return None
            return None
        positions = self.model.finding_positions(rows)
        current = self.tree.currentIndex()
        at = self.model.tree_position(current) if current.isValid() else -1.0
        n = bisect_right(positions, at) if step > 0 else bisect_left(positions, at) - 1
        if not 0 <= n < len(rows) and self.across is not None \
                and self.across(step, self.finding_rule()):
            return None
        n %= len(rows)
        row = self.select_row(rows[n])
        self._say_finding(n, len(rows))
        return row

    def _say_finding(self, n: int, count: int) -> None:
        rule = self.finding_rule()
        of = f" ({rule.replace('_', ' ')})" if rule else ""
        self.finding_label.setText(f"finding {n + 1:,} of {count:,}{of}")

    def _show_finding_count(self, *_args) -> None:
        count = len(self.finding_rows())
        self.finding_label.setText(f"{count:,} event(s) with findings" if count else "no findings")
        has_any = bool(count) or (self.across is not None)
        self.next_button.setEnabled(has_any)
        self.previous_button.setEnabled(has_any)

    # -- detail ---------------------------------------------------------------------------
    def _on_tree_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_current(current)

    def _show_current(self, current: QModelIndex) -> None:
        node = self.model.node(current) if current.isValid() else None
        overlay = self.model.overlay
        if node is not None and node.item is not None and overlay is not None:
            shown = (node.item, overlay.strategy, overlay.budget)
            if shown != self._shown:
                after = node.item.after_row
                self.detail.show_synthetic(node.item, overlay.strategy, overlay.budget,
                                           self.model.event(after) if after is not None else None)
        else:
            row = node.row if node is not None else None
            shown = (self.session_id, row, self._view_state(row) if row is not None else None)
            if shown != self._shown:  # a slider move rarely changes the current row's state
                if self.data is None and row is not None:   # the tree came first
                    self.detail.setPlainText("Reading the event's costs and marks…")
                    shown = ()   # shown once the rest is read (set_data)
                else:
                    event = self.model.event(row) if row is not None else None
                    estimate = self.data.cost_settings.describe() if self.data else ""
                    self.detail.show_event(event, self.session_id, shown[2], estimate)
        self._shown = shown

    def _view_state(self, row: int) -> ViewState | None:
        overlay = self.model.overlay
        if overlay is None:
            return None
        notes = (self.data.log.notes or {}) if self.data is not None else {}
        note = notes.get(row)
        cost = int(self.data.log.cost[row]) if note is not None else None
        return ViewState(overlay.strategy, overlay.budget, bool(overlay.in_view[row]),
                         tuple(overlay.errors.get(row, ())), cost, note,
                         overlay.notes.get(row, ""))
