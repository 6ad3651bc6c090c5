"""The prompt of a request whose messages carry images (local vision models).

Like the text path (``backend``: ``PromptWindow`` over ``ChatTemplate``),
but each image is a media marker in the rendered text (one per image, before
the message's text, as the OpenAI-style servers place image parts first) and
the text is tokenized by libmtmd around the images (``vision.Projector``).
Each image counts what it really takes in the context: its image tokens,
measured once per image. A marker the user typed is removed from the text
(it would stand for an image that is not there).

Its own ``PromptWindow``: the measures and the first message kept are those
of prompts with images; the text path's stay as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from app.core.backends.base import ChatMessage
from app.core.backends.llama.template import ChatTemplate
from app.core.backends.llama.vision import Chunks, Projector
from app.core.backends.prompt_window import PromptWindow, Window

__all__ = ["VisionPrompt", "has_images"]


def has_images(messages: Sequence[ChatMessage]) -> bool:
    return any(m.images for m in messages)


class VisionPrompt:
    """Fits messages with images into ``n_ctx`` and tokenizes the chosen
    window into libmtmd chunks. The model's thread only."""

    def __init__(self, projector: Projector, template: ChatTemplate, n_ctx: int) -> None:
        self._projector = projector
        self._template = template
        self._window = PromptWindow(self._render, self._measure, n_ctx, overhead=template.overhead)
        self._last: Chunks | None = None
        self._last_keys: list[int] = []

    def fit(self, messages: Sequence[ChatMessage], max_tokens: int, overflow: str) -> tuple[Window, Chunks]:
        """The window (its ``tokens`` are the prompt's keys, see
        ``vision.Chunks.keys``) and its chunks, which the caller frees.
        Raises what ``PromptWindow.fit`` raises, and BackendError for an
        image the model cannot read."""
        try:
            window = self._window.fit(messages, max_tokens, overflow)
            chunks = self._take_last()
            # PromptWindow.fit returns the prompt of its last render.
            assert chunks is not None and self._last_keys == window.tokens
            return window, chunks
        finally:
            self.discard()

    def discard(self) -> None:
        """Free a render not handed out."""
        last = self._take_last()
        if last is not None:
            last.free()

    def _take_last(self) -> Chunks | None:
        last, self._last = self._last, None
        return last

    def _marked(self, message: ChatMessage) -> ChatMessage:
        marker = self._projector.marker
        text = message.content.replace(marker, "")
        if message.images:
            text = f"{marker}\n" * len(message.images) + text
        return replace(message, content=text)

    def _render(self, messages: Sequence[ChatMessage]) -> list[int]:
        text, needs_bos = self._template.text([self._marked(m) for m in messages])
        images = [data for m in messages for _mime, data in m.images]
        chunks = self._projector.tokenize(text, images, add_special=needs_bos)
        self.discard()
        self._last = chunks
        self._last_keys = chunks.keys
        return self._last_keys

    def _measure(self, message: ChatMessage) -> int:
        text = self._template.measure(replace(self._marked(message), images=()))
        return text + sum(self._projector.image_tokens(data) for _mime, data in message.images)
