"""Every plot of the window exports as PNG or SVG from a context menu of our own
(widgets/plot_export.py); pyqtgraph's own menus stay off."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

from explorer.cli.demo import demo_paths
from tests.test_window import loaded_window
from widgets import plot_export

PNG = b"\x89PNG\r\n\x1a\n"


def _trigger(menu, text: str) -> None:
    action = next(a for a in menu.actions() if a.text() == text)
    action.trigger()


def test_every_plot_view_exports_png_and_svg_from_its_own_menu(qtbot, tmp_path, monkeypatch):
    window = loaded_window(qtbot, demo_paths())
    window.resize(1400, 900)
    window.show()
    views = window.findChildren(pg.GraphicsView)
    exporters = {e.view: e for e in window.plot_exports}
    assert views and set(views) == set(exporters)   # every plot view has ours
    asked: list[str] = []

    def ask(_parent, _title, suggested, _filter):
        asked.append(suggested)
        return str(tmp_path / f"{len(asked)}-{suggested}").removesuffix(".png").removesuffix(
            ".svg")   # the suffix is added for the user
    monkeypatch.setattr(plot_export, "ask_path", ask)
    failures: list[str] = []   # a failed export says so in a (modal) box: recorded instead
    monkeypatch.setattr(plot_export.QMessageBox, "warning",
                        lambda _parent, _title, text: failures.append(text))
    written = []
    for exporter in exporters.values():
        exporter.exported.connect(written.append)
        plots = exporter.plots()
        assert plots and not any(p.menuEnabled() for p in plots)   # pyqtgraph's menus off
        centre = exporter.view.mapFromScene(plots[0].sceneBoundingRect().center())
        menu = exporter.build_menu(centre)
        _trigger(menu, "Export plot as PNG image…")
        _trigger(menu, "Export plot as SVG drawing…")
        if len(plots) > 1:
            _trigger(menu, "Export all plots as SVG drawing…")
    assert not failures
    assert len(written) >= 2 * len(exporters)
    for path in written:
        data = Path(path).read_bytes()
        if path.endswith(".png"):
            assert data.startswith(PNG) and len(data) > 1000
        else:
            root = ET.fromstring(data)
            assert root.tag.endswith("svg") and len(list(root.iter())) > 10
    # the sweep panel's four plots and the providers' plot, one at a time or all at once
    sweep = exporters[window.sweep.graphics]
    assert len(sweep.plots()) == 5
    assert any(name.startswith("over-budget") for name in asked)


def test_a_right_click_on_a_plot_opens_our_menu(qtbot, tmp_path):
    window = loaded_window(qtbot, demo_paths())
    window.show()
    view = window.workspace.cost_plot.plot_widget   # the budget line's plot
    exporter = next(e for e in window.plot_exports if e.view is view)
    centre = view.mapFromScene(exporter.plots()[0].sceneBoundingRect().center())
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, centre, view.mapToGlobal(centre))
    QApplication.sendEvent(view.viewport(), event)
    assert exporter.menu is not None
    assert [a.text() for a in exporter.menu.actions()][:2] == [
        "Export plot as PNG image…", "Export plot as SVG drawing…"]
    exporter.menu.close()
    path = tmp_path / "p.png"
    exporter.export(exporter.plots()[0], "png", path)
    assert path.read_bytes().startswith(PNG)
    assert view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
