"""PyQt6 makes a class's nested Python enums the first time Python touches
the class (sip's lazy attributes): 1.3-1.6 ms for ``QStyleOptionViewItem``
or ``QTextCharFormat`` and their bases, once per process. Left alone, that
lands in the first Enter (the sidebar's delegate gets its first
``QStyleOptionViewItem``, the tail its first text formats): ~6 ms of the
first send. ``touch_lazy_types`` pays it at start-up idle, one class per
turn of the event loop.

``LAZY_TYPES`` are the classes a first send, stream, final render, find and
history open touched after the start-up warm-up (found by logging
``enum.EnumType._create_`` in ``rill doctor`` runs), and a paste's
(``QClipboard``; ``QLocale``, whose enums of every country, language and
script take ~5 ms, for an attachment chip's character count).

Threading rule: GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PyQt6.QtCore import QChar, QLocale, QTimer
from PyQt6.QtGui import (
    QClipboard,
    QFontDatabase,
    QInputDevice,
    QPointingDevice,
    QTextBlockFormat,
    QTextCharFormat,
    QTextFormat,
    QTextLayout,
    QTextLine,
)
from PyQt6.QtWidgets import QGesture, QStyleOption, QStyleOptionViewItem

LAZY_TYPES: tuple[type, ...] = (
    QStyleOptionViewItem, QStyleOption, QTextCharFormat, QTextBlockFormat, QTextFormat, QTextLayout, QTextLine,
    QGesture, QPointingDevice, QInputDevice, QFontDatabase, QChar, QLocale, QClipboard,
)

#: No class has this attribute: looking it up makes the class's lazy attributes.
_PROBE = "_rill_lazy_probe"


def touch(cls: type) -> None:
    """Make ``cls``'s (and its bases') lazy attributes now."""
    getattr(cls, _PROBE, None)


def touch_lazy_types(types: Iterable[type] = LAZY_TYPES, then: Callable[[], None] | None = None) -> None:
    """Touch ``types`` one per turn of the event loop; ``then`` after the last."""
    pending = list(types)

    def step() -> None:
        if pending:
            touch(pending.pop(0))
            QTimer.singleShot(0, step)
        elif then is not None:
            then()

    step()
