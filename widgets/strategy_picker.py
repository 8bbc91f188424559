"""The strategy selector of the compaction preview: every family of STRATEGIES.md with its
arguments, the settings every strategy reads, and the two tool-result transforms."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import BY_NAME, FAMILIES, Strategy
from explorer.session.preview import StrategyParams, strategy_texts

#: The families that read keep_latest_turn, and those that add a synthetic summary.
LATEST_TURN = tuple(f.name for f in FAMILIES if "keep_latest_turn" in f.reads)
SUMMARY = tuple(f.name for f in FAMILIES if "summary_cost" in f.reads)
PLACEHOLDER = tuple(f.name for f in FAMILIES if "placeholder_cost" in f.reads)
#: The largest value a spin box offers for an argument without an upper bound.
SPIN_MAX = 1_000_000


def _spin(parent: QWidget, low: int, high: int, value: int, tip: str, suffix: str = "") -> QSpinBox:
    box = QSpinBox(parent)
    box.setRange(low, high)
    box.setValue(value)
    box.setGroupSeparatorShown(True)
    box.setKeyboardTracking(False)  # one change when typing ends, not one per digit
    box.setSuffix(suffix)
    box.setToolTip(tip)
    return box


class StrategyPicker(QWidget):
    """Selects a strategy and its settings.

    Signals:
        changed(str, object): the user changed the strategy (its text, which
            ``Strategy.parse`` accepts) or a setting (the :class:`CompactionSettings`).
    """

    changed = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._quiet = False
        self.family = QComboBox(self)
        for i, family in enumerate(FAMILIES):
            self.family.addItem(family.label, family.name)
            self.family.setItemData(i, family.tooltip, Qt.ItemDataRole.ToolTipRole)
        self.pages = QStackedWidget(self)
        # one input per (family, argument): a spin box for a number, a combo box for a choice
        self.arguments: dict[tuple[str, str], QSpinBox] = {}
        self.choices: dict[tuple[str, str], QComboBox] = {}
        for i in range(self.family.count()):
            self.pages.addWidget(self._page(self.family.itemData(i)))
        self.latest = QCheckBox("keep the latest turn", self)
        self.latest.setToolTip("spring-events, spring-tokens, spring-summary: when the cut "
                               "leaves nothing, keep the latest turn whole (on) or show an "
                               "empty view (off, the incubating library).")
        self.summary_cost = _spin(self, 0, 1_000_000, 300, "Cost of a synthetic summary.", " tokens")
        self.placeholder_cost = _spin(self, 0, 100_000, 8, "Cost of an M2 placeholder result.",
                                      " tokens")
        # Every setting has its place whatever the family: the ones it does not read are
        # disabled, never hidden (a click meant for one must not land on another).
        options = QGridLayout()
        options.setContentsMargins(0, 0, 0, 0)
        options.addWidget(self.latest, 0, 0, 1, 4)
        options.addWidget(QLabel("Summary", self), 1, 0)
        options.addWidget(self.summary_cost, 1, 1)
        options.addWidget(QLabel("Placeholder", self), 1, 2)
        options.addWidget(self.placeholder_cost, 1, 3)
        options.setColumnStretch(1, 1)
        options.setColumnStretch(3, 1)
        self.transforms_button = QToolButton(self)
        self.transforms_button.setText("Tool-result transforms")
        self.transforms_button.setCheckable(True)
        self.transforms_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.transforms_button.setArrowType(Qt.ArrowType.RightArrow)
        self.transforms_button.setAutoRaise(True)
        self.transforms = self._transforms()
        self.transforms.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self.family)
        layout.addWidget(self.pages)
        layout.addLayout(options)
        layout.addWidget(self.transforms_button)
        layout.addWidget(self.transforms)
        self.set_settings(CompactionSettings())
        self.set_strategy("M1")
        self._connect()

    # -- building -------------------------------------------------------------------------
    def _page(self, family: str) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFormAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        spec = BY_NAME[family]
        for argument in spec.arguments:
            key = (family, argument.name)
            if argument.choices:
                box = self.choices[key] = QComboBox(page)
                for value, text in argument.choices:
                    box.addItem(text, value)
                box.setCurrentIndex(box.findData(argument.default))
                box.setToolTip(argument.tooltip)
            else:
                box = self.arguments[key] = _spin(page, argument.low, argument.high or SPIN_MAX,
                                                  argument.default, argument.tooltip)
            form.addRow(argument.label, box)
        if not spec.arguments:
            uses = "uses the budget" if spec.uses_budget else "its cut ignores the budget"
            note = QLabel(f"No arguments; {uses}.", page)
            note.setTextFormat(Qt.TextFormat.PlainText)
            form.addRow(note)
        return page

    def _transforms(self) -> QWidget:
        box = QWidget(self)
        form = QFormLayout(box)
        form.setContentsMargins(12, 0, 0, 0)
        self.evict = QCheckBox("evict large tool results", box)
        self.evict.setToolTip("A result over the limit becomes a notice plus its first and last "
                              "characters (AgentScope).")
        self.evict_chars = _spin(box, 1, 100_000_000, 80_000, "Evict results over this many "
                                 "characters.", " chars")
        self.evict_keep = _spin(box, 0, 10_000_000, 2_000, "Keep this many characters at each "
                                "end.", " chars")
        self.evict_excluded = QLineEdit(box)
        self.evict_excluded.setToolTip("Comma-separated tools whose results are never evicted.")
        self.prune = QCheckBox("prune old tool results", box)
        self.prune.setToolTip("Older results over the limit keep only their first and last "
                              "characters, when that concerns enough tokens (AgentScope).")
        self.prune_protect = _spin(box, 0, 100_000_000, 40_000, "Tokens of the newest results "
                                   "never pruned.", " tokens")
        self.prune_minimum = _spin(box, 0, 100_000_000, 20_000, "Prune only when the candidates "
                                   "total this many tokens.", " tokens")
        self.prune_chars = _spin(box, 1, 100_000_000, 2_000, "Prune results over this many "
                                 "characters.", " chars")
        self.prune_keep = _spin(box, 0, 10_000_000, 1_000, "Keep this many characters at each "
                                "end.", " chars")
        self.prune_excluded = QLineEdit(box)
        self.prune_excluded.setToolTip("Comma-separated tools whose results are never pruned.")
        form.addRow(self.evict)
        form.addRow("over", self.evict_chars)
        form.addRow("keep", self.evict_keep)
        form.addRow("except", self.evict_excluded)
        form.addRow(self.prune)
        form.addRow("protect", self.prune_protect)
        form.addRow("minimum", self.prune_minimum)
        form.addRow("over", self.prune_chars)
        form.addRow("keep", self.prune_keep)
        form.addRow("except", self.prune_excluded)
        return box

    def _connect(self) -> None:
        self.family.currentIndexChanged.connect(self._on_family_current_index_changed)
        self.transforms_button.toggled.connect(self._on_transforms_button_toggled)
        for combo in self.choices.values():
            combo.currentIndexChanged.connect(self._on_input_changed)
        for box in (*self.arguments.values(), self.summary_cost, self.placeholder_cost,
                    self.evict_chars, self.evict_keep, self.prune_protect, self.prune_minimum,
                    self.prune_chars, self.prune_keep):
            box.valueChanged.connect(self._on_input_changed)
        for check in (self.latest, self.evict, self.prune):
            check.toggled.connect(self._on_input_changed)
        for line in (self.evict_excluded, self.prune_excluded):
            line.editingFinished.connect(self._on_input_changed)

    def focus_chain(self) -> list[QWidget]:
        """Its inputs in the order Tab visits them (those of hidden pages are skipped)."""
        pages = [box for key in sorted({*self.arguments, *self.choices},
                                       key=lambda k: self.family.findData(k[0]))
                 for box in [self.arguments.get(key) or self.choices[key]]]
        return [self.family, *pages, self.latest, self.summary_cost, self.placeholder_cost,
                self.transforms_button, self.evict, self.evict_chars, self.evict_keep,
                self.evict_excluded, self.prune, self.prune_protect, self.prune_minimum,
                self.prune_chars, self.prune_keep, self.prune_excluded]

    # -- what it shows --------------------------------------------------------------------
    def params(self) -> StrategyParams:
        """The arguments of every family as currently set."""
        inputs = {**{k: b.value() for k, b in self.arguments.items()},
                  **{k: b.currentData() for k, b in self.choices.items()}}
        return StrategyParams({f.name: tuple(inputs[(f.name, a.name)] for a in f.arguments)
                               for f in FAMILIES if f.arguments})

    def uses_budget(self) -> bool:
        """Whether the selected family's cut reads the budget (STRATEGIES.md)."""
        return BY_NAME[self.family.currentData()].uses_budget

    def strategy(self) -> str:
        """The selected strategy's text, e.g. ``agentscope:50:20``."""
        return self.params().text(self.family.currentData())

    def texts(self) -> list[str]:
        """Every strategy offered, with the current arguments (the comparison's rows)."""
        return strategy_texts(self.params())

    def settings(self) -> CompactionSettings:
        return CompactionSettings(
            placeholder_cost=self.placeholder_cost.value(),
            summary_cost=self.summary_cost.value(),
            keep_latest_turn=self.latest.isChecked(),
            evict=self.evict.isChecked(), evict_chars=self.evict_chars.value(),
            evict_keep=self.evict_keep.value(), evict_excluded=_tools(self.evict_excluded.text()),
            prune=self.prune.isChecked(), prune_protect=self.prune_protect.value(),
            prune_minimum=self.prune_minimum.value(), prune_chars=self.prune_chars.value(),
            prune_keep=self.prune_keep.value(), prune_excluded=_tools(self.prune_excluded.text()))

    def set_strategy(self, text: str) -> None:
        """Select the strategy ``text`` (raises ValueError if it does not parse); no signal."""
        strategy = Strategy.parse(text)
        self._quiet = True
        try:
            index = self.family.findData(strategy.family)
            self.family.setCurrentIndex(index)
            self._show_page(index)
            for argument, value in zip(strategy.spec.arguments, strategy.args):
                key = (strategy.family, argument.name)
                if key in self.choices:
                    self.choices[key].setCurrentIndex(self.choices[key].findData(value))
                else:
                    self.arguments[key].setValue(value)
        finally:
            self._quiet = False

    def set_settings(self, settings: CompactionSettings) -> None:
        """Show ``settings``; no signal."""
        self._quiet = True
        try:
            self.placeholder_cost.setValue(settings.placeholder_cost)
            self.summary_cost.setValue(settings.summary_cost)
            self.latest.setChecked(settings.keep_latest_turn)
            self.evict.setChecked(settings.evict)
            self.evict_chars.setValue(settings.evict_chars)
            self.evict_keep.setValue(settings.evict_keep)
            self.evict_excluded.setText(", ".join(settings.evict_excluded))
            self.prune.setChecked(settings.prune)
            self.prune_protect.setValue(settings.prune_protect)
            self.prune_minimum.setValue(settings.prune_minimum)
            self.prune_chars.setValue(settings.prune_chars)
            self.prune_keep.setValue(settings.prune_keep)
            self.prune_excluded.setText(", ".join(settings.prune_excluded))
        finally:
            self._quiet = False
        self._show_transforms()

    # -- handlers -------------------------------------------------------------------------
    @Slot(int)
    def _on_family_current_index_changed(self, index: int) -> None:
        self._show_page(index)
        self._on_input_changed()

    def _show_page(self, index: int) -> None:
        """Show the arguments of the selected family; enable the settings it reads. The
        stack keeps the height of its tallest page, so nothing below it moves."""
        self.pages.setCurrentIndex(index)
        family = self.family.itemData(index)
        self.family.setToolTip(BY_NAME[family].tooltip)
        self.latest.setEnabled(family in LATEST_TURN)
        self.summary_cost.setEnabled(family in SUMMARY)
        self.placeholder_cost.setEnabled(family in PLACEHOLDER)

    @Slot(bool)
    def _on_transforms_button_toggled(self, shown: bool) -> None:
        self.transforms.setVisible(shown)
        self.transforms_button.setArrowType(Qt.ArrowType.DownArrow if shown
                                            else Qt.ArrowType.RightArrow)

    def _show_transforms(self) -> None:
        """Enable each transform's settings with its switch; name the ones on when folded."""
        for widget in (self.evict_chars, self.evict_keep, self.evict_excluded):
            widget.setEnabled(self.evict.isChecked())
        for widget in (self.prune_protect, self.prune_minimum, self.prune_chars,
                       self.prune_keep, self.prune_excluded):
            widget.setEnabled(self.prune.isChecked())
        on = [name for name, check in (("evict", self.evict), ("prune", self.prune))
              if check.isChecked()]
        self.transforms_button.setText("Tool-result transforms" +
                                       (f" ({' and '.join(on)} on)" if on else ""))

    def _on_input_changed(self, *_args) -> None:
        self._show_transforms()
        if not self._quiet:
            self.changed.emit(self.strategy(), self.settings())


def _tools(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())

