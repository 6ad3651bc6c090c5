"""The window on a remote server: the same pipeline, Stop and fault handling
as the local model (fault-injecting server on 127.0.0.1)."""

from __future__ import annotations

import pytest
from PyQt6.QtCore import Qt

from app.core.backends.base import FinishReason
from app.core.backends.remote.servers import ServerConfig
from app.core.conversation.model import MessageStatus
from app.core.factory import remote_factory
from app.ui.conversation.controller import ChatState
from tests.helpers.fault_server import DEFAULT_TEXT, FaultServer, Scenario


@pytest.fixture
def fault():
    with FaultServer() as server:
        yield server


def send(qtbot, window, text: str) -> None:
    window.prompt.setPlainText(text)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


def remote(url: str, kind: str = "openai", **kw):
    return remote_factory(ServerConfig("Fault box", kind, url, **kw), "fault-model", api_key="")


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_remote_reply_streams_exactly(qtbot, make_window, fault: FaultServer, kind: str) -> None:
    fault.scenario = Scenario(write_sizes=(1, 2, 3), rate=400)
    window = make_window(*remote(fault.url, kind))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000) as blocker:
        send(qtbot, window, "hello")
    stats = blocker.args[0]
    assert stats.finish_reason == FinishReason.STOP
    message = window.chat.conversation.messages[-1]
    assert message.content == DEFAULT_TEXT and message.status == MessageStatus.COMPLETE
    assert stats.tokens_shown == stats.tokens_produced == len(fault.scenario.content_tokens())
    assert "\ufffd" not in window.view.probe.message_text(stats.message_id)


def test_stop_while_the_server_reads_the_prompt(qtbot, make_window, fault: FaultServer) -> None:
    """The server has sent nothing yet (not even headers): Stop makes the UI
    idle at once and the connection is closed (the server sees the client
    go, long before its 60 s delay), and the next request goes out at once."""
    fault.scenario = Scenario(fault="slow_headers", headers_delay_s=60.0)
    window = make_window(*remote(fault.url))
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send(qtbot, window, "a long prompt")
    qtbot.waitUntil(lambda: any(r.path.endswith("/chat/completions") for r in fault.requests), timeout=10000)
    with qtbot.waitSignal(chat.reply_stopped, timeout=1000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Escape)
    assert chat.state == ChatState.IDLE
    assert fault.client_gone.wait(5)
    fault.scenario = Scenario(rate=0)
    with qtbot.waitSignal(chat.reply_settled, timeout=10000,
                          check_params_cb=lambda stats: stats.finish_reason != FinishReason.CANCELLED) as blocker:
        send(qtbot, window, "again")
    assert blocker.args[0].finish_reason == FinishReason.STOP
    assert chat.conversation.messages[-1].content == DEFAULT_TEXT


def test_a_mid_stream_fault_keeps_the_partial_reply_and_names_the_server(qtbot, make_window, fault: FaultServer) -> None:
    fault.scenario = Scenario(fault="close_mid", fail_after=4, pieces=30)
    window = make_window(*remote(fault.url))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000) as blocker:
        send(qtbot, window, "go")
    stats = blocker.args[0]
    assert stats.finish_reason == FinishReason.ERROR
    message = window.chat.conversation.messages[-1]
    assert message.status == MessageStatus.ERROR
    assert message.content == "".join(fault.scenario.content_tokens()[:4])
    footer = window.view.probe.message_footer(stats.message_id)
    assert "Fault box" in footer and "closed the connection" in footer
    assert "Traceback" not in window.view.probe.all_text()
    assert window.chat.state == ChatState.IDLE and window.send_button.isEnabled()


def test_a_dead_server_is_a_clear_model_message(qtbot, make_window) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    window = make_window(*remote(f"http://127.0.0.1:{port}"), wait_ready=False)
    with qtbot.waitSignal(window.chat.model_failed, timeout=20000) as blocker:
        pass
    assert "Fault box" in blocker.args[0] and "refused the connection" in blocker.args[0]
