"""Help → Keyboard shortcuts and Help → What the marks mean: two small read-only dialogs.

The shortcuts are read from the window's own actions (so the list cannot fall behind the
menus), plus the keys that belong to one widget (F3 in the tree, Enter in the find bar…).
The marks come from :data:`widgets.mark_style.STYLES`, the tree legend's source.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets.mark_style import FINDING_KEYS, STYLES, pixmap

#: Keys that are not a menu action's: (keys, what they do).
WIDGET_KEYS = (
    ("F3 / Shift+F3", ("Next / previous finding of the rule chosen by the tree (all rules by "
                       "default); past the last, the next session with one")),
    ("Enter / Shift+Enter", "In the find bar: next / previous event holding the words"),
    ("Ctrl+C", ("In the tree: the selected events as JSON Lines (event and raw record); in "
                "a table: its selected rows as TSV")),
    ("Shift+Up / Shift+Down", "In the tree: select several events (to copy them)"),
    ("Tab / Shift+Tab", ("Next / previous part of the window: toolbar, session list, find "
                         "bar, tree, detail, strategy, reading, budget, comparison")),
    ("Ctrl+Tab", "Next tab of the tab bar holding the focus"),
    ("Right / Left", "In the tree: open / close a turn or a call"),
)


def shortcut_rows(actions: list[QAction]) -> list[tuple[str, str]]:
    """(keys, what) of every action with a shortcut, then :data:`WIDGET_KEYS`."""
    rows = []
    for action in actions:
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            what = action.text().split("\t")[0].replace("&&", "\0").replace("&", "")
            rows.append((keys, what.replace("\0", "&").rstrip("…")))
    return [*rows, *WIDGET_KEYS]


class ShortcutsDialog(QDialog):
    """Every keyboard shortcut of the window, two columns: keys, what they do."""

    def __init__(self, actions: list[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Turnscope: keyboard shortcuts")
        self.resize(640, 520)
        self.table = QTreeWidget(self)
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(["Keys", "What they do"])
        for keys, what in shortcut_rows(actions):
            QTreeWidgetItem(self.table, [keys, what])
        self.table.resizeColumnToContents(0)
        _finish(self, self.table)


class MarksDialog(QDialog):
    """Every mark of the tree: its icon, its name and the rule it stands for."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Turnscope: what the marks mean")
        self.resize(720, 460)
        self.list = QListWidget(self)
        self.list.setWordWrap(True)
        for key, style in STYLES.items():
            kind = "finding" if key in FINDING_KEYS else "preview"
            item = QListWidgetItem(QIcon(pixmap(key)), f"{style.label} ({kind}): {style.rule}")
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.list.addItem(item)
        note = QLabel("Findings are the audit rules of AUDITS.md, marked on the events they "
                      "concern; preview marks show what the previewed strategy's view does "
                      "(greyed rows are out of it). Tinted blue: the events the find bar "
                      "(Ctrl+F) found.", self)
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        _finish(self, self.list, note)


def _finish(dialog: QDialog, main: QWidget, note: QWidget | None = None) -> None:
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    if note is not None:
        layout.addWidget(note)
    layout.addWidget(main, 1)
    layout.addWidget(buttons)
