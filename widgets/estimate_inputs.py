"""The inputs of the token estimate: a characters-per-token ratio box, and the choice of the
ratios or a real tokenizer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QWidget

from explorer.model import TOKENIZERS
from explorer.tokens import counts as token_counts


def ratio_box(parent: QWidget, value: float, tip: str) -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(0.1, 100.0)
    box.setDecimals(2)
    box.setSingleStep(0.1)
    box.setValue(value)
    box.setSuffix(" chars/token")
    box.setKeyboardTracking(False)  # one reload when typing ends, not one per digit
    box.setToolTip(tip)
    return box


def estimator_box(parent: QWidget) -> QComboBox:
    """The ratios, or a real tokenizer (disabled, saying why, when none is installed)."""
    box = QComboBox(parent)
    box.addItem("characters (ratios)", None)
    box.setItemData(0, "FORMAT.md's estimate: CJK and other characters over their ratios.",
                    Qt.ItemDataRole.ToolTipRole)
    missing = token_counts.unavailable_reason()
    for name, encoding in TOKENIZERS.items():
        box.addItem(f"{encoding} tokenizer", name)
        index = box.count() - 1
        box.setItemData(index, missing or f"Count each event's text with the {encoding} BPE "
                        "(events given as chars still use the ratios).", Qt.ItemDataRole.ToolTipRole)
        if missing:
            box.model().item(index).setEnabled(False)
    box.setToolTip("How a cost is estimated where the log gives no tokens of its own.")
    return box
