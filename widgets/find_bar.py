"""The session search bar (Ctrl+F): a box for the words, previous and next buttons, and how
many events hold them. It only says what the user asks; the session panel searches."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget


class FindBar(QWidget):
    """Hidden until :meth:`open` (Ctrl+F).

    Signals:
        searched(str): search for these words (on Enter, or when the box loses the focus,
            after they changed).
        stepped(int): go to the next (+1) or previous (-1) event holding them (Enter,
            Shift+Enter, the buttons).
    """

    searched = Signal(str)
    stepped = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText("Find in this session's texts (tool input and output too)")
        self.edit.setClearButtonEnabled(True)
        self.edit.setToolTip("Enter: next event holding the words; Shift+Enter: previous; "
                             "Esc: back to the tree (the hits stay marked)")
        self.previous_button = QPushButton("◀", self)
        self.next_button = QPushButton("▶", self)
        self.previous_button.setToolTip("The previous event holding the words (Shift+Enter)")
        self.next_button.setToolTip("The next event holding the words (Enter)")
        self.count_label = QLabel(self)
        self.count_label.setTextFormat(Qt.TextFormat.PlainText)
        for button in (self.previous_button, self.next_button):
            button.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            button.setMaximumWidth(button.fontMetrics().horizontalAdvance("◀") + 24)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Find", self))
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.count_label)
        self._searched = ""
        self.edit.installEventFilter(self)
        self.edit.editingFinished.connect(self._search_if_changed)
        self.previous_button.clicked.connect(lambda: self._step(-1))
        self.next_button.clicked.connect(lambda: self._step(+1))
        self.hide()

    def open(self) -> None:
        """Show the bar with the focus in its box, its words selected (typing replaces them)."""
        self.show()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()

    def text(self) -> str:
        return self.edit.text()

    def set_count(self, text: str) -> None:
        self.count_label.setText(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                back = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
                self._step(-1 if back else +1)
                return True
        return super().eventFilter(watched, event)

    def _search_if_changed(self) -> bool:
        if self.edit.text() != self._searched:
            self._searched = self.edit.text()
            self.searched.emit(self._searched)
            return True
        return False

    def _step(self, step: int) -> None:
        if self._search_if_changed() and step > 0:
            return   # a new search lands on its first hit already
        self.stepped.emit(step)
