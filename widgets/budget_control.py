"""The budget control: a logarithmic slider (100 to 1,000,000 tokens) and a number box."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QSpinBox, QVBoxLayout, QWidget

LOW, HIGH = 100, 1_000_000          # the slider's ends, in tokens
#: What the note under the slider says for a strategy whose cut does not read the budget.
IGNORED_TEXT = "this strategy's cut ignores the budget"
_IGNORED_TIP = ("The strategy decides its view without the budget (STRATEGIES.md); the budget "
                "stays the limit its view's cost is measured against (over budget or not).")
STEPS = 1_000                       # slider positions: about 1 % apart
BOX_MAX = 10_000_000                # the number box goes further than the slider


def budget_at(position: int) -> int:
    """The budget at a slider position, rounded to three significant digits."""
    value = LOW * (HIGH / LOW) ** (position / STEPS)
    digits = max(0, int(math.floor(math.log10(value))) - 2)
    return int(round(value / 10 ** digits) * 10 ** digits)


def position_of(budget: int) -> int:
    """The slider position nearest to ``budget`` (the ends for budgets beyond them)."""
    budget = min(max(budget, LOW), HIGH)
    return round(STEPS * math.log(budget / LOW) / math.log(HIGH / LOW))


class BudgetControl(QWidget):
    """A slider and a number box showing one budget, kept in sync both ways, and a note line
    under them (:meth:`set_ignored`), whose room is kept when it is blank so nothing moves.

    Signals:
        budget_changed(int): the budget changed (by the user or by :meth:`set_budget`);
            never emitted for a value equal to the current one.
    """

    budget_changed = Signal(int)

    def __init__(self, budget: int = 4000, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._budget = max(1, int(budget))
        label = QLabel("Budget", self)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, STEPS)
        self.slider.setPageStep(STEPS // 20)
        self.slider.setToolTip("Budget in tokens, on a logarithmic scale from 100 to 1,000,000.")
        self.box = QSpinBox(self)
        self.box.setRange(1, BOX_MAX)
        self.box.setGroupSeparatorShown(True)
        self.box.setSuffix(" tokens")
        self.box.setKeyboardTracking(False)  # one change when typing ends, not per digit
        self.box.setToolTip("Budget in tokens (any positive number).")
        self.note = QLabel(self)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setMinimumHeight(self.note.fontMetrics().height())
        self.note.setIndent(label.sizeHint().width() + 6)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(label)
        row.addWidget(self.slider, 1)
        row.addWidget(self.box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self._show(self._budget)
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.box.valueChanged.connect(self._on_box_value_changed)

    def budget(self) -> int:
        return self._budget

    def set_ignored(self, ignored: bool) -> None:
        """Say under the slider that the previewed strategy's cut ignores the budget (the
        slider stays active: the budget is still what "over" is measured against)."""
        if ignored != self.ignored():   # (each slider move asks: no relayout when unchanged)
            self.note.setText(IGNORED_TEXT if ignored else "")
            self.note.setToolTip(_IGNORED_TIP if ignored else "")

    def ignored(self) -> bool:
        return bool(self.note.text())

    def set_budget(self, budget: int) -> None:
        """Show ``budget``; emits ``budget_changed`` only when it differs from the current one."""
        self._take(int(budget), moved=None)

    def _show(self, budget: int, moved: QWidget | None = None) -> None:
        """Show ``budget`` in the widgets other than ``moved`` without their signals firing."""
        if moved is not self.slider:
            self.slider.blockSignals(True)
            self.slider.setValue(position_of(budget))
            self.slider.blockSignals(False)
        if moved is not self.box:
            self.box.blockSignals(True)
            self.box.setValue(budget)
            self.box.blockSignals(False)

    def _take(self, budget: int, moved: QWidget | None) -> None:
        budget = min(max(budget, 1), BOX_MAX)
        if budget == self._budget:
            self._show(budget, moved)
            return
        self._budget = budget
        self._show(budget, moved)
        self.budget_changed.emit(budget)

    @Slot(int)
    def _on_slider_value_changed(self, position: int) -> None:
        self._take(budget_at(position), moved=self.slider)

    @Slot(int)
    def _on_box_value_changed(self, value: int) -> None:
        self._take(value, moved=self.box)
