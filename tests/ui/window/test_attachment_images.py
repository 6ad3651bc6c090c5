"""Images attached in the window reach a remote model as the server's protocol
wants them (the fault server records the request): OpenAI-compatible servers
get ``image_url`` parts with data URLs, Ollama a message's ``images``; a local
model without a vision projector is sent text only, and its chips and button say so before sending."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from PyQt6.QtGui import QColor, QImage

from app.core.backends.base import ChatMessage, GenerationRequest, ModelInfo
from app.core.backends.remote.ollama import OllamaBackend
from app.core.backends.remote.openai import OpenAIBackend
from app.core.backends.remote.servers import ServerConfig
from app.core.backends.scripted import ScriptedBackend
from app.core.factory import remote_factory
from tests.helpers.fault_server import FaultServer
from tests.ui.window.test_attachments import attach_and_wait


@pytest.fixture
def fault():
    with FaultServer() as server:
        yield server


def picture(tmp_path: Path) -> Path:
    image = QImage(2400, 1200, QImage.Format.Format_RGB32)
    image.fill(QColor("orange"))
    path = tmp_path / "screenshot.png"
    assert image.save(str(path), "PNG")
    return path


def chat_body(fault: FaultServer) -> dict[str, Any]:
    return [r.body for r in fault.requests if r.method == "POST"][-1]


def test_openai_gets_image_url_parts(qtbot: Any, make_window: Any, fault: FaultServer, tmp_path: Path) -> None:
    window = make_window(*remote_factory(ServerConfig("Fault box", "openai", fault.url), "fault-model", api_key=""))
    assert window.attachments.can_see_images() and "images" in window.attachments.button.toolTip()
    attach_and_wait(qtbot, window, [picture(tmp_path)])
    chip = next(iter(window.attachments.tray.chips.values()))
    assert "cannot see" not in chip.summary()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        window.enter_prompt("What is in this picture?")
    user = [m for m in chat_body(fault)["messages"] if m["role"] == "user"][-1]
    text, image = user["content"]
    assert text == {"type": "text", "text": "What is in this picture?"}
    url = image["image_url"]["url"]
    assert image["type"] == "image_url" and url.startswith("data:image/jpeg;base64,")
    decoded = QImage()
    assert decoded.loadFromData(base64.b64decode(url.split(",", 1)[1]))
    assert (decoded.width(), decoded.height()) == (1024, 512)  # scaled on the worker


def test_ollama_gets_images(qtbot: Any, make_window: Any, fault: FaultServer, tmp_path: Path) -> None:
    window = make_window(*remote_factory(ServerConfig("Fault box", "ollama", fault.url), "fault-model", api_key=""))
    attach_and_wait(qtbot, window, [picture(tmp_path)])
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        window.enter_prompt("Describe it.")
    user = [m for m in chat_body(fault)["messages"] if m["role"] == "user"][-1]
    assert user["content"] == "Describe it." and len(user["images"]) == 1
    assert base64.b64decode(user["images"][0])[:3] == b"\xff\xd8\xff"


def test_a_local_model_is_sent_no_image_and_says_so(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    assert not window.attachments.can_see_images()
    assert "cannot see images" in window.attachments.button.toolTip()
    attach_and_wait(qtbot, window, [picture(tmp_path)])
    chip = next(iter(window.attachments.tray.chips.values()))
    assert "this model cannot see images" in chip.summary() and "will not be sent" in chip.toolTip()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        window.enter_prompt("What is in this picture?")
    user = [m for m in window.attachments.sending.last_prompt if m.role == "user"][-1]
    assert user.content == "What is in this picture?" and user.images == ()


class SeeingBackend(ScriptedBackend):
    """A local model whose vision projector loaded (``ModelInfo.vision``)."""

    def load(self, *args: Any, **kwargs: Any) -> ModelInfo:
        return dataclasses.replace(super().load(*args, **kwargs), vision=True)


def test_a_local_model_with_a_projector_is_sent_images(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: SeeingBackend(rate=5000, n_tokens=3))
    assert window.attachments.can_see_images()
    assert "cannot see images" not in window.attachments.button.toolTip()
    attach_and_wait(qtbot, window, [picture(tmp_path)])
    chip = next(iter(window.attachments.tray.chips.values()))
    assert "cannot see" not in chip.summary()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        window.enter_prompt("What is in this picture?")
    user = [m for m in window.attachments.sending.last_prompt if m.role == "user"][-1]
    assert user.content == "What is in this picture?" and len(user.images) == 1
    mime, data = user.images[0]
    assert mime in ("image/jpeg", "image/png")
    assert QImage.fromData(base64.b64decode(data)).width() == 1024  # scaled on the worker, as for servers


def test_wire_messages_without_images_stay_plain() -> None:
    server = ServerConfig("s", "openai", "http://127.0.0.1:9")
    request = GenerationRequest(1, (ChatMessage("user", "hi"), ChatMessage("user", "look", images=(("image/png", "QUJD"),))))
    openai = OpenAIBackend(server, "m")._wire_messages(request)
    assert openai[0] == {"role": "user", "content": "hi"}
    assert openai[1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}
    ollama = OllamaBackend(ServerConfig("s", "ollama", "http://127.0.0.1:9"), "m")._wire_messages(request)
    assert ollama[1] == {"role": "user", "content": "look", "images": ["QUJD"]}
