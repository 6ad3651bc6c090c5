"""Never "wait": while the model reads a long prompt, the reply shows how
much it has read (the backend's progress carried from the inference thread
to the view), then the text."""

from __future__ import annotations

from PyQt6.QtCore import Qt

from app.core.backends.scripted import ScriptedBackend


def test_progress_events_reach_the_reply_and_end_at_the_first_token(qtbot, make_window) -> None:
    window = make_window(lambda: ScriptedBackend.from_text(
        "Read it.", rate=200, prefill_s=0.6, prompt_tokens=4096, prompt_batch=512))
    told: list[tuple[int, int]] = []
    window.chat.prompt_progressed.connect(lambda _rid, done, total: told.append((done, total)))
    window.prompt.setPlainText("a long document")
    with qtbot.waitSignal(window.chat.prompt_progressed, timeout=10000,
                          check_params_cb=lambda _rid, done, _total: done >= 1024):
        qtbot.keyClick(window.prompt, Qt.Key.Key_Return)
    reply_id = window.view.message_ids()[-1]
    waiting, words, fraction = window.view.probe.waiting_row(reply_id)
    assert waiting and fraction is not None and fraction >= 0.25
    assert "of 4,096 tokens" in words
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        pass
    assert told[-1] == (4096, 4096), "the end always comes"
    assert all(t == 4096 for _d, t in told) and len(told) >= 3
    assert not window.view.probe.waiting_row(reply_id)[0]
    assert window.view.probe.message_text(reply_id) == "Read it."
