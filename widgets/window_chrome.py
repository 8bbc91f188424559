"""The main window's chrome: the menus (File, View, Help), the toolbar's order box, the
status bar's job widgets and the central area's tabs. Each is a small object with the actions and widgets it holds and
the signals the window connects; none knows the window.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QMenuBar,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStatusBar,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from explorer.model import Order
from widgets.pane_shares import Pane, SharedSplitter
from widgets.recent_files import RecentFiles
from widgets.texts import ORDER_TEXT

#: The session list's least width, in average characters: its id and first counts readable.
LEFT_LEAST_CHARS = 30

#: The View menu's entries for the turn tree: (text, name of the workspace slot). F3 and
#: Shift+F3 are the session panel's own window-wide shortcuts: the menu only names them (a
#: second binding of the same key would make both ambiguous).
TREE_ENTRIES = (("Next finding\tF3", "next_finding"),
                ("Previous finding\tShift+F3", "previous_finding"),
                ("Expand all turns", "expand_all"),
                ("Collapse all turns", "collapse_all"))

#: The View menu's entries that move the keyboard focus: (text, target, key).
FOCUS_ENTRIES = (("Turn &tree", "tree", "Esc"),
                 ("F&ind in session…", "find", "Ctrl+F"),
                 ("Search &all sessions…", "corpus", "Ctrl+Shift+L"),
                 ("St&rategy", "strategy", "Ctrl+K"),
                 ("&Budget", "budget", "Ctrl+B"),
                 ("Strategy &comparison", "compare", "Ctrl+Shift+K"))


class WindowMenus(QObject):
    """The menu bar's actions; the window connects their ``triggered`` to its slots.

    Signals:
        tab_requested(str, int): show tab ``int`` of the tab widget named ``"main"`` or
            ``"left"`` (the View menu's Ctrl+1, Ctrl+2, Ctrl+L, Ctrl+Shift+F) and put the
            keyboard focus in it.
        focus_requested(str): put the keyboard focus on one of :data:`FOCUS_ENTRIES`'
            targets (``"tree"``, ``"strategy"``, ``"budget"``, ``"compare"``).
    """

    tab_requested = Signal(str, int)
    focus_requested = Signal(str)

    def __init__(self, bar: QMenuBar, tree: QObject, parent: QWidget,
                 settings: QSettings | None = None) -> None:
        """``tree``: the object offering the slots named in :data:`TREE_ENTRIES`;
        ``settings``: where Open Recent keeps its entries (default: the application's)."""
        super().__init__(parent)
        file_menu = bar.addMenu("&File")
        self.open_action = self._action(
            "&Open…", parent, "Import one or more session logs (also: drop files on the window)",
            QKeySequence.StandardKey.Open)
        file_menu.addAction(self.open_action)
        self.open_folder_action = self._action(
            "Open &Folder…", parent, "Import every log under a folder, its subfolders "
            "included (a ~/.claude/projects or Codex sessions tree); the files that are not "
            "logs are listed in the import report")
        file_menu.addAction(self.open_folder_action)
        self.database_action = self._action(
            "Open &Database Connection…", parent, "Read Spring AI sessions live from "
            "PostgreSQL (read-only; the password is never stored)")
        file_menu.addAction(self.database_action)
        self.follow_action = self._action(
            "Fo&llow…", parent, "Follow a growing log (a file): its new records are imported "
            "as they are written, the list and the open session updated in place")
        self.follow_action.setCheckable(True)
        file_menu.addAction(self.follow_action)
        self.recent = RecentFiles(file_menu.addMenu("Open &Recent"), settings, parent)
        self.open_database_action = self._action(
            "Open &Database…", parent, "Open a Turnscope database in a new window")
        self.save_database_action = self._action(
            "&Save Database As…", parent, "Write the data of this window to a new database file",
            QKeySequence.StandardKey.SaveAs)
        file_menu.addAction(self.open_database_action)
        file_menu.addAction(self.save_database_action)
        file_menu.addSeparator()
        self.rejected_action = self._action(
            "&Rejected lines…", parent, "The input lines that could not be imported, as text")
        self.import_report_action = self._action(
            "&Import report…", parent, "How every record of the last import was counted")
        self.limits_action = self._action(
            "Import &limits…", parent, "What reading one file may cost before it is rejected")
        self.export_action = self._action(
            "&Export…", parent, "Write the current session or all as ATIF, OTel JSON or JSON Lines")
        file_menu.addAction(self.export_action)
        self.repair_action = self._action(
            "Re&pair session…", parent, "Write a corrected copy of the current session in its "
            "own format, after showing the events that go and are added (the source is kept)")
        file_menu.addAction(self.repair_action)
        self.report_action = self._action(
            "Re&port…", parent, "Write what was found (audit table, findings, the current "
            "session's provider check and turn tree) as one HTML or Markdown file")
        file_menu.addAction(self.report_action)
        file_menu.addAction(self.rejected_action)
        file_menu.addAction(self.import_report_action)
        file_menu.addAction(self.limits_action)
        file_menu.addSeparator()
        self.quit_action = self._action("&Quit", parent, "", QKeySequence.StandardKey.Quit)
        file_menu.addAction(self.quit_action)

        view = bar.addMenu("&View")
        for text, name in TREE_ENTRIES:
            action = QAction(text, parent)
            action.triggered.connect(lambda _=False, s=getattr(tree, name): s())
            view.addAction(action)
        view.addSeparator()
        for text, tabs, index, key in (("&Session", "main", 0, "Ctrl+1"),
                                       ("Corpus s&weep", "main", 1, "Ctrl+2"),
                                       ("Session &list", "left", 0, "Ctrl+L"),
                                       ("&Findings", "left", 1, "Ctrl+Shift+F")):
            action = QAction(text, parent)
            action.setShortcut(QKeySequence(key))
            action.triggered.connect(
                lambda _=False, t=tabs, i=index: self.tab_requested.emit(t, i))
            view.addAction(action)
        view.addSeparator()
        for text, target, key in FOCUS_ENTRIES:
            action = QAction(text, parent)
            action.setShortcut(QKeySequence(key))
            action.triggered.connect(lambda _=False, t=target: self.focus_requested.emit(t))
            view.addAction(action)
        self.view_menu = view

        help_menu = bar.addMenu("&Help")
        self.shortcuts_action = QAction("&Keyboard shortcuts", parent)
        self.shortcuts_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.marks_action = QAction("What the &marks mean", parent)
        self.about_action = QAction("&About Turnscope", parent)
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self.marks_action)
        help_menu.addSeparator()
        help_menu.addAction(self.about_action)
        self.bar = bar

    @staticmethod
    def _action(text: str, parent: QWidget, tip: str, key=None) -> QAction:
        action = QAction(text, parent)
        if key is not None:
            action.setShortcut(key)
        if tip:
            action.setToolTip(tip)
        return action


class OrderBox(QComboBox):
    """The toolbar's choice of :class:`Order`.

    Signals:
        order_picked(object): the user (or :meth:`set_order`) chose this order.
    """

    order_picked = Signal(object)

    def __init__(self, order: Order, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for o in Order:
            self.addItem(o.value, o.value)
            self.setItemData(self.count() - 1, ORDER_TEXT[o], Qt.ItemDataRole.ToolTipRole)
        self.setCurrentIndex(self.findData(Order(order).value))
        self.setToolTip("The order events are read in; the audit is recomputed.")
        self.currentIndexChanged.connect(self._on_current_index_changed)

    @Slot(object)
    def set_order(self, order: Order) -> None:
        self.setCurrentIndex(self.findData(Order(order).value))

    @Slot(int)
    def _on_current_index_changed(self, index: int) -> None:
        self.order_picked.emit(Order(self.itemData(index)))


class ViewToolbar(QToolBar):
    """The toolbar: an :class:`OrderBox` (``order_box``), then ``widgets``, then ``right``
    at the far end."""

    def __init__(self, order: Order, widgets: list[QWidget], right: QWidget,
                 parent: QWidget | None = None) -> None:
        super().__init__("View", parent)
        self.setObjectName("view_toolbar")
        self.setMovable(False)
        self.addWidget(QLabel(" Order ", self))
        self.order_box = OrderBox(order, self)
        self.addWidget(self.order_box)
        self.addSeparator()
        for widget in widgets:
            self.addWidget(widget)
        spacer = QWidget(self)
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addWidget(spacer)
        self.addWidget(right)


class JobStatus(QObject):
    """The status bar's progress bar and Cancel button (shown while jobs run) and the
    Details… button of the last import (shown once one has finished)."""

    def __init__(self, status: QStatusBar) -> None:
        super().__init__(status)
        self.label = QLabel(status)   # what the running job is doing, when it says
        self.progress = QProgressBar(status)
        self.progress.setMaximumWidth(240)
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel", status)
        self.cancel_button.setToolTip("Stop the running import or audit")
        self.report_button = QPushButton("Details…", status)
        self.report_button.setToolTip(
            "The import report: how every record of each file was counted")
        status.addPermanentWidget(self.report_button)
        status.addPermanentWidget(self.label)
        status.addPermanentWidget(self.progress)
        status.addPermanentWidget(self.cancel_button)
        self.report_button.hide()
        self.progress.hide()
        self.cancel_button.hide()

    @Slot(bool)
    def set_busy(self, busy: bool) -> None:
        if not busy:
            self.label.clear()
        self.label.setVisible(busy)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)

    @Slot(int, int)
    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    @Slot(str, int, int)
    def set_step(self, text: str, done: int, total: int) -> None:
        """Show ``text`` by the bar, ``done`` steps out of ``total``."""
        self.label.setText(text)
        self.set_progress(done, total)

    @Slot()
    def set_indeterminate(self) -> None:
        self.progress.setRange(0, 0)


class PanelArea(QWidget):
    """The window's central widget: the totals strip above a splitter (``splitter``) of the
    left tab widget (``left_tabs``, the session ``table`` first) and the main one
    (``main_tabs``). Each of ``panels`` — (``"left"`` or ``"main"``, panel), in tab order —
    gets a tab with the panel's own title and tooltip (its class's ``TAB``)."""

    def __init__(self, totals: QWidget, table: QWidget, panels: list[tuple[str, QWidget]],
                 parent: QWidget | None = None, above: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        self.left_tabs = QTabWidget(self)
        if above is not None:   # the corpus search's box over the session list
            page = QWidget(self)
            column = QVBoxLayout(page)
            column.setContentsMargins(0, 2, 0, 0)
            splitter = QSplitter(Qt.Orientation.Vertical, page)
            splitter.addWidget(above)
            splitter.addWidget(table)
            splitter.setStretchFactor(1, 3)
            splitter.setChildrenCollapsible(False)
            column.addWidget(splitter)
            self.sessions_page = page
        else:
            self.sessions_page = table
        self.left_tabs.addTab(self.sessions_page, "Sessions")
        self.main_tabs = QTabWidget(self)
        for tabs, panel in panels:
            widget = self.left_tabs if tabs == "left" else self.main_tabs
            title, tip = panel.TAB
            index = widget.addTab(panel, title)
            if tip:
                widget.setTabToolTip(index, tip)
        # The session list gives way first (down to a readable list), then the main tabs.
        self._main_panels = [panel for tabs, panel in panels if tabs == "main"]
        self.splitter = SharedSplitter(self)
        self.splitter.add_pane(self.left_tabs, 430, self._left_least)
        self.splitter.add_panes(self.main_tabs, 1170, self._main_panes, self._main_frame)
        self.splitter.setSizes([430, 1170])
        layout.addWidget(totals)
        layout.addWidget(self.splitter, 1)

    def _left_least(self) -> int:
        """A readable session list: its id and first counts (then it scrolls sideways)."""
        return max(self.left_tabs.minimumSizeHint().width(),
                   LEFT_LEAST_CHARS * self.left_tabs.fontMetrics().averageCharWidth())

    def _main_panes(self) -> list[Pane]:
        """The panes of the main panel that shares by panes (the session workspace: the tree
        and the preview), else one pane as wide as the widest panel's minimum."""
        for panel in self._main_panels:
            if isinstance(getattr(panel, "splitter", None), SharedSplitter):
                return panel.splitter.panes()
        return [Pane(1, max((p.minimumSizeHint().width() for p in self._main_panels),
                            default=0))]

    def _main_frame(self) -> int:
        """The tab widget's frame, and the handles of the splitter of :meth:`_main_panes`."""
        pages = [p.minimumSizeHint().width() for p in self._main_panels]
        frame = max(0, self.main_tabs.minimumSizeHint().width() - max(pages, default=0))
        for panel in self._main_panels:
            if isinstance(getattr(panel, "splitter", None), SharedSplitter):
                return frame + panel.splitter.frame()
        return frame
