"""What the corpus sweep's plots show, for the window's sweep panel
(widgets/sweep_panel.py, pyqtgraph) and a report's (explorer/report/svg.py, SVG) alike:
the strategies and budgets swept, the figures plotted and their colours."""

from __future__ import annotations

from explorer.compaction.strategies import FAMILIES

#: Every family of the registry once, with its default arguments (M0-M4, recorded, the
#: frameworks' starting values).
STRATEGIES = tuple(f.default for f in FAMILIES)
CHECKED = ("M0", "M1", "M2", "M3", "M4")
#: About 100 to 1,000,000 tokens, three steps a decade.
BUDGETS = tuple(m * 10 ** e for e in range(2, 6) for m in (1, 2, 5)) + (1_000_000,)
#: (title, figure, divided by windows) of each plot, in reading order.
PLOTS = (
    ("over budget ÷ windows", "over_budget", True),
    ("empty ÷ windows", "empty", True),
    ("orphan results ÷ windows", "orphan_results", True),
    ("over ratio (kept ÷ budget × windows)", "over_ratio", False),
)
#: The plot with a log y axis.
LOG_Y = "over_ratio"
#: The title of the plot of the providers' ``rejected_<provider>`` figures.
PROVIDER_TITLE = "rejected by the provider ÷ windows"
#: One colour per strategy, fixed whatever is checked: the Okabe–Ito palette (told apart
#: under the common colour blindnesses; its yellow left out, too light on white), each
#: colour a second time with another line style and symbol.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")


def colour(strategy: str) -> str:
    """The colour of a strategy of STRATEGIES (another strategy: the last colour)."""
    index = STRATEGIES.index(strategy) if strategy in STRATEGIES else len(COLOURS) - 1
    return COLOURS[index % len(COLOURS)]


def curve_values(rows: list[dict], figure: str, per_window: bool) -> list[float]:
    """One figure of ``rows`` (one strategy, budgets in order), divided by windows if asked."""
    if not per_window:
        return [float(r[figure]) for r in rows]
    return [r[figure] / r["windows"] if r["windows"] else 0.0 for r in rows]
