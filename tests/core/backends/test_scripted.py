"""The scripted producer's prompt phase: ``prefill_s`` spent reading the
prompt in batches, each told to ``generate``'s ``progress`` (as llama does),
and cancellable."""

from __future__ import annotations

import threading

from app.core.backends.base import ChatMessage, FinishReason, GenerationRequest, start_generation
from app.core.backends.scripted import ScriptedBackend


def drain(gen) -> tuple[list[str], FinishReason]:
    out: list[str] = []
    while True:
        try:
            out.append(next(gen))
        except StopIteration as stop:
            return out, stop.value


def test_the_prompt_is_read_in_batches_and_each_is_told() -> None:
    backend = ScriptedBackend.from_text("ok", rate=0, prefill_s=0.05, prompt_tokens=1000, prompt_batch=256)
    told: list[tuple[int, int]] = []
    req = GenerationRequest(1, (ChatMessage("user", "hi"),))
    pieces, reason = drain(start_generation(backend, req, threading.Event(), lambda d, t: told.append((d, t))))
    assert "".join(pieces) == "ok" and reason == FinishReason.STOP
    assert told == [(0, 1000), (256, 1000), (512, 1000), (768, 1000), (1000, 1000)]
    assert backend.last_prompt_tokens == 1000


def test_reading_the_prompt_stops_at_once_when_cancelled() -> None:
    backend = ScriptedBackend.from_text("ok", rate=0, prefill_s=30.0, prompt_tokens=1000)
    cancel = threading.Event()
    told: list[int] = []

    def progress(done: int, total: int) -> None:
        told.append(done)
        cancel.set()

    _pieces, reason = drain(start_generation(backend, GenerationRequest(1, ()), cancel, progress))
    assert reason == FinishReason.CANCELLED and told == [0]


def test_a_backend_without_progress_gets_none_and_a_failing_callback_is_contained() -> None:
    class Plain:
        def generate(self, request, cancel):
            yield "x"
            return FinishReason.STOP

    pieces, _ = drain(start_generation(Plain(), GenerationRequest(1, ()), threading.Event(), lambda d, t: None))
    assert pieces == ["x"]

    def boom(done: int, total: int) -> None:
        raise RuntimeError("a bad listener")

    backend = ScriptedBackend.from_text("ok", rate=0, prefill_s=0.01, prompt_tokens=10)
    pieces, reason = drain(start_generation(backend, GenerationRequest(1, ()), threading.Event(), boom))
    assert "".join(pieces) == "ok" and reason == FinishReason.STOP
