"""The model's chat template: rendering a conversation to tokens and
measuring what each message costs in a prompt."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from app.core.backends.base import BackendError, ChatMessage
from app.core.backends.llama.sandbox import BoundedTemplate, TemplateCancelled, TemplateLimitError
from app.core.base.i18n import translate

#: Measuring a message's tokens renders it after this (see ``ChatTemplate.measure``).
PROBE_SYSTEM = ChatMessage("system", "Rill.")
#: Rendered once at load (``ChatTemplate.check``): a template that goes past a
#: limit on these is refused before the model is offered.
SAMPLE_CONVERSATION = (
    ChatMessage("system", "You are a helpful assistant."),
    ChatMessage("user", "Hello! What can you do?"),
    ChatMessage("assistant", "I can answer questions and help with text."),
    ChatMessage("user", "Thanks."),
)


class TemplateRefused(BackendError):
    """The chat template went past a limit (time, size); the model is not offered."""


class ChatTemplate:
    """A GGUF (Jinja2) chat template bound to a loaded model's tokenizer,
    rendered in a bounded sandbox (``app.core.backends.llama.sandbox``).
    ``llm`` is the ``Llama``. ``cancel``: the event of the request under way
    (set by the backend), which stops a render within a check."""

    def __init__(self, llm: Any, template: str, eos_text: str, bos_text: str, bos: int, add_bos: bool) -> None:
        self._llm = llm
        self._bos = bos
        self._add_bos = add_bos
        self._bos_text = bos_text
        self._probe_tokens: int | None = None
        self.cancel: threading.Event | None = None
        self._formatter = BoundedTemplate(template, eos_token=eos_text, bos_token=bos_text, add_generation_prompt=True)
        self._segment_formatter = BoundedTemplate(
            template, eos_token=eos_text, bos_token=bos_text, add_generation_prompt=False)

    def check(self, cancel: threading.Event | None = None) -> None:
        """Render ``SAMPLE_CONVERSATION`` once: ``TemplateRefused`` when the
        template goes past a limit (a template that merely raises, e.g. on a
        system message, is not refused: that is reported per request)."""
        try:
            self._formatter.render(_dicts(SAMPLE_CONVERSATION), cancel)
        except (TemplateLimitError, RecursionError) as exc:
            raise TemplateRefused(translate(
                "LlamaBackend", "Rill cannot use this model's chat template: {reason}. "
                "The model file's template is broken or hostile; try another file of the model.").format(
                reason=exc if isinstance(exc, TemplateLimitError) else translate("LlamaBackend", "it never ends"),
            )) from exc
        except TemplateCancelled:
            raise
        except Exception:  # noqa: BLE001 - the template's own errors are reported when a request meets them
            return

    def _prompt(self, formatter: BoundedTemplate, messages: Sequence[ChatMessage]) -> str:
        try:
            return formatter.render(_dicts(messages), self.cancel)
        except TemplateCancelled:
            raise
        except TemplateLimitError as exc:
            raise BackendError(translate("LlamaBackend", "The model's chat template was stopped: {reason}.").format(
                reason=exc)) from exc
        except Exception as exc:
            raise BackendError(translate("LlamaBackend", "The model's chat template failed: {error}").format(
                error=exc)) from exc

    def render(self, messages: Sequence[ChatMessage]) -> list[int]:
        """The prompt's tokens, ending with the generation prompt."""
        prompt = self._prompt(self._formatter, messages)
        tokens: list[int] = self._llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        if self._add_bos and self._bos != -1 and (not tokens or tokens[0] != self._bos):
            tokens.insert(0, self._bos)
        return tokens

    def text(self, messages: Sequence[ChatMessage]) -> tuple[str, bool]:
        """The prompt as text, ending with the generation prompt, and whether
        its tokens need a BOS in front (what ``render`` adds): for libmtmd,
        which tokenizes the text around the images itself."""
        prompt = self._prompt(self._formatter, messages)
        needs_bos = self._add_bos and self._bos != -1 and not (self._bos_text and prompt.startswith(self._bos_text))
        return prompt, needs_bos

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
        except TemplateCancelled:
            raise
        except Exception:  # noqa: BLE001 - a template that refuses this order
            return len(self._llm.tokenize(message.content.encode("utf-8"), add_bos=False, special=False)) + 4

    def segment_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """The tokens of ``messages`` rendered without the generation prompt (and BOS)."""
        text = self._prompt(self._segment_formatter, messages)
        tokens: list[int] = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return len(tokens) - (1 if tokens and tokens[0] == self._bos else 0)

    def overhead(self) -> int:
        """What a prompt costs beyond its messages (the generation prompt, BOS)."""
        return len(self.render([PROBE_SYSTEM])) - self.segment_tokens([PROBE_SYSTEM])


def _dicts(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]
