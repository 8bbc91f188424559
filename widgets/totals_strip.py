"""The strip of corpus totals above the sessions table: every count of AUDITS.md, summed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from explorer.audits.rules import COUNT_NAMES, RULE_TEXT, SIZE_NAMES, rules_in

SEPARATOR = " · "
#: The counts of AUDITS.md by section, one line of the strip per tuple of sections.
LINES = (
    (("", SIZE_NAMES),),
    (("import", rules_in("import")), ("pairing", rules_in("pairing"))),
    (("ordering", rules_in("ordering")), ("key collapse", rules_in("key collapse"))),
)


def totals_text(counts: dict[str, int], names: tuple[str, ...]) -> str:
    """``events 12,345 · sessions 300 · …`` for ``names``, as plain text."""
    return SEPARATOR.join(f"{n.replace('_', ' ')} {counts.get(n, 0):,}" for n in names)


def _line_text(counts: dict[str, int], sections) -> str:
    return "      ".join(f"{title}: {totals_text(counts, names)}" if title
                         else totals_text(counts, names) for title, names in sections)


class TotalsStrip(QWidget):
    """Plain-text lines of totals: the size of the corpus, then its findings by section."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._counts: dict[str, int] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        self.labels: list[QLabel] = []
        for sections in LINES:
            label = QLabel(self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            # A long line is cut rather than forcing the window wider.
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            label.setToolTip("\n".join(f"{n.replace('_', ' ')}: {RULE_TEXT[n]}"
                                       for _, names in sections for n in names if n in RULE_TEXT))
            layout.addWidget(label)
            self.labels.append(label)
        font = self.labels[0].font()
        font.setBold(True)
        self.labels[0].setFont(font)
        self.set_counts({})

    def set_counts(self, counts: dict[str, int]) -> None:
        self._counts = {n: int(counts.get(n, 0)) for n in COUNT_NAMES}
        for label, sections in zip(self.labels, LINES):
            label.setText(_line_text(self._counts, sections))

    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    def text(self) -> str:
        """Everything the strip says, one line after the other."""
        return "\n".join(label.text() for label in self.labels)
