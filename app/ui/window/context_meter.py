"""How full the model's context is: a status-bar meter and what feeds it.

Threading rule: both classes live on the GUI thread. Nothing here tokenizes:
after each reply the meter takes the backend's exact count (the prompt as
sent + the reply), in between it adds cheap bounded estimates
(app.core.text.tokens_estimate) of what is typed and what is streaming; a
conversation opened from the history is estimated on a background thread.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any

from PyQt6.QtCore import QLocale, QObject, QTimer
from PyQt6.QtWidgets import QProgressBar

from app.core.backends.base import ModelInfo
from app.core.conversation.model import Conversation, text_parts
from app.core.text.tokens_estimate import estimate
from app.ui.conversation.prompt import PromptArea
from app.ui.conversation.reply import ReplyStats
from app.ui.services.background import BackgroundCalls
from app.ui.services.throttle import Throttle

if TYPE_CHECKING:
    from app.ui.conversation.controller import ChatController

#: Tokens a message's framing costs in a chat template (role markers, ends).
FRAME_TOKENS = 4
#: How often the meter follows typing and streaming.
REFRESH_MS = 250


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
        self.setProperty("level", "full" if share >= 1.0 else "high" if share >= 0.8 else "ok")
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
        self._calls = BackgroundCalls(self)
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
        system_prompt = conv.system_prompt
        parts = text_parts(conv.messages)  # O(1) Python: the texts are joined on the helper thread
        conv_id = conv.id

        def work(_cancel: threading.Event) -> int:
            texts = itertools.chain((system_prompt,), map("".join, parts))
            return sum(estimate(text).tokens + FRAME_TOKENS for text in texts if text)

        def done(result: Any, error: BaseException | None) -> None:
            if error is None and conv_id not in self._base:
                self._base[conv_id] = (int(result), False)
                self.refresh()

        self._base.pop(conv_id, None)
        self.refresh()
        self._calls.run(work, done)

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
