"""The strip under the budget: the metrics of the previewed view as plain-text labels,
highlighted when bad (STRATEGIES.md, "Metrics of one view")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

BAD = QColor(190, 30, 30)       # the view is wrong or does not fit
NOTE = QColor(150, 100, 0)      # the strategy had to bend its rule

#: Each label after the cost line: the metric it shows and its tooltip.
LABELS = (
    ("over", "The view costs more than the budget."),
    ("empty", "The view holds no USER, ASSISTANT, CALL or RESULT event of the log."),
    ("orphan_results", "Tool results in the view with no call of their id earlier in the view."),
    ("orphan_calls", "Tool calls in the view with no result (or placeholder) later in the view."),
    ("pair_split", "The event just before the cut is a dropped call whose result is kept."),
    ("fallback", "M4 found no whole turn that fits and fell back to M0's cut."),
    ("partial_dropped", "The cut moved forward past a partial turn."),
    ("repaired", "M2 dropped result heads and added placeholder results."),
    ("starts_inside_turn", "The recorded view does not start with a USER event."),
)


def metric_text(name: str, value) -> str:
    """Plain text of one metric, e.g. ``orphan results 3`` or ``over budget``."""
    if name == "over":
        return "over budget" if value else "within budget"
    if name == "empty":
        return "empty view" if value else "not empty"
    if name == "orphan_results":
        return f"orphan results {value:,}"
    if name == "orphan_calls":
        return f"dangling calls {value:,}"
    if name == "pair_split":
        return "pair split" if value else "no pair split"
    if name == "fallback":
        return "fell back to M0" if value else "no fallback"
    if name == "partial_dropped":
        return "partial turn dropped" if value else "no partial turn dropped"
    if name == "repaired":
        return f"repaired {value:,}"
    if name == "starts_inside_turn":
        return "starts inside a turn" if value else "starts on a turn"
    return f"{name.replace('_', ' ')} {value}"


def severity(name: str, value) -> QColor | None:
    """The highlight of a metric value: BAD, NOTE or None (fine)."""
    if not value:
        return None
    if name in ("over", "empty", "orphan_results", "orphan_calls", "pair_split"):
        return BAD
    return NOTE


class MetricsStrip(QWidget):
    """Cost against budget on a first line, then one label per metric (no signals)."""

    COLUMNS = 3

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cost_label = self._label()
        font = QFont(self.cost_label.font())
        font.setBold(True)
        self.cost_label.setFont(font)
        self.cost_label.setToolTip("Cost of the view (synthetic and pinned events included) "
                                   "against the budget.")
        self.verdict_label = self._label()
        self.verdict_label.setToolTip("Whether the provider picked would accept the request "
                                      "built from the view (PROVIDERS.md).")
        self.verdict_label.hide()
        self.labels: dict[str, QLabel] = {}
        self._shown: dict[int, tuple] = {}
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(1)
        for i, (name, tip) in enumerate(LABELS):
            label = self.labels[name] = self._label()
            label.setToolTip(tip)
            grid.addWidget(label, i // self.COLUMNS, i % self.COLUMNS)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addWidget(self.cost_label)
        layout.addWidget(self.verdict_label)
        layout.addLayout(grid)
        self.set_metrics(None, 0)

    def _label(self) -> QLabel:
        label = QLabel(self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def set_metrics(self, metrics: dict | None, budget: int, reason: str = "") -> None:
        """Show the metrics of one view at ``budget``; None shows ``reason`` (or "no view")."""
        if metrics is None:
            self._show(self.cost_label, reason or "no view", None)
            for label in self.labels.values():
                self._show(label, "", None)
            return
        self._show(self.cost_label, f"{metrics['cost']:,} / {budget:,} tokens",
                   BAD if metrics["over"] else None)
        for name, label in self.labels.items():
            if name in metrics:
                self._show(label, metric_text(name, metrics[name]), severity(name, metrics[name]))
            else:
                self._show(label, "", None)

    def set_verdict(self, view) -> None:
        """Show a provider's verdict (a :class:`~explorer.session.provider_view.ProviderView`;
        None hides the line)."""
        self.verdict_label.setVisible(view is not None)
        if view is not None:
            self._show(self.verdict_label, view.summary, BAD if view.violations else None)

    def _show(self, label: QLabel, text: str, colour: QColor | None) -> None:
        """Set a label's text and highlight, touching it only when they change (the slider
        calls this on every step)."""
        shown = (text, None if colour is None else colour.rgb())
        if self._shown.get(id(label)) == shown:
            return
        self._shown[id(label)] = shown
        label.setText(text)
        palette = self.palette()
        if colour is not None:
            palette.setColor(QPalette.ColorRole.WindowText, colour)
        label.setPalette(palette)
        font = QFont(label.font())
        font.setBold(label is self.cost_label or colour is BAD)
        label.setFont(font)

    def text(self) -> str:
        """Everything the strip says, cost line first, the other labels space-separated."""
        rest = [label.text() for label in self.labels.values() if label.text()]
        verdict = [self.verdict_label.text()] if self.verdict_label.isVisibleTo(self) else []
        return "\n".join([self.cost_label.text(), *verdict, " · ".join(rest)])

    def highlighted(self) -> dict[str, str]:
        """The metrics shown highlighted and how: ``{"over": "bad", "fallback": "note"}``."""
        out = {}
        for name, label in [("cost", self.cost_label), *self.labels.items()]:
            colour = label.palette().color(QPalette.ColorRole.WindowText)
            if colour == BAD:
                out[name] = "bad"
            elif colour == NOTE:
                out[name] = "note"
        return out
