"""Splitters whose panes share the width by what each needs: on a wide window each pane gets
its preferred share; on a narrow one the panes that can give way do, down to their own
least widths, so that the pane that must stay whole (the preview's controls) keeps its
width; only when even the least widths do not fit does the last pane scroll. Once the user
drags a handle, the splitter keeps the user's widths (and the saved state says so)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QSplitter, QWidget


@dataclass(frozen=True)
class Pane:
    """A pane's claim on the width: ``weight`` its preferred share, ``least`` the width under
    which it is no longer whole (its controls cut or a list unreadable)."""

    weight: float
    least: int


def shares(total: int, panes: list[Pane]) -> list[int]:
    """The widths of ``panes`` in ``total`` pixels. Each gets its share by weight; a pane
    under its least width is raised to it, taken from the others in proportion to their
    weights, each down to its own least width. Short even then: the last pane gets what is
    left (it scrolls)."""
    weights = sum(p.weight for p in panes) or 1
    sizes = [total * p.weight / weights for p in panes]
    need = 0.0
    for i, pane in enumerate(panes):
        if sizes[i] < pane.least:
            need += pane.least - sizes[i]
            sizes[i] = pane.least
    while need > 0.5:
        givers = [i for i, pane in enumerate(panes) if sizes[i] > pane.least]
        weight = sum(panes[i].weight for i in givers)
        if not givers or weight <= 0:
            break
        taken = 0.0
        for i in givers:
            give = min(need * panes[i].weight / weight, sizes[i] - panes[i].least)
            sizes[i] -= give
            taken += give
        need -= taken
    if need > 0.5:
        sizes[-1] = max(0.0, sizes[-1] - need)
    widths = [int(s) for s in sizes[:-1]]
    return [*widths, max(0, total - sum(widths))]


class SharedSplitter(QSplitter):
    """A horizontal splitter sharing its width by :func:`shares` each time it is resized,
    until the user drags a handle (``dragged``; then Qt's own stretching applies). Each
    pane's least width is asked of a callable, as it changes with the content and the font.
    A pane holding another shared splitter shares by that one's panes (:meth:`panes`), so
    that giving way follows one order across both. No signals beyond QSplitter's."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self._claims: list[tuple[float, Callable[[], list[Pane]], Callable[[], int]]] = []
        self.dragged = False
        self.splitterMoved.connect(self._on_splitter_moved)

    def add_pane(self, widget: QWidget, weight: float, least: Callable[[], int]) -> None:
        """Add ``widget`` claiming ``weight`` of the width, never less than ``least()`` while
        the panes before it can give way. Panes give way in the order they are added."""
        self.add_panes(widget, weight, lambda: [Pane(1, least())])

    def add_panes(self, widget: QWidget, weight: float, panes: Callable[[], list[Pane]],
                  frame: Callable[[], int] = lambda: 0) -> None:
        """Add ``widget`` holding the side-by-side ``panes()`` (their weights scaled to
        ``weight``) and ``frame()`` pixels around them (handles, a tab widget's frame)."""
        self.addWidget(widget)
        self.setStretchFactor(self.count() - 1, max(1, round(weight)))
        self._claims.append((weight, panes, frame))

    def panes(self) -> list[Pane]:
        """Its panes, for a splitter holding this one (weights as given, handles in none)."""
        out = []
        for weight, panes, _ in self._claims:
            parts = panes()
            scale = weight / (sum(p.weight for p in parts) or 1)
            out += [Pane(p.weight * scale, p.least) for p in parts]
        return out

    def frame(self) -> int:
        """The pixels its panes do not get: its handles and what the held panes' frames take."""
        return (self.handleWidth() * max(0, self.count() - 1)
                + sum(frame() for _, _, frame in self._claims))

    def least(self) -> int:
        """The width its panes need to be whole, handles included."""
        return sum(p.least for p in self.panes()) + self.frame()

    def share(self) -> None:
        """Share the width now (unless the user has dragged a handle)."""
        if self.dragged or not self._claims or self.width() <= 0:
            return
        groups = [len(panes()) for _, panes, _ in self._claims]
        widths = shares(self.width() - self.frame(), self.panes())
        sizes, start = [], 0
        for (_, _, frame), n in zip(self._claims, groups, strict=True):
            sizes.append(sum(widths[start:start + n]) + frame())
            start += n
        self.setSizes(sizes)

    def restoreState(self, state: QByteArray | bytes) -> bool:
        """Qt's; then shared again unless the widths were the user's (the saved state sets
        ``dragged`` before this)."""
        done = super().restoreState(state)
        self.share()
        return done

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.share()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.share()

    def _on_splitter_moved(self, pos: int, index: int) -> None:
        self.dragged = True
