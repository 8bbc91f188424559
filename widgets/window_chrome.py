"""The main window's chrome: the toolbar, the menus (File, View, Help) and the status bar.

Builds the widgets and actions and connects them to the window; no logic of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolBar,
    QWidget,
)

from explorer.model import Order
from widgets.import_report_dialog import show_import_report
from widgets.recent_files import RecentFiles
from widgets.texts import ORDER_TEXT

if TYPE_CHECKING:
    from widgets.main_window import MainWindow


def build_menus(window: "MainWindow") -> None:
    """Create the menu bar of ``window`` and keep its actions as attributes."""
    file_menu = window.menuBar().addMenu("&File")
    window.open_action = QAction("&Open…", window)
    window.open_action.setShortcut(QKeySequence.StandardKey.Open)
    window.open_action.setToolTip("Import one or more session logs (also: drop files on the window)")
    window.open_action.triggered.connect(window.open_files)
    file_menu.addAction(window.open_action)
    window.recent = RecentFiles(file_menu.addMenu("Open &Recent"), parent=window)
    window.recent.open_requested.connect(window.import_paths)
    window.rejected_action = QAction("&Rejected lines…", window)
    window.rejected_action.setToolTip("The input lines that could not be imported, as text")
    window.rejected_action.triggered.connect(window.show_rejected)
    file_menu.addAction(window.rejected_action)
    window.import_report_action = QAction("&Import report…", window)
    window.import_report_action.setToolTip("How every record of the last import was counted")
    window.import_report_action.triggered.connect(lambda: show_last_report(window))
    file_menu.addAction(window.import_report_action)
    file_menu.addSeparator()
    window.quit_action = QAction("&Quit", window)
    window.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
    window.quit_action.triggered.connect(window.close)
    file_menu.addAction(window.quit_action)

    view = window.menuBar().addMenu("&View")
    panel = window.workspace.session_panel
    # F3 / Shift+F3 are the session panel's own window-wide shortcuts: the menu only names
    # them (a second binding of the same key would make both ambiguous).
    for text, slot in (("Next finding\tF3", panel.next_finding),
                       ("Previous finding\tShift+F3", panel.previous_finding),
                       ("Expand all turns", panel.expand_all),
                       ("Collapse all turns", panel.tree.collapseAll)):
        action = QAction(text, window)
        action.triggered.connect(lambda _=False, s=slot: s())
        view.addAction(action)
    view.addSeparator()
    for text, index, key in (("&Session", 0, "Ctrl+1"), ("Corpus s&weep", 1, "Ctrl+2")):
        action = QAction(text, window)
        action.setShortcut(QKeySequence(key))
        action.triggered.connect(lambda _=False, i=index: window.main_tabs.setCurrentIndex(i))
        view.addAction(action)
    for text, index, key in (("Session &list", 0, "Ctrl+L"), ("&Findings", 1, "Ctrl+Shift+F")):
        action = QAction(text, window)
        action.setShortcut(QKeySequence(key))
        action.triggered.connect(lambda _=False, i=index: window.left_tabs.setCurrentIndex(i))
        view.addAction(action)

    help_menu = window.menuBar().addMenu("&Help")
    window.about_action = QAction("&About Turnscope", window)
    window.about_action.triggered.connect(window.show_about)
    help_menu.addAction(window.about_action)


def build_toolbar(window: "MainWindow") -> None:
    """The toolbar: the order box and the session list's filter, toggle and row count."""
    bar = QToolBar("View", window)
    bar.setObjectName("view_toolbar")
    bar.setMovable(False)
    window.addToolBar(bar)
    bar.addWidget(QLabel(" Order ", bar))
    window.order_box = QComboBox(bar)
    for order in Order:
        window.order_box.addItem(order.value, order.value)
        window.order_box.setItemData(window.order_box.count() - 1, ORDER_TEXT[order],
                                     Qt.ItemDataRole.ToolTipRole)
    window.order_box.setCurrentIndex(window.order_box.findData(window.order.value))
    window.order_box.setToolTip("The order events are read in; the audit is recomputed.")
    bar.addWidget(window.order_box)
    bar.addSeparator()
    window.filter_edit = window.sessions.filter_edit
    bar.addWidget(window.filter_edit)
    window.only_findings_box = window.sessions.only_findings_box
    bar.addWidget(window.only_findings_box)
    spacer = QWidget(bar)
    spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    bar.addWidget(spacer)
    window.rows_label = window.sessions.rows_label
    bar.addWidget(window.rows_label)


def build_status(window: "MainWindow") -> None:
    """The status bar's progress bar and Cancel button (shown while jobs run)."""
    status = window.statusBar()
    window.progress = QProgressBar(status)
    window.progress.setMaximumWidth(240)
    window.progress.setTextVisible(False)
    window.cancel_button = QPushButton("Cancel", status)
    window.cancel_button.setToolTip("Stop the running import or audit")
    window.cancel_button.clicked.connect(window.cancel_jobs)
    window.report_button = QPushButton("Details…", status)
    window.report_button.setToolTip("The import report: how every record of each file was counted")
    window.report_button.clicked.connect(lambda: show_last_report(window))
    status.addPermanentWidget(window.report_button)
    status.addPermanentWidget(window.progress)
    status.addPermanentWidget(window.cancel_button)
    window.report_button.hide()   # shown once an import has finished
    window.progress.hide()
    window.cancel_button.hide()


def show_last_report(window: "MainWindow"):
    """The import report of the window's last import (None before any)."""
    if window.last_report is None:
        return None
    return show_import_report(window, window.last_report)
