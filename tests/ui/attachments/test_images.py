"""Images scaled on a worker: the first frame, at most MAX_SIDE a side, a huge
PNG refused from its header (never decoded), a broken one named."""

from __future__ import annotations

import struct
import threading
import zlib
from pathlib import Path

import pytest
from PyQt6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from app.core.attachments.record import AttachmentError, AttachmentKind
from app.ui.attachments.images import IMAGE_TOKENS, MAX_SIDE, decode_preview, read_image
from app.ui.attachments.service import read_attachment


def png_header_only(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def test_a_large_photo_is_scaled(qtbot: QtBot, tmp_path: Path) -> None:
    image = QImage(3000, 1500, QImage.Format.Format_RGB32)
    image.fill(QColor("steelblue"))
    path = tmp_path / "photo.jpg"
    assert image.save(str(path), "JPEG")
    scaled = read_image(str(path))
    assert (scaled.width, scaled.height) == (MAX_SIDE, MAX_SIDE // 2) and scaled.mime == "image/jpeg"
    assert scaled.original == (3000, 1500)
    assert decode_preview(scaled.data).width() == MAX_SIDE


def test_alpha_stays_png_and_gif_gives_its_first_frame(qtbot: QtBot, tmp_path: Path) -> None:
    image = QImage(40, 30, QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    path = tmp_path / "icon.png"
    assert image.save(str(path), "PNG")
    scaled = read_image(str(path))
    assert scaled.mime == "image/png" and (scaled.width, scaled.height) == (40, 30)


def test_a_20000_square_png_is_refused_without_decoding(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(png_header_only(20_000, 20_000))
    with pytest.raises(AttachmentError, match="20,000 × 20,000"):
        read_image(str(path))


def test_a_broken_image_is_named(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(AttachmentError, match="cannot be read"):
        read_image(str(path))


def test_read_attachment_on_a_worker(qtbot: QtBot, tmp_path: Path) -> None:
    image = QImage(64, 64, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    path = tmp_path / "red.png"
    image.save(str(path), "PNG")
    out = []
    t = threading.Thread(target=lambda: out.append(read_attachment(str(path), threading.Event())))
    t.start()
    t.join(30)
    content = out[0]
    assert content.attachment.kind is AttachmentKind.IMAGE and content.attachment.tokens == IMAGE_TOKENS
    assert content.image and content.mime in ("image/png", "image/jpeg")
    huge = tmp_path / "huge.png"
    huge.write_bytes(png_header_only(20_000, 20_000))
    assert "too large" in read_attachment(str(huge), threading.Event()).attachment.error
