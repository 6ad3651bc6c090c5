"""How full the model's context is: a status-bar meter and what feeds it.

Threading rule: both classes live on the GUI thread. Nothing here tokenizes:
after each reply the meter takes the backend's exact count (the prompt as
sent + the reply), in between it adds cheap bounded estimates
(app.core.text.tokens_estimate) of what is typed and what is streaming. A
conversation opened from the history starts from its last reply's stored
count (the same number that reply's meter showed); what came after it, or
the whole conversation when no reply has a count, is estimated at a
bounded cost in time slices on the GUI thread (``estimate_total_steps``:
~10 ms in all for 10 M characters; pure Python, which a helper thread
would run holding the GIL the GUI thread needs).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from PyQt6.QtCore import QLocale, QObject, QTimer
from PyQt6.QtWidgets import QProgressBar

from app.core.backends.base import ModelInfo
from app.core.conversation.model import Conversation, Message, Role, text_parts
from app.core.text.tokens_estimate import estimate, estimate_total_steps
from app.ui.conversation.prompt import PromptArea
from app.ui.conversation.reply import ReplyStats
from app.ui.services.slicer import TimeSlicer
from app.ui.services.throttle import Throttle

if TYPE_CHECKING:
    from app.ui.conversation.controller import ChatController

#: Tokens a message's framing costs in a chat template (role markers, ends).
FRAME_TOKENS = 4
#: How often the meter follows typing and streaming.
REFRESH_MS = 250
#: The time slice per turn of the event loop in which a shown conversation is priced.
ESTIMATE_SLICE_S = 0.002
#: How far back from a shown conversation's end a reply's stored count is looked for (GUI thread).
COUNT_LOOKBACK = 64


def _last_counted(messages: list[Message]) -> tuple[int, int]:
    """Where the path's last reply with a backend count ends, and that count
    (its prompt as sent + its reply), as its footer showed when it settled:
    (0, 0) when none of the last ``COUNT_LOOKBACK`` messages is one. Only
    the messages after it need an estimate."""
    assistant = Role.ASSISTANT.value
    for i in range(len(messages) - 1, max(-1, len(messages) - 1 - COUNT_LOOKBACK), -1):
        msg = messages[i]
        meta = msg.meta
        if msg.role == assistant and meta.prompt_tokens > 0:
            return i + 1, meta.prompt_tokens + meta.tokens
    return 0, 0


class ContextMeter(QProgressBar):
    """``≈ used / limit`` tokens as a small bar; hidden while the limit is unknown."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("contextMeter")
        self.setTextVisible(True)
        self.setMaximumWidth(220)
        self.setMinimumWidth(150)
        self.setAccessibleName(self.tr("Context used"))
        self.setRange(0, 1)
        self.used = 0
        self.limit = 0
        self.exact = False
        self.hide()

    def set_limit(self, limit: int) -> None:
        self.limit = max(0, int(limit))
        self.setVisible(self.limit > 0)
        self._show()

    def set_used(self, used: int, exact: bool) -> None:
        self.used, self.exact = max(0, int(used)), exact
        self._show()

    def _show(self) -> None:
        if not self.limit:
            return
        loc = QLocale()
        self.setRange(0, self.limit)
        self.setValue(min(self.used, self.limit))
        used, limit = loc.toString(self.used), loc.toString(self.limit)
        if self.exact:
            text = self.tr("Context {used} / {limit}")
        else:
            text = self.tr("Context ≈ {used} / {limit}")
        self.setFormat(text.format(used=used, limit=limit))
        share = self.used / self.limit
        level = "full" if share >= 1.0 else "high" if share >= 0.8 else "ok"
        if self.property("level") != level:
            # A new style sheet rule: re-polish only when the level changes,
            # not on every estimate while a reply streams.
            self.setProperty("level", level)
            style = self.style()
            assert style is not None
            style.unpolish(self)
            style.polish(self)
        if self.exact:
            tip = self.tr(
                "This conversation uses {used} of the model's {limit}-token context "
                "(exact after each reply, estimated while you type and while a reply streams)."
            )
        else:
            tip = self.tr(
                "This conversation uses about {used} of the model's {limit}-token context "
                "(exact after each reply, estimated while you type and while a reply streams)."
            )
        tip = tip.format(used=used, limit=limit)
        if share >= 1.0:
            #: {usage} is the sentence before (how much of the context is used).
            tip = self.tr(
                "{usage} Over the limit, the model no longer sees the earlier messages (Settings chooses which)."
            ).format(usage=tip)
        self.setToolTip(tip)


class ContextTracker(QObject):
    """Feeds a ContextMeter from the chat controller and the prompt area."""

    def __init__(
        self, chat: ChatController, prompt_area: PromptArea, meter: ContextMeter, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._prompt = prompt_area
        self.meter = meter
        #: Per conversation id: (tokens, exact) as of its last reply or estimate.
        self._base: dict[str, tuple[int, bool]] = {}
        #: The streaming reply's starting point: (conversation id, tokens).
        self._streaming_base: tuple[str, int] | None = None
        self._rid = -1
        self._slicer = TimeSlicer(ESTIMATE_SLICE_S, self)
        self._refresh = Throttle(self.refresh, REFRESH_MS, self)
        self._stream_timer = QTimer(self)
        self._stream_timer.setInterval(REFRESH_MS)
        self._connect_signals()

    def _connect_signals(self) -> None:
        self._chat.model_ready.connect(self._on_model_ready)
        self._chat.reply_started.connect(self._on_reply_started)
        self._chat.reply_settled.connect(self._on_reply_settled)
        self._chat.conversation_shown.connect(self._on_conversation_shown)
        self._chat.path_changed.connect(self._on_conversation_shown)  # as a branch change did before
        self._prompt.editor.textChanged.connect(self._refresh)
        self._prompt.attachments_changed.connect(self._refresh)
        self._stream_timer.timeout.connect(self.refresh)

    # -- slots -----------------------------------------------------------------------

    def _on_model_ready(self, info: ModelInfo) -> None:
        self.meter.set_limit(info.n_ctx)
        self._on_conversation_shown(self._chat.conversation)

    def _on_conversation_shown(self, conv: Conversation) -> None:
        if conv.id in self._base:
            self.refresh()
            return
        messages = conv.messages
        counted, known = _last_counted(messages)
        parts = text_parts(messages[counted:])  # at C speed; priced in time slices
        head = [[conv.system_prompt]] if counted == 0 and conv.system_prompt else []
        conv_id = conv.id

        def job() -> Iterator[None]:
            tokens = yield from estimate_total_steps(head + parts, FRAME_TOKENS)
            if conv_id not in self._base:
                self._base[conv_id] = (known + tokens, False)
                self.refresh()

        self._base.pop(conv_id, None)
        self.refresh()
        self._slicer.queue(f"estimate:{conv_id}", job)

    def _on_reply_started(self, rid: int) -> None:
        self._rid = rid
        conv = self._chat.conversation
        base, _ = self._base.get(conv.id, (0, False))
        msgs = conv.messages
        sent = msgs[-2].content if len(msgs) >= 2 and msgs[-2].role == "user" else ""
        self._streaming_base = (conv.id, base + (estimate(sent).tokens + FRAME_TOKENS if sent else 0))
        self._stream_timer.start()
        self.refresh()

    def _on_reply_settled(self, stats: ReplyStats) -> None:
        if stats.request_id != self._rid:
            return  # an earlier (stopped) reply that settled late
        reply_conv = self._streaming_base[0] if self._streaming_base else self._chat.conversation.id
        if stats.prompt_tokens > 0:
            self._base[reply_conv] = (stats.prompt_tokens + stats.tokens_produced, True)
        elif self._streaming_base is not None:
            self._base[reply_conv] = (self._streaming_base[1] + stats.tokens_shown, False)
        self._streaming_base = None
        self._stream_timer.stop()
        self.refresh()

    # -- the number ------------------------------------------------------------------

    def refresh(self) -> None:
        if not self.meter.limit:
            return
        conv = self._chat.conversation
        typed = self._prompt.estimated_tokens()
        stats = self._chat.current_stats
        if self._streaming_base is not None and self._streaming_base[0] == conv.id and stats is not None:
            used, exact = self._streaming_base[1] + stats.tokens_shown, False
        else:
            used, exact = self._base.get(conv.id, (0, False))
        if typed:
            used, exact = used + typed + FRAME_TOKENS, False
        self.meter.set_used(used, exact)
