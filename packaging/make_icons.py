"""Render the icon (widgets/icons/turnscope.svg, the one source) to the PNG sizes a desktop
asks for: packaging/icons/turnscope-<N>.png.

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "widgets" / "icons" / "turnscope.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(out_dir: Path = ROOT / "packaging" / "icons") -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"{SVG}: not a valid SVG")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out_dir / f"turnscope-{size}.png"
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"{path}: cannot write")
        written.append(path)
    del app
    return written


if __name__ == "__main__":
    for path in render():
        print(path.relative_to(ROOT))
