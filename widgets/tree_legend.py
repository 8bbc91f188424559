"""The legend of the turn tree: each mark's icon, colour and label, its rule as tooltip, and
the states a compaction preview gives rows (out of view, synthetic item, view errors)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLayout,
    QLayoutItem,
    QSizePolicy,
    QWidget,
)

from widgets.mark_style import FINDING_KEYS, OUT_OF_VIEW_COLOUR, STYLES, VIEW_ERROR_KEYS, pixmap

#: The legend's two sections and their entries, in order.
SECTIONS = (("Findings", FINDING_KEYS),
            ("Preview", ("out_of_view", "synthetic", *VIEW_ERROR_KEYS)))


class LegendEntry(QWidget):
    """One entry: icon on the mark's background colour, label; the rule as tooltip."""

    def __init__(self, key: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        style = STYLES[key]
        self.key = key
        self.icon = QLabel(self)
        self.icon.setPixmap(pixmap(key))
        self.label = QLabel(style.label, self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        if style.background:
            self.label.setAutoFillBackground(True)
            palette = self.label.palette()
            palette.setColor(QPalette.ColorRole.Window, QColor(style.background))
            palette.setColor(QPalette.ColorRole.WindowText, QColor("#202020"))
            self.label.setPalette(palette)
        if key == "out_of_view":  # shown as the tree shows it: grey italics
            palette = self.label.palette()
            palette.setColor(QPalette.ColorRole.WindowText, QColor(OUT_OF_VIEW_COLOUR))
            self.label.setPalette(palette)
            font = self.label.font()
            font.setItalic(True)
            self.label.setFont(font)
        self.label.setContentsMargins(3, 0, 3, 0)
        self.setToolTip(f"{style.label}: {style.rule}")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self.icon)
        layout.addWidget(self.label)


class FlowLayout(QLayout):
    """Lays its items out left to right, wrapping to a new line when the width runs out."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 10) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.breaks: set[QWidget] = set()  # widgets that always start a line
        self.setContentsMargins(2, 2, 2, 2)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _place(self, rect: QRect, move: bool) -> int:
        """Lay the items out in ``rect`` (or only measure); the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if line > 0 and (x + hint.width() > area.right() + 1 or item.widget() in self.breaks):
                x, y, line = area.x(), y + line + 2, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line = max(line, hint.height())
        return y + line - rect.y() + margins.bottom()


class TreeLegend(QWidget):
    """The legend under the turn tree: a heading per section, entries wrapping to the width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        flow = FlowLayout(self)
        self.entries: dict[str, LegendEntry] = {}
        for title, keys in SECTIONS:
            heading = QLabel(f"{title}:", self)
            font = heading.font()
            font.setBold(True)
            heading.setFont(font)
            flow.addWidget(heading)
            flow.breaks.add(heading)
            for key in keys:
                entry = self.entries[key] = LegendEntry(key, self)
                flow.addWidget(entry)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)


if __name__ == "__main__":
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    legend = TreeLegend()
    legend.show()
    app.exec()
