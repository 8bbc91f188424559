"""Plots as inline SVG (a report needs no script and no Qt to draw them): a line plot of a
session's running cost, and the corpus sweep's plots against budget (explorer.compaction.sweep_plots)."""

from __future__ import annotations

import math
from html import escape

_FONT = 'font-family="sans-serif"'


def _label(x: float, y: float, text: str, size: int = 10, anchor: str = "start") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" {_FONT}>'
            f"{escape(text)}</text>")


def line_plot(values: list[int], title: str, x_label: str, y_label: str,
              width: int = 640, height: int = 180) -> str:
    """``values`` against their index, with the axes' end values written on them."""
    left, bottom, top, right = 56, 28, 20, 10
    w, h = width - left - right, height - top - bottom
    n, peak = len(values), max(values, default=0)
    step = w / max(n - 1, 1)
    points = " ".join(f"{left + i * step:.1f},{top + h - (v / peak if peak else 0) * h:.1f}"
                      for i, v in enumerate(values))
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'),
        f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafafa" stroke="#999"/>',
        _label(left, 14, title, 12),
        _label(left - 4, top + 10, f"{peak:,}", anchor="end"),
        _label(left - 4, top + h, "0", anchor="end"),
        _label(left + w, height - 8, f"{n:,} {x_label}", anchor="end"),
        _label(left, height - 8, y_label),
    ]
    if n:
        parts.append(f'<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" '
                     f'points="{points}"/>')
    parts.append("</svg>")
    return "".join(parts)


#: Dash patterns for series told apart by more than their colour (a provider's).
DASHES = ("", "6,3", "2,3", "8,3,2,3", "8,3,2,3,2,3")
_SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"


def _log(value: float) -> float:
    return math.log10(value) if value > 0 else float("nan")


def sweep_plot(title: str, series: list[tuple[str, str, str, list[float], list[float]]],
               log_y: bool = False, width: int = 470, height: int = 260) -> str:
    """A plot against budget (a log axis, decades marked) of ``series``: each (label,
    colour, dash pattern, budgets, values), drawn as a line with its points, and named in
    a legend under the plot. ``log_y``: values on a log axis (those ≤ 0 left out)."""
    left, top, right = 46, 22, 10
    rows = (len(series) + 3) // 4
    bottom = 34 + 14 * rows
    w, h = width - left - right, height - top - bottom
    xs = [_log(b) for _, _, _, budgets, _ in series for b in budgets]
    ys = [_log(v) if log_y else v for *_, values in series for v in values]
    xs, ys = [x for x in xs if math.isfinite(x)], [y for y in ys if math.isfinite(y)]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    y0, y1 = (min(ys), max(ys)) if ys else (0.0, 1.0)
    if not log_y:
        y0, y1 = min(y0, 0.0), max(y1, 1e-9)
    if y1 - y0 < 1e-9:
        y0, y1 = y0 - 1, y1 + 1
    if x1 - x0 < 1e-9:
        x0, x1 = x0 - 1, x1 + 1

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * w

    def py(y: float) -> float:
        return top + h - (y - y0) / (y1 - y0) * h

    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'),
        f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="#fafafa" stroke="#999"/>',
        _label(left, 14, title, 12),
    ]
    for decade in range(math.ceil(x0), math.floor(x1) + 1):   # the budget axis's decades
        x = px(decade)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + h}" '
                     f'stroke="#ddd"/>')
        parts.append(_label(x, top + h + 12, f"10{_SUPERSCRIPT[decade % 10]}", anchor="middle"))
    for y, text in _y_ticks(y0, y1, log_y):
        parts.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + w}" y2="{py(y):.1f}" '
                     f'stroke="#ddd"/>')
        parts.append(_label(left - 4, py(y) + 3, text, anchor="end"))
    parts.append(_label(left + w, top + h + 24, "budget (tokens)", anchor="end"))
    for i, (label, colour, dash, budgets, values) in enumerate(series):
        points = [(px(_log(b)), py(_log(v) if log_y else v)) for b, v in zip(budgets, values)
                  if b > 0 and (v > 0 or not log_y)]
        style = f' stroke-dasharray="{dash}"' if dash else ""
        if points:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"{style} '
                         'points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
            parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.2" fill="{colour}"/>'
                      for x, y in points]
        lx, ly = left + (i % 4) * (w / 4), height - 14 * (rows - i // 4) + 4
        parts.append(f'<line x1="{lx:.1f}" y1="{ly - 4}" x2="{lx + 18:.1f}" y2="{ly - 4}" '
                     f'stroke="{colour}" stroke-width="2"{style}/>')
        parts.append(_label(lx + 22, ly, label, 9))
    parts.append("</svg>")
    return "".join(parts)


def _y_ticks(y0: float, y1: float, log_y: bool) -> list[tuple[float, str]]:
    """A few round values of the y axis (decades on a log axis), with their labels."""
    if log_y:
        return [(e, f"{10.0 ** e:g}") for e in range(math.ceil(y0), math.floor(y1) + 1)]
    step = 10 ** math.floor(math.log10((y1 - y0) / 4))
    for m in (1, 2, 5, 10):
        if (y1 - y0) / (m * step) <= 5:
            step *= m
            break
    first = math.ceil(y0 / step)
    return [(k * step, f"{k * step:g}") for k in range(first, int(y1 / step) + 1)]
