"""What a GGUF model file is, read from its header without loading it (Qt-free).

:func:`read_gguf_info` returns a :class:`GGUFInfo`: architecture, name,
parameter count, quantization, trained context, chat template, license, the
shapes that size the KV cache, and an estimate of the memory loading it takes.
It never raises for a bad file: a missing, unreadable, empty, non-GGUF,
truncated or damaged file gives a GGUFInfo whose ``error`` says why, in words
for the user.

The header is walked by ``app.core.models.gguf_header`` (why not
``gguf.GGUFReader``, and what is read: the first ``FIRST_READ_BYTES``, more
only if the metadata is larger, never the tensor data); the file names of
split models are ``app.core.models.gguf_splits``'.

``gguf`` (and numpy with it, ~0.1 s) is imported on first use, not with this
module: Rill's start-up does not pay for it.

Memory estimate
---------------
:meth:`GGUFInfo.memory_estimate` = the file size (llama.cpp maps the weights;
they all end up resident) + the KV cache at ``n_ctx`` tokens + the largest
part of the compute buffer. The KV cache is f16 (llama.cpp's default cache
type, 2 bytes per value)::

    kv_bytes = 2 * n_ctx * sum over layers of (n_embd_k_gqa + n_embd_v_gqa)
    n_embd_k_gqa = key_length   * head_count_kv   (per layer)
    n_embd_v_gqa = value_length * head_count_kv
    key_length = value_length = embedding_length / head_count  (when not given)

i.e. ``2 bytes x layers x n_ctx x (n_embd_k_gqa + n_embd_v_gqa)`` for a model
whose layers are alike: the K and the V halves are the two terms of the sum,
there is no further factor 2. For SmolLM2-135M at n_ctx 4096 that is
90.00 MiB, exactly what llama.cpp reports ("llama_kv_cache: size = 90.00 MiB,
K (f16): 45.00 MiB, V (f16): 45.00 MiB").

The compute buffer is dominated, on the CPU, by one batch's logits:
``n_ubatch (512) x vocab_size x 4 bytes`` (96 MiB for SmolLM2, whose measured
CPU compute buffer is 99.4 MiB; ~250 MiB for a 128k vocabulary). Smaller
scratch tensors are not counted: the estimate is a slight lower bound.
Architectures without an attention KV cache (recurrent ones) get no KV term.
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.core.base.i18n import translate
from app.core.models.gguf_header import DamagedHeader, GGUFHeader, PastEndOfFile, header_version, read_header
from app.core.models.gguf_splits import split_parts
from app.core.models.paths import DEFAULT_N_CTX
from app.core.models.sizes import format_bytes, format_count

#: What the local backend uses when a model has no chat template
#: (app.core.backends.llama.backend.FALLBACK_TEMPLATE_DESCRIPTION; a test keeps them in step).
FALLBACK_TEMPLATE = "ChatML"

#: llama.cpp's micro-batch (llama-cpp-python's default n_batch = n_ubatch = 512).
N_UBATCH = 512

#: The first read of a file; more is read only if its metadata is larger
#: (``app.core.models.gguf_header``).
FIRST_READ_BYTES = 2 * 1024 * 1024

#: Chat template families, recognised by a marker their templates write.
#: First match wins: order matters (Llama 2 uses [INST] as Mistral does).
TEMPLATE_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ChatML", ("<|im_start|>",)),
    ("Llama 3", ("<|start_header_id|>",)),
    ("Llama 4", ("<|header_start|>",)),
    ("Gemma", ("<start_of_turn>",)),
    ("Llama 2", ("[INST]", "<<SYS>>")),
    ("Mistral", ("[INST]",)),
    ("Phi 3", ("<|assistant|>", "<|end|>")),
    ("Zephyr", ("<|assistant|>",)),
    ("DeepSeek", ("<｜Assistant｜>",)),
    ("Command R", ("<|START_OF_TURN_TOKEN|>",)),
    ("Granite", ("<|start_of_role|>",)),
    ("Harmony (gpt-oss)", ("<|start|>", "<|message|>")),
    ("GLM", ("[gMASK]",)),
)


def template_kind(template: str) -> str:
    """The family of a Jinja chat template ("ChatML", "Llama 3"...), else "custom"."""
    for kind, markers in TEMPLATE_MARKERS:
        if all(m in template for m in markers):
            return kind
    return "custom"


def _gguf() -> Any:
    """``gguf.constants``, imported on first use (it brings numpy: ~0.1 s)."""
    from gguf import constants

    return constants


#: Encoder architectures: only ever embedding models (their files may not say a pooling type).
EMBEDDING_ARCHITECTURES: frozenset[str] = frozenset({"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2",
                                                     "jina-bert-v3", "modern-bert", "neo-bert", "t5encoder"})


@dataclass(frozen=True)
class GGUFInfo:
    """What :func:`read_gguf_info` learnt about one file. With ``error`` set
    the file cannot be used and the other fields hold what was read before
    the problem (possibly nothing)."""

    path: str
    file_size: int = 0
    #: Why the file cannot be loaded (plain words), or "".
    error: str = ""
    #: Loadable, but worth knowing (no chat template, an unknown tensor type...).
    warnings: tuple[str, ...] = ()
    version: int = 0
    architecture: str = ""
    #: ``general.name``: often a training-run label; Rill names models by file (display_name).
    name: str = ""
    size_label: str = ""
    #: Counted from the tensor shapes (exact); None if not read.
    parameters: int | None = None
    file_type: int | None = None
    #: "Q4_1", "Q4_K_M", "F16"... (from general.file_type, else the most common tensor type).
    quantization: str = ""
    #: ``{arch}.context_length``: the context the model was trained for.
    context_length: int | None = None
    embedding_length: int | None = None
    block_count: int | None = None
    head_count: int | None = None
    #: Per layer when the file gives one value per layer, else one value.
    head_count_kv: tuple[int, ...] = ()
    key_length: int | None = None
    value_length: int | None = None
    has_chat_template: bool = False
    #: The template's family (TEMPLATE_MARKERS), "custom", or "" without one.
    chat_template_kind: str = ""
    license: str = ""
    vocab_size: int | None = None
    tensor_count: int = 0
    #: A model split in several files: how many (1 otherwise).
    split_count: int = 1
    #: The size of every part of a split model (the file size otherwise).
    total_size: int = 0
    #: Bytes from the start of the file to the end of the last tensor's data.
    data_end: int = 0
    #: Every scalar and short string of the metadata, and short numeric arrays (lists).
    metadata: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # -- derived ------------------------------------------------------------------

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def is_embedding_model(self) -> bool:
        """An embedding model (BGE, E5, nomic-embed, all-MiniLM...): its
        header names a pooling type, or its architecture is an encoder's."""
        arch = self.architecture
        return bool(arch) and (arch in EMBEDDING_ARCHITECTURES or f"{arch}.pooling_type" in self.metadata)

    @property
    def problems(self) -> tuple[str, ...]:
        """The error (if any) then the warnings."""
        return ((self.error,) if self.error else ()) + self.warnings

    @property
    def display_name(self) -> str:
        """The file's name without ``.gguf`` (as the chat window names a model)."""
        return Path(self.path).stem if self.path else self.name

    @property
    def parameters_label(self) -> str:
        """"135M", "7.2B"... from the tensors (else ``general.size_label``)."""
        if self.parameters:
            return format_count(self.parameters)
        return self.size_label

    @property
    def template_label(self) -> str:
        """What the Template column says: the family, or the fallback used."""
        if self.error:
            return ""
        if not self.has_chat_template:
            return translate("GGUFInfo", "none (uses {template})").format(template=FALLBACK_TEMPLATE)
        if self.chat_template_kind == "custom":
            return translate("GGUFInfo", "custom")
        return self.chat_template_kind

    def kv_cache_bytes(self, n_ctx: int = DEFAULT_N_CTX) -> int | None:
        """The f16 KV cache for ``n_ctx`` tokens (module docstring); None when
        the file does not give the shapes it needs."""
        layers = self.block_count
        if not layers or not self.head_count or not self.embedding_length or n_ctx <= 0:
            return None
        kv_heads = list(self.head_count_kv) or [self.head_count]
        if len(kv_heads) == 1:
            kv_heads = kv_heads * layers
        k_len = self.key_length or self.embedding_length // self.head_count
        v_len = self.value_length or self.embedding_length // self.head_count
        per_token = sum((k_len + v_len) * heads for heads in kv_heads[:layers])
        return 2 * n_ctx * per_token

    def compute_buffer_bytes(self) -> int:
        """The largest part of llama.cpp's compute buffer: one micro-batch's
        logits (module docstring); 0 when the vocabulary size is unknown."""
        return N_UBATCH * (self.vocab_size or 0) * 4

    def memory_estimate(self, n_ctx: int = DEFAULT_N_CTX) -> int | None:
        """Bytes of memory loading this model takes at ``n_ctx``: file + KV
        cache + compute buffer (module docstring); None for a file that
        cannot be loaded."""
        if self.error:
            return None
        weights = max(self.total_size, self.file_size)
        return weights + (self.kv_cache_bytes(n_ctx) or 0) + self.compute_buffer_bytes()

    def to_dict(self, n_ctx: int = DEFAULT_N_CTX) -> dict[str, Any]:
        """JSON-ready fields (no metadata dict), with the derived values."""
        data = asdict(self)
        data.pop("metadata")
        data["warnings"] = list(self.warnings)
        data["head_count_kv"] = list(self.head_count_kv)
        data["display_name"] = self.display_name
        data["parameters_label"] = self.parameters_label
        data["template"] = self.template_label
        data["n_ctx"] = n_ctx
        data["kv_cache_bytes"] = self.kv_cache_bytes(n_ctx)
        data["compute_buffer_bytes"] = self.compute_buffer_bytes()
        data["memory_estimate"] = self.memory_estimate(n_ctx)
        return data


def read_gguf_info(path: str | os.PathLike[str], n_ctx: int = DEFAULT_N_CTX) -> GGUFInfo:
    """Read ``path``'s GGUF header (see the module docstring). Never raises
    for a bad file: ``error`` says what is wrong. Blocks on file I/O (a few
    MB at most): call it off the GUI thread. ``n_ctx`` is only used to word
    warnings; the estimate is ``GGUFInfo.memory_estimate(n_ctx)``."""
    text = os.fspath(path)
    try:
        st = os.stat(text)
    except FileNotFoundError:
        return GGUFInfo(text, error=translate("GGUFInfo", "File not found."))
    except OSError as exc:
        return GGUFInfo(text, error=translate("GGUFInfo", "Cannot read the file: {error}.").format(
            error=exc.strerror or exc))
    except ValueError as exc:  # an embedded NUL...
        return GGUFInfo(text, error=translate("GGUFInfo", "Not a usable file name ({error}).").format(error=exc))
    if stat.S_ISDIR(st.st_mode):
        return GGUFInfo(text, error=translate("GGUFInfo", "This is a folder, not a model file."))
    if not stat.S_ISREG(st.st_mode):
        return GGUFInfo(text, error=translate("GGUFInfo", "This is not a regular file."))
    size = st.st_size
    if size == 0:
        return GGUFInfo(text, error=translate("GGUFInfo", "The file is empty."))
    try:
        with open(text, "rb") as f:
            return _read_open_file(text, f, size, n_ctx)
    except OSError as exc:
        return GGUFInfo(text, size, error=translate("GGUFInfo", "Cannot read the file: {error}.").format(
            error=exc.strerror or exc))
    except MemoryError:
        return GGUFInfo(text, size, error=translate("GGUFInfo", "The file's metadata is too large to read."))


def read_gguf_stream(label: str, f: Any, size: int, n_ctx: int = DEFAULT_N_CTX,
                     parts_total: int | None = None) -> GGUFInfo:
    """``read_gguf_info`` over any object with ``read(n)`` positioned at the
    start of a ``size``-byte file (a remote file read by HTTP ranges:
    app.core.hub.remote_gguf); ``parts_total``: a split model's total size,
    known without looking for its other parts on disk. ``f.read`` may raise
    OSError: the GGUFInfo's error then says why."""
    try:
        return _read_open_file(label, f, size, n_ctx, parts_total)
    except OSError as exc:
        return GGUFInfo(label, size, error=translate("GGUFInfo", "Cannot read the file: {error}.").format(
            error=exc.strerror or exc))


def _read_open_file(path: str, f: Any, size: int, n_ctx: int, parts_total: int | None = None) -> GGUFInfo:
    buf = bytearray(f.read(min(size, FIRST_READ_BYTES)))
    # gguf.GGUF_MAGIC (0x46554747), always little-endian: "GGUF" in every file.
    if len(buf) < 4 or buf[:4] != b"GGUF":
        return GGUFInfo(path, size, error=translate("GGUFInfo", "Not a GGUF model file (it does not start with “GGUF”)."))
    try:
        constants = _gguf()
    except ImportError as exc:  # a broken install or bundle: say so, do not raise
        return GGUFInfo(path, size, error=translate(
            "GGUFInfo", "Cannot read model details: the gguf package is missing ({error}).").format(error=exc))
    try:
        return _parse(path, f, buf, size, constants, parts_total)
    except PastEndOfFile:
        return GGUFInfo(path, size, error=translate(
            "GGUFInfo", "The file is truncated or damaged: its metadata goes past the end of the file "
            "({size}). It may be an incomplete download."
        ).format(size=format_bytes(size)))
    except DamagedHeader as exc:
        return GGUFInfo(path, size, error=translate("GGUFInfo", "The file is damaged: its metadata holds {what}.").format(
            what=exc))


def _parse(path: str, f: Any, buf: bytearray, size: int, constants: Any, parts_total: int | None = None) -> GGUFInfo:
    version, little = header_version(buf)
    if version == 1:
        return GGUFInfo(path, size, version=version, error=translate(
            "GGUFInfo", "This is a GGUF version 1 file, from 2023: too old for llama.cpp. Convert it again."
        ))
    if version not in (2, 3):
        return GGUFInfo(path, size, version=version, error=translate(
            "GGUFInfo", "Unknown GGUF version {version} (Rill reads versions 2 and 3): the file is damaged "
            "or needs a newer Rill."
        ).format(version=version))
    header = read_header(f, buf, size, little, constants)
    return _info_from_header(path, size, version, header, constants, parts_total)


def _info_from_header(path: str, size: int, version: int, header: GGUFHeader, constants: Any,
                      parts_total: int | None = None) -> GGUFInfo:
    """What the header says about the model, its problems first."""
    meta, array_lengths, tensor_count = header.metadata, header.array_lengths, header.tensor_count
    total_end, by_type, unknown_types = header.data_end, header.bytes_by_type, header.unknown_types
    qtypes = constants.GGMLQuantizationType
    keys = constants.Keys
    arch = _text(meta.get(keys.General.ARCHITECTURE))
    warnings: list[str] = []
    error = ""
    if total_end > size:
        error = translate(
            "GGUFInfo", "The file is truncated: the model's weights need {needed} but the file has "
            "{size}. It may be an incomplete download."
        ).format(needed=format_bytes(total_end), size=format_bytes(size))
    elif tensor_count == 0:
        error = translate("GGUFInfo", "The file holds no weights (no tensors): it is not a model llama.cpp can load.")
    if not arch:
        if not error:
            error = translate("GGUFInfo", "The file does not say which architecture it is (general.architecture): "
                                          "llama.cpp cannot load it.")
    elif arch == "clip" and not error:
        error = translate("GGUFInfo", "This is a vision projector (mmproj) file: it goes with a model, "
                                      "it is not a chat model itself.")
    split_count, total_size = 1, size
    splits = meta.get(keys.Split.LLM_KV_SPLIT_COUNT)
    if isinstance(splits, int) and not isinstance(splits, bool) and splits > 1:
        split_count = splits
        if parts_total is not None:
            total_size = parts_total
        else:
            split_error, total_size = split_parts(path, meta.get(keys.Split.LLM_KV_SPLIT_NO), splits, size)
            error = error or split_error
    if unknown_types:
        warnings.append(translate(
            "GGUFInfo", "Some weights use a tensor type this Rill does not know "
            "({types}): it may need a newer llama.cpp."
        ).format(types=", ".join(str(t) for t in sorted(unknown_types))))

    def arch_int(key: str) -> int | None:
        value = meta.get(key.format(arch=arch))
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None

    kv = meta.get(keys.Attention.HEAD_COUNT_KV.format(arch=arch))
    if isinstance(kv, list):
        head_count_kv = tuple(int(v) for v in kv if isinstance(v, (int, float)))
    elif isinstance(kv, (int, float)) and not isinstance(kv, bool):
        head_count_kv = (int(kv),)
    else:
        head_count_kv = ()
    head = meta.get(keys.Attention.HEAD_COUNT.format(arch=arch))
    head_count = int(max(head)) if isinstance(head, list) and head else (int(head) if isinstance(head, (int, float)) else None)

    file_type = meta.get(keys.General.FILE_TYPE)
    file_type = int(file_type) if isinstance(file_type, int) and not isinstance(file_type, bool) else None
    quantization = ""
    if file_type is not None:
        try:
            name = constants.LlamaFileType(file_type).name
            quantization = "F32" if name == "ALL_F32" else name.removeprefix("MOSTLY_")
        except ValueError:
            quantization = ""
    if not quantization and by_type:
        quantization = qtypes(max(by_type, key=by_type.__getitem__)).name

    template = meta.get(keys.Tokenizer.CHAT_TEMPLATE)
    has_template = isinstance(template, str) and bool(template.strip())
    vocab = array_lengths.get(keys.Tokenizer.LIST) or arch_int(keys.LLM.VOCAB_SIZE)
    if not error and not has_template:
        warnings.append(translate(
            "GGUFInfo", "The file has no chat template: Rill formats the conversation as {template}, "
            "which may not be what the model was trained on."
        ).format(template=FALLBACK_TEMPLATE))

    return GGUFInfo(
        path=path,
        file_size=size,
        error=error,
        warnings=tuple(warnings),
        version=version,
        architecture=arch,
        name=_text(meta.get(keys.General.NAME)),
        size_label=_text(meta.get(keys.General.SIZE_LABEL)),
        # A split model's other parts hold more tensors: its size label says more.
        parameters=header.parameters if tensor_count and split_count == 1 else None,
        file_type=file_type,
        quantization=quantization,
        context_length=arch_int(keys.LLM.CONTEXT_LENGTH),
        embedding_length=arch_int(keys.LLM.EMBEDDING_LENGTH),
        block_count=arch_int(keys.LLM.BLOCK_COUNT),
        head_count=head_count if head_count and head_count > 0 else None,
        head_count_kv=tuple(h for h in head_count_kv if h >= 0),
        key_length=arch_int(keys.Attention.KEY_LENGTH),
        value_length=arch_int(keys.Attention.VALUE_LENGTH),
        has_chat_template=has_template,
        chat_template_kind=template_kind(template) if isinstance(template, str) and has_template else "",
        license=_text(meta.get(keys.General.LICENSE)),
        vocab_size=vocab,
        tensor_count=tensor_count,
        split_count=split_count,
        total_size=total_size,
        data_end=total_end,
        metadata={k: v for k, v in meta.items() if k != keys.Tokenizer.CHAT_TEMPLATE},
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
