"""The "Request" tab: the previewed view as the picked provider's message list (role,
index, blocks) with the failing messages highlighted, a button that copies the request body
as JSON, and a box where a pasted provider error finds its message and jumps to the events.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from explorer.model import KINDS
from explorer.providers.request_body import body
from explorer.session.provider_view import ProviderView, RequestMessage
from explorer.text_escape import visible

_FAILING = QColor("#ead7f5")
_COLUMNS = ("#", "role", "blocks", "rules broken")
_ROOT = QModelIndex()


class RequestModel(QAbstractTableModel):
    """The messages of one request, one row each (no signals of its own)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._messages: list[RequestMessage] = []
        self._brush = QBrush(_FAILING)

    def set_messages(self, messages: list[RequestMessage]) -> None:
        self.beginResetModel()
        self._messages = messages
        self.endResetModel()

    def message(self, row: int) -> RequestMessage:
        return self._messages[row]

    def failing_rows(self) -> list[int]:
        return [i for i, m in enumerate(self._messages) if m.rules]

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._messages)

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return _COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._messages):
            return None
        m = self._messages[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (str(m.index), m.role, m.blocks, ", ".join(m.rules))[index.column()]
        if role == Qt.ItemDataRole.BackgroundRole and m.rules:
            return self._brush
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            return m.blocks
        return None


class RequestPanel(QWidget):
    """The request of the previewed view for the picked provider.

    Signals:
        rows_requested(object): show these log rows (a tuple) in the turn tree.
    """

    TAB = ("Request", "The previewed view as the picked provider's request (PROVIDERS.md).")

    rows_requested = Signal(object)

    def __init__(self, store=None, jobs=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._view: ProviderView | None = None
        self._data = None
        self.verdict = QLabel("Pick a provider beside the strategy to check the view.", self)
        self.verdict.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict.setWordWrap(True)
        self.errors = QPlainTextEdit(self)
        self.errors.setReadOnly(True)
        self.errors.setMaximumHeight(110)
        self._pending = False   # a view came while the tab was hidden: shown when it shows
        self._model = RequestModel(self)
        self.table = QTableView(self)
        self.table.setModel(self._model)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setToolTip("Double-click a message to show its events in the turn tree.")
        self.copy_button = QPushButton("Copy request as JSON", self)
        self.copy_button.setToolTip("The request body in the shape the provider's API takes, "
                                    "with the view's texts; model, limits and tools are "
                                    "placeholders (not in logs).")
        self.paste_box = QPlainTextEdit(self)
        self.paste_box.setPlaceholderText("Paste a provider's error here (e.g. messages.14."
                                          "content.0: unexpected `tool_use_id` …)")
        self.paste_box.setMaximumHeight(70)
        self.find_button = QPushButton("Find the events", self)
        self.find_label = QLabel(self)
        self.find_label.setTextFormat(Qt.TextFormat.PlainText)
        self.find_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict)
        layout.addWidget(self.errors)
        layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(QLabel("A provider's error:", self))
        layout.addWidget(self.paste_box)
        row = QHBoxLayout()
        row.addWidget(self.find_button)
        row.addWidget(self.find_label, 1)
        layout.addLayout(row)
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.find_button.clicked.connect(self._on_find_button_clicked)
        self.table.activated.connect(self._on_table_activated)
        self.set_view(None)

    def observe(self, _state) -> None:
        """Nothing of the window's state: it follows the preview (:meth:`follow`)."""

    def follow(self, preview) -> None:
        """Show the provider views of ``preview`` (a :class:`widgets.preview_panel.PreviewPanel`)."""
        self._preview = preview
        preview.provider_view_changed.connect(self.set_view)

    @property
    def model(self) -> RequestModel:
        """The messages of the view shown (brought up to date if the tab was hidden)."""
        self._show_pending()
        return self._model

    @Slot(object)
    def set_view(self, view: ProviderView | None) -> None:
        """Show ``view`` (None: no provider picked or no view). While the tab is hidden only
        the latest view is kept (a slider sweep would rebuild the table each move); it is
        shown when the tab shows, or when :attr:`model` is read."""
        self._view = view
        preview = getattr(self, "_preview", None)
        self._data = preview.session() if preview is not None else None
        self.copy_button.setEnabled(view is not None)
        self.find_button.setEnabled(view is not None)
        self._pending = True
        if self.isVisible():
            self._show_pending()

    def showEvent(self, event) -> None:
        self._show_pending()
        super().showEvent(event)

    def _show_pending(self) -> None:
        """Fill the verdict, the errors and the table with the view last given."""
        if not self._pending:
            return
        self._pending = False
        view, model = self._view, self._model
        if view is None:
            self.verdict.setText("Pick a provider beside the strategy to check the view.")
            self.errors.setPlainText("")
            model.set_messages([])
            return
        self.verdict.setText(view.summary)
        self.errors.setPlainText("\n".join(visible(f"{v.rule}: {v.text}")
                                           for v in view.violations))
        model.set_messages(view.messages())
        failing = model.failing_rows()
        if failing:
            self.table.selectRow(failing[0])
            self.table.scrollTo(model.index(failing[0], 0))

    def request_body(self) -> dict | None:
        """The request body of the view shown, with its texts (None: none shown)."""
        view, data = self._view, self._data
        if view is None:
            return None
        req = view.request
        rows = [int(r) for r in req.row.tolist() if r >= 0] + list(view.system_rows)
        texts = data.texts.texts(rows) if data is not None and data.texts is not None else {}
        tools = data.log.tools if data is not None else None
        item_texts = [texts.get(int(r)) if r >= 0 else
                      f"[synthetic {KINDS[int(k)].lower()}]"
                      for r, k in zip(req.row.tolist(), req.kind.tolist())]
        item_tools = [tools[int(r)] if tools is not None and r >= 0 else None
                      for r in req.row.tolist()]
        system = [texts.get(r) or "" for r in view.system_rows]
        return body(req, view.provider, item_texts, system, item_tools)

    @Slot()
    def _on_copy_button_clicked(self) -> None:
        doc = self.request_body()
        if doc is not None:
            QApplication.clipboard().setText(json.dumps(doc, indent=2, ensure_ascii=False))

    @Slot()
    def _on_find_button_clicked(self) -> None:
        self.find(self.paste_box.toPlainText())

    def find(self, text: str) -> tuple[int, ...]:
        """Read a pasted error, select its message and ask for its events; their rows."""
        if self._view is None:
            return ()
        pasted, rows = self._view.find(text)
        if pasted.message_index is None:
            self.find_label.setText("No message index found in the text.")
            return ()
        said = f"message {pasted.message_index}" + (f" ({pasted.rule})" if pasted.rule else "")
        for i in range(self.model.rowCount()):
            if self.model.message(i).index == pasted.message_index:
                self.table.selectRow(i)
                self.table.scrollTo(self.model.index(i, 0))
        if not rows:
            self.find_label.setText(f"{said}: no event of the view there.")
            return ()
        self.find_label.setText(f"{said}: {len(rows)} event(s), shown in the tree.")
        self.rows_requested.emit(rows)
        return rows

    @Slot(QModelIndex)
    def _on_table_activated(self, index: QModelIndex) -> None:
        rows = tuple(r for r in self.model.message(index.row()).rows if r >= 0)
        if rows:
            self.rows_requested.emit(rows)
