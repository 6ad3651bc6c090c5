"""An attached image, scaled down on a worker (QImageReader, first frame only).

The reader is told the size wanted before it decodes (``setScaledSize``), so
a format that can decode small (JPEG) never holds the full picture; one that
cannot (PNG, WebP, GIF) is refused when its full size is beyond
``MAX_IMAGE_PIXELS`` (a 20,000 × 20,000 PNG would need 1.6 GB), and Qt's own
allocation limit stops anything that slips past. The result is PNG (with an
alpha channel) or JPEG bytes of at most ``MAX_SIDE`` pixels a side: what
vision models take.

Threading rule: a worker thread (QImageReader and QImage are reentrant).
"""

from __future__ import annotations

from dataclasses import dataclass

from PyQt6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QSize
from PyQt6.QtGui import QImage, QImageIOHandler, QImageReader

from app.core.attachments.record import AttachmentError
from app.core.base import limits

#: The longest side of the image a model is sent.
MAX_SIDE = 1024
#: What one image costs in the context, in tokens (CLIP-style projectors take 576-1,000).
IMAGE_TOKENS = 768


@dataclass(frozen=True)
class ScaledImage:
    data: bytes
    mime: str
    width: int
    height: int
    #: The file's own size in pixels.
    original: tuple[int, int]


def _unreadable() -> str:
    return QCoreApplication.translate("Attachments", "This image cannot be read (it is damaged or not an image).")


def read_image(path: str, max_side: int = MAX_SIDE) -> ScaledImage:
    """The image at ``path`` (its first frame), scaled to fit ``max_side``."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    if not reader.canRead():
        raise AttachmentError(_unreadable())
    size = reader.size()
    if not size.isValid() or size.isEmpty():
        raise AttachmentError(_unreadable())
    w, h = size.width(), size.height()
    scale = min(1.0, max_side / max(w, h))
    target = QSize(max(1, round(w * scale)), max(1, round(h * scale)))
    if w * h > limits.MAX_IMAGE_PIXELS and not reader.supportsOption(QImageIOHandler.ImageOption.ScaledSize):
        raise AttachmentError(QCoreApplication.translate(
            "Attachments", "This image is {w} × {h} pixels: too large to open (at most {max} million "
            "pixels). Scale it down first.").format(
            w=f"{w:,}", h=f"{h:,}", max=limits.MAX_IMAGE_PIXELS // 1_000_000))
    if scale < 1.0:
        reader.setScaledSize(target)
    image = reader.read()
    if image.isNull():
        raise AttachmentError(QCoreApplication.translate(
            "Attachments", "This image cannot be read: {reason}.").format(reason=reader.errorString()))
    if image.width() > max_side or image.height() > max_side:  # a reader that ignored the scaled size
        image = image.scaled(target.width(), target.height())
    alpha = image.hasAlphaChannel()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG" if alpha else "JPEG", -1 if alpha else 88)
    buffer.close()
    return ScaledImage(bytes(data.data()), "image/png" if alpha else "image/jpeg", image.width(), image.height(), (w, h))


def decode_preview(data: bytes) -> QImage:
    """A stored image's bytes as a QImage (small: they were scaled when attached)."""
    image = QImage()
    image.loadFromData(data)
    return image
