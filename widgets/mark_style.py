"""How marks and preview states look: label, colours, a small icon drawn with QPainter, and
the one-sentence rule; shared by the turn tree, its badges delegate and the legend.

Finding marks are keyed by their AUDITS.md rule and drawn as its declaration says
(:class:`explorer.audits.rules.Mark`: label, colours, glyph); view errors
by ``"view:" + name`` (:data:`explorer.session.view_overlay.VIEW_ERRORS`); the two other preview
states are ``"out_of_view"`` and ``"synthetic"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from explorer.audits.rules import MARKED
from explorer.session.view_overlay import VIEW_ERROR_TEXT, VIEW_ERRORS

#: Model role holding a cell's badges: a list of ``(key, text)`` drawn as icon + text; an
#: empty list, never None, when there are none (see :func:`badges`).
BADGES_ROLE = Qt.ItemDataRole.UserRole + 1
ICON_SIZE = 14
OUT_OF_VIEW_COLOUR = "#9a9a9a"


@dataclass(frozen=True)
class MarkStyle:
    """One mark or state: what it is called, how it is drawn and the rule it stands for."""

    key: str
    label: str
    colour: str        # the icon
    background: str    # the row of an event that carries it
    shape: str
    rule: str


STYLES: dict[str, MarkStyle] = {s.key: s for s in (
    *(MarkStyle(r.name, r.mark.label, r.mark.colour, r.mark.background, r.mark.glyph, r.text)
      for r in MARKED),
    MarkStyle("view:orphan_result", "orphan result in view", "#c2185b", "#ffd3e4", "view_circle",
              VIEW_ERROR_TEXT["orphan_result"]),
    MarkStyle("view:orphan_call", "dangling call in view", "#c2185b", "#ffd3e4", "view_triangle",
              VIEW_ERROR_TEXT["orphan_call"]),
    MarkStyle("view:pair_split", "split pair", "#c2185b", "#ffd3e4", "view_split",
              VIEW_ERROR_TEXT["pair_split"]),
    MarkStyle("view:rejected", "rejected by the provider", "#6a1b9a", "#ead7f5", "view_diamond",
              VIEW_ERROR_TEXT["rejected"]),
    MarkStyle("out_of_view", "out of view (greyed)", OUT_OF_VIEW_COLOUR, "", "eye_slash",
              "The preview's view does not hold this event: it is greyed."),
    MarkStyle("synthetic", "synthetic item", "#00897b", "#dff3f0", "plus",
              "An item the view adds that is not in the log: placeholder, summary or preview."),
)}
FINDING_KEYS = tuple(r.name for r in MARKED)
VIEW_ERROR_KEYS = tuple(f"view:{e}" for e in VIEW_ERRORS)
assert set(FINDING_KEYS) <= set(STYLES) and set(VIEW_ERROR_KEYS) <= set(STYLES)
#: The glyphs :func:`_draw` knows (a rule's Mark names one; "view_" + glyph is outlined).
GLYPHS = ("circle", "triangle", "diamond", "squares", "equals", "back_arrow", "key", "split",
          "eye_slash", "plus", "branch")
assert all(s.shape.removeprefix("view_") in GLYPHS for s in STYLES.values()), "a glyph not drawn"

_PIXMAPS: dict[tuple[str, int], QPixmap] = {}


def tooltip(keys) -> str:
    """One line per mark: its label and its rule (our own fixed texts only)."""
    return "\n".join(f"{STYLES[k].label}: {STYLES[k].rule}" for k in keys)


def pixmap(key: str, size: int = ICON_SIZE) -> QPixmap:
    """The icon of a mark or state (drawn once per size, then cached)."""
    cached = _PIXMAPS.get((key, size))
    if cached is None:
        ratio = QApplication.instance().devicePixelRatio() if QApplication.instance() else 1.0
        cached = QPixmap(round(size * ratio), round(size * ratio))
        cached.setDevicePixelRatio(ratio)
        cached.fill(Qt.GlobalColor.transparent)
        painter = QPainter(cached)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        _draw(painter, STYLES[key], float(size))
        painter.end()
        _PIXMAPS[(key, size)] = cached
    return cached


def _draw(p: QPainter, style: MarkStyle, s: float) -> None:
    """Draw one shape in an s × s square."""
    colour = QColor(style.colour)
    pen = QPen(colour, max(1.2, s / 9))
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.setBrush(QBrush(colour))
    m = s * 0.14
    box = QRectF(m, m, s - 2 * m, s - 2 * m)
    c = box.center()
    shape = style.shape
    if shape.startswith("view_"):  # view errors: an outlined square around a hollow shape
        p.setBrush(QBrush(QColor(style.background)))
        p.drawRoundedRect(QRectF(0.5, 0.5, s - 1, s - 1), s / 5, s / 5)
        p.setBrush(Qt.BrushStyle.NoBrush)
        box = box.adjusted(s * 0.08, s * 0.08, -s * 0.08, -s * 0.08)
        c = box.center()
        shape = shape[5:]
    if shape == "circle":
        p.drawEllipse(box)
    elif shape == "triangle":
        p.drawPolygon(QPolygonF([QPointF(c.x(), box.top()), box.bottomRight(), box.bottomLeft()]))
    elif shape == "diamond":
        p.drawPolygon(QPolygonF([QPointF(c.x(), box.top()), QPointF(box.right(), c.y()),
                                 QPointF(c.x(), box.bottom()), QPointF(box.left(), c.y())]))
    elif shape == "squares":
        w = box.width() * 0.62
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(box.left(), box.top(), w, w))
        p.setBrush(QBrush(colour))
        p.drawRect(QRectF(box.right() - w, box.bottom() - w, w, w))
    elif shape == "equals":
        h = box.height() * 0.22
        p.drawRect(QRectF(box.left(), c.y() - h * 1.6, box.width(), h))
        p.drawRect(QRectF(box.left(), c.y() + h * 0.6, box.width(), h))
    elif shape == "back_arrow":
        p.drawPolygon(QPolygonF([QPointF(box.left(), c.y()), QPointF(c.x(), box.top()),
                                 QPointF(c.x(), box.bottom())]))
        p.drawRect(QRectF(c.x(), c.y() - box.height() * 0.15, box.width() / 2, box.height() * 0.3))
    elif shape == "key":
        r = box.width() * 0.3
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(QPointF(box.left() + r, c.y()), r, r)
        p.drawLine(QPointF(box.left() + 2 * r, c.y()), QPointF(box.right(), c.y()))
        p.drawLine(QPointF(box.right(), c.y()), QPointF(box.right(), c.y() + r))
        p.drawLine(QPointF(box.right() - r, c.y()), QPointF(box.right() - r, c.y() + r * 0.8))
    elif shape == "split":
        p.drawLine(box.topLeft(), QPointF(c.x() - s * 0.08, c.y() - s * 0.08))
        p.drawLine(QPointF(c.x() + s * 0.08, c.y() + s * 0.08), box.bottomRight())
        p.drawLine(QPointF(c.x() - s * 0.2, c.y() + s * 0.2), QPointF(c.x() + s * 0.2, c.y() - s * 0.2))
    elif shape == "eye_slash":
        path = QPainterPath()
        path.moveTo(box.left(), c.y())
        path.quadTo(c.x(), box.top() - s * 0.1, box.right(), c.y())
        path.quadTo(c.x(), box.bottom() + s * 0.1, box.left(), c.y())
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(path)
        p.drawLine(box.bottomLeft(), box.topRight())
    elif shape == "branch":   # a call forking to a child that is not there: a hollow end
        r = box.width() * 0.2
        fork = QPointF(box.left() + box.width() * 0.35, c.y())
        p.drawLine(QPointF(box.left(), c.y()), fork)
        p.drawLine(fork, QPointF(box.right() - r, box.bottom() - r * 0.5))
        p.drawLine(fork, QPointF(box.right() - 2 * r, box.top() + r))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(QPointF(box.right() - r, box.top() + r), r, r)
        p.setBrush(QBrush(colour))
    elif shape == "plus":
        dashed = QPen(colour, max(1.0, s / 12), Qt.PenStyle.DashLine)
        p.setPen(dashed)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRoundedRect(box, s / 6, s / 6)
        p.setPen(pen)
        d = box.width() * 0.28
        p.drawLine(QPointF(c.x() - d, c.y()), QPointF(c.x() + d, c.y()))
        p.drawLine(QPointF(c.x(), c.y() - d), QPointF(c.x(), c.y() + d))


def badges(index: QModelIndex) -> list:
    """The badges of a cell, read from the model object itself.

    PySide6 6.12.0 drops a reference to None each time an empty QVariant comes back to
    Python (``index.data()`` of a role with no data); enough of them abort the interpreter.
    Asking the Python model directly, and never answering None for this role, avoids it.
    """
    model = index.model()
    return (model.data(index, BADGES_ROLE) if model is not None else None) or []


class BadgeDelegate(QStyledItemDelegate):
    """Paints the :data:`BADGES_ROLE` of a cell as icon + text pairs (other cells as usual)."""

    GAP = 6

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        shown = badges(index)
        if not shown:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.setPen(opt.palette.highlightedText().color() if selected
                       else opt.palette.text().color())
        painter.setFont(opt.font)
        metrics = opt.fontMetrics
        x, rect = opt.rect.left() + 3, opt.rect
        top = rect.top() + (rect.height() - ICON_SIZE) // 2
        for key, text in shown:
            painter.drawPixmap(x, top, pixmap(key))
            x += ICON_SIZE + 2
            width = metrics.horizontalAdvance(text)
            painter.drawText(QRectF(x, rect.top(), width + 1, rect.height()),
                             int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), text)
            x += width + self.GAP
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        shown = badges(index)
        if not shown:
            return size
        metrics = option.fontMetrics
        width = 6 + sum(ICON_SIZE + 2 + metrics.horizontalAdvance(t) + self.GAP for _, t in shown)
        return QSize(width, max(size.height(), ICON_SIZE + 4))


def italic(font: QFont) -> QFont:
    """A copy of ``font`` in italics (greyed and synthetic rows)."""
    out = QFont(font)
    out.setItalic(True)
    return out
