"""The About box opens at once and fills in llama.cpp from a background call."""

from __future__ import annotations

import threading
from typing import Any

from PyQt6.QtWidgets import QWidget

from app.core.base import about
from app.ui.dialogs.about import open_about_box
from app.ui.services.lifecycle import AppServices


def test_the_box_shows_checking_then_the_description(qtbot: Any, monkeypatch: Any) -> None:
    gate = threading.Event()
    info = about.LlamaInfo(available=True, package_version="9.9.9")
    monkeypatch.setattr(about, "llama_info_if_loaded", lambda: None)
    monkeypatch.setattr(about, "llama_info", lambda: gate.wait(10) and info)
    services = AppServices(persist=False)
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        box = open_about_box(parent, services, model="tiny (/m/tiny.gguf)")
        assert box.isVisible() and "checking…" in box.text() and "tiny (/m/tiny.gguf)" in box.text()
        gate.set()
        qtbot.waitUntil(lambda: "llama-cpp-python 9.9.9" in box.text(), timeout=5000)
        box.accept()
    finally:
        assert services.shutdown(10000)
