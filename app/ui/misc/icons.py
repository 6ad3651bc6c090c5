"""Rill's icons: Lucide SVGs bundled in ``resources/icons/`` (ISC licence,
``resources/icons/LICENSE``), drawn in a theme colour.

The SVGs stroke with ``currentColor``; ``pixmap`` fills in a colour, renders
the file with ``QSvgRenderer`` (the QtSvg module the bundle carries for the
formulas; no icon engine plugin needed) at the screen's pixel ratio and
caches the result, so painting an icon again costs one dict look-up.
``icon`` gives a ``QIcon`` for buttons in the current theme (ask again on
``theme_changed``).

Threading rule: GUI thread only.
"""

from __future__ import annotations

import logging

from PyQt6.QtCore import QByteArray, QRectF, Qt
from PyQt6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PyQt6.QtSvg import QSvgRenderer

from app.resources import read_text_resource
from app.ui.misc import theme

__all__ = ["ICONS", "icon", "pixmap"]

log = logging.getLogger(__name__)

#: What Rill shows an icon for → the Lucide file name (resources/icons/NAME.svg).
ICONS: dict[str, str] = {
    "copy": "copy",
    "edit": "pencil",
    "regenerate": "refresh-cw",
    "continue": "fast-forward",
    "delete": "trash-2",
    "previous": "chevron-left",
    "next": "chevron-right",
    "send": "arrow-up",
    "stop": "square",
    "attach": "paperclip",
    "menu": "chevron-down",
    "remove": "x",
    "model": "cpu",
    "example": "sparkles",
}

_SOURCES: dict[str, str] = {}
_CACHE: dict[tuple[str, int, int, float], QPixmap] = {}
_CACHE_MAX = 256


def _source(name: str) -> str:
    text = _SOURCES.get(name)
    if text is None:
        text = _SOURCES[name] = read_text_resource(f"icons/{ICONS.get(name, name)}.svg")
    return text


def pixmap(name: str, color: QColor, size: int, ratio: float = 1.0) -> QPixmap:
    """Icon ``name`` (a key of ``ICONS``) ``size`` logical pixels square in
    ``color``, for a screen of pixel ratio ``ratio``; an empty pixmap (the
    file is missing: logged once by ``app.resources``) draws nothing."""
    key = (name, color.rgba(), size, ratio)
    found = _CACHE.get(key)
    if found is not None:
        return found
    source = _source(name)
    side = max(1, round(size * ratio))
    image = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    if source:
        renderer = QSvgRenderer(QByteArray(source.replace("currentColor", color.name()).encode()))
        if renderer.isValid():
            painter = QPainter(image)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            renderer.render(painter, QRectF(0, 0, side, side))
            painter.end()
        else:
            log.warning("icon %s: not a valid SVG", name)
    result = QPixmap.fromImage(image)
    result.setDevicePixelRatio(ratio)
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def icon(name: str, color_name: str = "muted", size: int = 16, ratio: float = 2.0) -> QIcon:
    """A ``QIcon`` of ``name`` in the current theme's ``color_name``, drawn
    sharp up to pixel ratio ``ratio``; disabled buttons get the theme's
    disabled colour."""
    out = QIcon()
    out.addPixmap(pixmap(name, theme.color(color_name), size, ratio), QIcon.Mode.Normal)
    out.addPixmap(pixmap(name, theme.color("disabled_text"), size, ratio), QIcon.Mode.Disabled)
    return out
