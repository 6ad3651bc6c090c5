"""app.core.backends.llama.template: rendering and measuring, with a stand-in tokenizer."""

from __future__ import annotations

import types
from typing import Any

from app.core.backends.base import ChatMessage
from app.core.backends.llama.template import PROBE_SYSTEM, ChatTemplate

BOS = 1


class _Formatter:
    def __init__(self, *, template: str, eos_token: str, bos_token: str, add_generation_prompt: bool) -> None:
        self.end = "<gen>" if add_generation_prompt else ""

    def __call__(self, *, messages: list[dict[str, str]]) -> Any:
        text = "".join(f"<{m['role']}>{m['content']}" for m in messages) + self.end
        return types.SimpleNamespace(prompt=text)


class _Llm:
    """One token per character."""

    def tokenize(self, data: bytes, *, add_bos: bool, special: bool) -> list[int]:
        return [100 + b for b in data]


def template(add_bos: bool = True) -> ChatTemplate:
    chat_format = types.SimpleNamespace(Jinja2ChatFormatter=_Formatter)
    return ChatTemplate(chat_format, _Llm(), "{{ x }}", "</s>", "<s>", BOS, add_bos)


def test_render_adds_the_generation_prompt_and_bos_once() -> None:
    tokens = template().render([ChatMessage("user", "hi")])
    assert tokens[0] == BOS and len(tokens) == 1 + len("<user>hi<gen>")
    assert template(add_bos=False).render([ChatMessage("user", "hi")])[0] != BOS


def test_a_message_is_measured_without_the_probe_and_the_overhead_is_the_rest() -> None:
    t = template()
    assert t.measure(ChatMessage("user", "hello")) == len("<user>hello")
    assert t.measure(ChatMessage("system", "sys")) == len("<system>sys")
    assert t.overhead() == len(t.render([PROBE_SYSTEM])) - len("<system>Rill.") == 1 + len("<gen>")
