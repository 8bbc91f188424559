"""A report's corpus sweep drawn: the plots of the window's sweep panel as SVG (the four
corpus figures, a curve per strategy, and the providers' rejected windows, a curve per
strategy and provider), from :class:`explorer.report.content.SweepPart`."""

from __future__ import annotations

from explorer.compaction.sweep_plots import LOG_Y, PLOTS, PROVIDER_TITLE, colour, curve_values
from explorer.providers import LABELS
from explorer.providers.sweep_figures import figure_name
from explorer.report.content import SweepPart
from explorer.report.svg import DASHES, sweep_plot


def sweep_svgs(part: SweepPart) -> list[tuple[str, str]]:
    """(title, SVG) of each plot, in the panel's reading order."""
    out = []
    for title, figure, per_window in PLOTS:
        series = []
        for strategy in part.strategies:
            mine = [r for r in part.rows if r["strategy"] == strategy]
            series.append((strategy, colour(strategy), "", [r["budget"] for r in mine],
                           curve_values(mine, figure, per_window)))
        out.append((title, sweep_plot(title, series, log_y=figure == LOG_Y)))
    if part.providers:
        series = []
        for strategy in part.strategies:
            mine = [r for r in part.rows if r["strategy"] == strategy]
            for i, provider in enumerate(part.providers):
                name = figure_name(provider)
                series.append((f"{strategy} {LABELS[provider]}", colour(strategy),
                               DASHES[i % len(DASHES)], [r["budget"] for r in mine],
                               [r[name] / r["windows"] if r["windows"] else 0.0 for r in mine]))
        out.append((PROVIDER_TITLE, sweep_plot(PROVIDER_TITLE, series, width=950, height=360)))
    return out
