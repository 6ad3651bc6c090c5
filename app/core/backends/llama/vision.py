"""Images for a local model: its vision projector through libmtmd.

llama-cpp-python 0.3.36 binds llama.cpp's multimodal library (``libmtmd``)
as ``llama_cpp.mtmd_cpp``; its ``MTMDChatHandler`` drives it through
``create_chat_completion``, which Rill does not use (see ``backend``). This
module uses the same calls on Rill's own path:

* :func:`load_projector` opens the projector once per loaded model
  (``mtmd_init_from_file`` with the ``Llama``'s model); :meth:`Projector.close`
  frees it (before the model).
* :meth:`Projector.tokenize` turns prompt text with a media marker where each
  image goes, and the images' bytes (PNG or JPEG: libmtmd decodes them with
  stb_image), into :class:`Chunks`: text tokens and image chunks.
* :meth:`Chunks.evaluate` puts them in the llama context: text through
  ``Llama.eval``, images through ``mtmd_helper_eval_chunk_single`` (the image
  encoder, then a decode of its embeddings), up to the end of the last image;
  the text after it is left to ``Llama.generate``, which then samples as on
  the text path.

Prompt positions of an image hold a *key* in ``Llama.input_ids``: a negative
number made from the image's data (text tokens are never negative). So
``Llama.generate``'s prefix match and the next request's reuse of the KV
cache work across images as they do across text: the same conversation with
the same images re-evaluates only what changed.

Caveat: for M-RoPE models (Qwen2-VL) an image takes fewer positions than KV
cells; ``Chunks.extra_cells`` says how many more, so the context is not
overrun. The image encoder itself cannot be interrupted (only the decodes
around it: llama.cpp's abort callback).

The ctypes bindings are untyped: ``Any`` at the boundary. Nothing here imports Qt.
"""

from __future__ import annotations

import base64
import binascii
import ctypes
import hashlib
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.backends.base import BackendError
from app.core.backends.llama.logs import LOG_ROUTER, install_mtmd_log_router
from app.core.base.i18n import translate

log = logging.getLogger(__name__)

_TEXT_CHUNK = 0  # MTMD_INPUT_CHUNK_TYPE_TEXT


class VisionCancelled(Exception):
    """``Chunks.evaluate`` stopped for ``cancel``; the context is consistent."""


def image_key(data: str) -> int:
    """The key of an image (its base64 data) in ``Llama.input_ids``: a
    negative 32-bit number, the same for the same image."""
    digest = hashlib.blake2b(data.encode("ascii", "replace"), digest_size=4).digest()
    return -1 - (int.from_bytes(digest, "little") & 0x7FFFFFFF)


def decode_image(data: str) -> bytes:
    """An attachment's base64 data as bytes (BackendError when it is not base64)."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BackendError(translate("LlamaBackend", "An attached image is damaged (its data is not base64).")) from exc


def error_reason(lines: Sequence[str]) -> str:
    """libmtmd's error lines in plain words: without function-name parts
    ("clip_init: ", "error: ") and repeats, e.g. "failed to load model
    '/m/mmproj.gguf': failed to seek for tensor mm.2.bias"."""
    reasons: list[str] = []
    for line in lines:
        parts = [p.strip() for p in line.split(": ")]
        text = ": ".join(p for p in parts if p and " " in p)
        if text and text not in reasons:
            reasons.append(text)
    return "; ".join(reasons)


@dataclass
class Chunk:
    """One text run or one image of a tokenized prompt."""

    is_text: bool
    #: The text's tokens (empty for an image).
    tokens: list[int]
    #: Positions it takes in the prompt.
    n_pos: int
    #: KV cells it takes (an image's tokens; the same as n_pos for text).
    n_tokens: int
    key: int = 0
    pointer: Any = None


@dataclass
class Chunks:
    """A tokenized prompt (owns libmtmd's chunk list until ``free``)."""

    mtmd: Any
    pointer: Any
    items: list[Chunk] = field(default_factory=list)

    @property
    def keys(self) -> list[int]:
        """The prompt as ``Llama.input_ids`` holds it: text tokens, and each
        image's key at each of its positions."""
        out: list[int] = []
        for chunk in self.items:
            out.extend(chunk.tokens if chunk.is_text else [chunk.key] * chunk.n_pos)
        return out

    @property
    def image_tokens(self) -> int:
        return sum(c.n_tokens for c in self.items if not c.is_text)

    @property
    def extra_cells(self) -> int:
        """KV cells beyond the positions (M-RoPE images)."""
        return sum(c.n_tokens - c.n_pos for c in self.items if not c.is_text)

    def free(self) -> None:
        pointer, self.pointer = self.pointer, None
        if pointer is not None:
            self.mtmd.mtmd_input_chunks_free(pointer)
        self.items = []

    def evaluate(self, llama_cpp: Any, llm: Any, projector: Projector, cancel: threading.Event) -> None:
        """Evaluate the prompt into ``llm``'s context up to the end of its last
        image, reusing what the context already holds of it (the common
        prefix with ``llm.input_ids``; an image is reused whole or not at
        all). Raises VisionCancelled when ``cancel`` stops it between chunks
        or in an image's decode; a text decode aborted by the backend's abort
        callback raises what ``Llama.eval`` raises."""
        last_image = max((i for i, c in enumerate(self.items) if not c.is_text), default=-1)
        if last_image < 0:
            return
        if last_image == len(self.items) - 1:  # Llama.generate needs text to decode after it
            raise BackendError(translate("LlamaBackend", "The model's chat template puts nothing after the image."))
        keys = self.keys
        cached = llm.input_ids[: llm.n_tokens].tolist()
        reuse = 0
        for a, b in zip(cached, keys, strict=False):
            if a != b:
                break
            reuse += 1
        pos = 0
        for chunk in self.items:  # never start inside an image
            if not chunk.is_text and pos < reuse < pos + chunk.n_pos:
                reuse = pos
                break
            pos += chunk.n_pos
        images_end = sum(c.n_pos for c in self.items[: last_image + 1])
        if reuse >= images_end:
            # All there: Llama.generate matches the rest (it must see the
            # context as it is, to know the logits are not this prompt's).
            return
        memory = llama_cpp.llama_get_memory(llm.ctx)
        llama_cpp.llama_memory_seq_rm(memory, -1, reuse, -1)
        llm.n_tokens = reuse
        pos = 0
        for chunk in self.items[: last_image + 1]:
            end = pos + chunk.n_pos
            if end <= reuse:
                pos = end
                continue
            if cancel.is_set():
                raise VisionCancelled()
            if chunk.is_text:
                llm.eval(chunk.tokens[max(0, reuse - pos):])
            else:
                self._evaluate_image(llama_cpp, llm, projector, chunk, pos, cancel)
            pos = end
            if llm.n_tokens != pos:  # a projector llama.cpp placed otherwise
                raise BackendError(translate("LlamaBackend", "The vision projector put the image at an "
                                             "unexpected place in the prompt."))

    def _evaluate_image(self, llama_cpp: Any, llm: Any, projector: Projector, chunk: Chunk, pos: int,
                        cancel: threading.Event) -> None:
        new_n_past = llama_cpp.llama_pos(0)
        with LOG_ROUTER.capture_errors() as errors:
            result = self.mtmd.mtmd_helper_eval_chunk_single(
                projector.pointer, llm.ctx, chunk.pointer, llama_cpp.llama_pos(pos),
                llama_cpp.llama_seq_id(0), llm.n_batch, False, ctypes.byref(new_n_past))
        if result != 0:
            # Drop what the failed image left in the cache.
            llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(llm.ctx), -1, pos, -1)
            llm.n_tokens = pos
            if cancel.is_set():
                raise VisionCancelled()
            reason = error_reason(errors) or f"error {result}"
            raise BackendError(translate("LlamaBackend", "The model could not read an image: {reason}.").format(
                reason=reason))
        llm.input_ids[pos: pos + chunk.n_pos] = chunk.key
        llm.n_tokens = int(new_n_past.value)


class Projector:
    """A loaded vision projector: libmtmd's context for one ``Llama``. Used
    on the model's thread only (see ``backend``)."""

    def __init__(self, mtmd: Any, pointer: Any, path: Path) -> None:
        self.mtmd = mtmd
        self.pointer = pointer
        self.path = path
        self.marker: str = mtmd.mtmd_default_marker().decode("utf-8")
        #: Image tokens by image key (the window's estimates).
        self._sizes: dict[int, int] = {}

    def close(self) -> None:
        pointer, self.pointer = self.pointer, None
        if pointer is not None:
            self.mtmd.mtmd_free(pointer)

    def tokenize(self, text: str, images: Sequence[str], add_special: bool) -> Chunks:
        """``text`` holds one ``marker`` per image, in order; ``images`` are
        base64 PNG or JPEG data. BackendError for an image libmtmd cannot
        decode, or a marker count that does not match."""
        mtmd = self.mtmd
        bitmaps: list[Any] = []
        try:
            for data in images:
                raw = decode_image(data)
                buffer = (ctypes.c_uint8 * len(raw)).from_buffer(bytearray(raw))
                bitmap = mtmd.mtmd_helper_bitmap_init_from_buf(self.pointer, buffer, len(raw), False)
                if not bitmap:
                    raise BackendError(translate(
                        "LlamaBackend", "The model cannot read an attached image (it reads PNG and JPEG)."))
                bitmaps.append(bitmap)
                mtmd.mtmd_bitmap_set_id(bitmap, str(image_key(data)).encode("ascii"))
            source = mtmd.mtmd_input_text()
            encoded = text.encode("utf-8")
            source.text = encoded
            source.text_len = len(encoded)
            source.add_special = add_special
            source.parse_special = True
            pointer = mtmd.mtmd_input_chunks_init()
            if not pointer:
                raise BackendError(translate("LlamaBackend", "The model could not read the images (out of memory?)."))
            chunks = Chunks(mtmd, pointer)
            array = (mtmd.mtmd_bitmap_p_ctypes * max(1, len(bitmaps)))(*bitmaps)
            with LOG_ROUTER.capture_errors() as errors:
                result = mtmd.mtmd_tokenize(self.pointer, pointer, ctypes.byref(source), array, len(bitmaps))
            if result != 0:
                chunks.free()
                reason = error_reason(errors) or f"error {result}"
                raise BackendError(translate("LlamaBackend", "The model could not read the images: {reason}.").format(
                    reason=reason))
            self._read_chunks(chunks)
            return chunks
        finally:
            for bitmap in bitmaps:
                mtmd.mtmd_bitmap_free(bitmap)

    def _read_chunks(self, chunks: Chunks) -> None:
        mtmd = self.mtmd
        for i in range(int(mtmd.mtmd_input_chunks_size(chunks.pointer))):
            pointer = mtmd.mtmd_input_chunks_get(chunks.pointer, i)
            if not pointer:
                continue
            n_tokens = int(mtmd.mtmd_input_chunk_get_n_tokens(pointer))
            if mtmd.mtmd_input_chunk_get_type(pointer) == _TEXT_CHUNK:
                count = ctypes.c_size_t()
                array = mtmd.mtmd_input_chunk_get_tokens_text(pointer, ctypes.byref(count))
                tokens = [int(array[j]) for j in range(count.value)] if array else []
                chunks.items.append(Chunk(True, tokens, len(tokens), len(tokens)))
            else:
                ident = mtmd.mtmd_input_chunk_get_id(pointer) or b""
                try:
                    key = int(ident)
                except ValueError:
                    key = -1
                n_pos = int(mtmd.mtmd_input_chunk_get_n_pos(pointer))
                chunks.items.append(Chunk(False, [], n_pos, n_tokens, key, pointer))
                self._sizes[key] = self._sizes.get(key, 0) + n_tokens

    def image_tokens(self, data: str) -> int:
        """The tokens an image takes (tokenized once; the window's estimate)."""
        key = image_key(data)
        if key not in self._sizes:
            if len(self._sizes) > 1000:
                self._sizes.clear()
            chunks = self.tokenize(self.marker, [data], add_special=False)
            chunks.free()
        return self._sizes.get(key, 0)


def load_projector(llama_cpp: Any, llm: Any, path: Path, n_threads: int, use_gpu: bool) -> Projector:
    """Open ``path`` for ``llm``'s model. BackendError, in words for the user,
    when libmtmd refuses it (damaged, made for another model, no vision)."""
    try:
        import llama_cpp.mtmd_cpp as mtmd
    except (ImportError, OSError) as exc:
        raise BackendError(translate("LlamaBackend", "this llama-cpp-python has no multimodal library ({error})").format(
            error=exc)) from exc
    install_mtmd_log_router(llama_cpp, mtmd)
    params = mtmd.mtmd_context_params_default()
    params.use_gpu = use_gpu
    params.print_timings = False
    params.n_threads = n_threads
    with LOG_ROUTER.capture_errors() as errors:
        pointer = mtmd.mtmd_init_from_file(str(path).encode("utf-8"), llm.model, params)
    if not pointer:
        reason = error_reason(errors) or translate("LlamaBackend", "libmtmd refused it")
        raise BackendError(reason)
    projector = Projector(mtmd, pointer, path)
    if not mtmd.mtmd_support_vision(pointer):
        projector.close()
        raise BackendError(translate("LlamaBackend", "it has no vision encoder"))
    return projector


def attach_projector(
    llama_cpp: Any, llm: Any, path: Path | None, n_threads: int, use_gpu: bool,
) -> tuple[Projector | None, str]:
    """Load the vision projector ``path`` (None: there is none) for ``llm``:
    (the projector, "") or, when it fails, (None, a warning for the model
    banner); the model then reads text only."""
    if path is None:
        return None, ""
    try:
        projector = load_projector(llama_cpp, llm, path, n_threads, use_gpu)
    except Exception as exc:  # noqa: BLE001 - BackendError, or a binding that failed: the model still loads
        log.warning("vision projector %s not loaded: %s", path, exc)
        return None, translate(
            "LlamaBackend", "The vision projector {name} could not be loaded ({reason}); "
            "this model reads text only.").format(name=path.name, reason=exc)
    log.info("vision projector: %s", path.name)
    return projector, ""
