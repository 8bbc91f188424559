"""The sweep panel's "Compare estimates" switch (LAB.md, ``lab estimates``): the sweep run
once per cost estimate, one curve per (strategy, estimate) -- the strategy's colour, the
estimate's line style -- so that the figures that move with the estimate show as curves
that part.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLineEdit, QVBoxLayout, QWidget

from explorer.lab.estimates import DEFAULT_ESTIMATES, parse_estimates
from explorer.model import CostSettings

#: The line style of the i-th estimate.
STYLES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine,
          Qt.PenStyle.DashDotLine, Qt.PenStyle.DashDotDotLine)


class EstimateChoice(QWidget):
    """The switch and the estimates it compares (``1.5:4,2.5:4,o200k``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.switch = QCheckBox("Compare estimates", self)
        self.switch.setToolTip("Sweep once per token estimate and draw one curve per "
                               "estimate (LAB.md): which figures depend on the estimate")
        self.text = QLineEdit(DEFAULT_ESTIMATES, self)
        self.text.setToolTip("Comma-separated estimates: CJK:OTHER characters per token "
                             "(1.5:4) or a tokenizer (o200k, cl100k); the first is solid, "
                             "then dashed, dotted…")
        self.text.setEnabled(False)
        self.switch.toggled.connect(self.text.setEnabled)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.switch)
        layout.addWidget(self.text)

    def estimates(self) -> tuple[tuple[str, CostSettings], ...]:
        """The estimates compared (none while the switch is off); ValueError saying why
        the text is not estimates."""
        if not self.switch.isChecked():
            return ()
        return tuple(parse_estimates(self.text.text()))

    def set_estimates(self, text: str | None) -> None:
        """Compare ``text``'s estimates (None: switch off)."""
        if text is not None:
            self.text.setText(text)
        self.switch.setChecked(text is not None)


def style(i: int) -> Qt.PenStyle:
    return STYLES[i % len(STYLES)]
