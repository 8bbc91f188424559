"""The legend of the turn tree: each mark's icon, colour and label, its rule as tooltip, and
the states a compaction preview gives rows (out of view, synthetic item, view errors)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from widgets.flow_layout import FlowLayout
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
