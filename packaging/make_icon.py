"""Render resources/icon.svg to resources/icon-256.png (the desktop icon).

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icon.py [SIZE]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PyQt6.QtCore import Qt  # noqa: E402
from PyQt6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PyQt6.QtSvg import QSvgRenderer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    _app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ROOT / "resources" / "icon.svg"))
    if not renderer.isValid():
        print("make_icon: resources/icon.svg is not a valid SVG", file=sys.stderr)
        return 1
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    out = ROOT / "resources" / f"icon-{size}.png"
    if not image.save(str(out)):
        print(f"make_icon: cannot write {out}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
