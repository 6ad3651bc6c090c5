"""app.core.backends.llama.sandbox: a GGUF chat template rendered exactly as
llama-cpp-python renders it, but bounded in time, size and by a cancel event
(issue #17: a looping template never finished loading; ``'x' * 3000000000``
took 7 GB)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llama_cpp import llama_chat_format

from app.core.backends.llama.sandbox import (
    OUTPUT_BASE_CHARS,
    BoundedTemplate,
    TemplateCancelled,
    TemplateLimitError,
)

# Templates as models ship them: ChatML (SmolLM2, Qwen) with a default system
# prompt, and a Llama-3-style one with loop.first, filters, tojson and
# raise_exception.
CHATML = llama_chat_format.CHATML_CHAT_TEMPLATE
SMOLLM = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
LLAMA3 = (
    "{{ bos_token }}{% set ns = namespace(n=0) %}{% for message in messages %}"
    "{% if message['role'] not in ['system', 'user', 'assistant'] %}{{ raise_exception('bad role') }}{% endif %}"
    "{% set ns.n = ns.n + 1 %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' }}"
    "{{ message['content'] | trim }}{{ '<|eot_id|>' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
    "{{ {'count': ns.n} | tojson }}{% generation %}{% endgeneration %}"
)

messages_strategy = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant"]), "content": st.text(max_size=80)}),
    max_size=6,
)


def upstream(source: str, messages: list[dict[str, Any]], add_generation_prompt: bool = True) -> str:
    formatter = llama_chat_format.Jinja2ChatFormatter(
        template=source, eos_token="</s>", bos_token="<s>", add_generation_prompt=add_generation_prompt)
    prompt: str = formatter(messages=messages).prompt
    return prompt


def bounded(source: str, add_generation_prompt: bool = True) -> BoundedTemplate:
    # A short time limit keeps the hostile cases quick; the default is TIME_LIMIT_S.
    return BoundedTemplate(source, eos_token="</s>", bos_token="<s>", add_generation_prompt=add_generation_prompt,
                           time_limit_s=0.3)


@pytest.mark.parametrize("source", [CHATML, SMOLLM, LLAMA3], ids=["chatml", "smollm2", "llama3"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=messages_strategy, gen=st.booleans())
def test_prompts_are_the_same_as_llama_cpp_pythons(source: str, messages: list[dict[str, Any]], gen: bool) -> None:
    try:
        expected = upstream(source, messages, gen)
    except Exception as exc:  # noqa: BLE001 - the same template error must come from both
        with pytest.raises(type(exc)):
            bounded(source, gen).render(messages)
        return
    assert bounded(source, gen).render(messages) == expected


HOSTILE = {
    "nested ranges": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "nested loops over a string, no hook inside":
        "{% set s = 'ab' * 50000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}",
    "repetition": "{{ 'x' * 3000000000 }}",
    "repetition, reversed": "{{ 3000000000 * 'x' }}",
    "list repetition": "{{ ([1] * 2000000000) | length }}",
    "padding method": "{{ 'x'.ljust(3000000000) }}",
    "doubling by concatenation": "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}"
                                 "{% endfor %}{{ ns.s | length }}",
    "doubling by plus": "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}"
                        "{% endfor %}",
    "doubling by join": "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = [ns.s, ns.s] | join %}"
                        "{% endfor %}",
    "huge power": "{{ 7 ** 100000000 }}",
    "output flood": "{% for i in range(100000) %}{% for j in range(100000) %}{{ 'yyyyyyyyyy' }}{% endfor %}{% endfor %}",
}


@pytest.mark.parametrize("source", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_hostile_template_stops_at_a_limit_with_a_reason(source: str) -> None:
    with pytest.raises(TemplateLimitError) as caught:
        bounded(source).render([{"role": "user", "content": "hi"}])
    assert "longer than" in str(caught.value)


def test_the_size_limit_grows_with_the_input() -> None:
    # A template that repeats a message a few times is fine for a long message.
    twice = "{% for m in messages %}{{ m['content'] }}{{ m['content'] }}{% endfor %}"
    content = "z" * (OUTPUT_BASE_CHARS + 10)
    assert bounded(twice).render([{"role": "user", "content": content}]) == content * 2


def test_a_set_cancel_event_stops_the_render() -> None:
    stop = threading.Event()
    stop.set()
    with pytest.raises(TemplateCancelled):
        bounded(HOSTILE["nested ranges"]).render([{"role": "user", "content": "hi"}], stop)


def test_a_render_from_another_thread_is_bounded_too() -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            bounded(HOSTILE["nested loops over a string, no hook inside"]).render([])
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert len(errors) == 1 and isinstance(errors[0], TemplateLimitError)


def test_the_sandbox_still_blocks_attribute_escapes() -> None:
    with pytest.raises(Exception, match="unsafe|not safely|access"):
        bounded("{{ messages.__class__.__mro__[1].__subclasses__() }}").render([])
