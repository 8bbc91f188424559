"""Export of every plot as PNG or SVG, from a context menu of our own on each plot view.

pyqtgraph's own menus stay off (its log and transform switches desynchronise the cost
plot's budget line, and its export dialog is a menu of its own): :class:`PlotExporter`
turns them off on every plot of a view and gives the view a menu whose entries write the
plot under the pointer (or, in a view of several plots, all of them) through
``pyqtgraph.exporters`` (ImageExporter, SVGExporter; Qt's QSvgGenerator where pyqtgraph's
SVG export fails), after a file dialog.
:func:`install` puts one on every plot view of a window.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QObject, QPoint, QRectF, Qt, Signal, Slot
from PySide6.QtGui import QColor, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from explorer.text_escape import visible

#: Format -> (label, file filter, suffix).
FORMATS = {"png": ("PNG image", "PNG image (*.png)", ".png"),
           "svg": ("SVG drawing", "SVG drawing (*.svg)", ".svg")}


def ask_path(parent: QWidget, title: str, suggested: str, file_filter: str) -> str:
    """The file to write, from a save dialog ("" when cancelled); tests replace it."""
    path, _ = QFileDialog.getSaveFileName(parent, title, suggested, file_filter)
    return path


def plot_name(plot: pg.PlotItem, fallback: str) -> str:
    """A file name for a plot: its title's words, else ``fallback``."""
    title = plot.titleLabel.text if plot.titleLabel is not None else ""
    words = re.findall(r"[A-Za-z0-9]+", re.sub(r"<[^>]*>", " ", title or ""))
    return "-".join(words).lower()[:60] or fallback


class PlotExporter(QObject):
    """The Export entries of one plot view (a ``pg.PlotWidget`` or a
    ``pg.GraphicsLayoutWidget``): its context menu, ours.

    Signals:
        exported(str): the path of a file written.
    """

    exported = Signal(str)

    def __init__(self, view: pg.GraphicsView, name: str = "plot") -> None:
        super().__init__(view)
        self.view, self.name = view, name
        self.menu: QMenu | None = None
        for plot in self.plots():
            plot.setMenuEnabled(False)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._on_view_menu_requested)

    def plots(self) -> list[pg.PlotItem]:
        """The view's plots, top to bottom and left to right."""
        found = [i for i in self.view.scene().items() if isinstance(i, pg.PlotItem)]
        return sorted(found, key=lambda p: (p.scenePos().y(), p.scenePos().x()))

    def plot_at(self, pos: QPoint) -> pg.PlotItem | None:
        """The plot under ``pos`` (the view's coordinates), or the view's only plot."""
        plots = self.plots()
        point = self.view.mapToScene(pos)
        for plot in plots:
            if plot.sceneBoundingRect().contains(point):
                return plot
        return plots[0] if len(plots) == 1 else None

    def build_menu(self, pos: QPoint) -> QMenu:
        """The context menu for a click at ``pos``: export the plot there, or every plot."""
        menu = QMenu(self.view)
        plot = self.plot_at(pos)
        if plot is not None:
            for fmt, (label, _, _) in FORMATS.items():
                action = menu.addAction(f"Export plot as {label}…")
                action.triggered.connect(partial(self.export_asking, plot, fmt))
        if len(self.plots()) > 1:
            for fmt, (label, _, _) in FORMATS.items():
                action = menu.addAction(f"Export all plots as {label}…")
                action.triggered.connect(partial(self.export_asking, None, fmt))
        return menu

    @Slot(QPoint)
    def _on_view_menu_requested(self, pos: QPoint) -> None:
        self.menu = self.build_menu(pos)
        self.menu.popup(self.view.mapToGlobal(pos))

    def export_asking(self, plot: pg.PlotItem | None, fmt: str, _checked: bool = False) -> str:
        """Ask for the file, then write ``plot`` (None: the whole view) in ``fmt``; the path
        written ("" when cancelled or failed: said in a message box)."""
        label, file_filter, suffix = FORMATS[fmt]
        name = plot_name(plot, self.name) if plot is not None else self.name
        path = ask_path(self.view.window(), f"Export as {label}", name + suffix, file_filter)
        if not path:
            return ""
        if not path.lower().endswith(suffix):
            path += suffix
        try:
            self.export(plot, fmt, path)
        except (OSError, RuntimeError, ValueError) as exc:
            QMessageBox.warning(self.view.window(), "Export failed",
                                visible(f"Cannot write {path}: {exc}"))
            return ""
        return path

    def export(self, plot: pg.PlotItem | None, fmt: str, path: str | Path) -> None:
        """Write ``plot`` (None: every plot of the view, as shown) to ``path`` in ``fmt``."""
        target = plot if plot is not None else self.view.scene()
        Path(path).unlink(missing_ok=True)
        if fmt == "png":
            exporter = pg_exporters.ImageExporter(target)
            exporter.parameters()["background"] = "w"
            exporter.export(str(path))
        else:
            try:
                pg_exporters.SVGExporter(target).export(str(path))
            except ValueError:
                # pyqtgraph 0.14 cannot read back the paths Qt 6.11 writes (it expects
                # "x,y" pairs): the drawing is written by Qt's own SVG generator instead
                _qt_svg(self.view, plot, str(path))
        if not Path(path).is_file():
            raise OSError("nothing was written")
        self.exported.emit(str(path))


def _qt_svg(view: pg.GraphicsView, plot: pg.PlotItem | None, path: str) -> None:
    """``plot`` (None: the whole view) drawn into an SVG file by QSvgGenerator."""
    scene = view.scene()
    source = plot.sceneBoundingRect() if plot is not None else scene.sceneRect()
    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(source.size().toSize())
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    generator.setTitle("Turnscope plot")
    # at the view's own resolution: at the generator's 72 dpi, what the view boxes draw
    # (the curves) came out a third wider than their axes
    generator.setResolution(view.logicalDpiX())
    painter = QPainter(generator)
    try:
        painter.fillRect(QRectF(0, 0, source.width(), source.height()), QColor("white"))
        scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()


def install(root: QWidget) -> list[PlotExporter]:
    """A :class:`PlotExporter` on every plot view under ``root`` (the window), each named
    for its panel; the views already given one are left as they are."""
    out = []
    for view in root.findChildren(pg.GraphicsView):
        if view.findChild(PlotExporter) is not None:
            continue
        panel = view.parentWidget()
        while panel is not None and not type(panel).__module__.startswith("widgets."):
            panel = panel.parentWidget()
        name = re.sub(r"(?<!^)(?=[A-Z])", "-", type(panel).__name__).lower() if panel else "plot"
        out.append(PlotExporter(view, name))
    return out
