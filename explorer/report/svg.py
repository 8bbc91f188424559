"""A line plot as inline SVG (a report needs no script and no Qt to draw it)."""

from __future__ import annotations

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
