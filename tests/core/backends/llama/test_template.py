"""app.core.backends.llama.template: rendering and measuring, with a stand-in tokenizer."""

from __future__ import annotations

import threading

import pytest

from app.core.backends.base import BackendError, ChatMessage
from app.core.backends.llama.sandbox import TemplateCancelled
from app.core.backends.llama.template import PROBE_SYSTEM, ChatTemplate, TemplateRefused

BOS = 1
SIMPLE = "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}{% if add_generation_prompt %}<gen>{% endif %}"


class _Llm:
    """One token per character."""

    def tokenize(self, data: bytes, *, add_bos: bool, special: bool) -> list[int]:
        return [100 + b for b in data]


def template(add_bos: bool = True, source: str = SIMPLE) -> ChatTemplate:
    return ChatTemplate(_Llm(), source, "</s>", "<s>", BOS, add_bos)


def test_render_adds_the_generation_prompt_and_bos_once() -> None:
    tokens = template().render([ChatMessage("user", "hi")])
    assert tokens[0] == BOS and len(tokens) == 1 + len("<user>hi<gen>")
    assert template(add_bos=False).render([ChatMessage("user", "hi")])[0] != BOS


def test_a_message_is_measured_without_the_probe_and_the_overhead_is_the_rest() -> None:
    t = template()
    assert t.measure(ChatMessage("user", "hello")) == len("<user>hello")
    assert t.measure(ChatMessage("system", "sys")) == len("<system>sys")
    assert t.overhead() == len(t.render([PROBE_SYSTEM])) - len("<system>Rill.") == 1 + len("<gen>")


def test_a_template_that_never_ends_is_refused_at_load_with_the_reason() -> None:
    looping = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}" + SIMPLE
    with pytest.raises(TemplateRefused, match="longer than"):
        template(source=looping).check()


def test_a_template_that_blows_up_a_string_is_refused_at_load() -> None:
    with pytest.raises(TemplateRefused, match="longer than .* characters"):
        template(source="{{ 'x' * 3000000000 }}" + SIMPLE).check()


def test_a_template_that_only_raises_is_not_refused_at_load_but_reported_per_request() -> None:
    strict = "{% if messages[0]['role'] == 'system' %}{{ raise_exception('no system role') }}{% endif %}" + SIMPLE
    t = template(source=strict)
    t.check()   # the sample conversation has a system message: not a reason to refuse the model
    with pytest.raises(BackendError, match="no system role"):
        t.render([ChatMessage("system", "s"), ChatMessage("user", "hi")])
    assert t.render([ChatMessage("user", "hi")])[0] == BOS


def test_stop_stops_a_render_and_cancel_at_load_is_a_cancel() -> None:
    looping = "{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}"
    t = template(source=looping)
    stop = threading.Event()
    stop.set()
    t.cancel = stop
    with pytest.raises(TemplateCancelled):
        t.render([ChatMessage("user", "hi")])
    with pytest.raises(TemplateCancelled):
        t.check(stop)
