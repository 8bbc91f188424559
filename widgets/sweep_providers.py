"""The sweep panel's providers (PROVIDERS.md, "Where the rules are used"): which providers
the sweep checks every window against, and the plot of their ``rejected_<provider>``
figures ÷ windows against budget, beside the panel's other plots.

A curve per (strategy, provider): the strategy's colour, the provider's line style (and
symbol), so that five providers over several strategies stay apart.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QWidget

from explorer.compaction.sweep_plots import PROVIDER_TITLE
from explorer.providers import LABELS, PROVIDERS
from explorer.providers.sweep_figures import figure_name

#: Per provider (PROVIDERS.md's order): its line style and symbol.
STYLES = {"anthropic": (Qt.PenStyle.SolidLine, "o"), "bedrock": (Qt.PenStyle.DashLine, "s"),
          "openai-chat": (Qt.PenStyle.DotLine, "t"),
          "openai-responses": (Qt.PenStyle.DashDotLine, "d"),
          "gemini": (Qt.PenStyle.DashDotDotLine, "+")}
TITLE = PROVIDER_TITLE
SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"


class ProviderChoice(QWidget):
    """A check box per provider; none checked: the sweep checks no provider.

    Signals:
        changed(): the providers checked changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(0)
        grid.addWidget(QLabel("Providers", self), 0, 0)
        self.boxes: dict[str, QCheckBox] = {}
        for i, p in enumerate(PROVIDERS):
            box = QCheckBox(LABELS[p], self)
            box.setToolTip(f"Check every window against {LABELS[p]}'s rules (PROVIDERS.md): "
                           f"the sweep's {figure_name(p)}, plotted as {TITLE}")
            box.toggled.connect(self.changed)
            grid.addWidget(box, 1 + i, 0)
            self.boxes[p] = box

    def providers(self) -> tuple[str, ...]:
        """The providers checked, in PROVIDERS.md's order."""
        return tuple(p for p in PROVIDERS if self.boxes[p].isChecked())

    def set_providers(self, providers) -> None:
        for p, box in self.boxes.items():
            box.setChecked(p in providers)


class ProviderPlot:
    """The plot of ``rejected_<provider>`` ÷ windows, added to the panel's layout."""

    def __init__(self, graphics: pg.GraphicsLayoutWidget, row: int, col: int,
                 colspan: int = 1) -> None:
        self.plot = graphics.addPlot(row=row, col=col, colspan=colspan, title=TITLE)
        self.plot.setLogMode(x=True, y=False)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setLabel("bottom", "budget (tokens)")
        self.plot.setMenuEnabled(False)
        self.plot.setYRange(0, 1)
        # a wide plot would label the minor ticks of the log axis too: decades only
        self.plot.getAxis("bottom").setTicks(
            [[(e, f"10{SUPERSCRIPT[e]}") for e in range(10)], []])
        self.legend = self.plot.addLegend(offset=(8, 4), labelTextSize="8pt",
                                          labelTextColor="#222", verSpacing=-4)
        self.curves: dict[tuple[str, str], pg.PlotDataItem] = {}   # (provider, strategy)

    def draw(self, rows: list[dict], strategies, providers, colour_of) -> None:
        """A curve per strategy and provider asked; ``colour_of(strategy)`` its colour."""
        self.clear()
        for p in providers:
            # the legend names the providers by their style, the panel's legend the colours
            style, symbol = STYLES[p]
            self.legend.addItem(pg.PlotDataItem([], [], pen=pg.mkPen("#444", width=2,
                                                                     style=style),
                                                symbol=symbol, symbolSize=6,
                                                symbolBrush="#444"), LABELS[p])
        figure = {p: figure_name(p) for p in providers}
        for strategy in strategies:
            mine = [r for r in rows if r["strategy"] == strategy]
            colour = colour_of(strategy)
            budgets = [r["budget"] for r in mine]
            for p in providers:
                style, symbol = STYLES[p]
                values = [r[figure[p]] / r["windows"] if r["windows"] else 0.0 for r in mine]
                self.curves[(p, strategy)] = self.plot.plot(
                    budgets, values, pen=pg.mkPen(colour, width=2, style=style),
                    symbol=symbol, symbolSize=6, symbolBrush=colour, symbolPen=colour)
        self.plot.enableAutoRange()

    def clear(self) -> None:
        for curve in self.curves.values():
            self.plot.removeItem(curve)
        self.curves.clear()
        self.legend.clear()
