"""The model's chat template: rendering a conversation to tokens and
measuring what each message costs in a prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.backends.base import BackendError, ChatMessage
from app.core.base.i18n import translate

#: Measuring a message's tokens renders it after this (see ``ChatTemplate.measure``).
PROBE_SYSTEM = ChatMessage("system", "Rill.")


class ChatTemplate:
    """A GGUF (Jinja2) chat template bound to a loaded model's tokenizer.
    ``chat_format`` is ``llama_cpp.llama_chat_format``; ``llm`` the ``Llama``."""

    def __init__(self, chat_format: Any, llm: Any, template: str, eos_text: str, bos_text: str,
                 bos: int, add_bos: bool) -> None:
        self._llm = llm
        self._bos = bos
        self._add_bos = add_bos
        self._probe_tokens: int | None = None
        self._formatter = chat_format.Jinja2ChatFormatter(
            template=template, eos_token=eos_text, bos_token=bos_text, add_generation_prompt=True,
        )
        self._segment_formatter = chat_format.Jinja2ChatFormatter(
            template=template, eos_token=eos_text, bos_token=bos_text, add_generation_prompt=False,
        )

    def render(self, messages: Sequence[ChatMessage]) -> list[int]:
        """The prompt's tokens, ending with the generation prompt."""
        try:
            result = self._formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        except Exception as exc:
            raise BackendError(translate("LlamaBackend", "The model's chat template failed: {error}").format(
                error=exc)) from exc
        tokens: list[int] = self._llm.tokenize(result.prompt.encode("utf-8"), add_bos=False, special=True)
        if self._add_bos and self._bos != -1 and (not tokens or tokens[0] != self._bos):
            tokens.insert(0, self._bos)
        return tokens

    def measure(self, message: ChatMessage) -> int:
        """The tokens ``message`` takes inside a prompt: an estimate for
        choosing the window (the chosen window is then tokenized exactly).

        Rendered after a fixed system message and minus that message's own
        tokens: templates add a default system prompt to a conversation that
        has none (SmolLM2's does), which must not be counted per message."""
        if message.role == "system":
            return self.segment_tokens([message])
        if self._probe_tokens is None:
            self._probe_tokens = self.segment_tokens([PROBE_SYSTEM])
        try:
            return self.segment_tokens([PROBE_SYSTEM, message]) - self._probe_tokens
        except Exception:  # noqa: BLE001 - a template that refuses this order
            return len(self._llm.tokenize(message.content.encode("utf-8"), add_bos=False, special=False)) + 4

    def segment_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """The tokens of ``messages`` rendered without the generation prompt (and BOS)."""
        text = self._segment_formatter(messages=[{"role": m.role, "content": m.content} for m in messages]).prompt
        tokens: list[int] = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return len(tokens) - (1 if tokens and tokens[0] == self._bos else 0)

    def overhead(self) -> int:
        """What a prompt costs beyond its messages (the generation prompt, BOS)."""
        return len(self.render([PROBE_SYSTEM])) - self.segment_tokens([PROBE_SYSTEM])
