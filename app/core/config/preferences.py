"""The user's settings for replies and for the local model (Qt-free).

``Preferences`` lives under the ``preferences`` key of the settings file
(``app.core.base.settings``): the sampling of every reply, the default system
prompt, and how the local model is loaded (context length, CPU threads, GPU
layers). ``ConversationSettings`` are one conversation's overrides of some of
them (its own system prompt, any subset of the sampling); ``merge`` puts the
two together into what one reply is sent with (``ReplySettings``).

When each applies:

* sampling and system prompt: from the NEXT request on (a reply already
  streaming keeps what it was sent with: requests are immutable);
* context length, threads, GPU layers: at the next load of a local model
  (``app.core.factory.local_factory`` reads them when the backend is built,
  on the inference thread).

Nothing here raises on a bad settings file: ``load_preferences`` falls back
to the default field by field, with a logged warning naming the field, and
``save_preferences`` writes atomically (``settings.save_settings``), keeping
every other key of the file.

Bounds (``FIELDS`` holds them for the dialogs):

==================  =====================================================
temperature         0 – 2
top_p, min_p        0 – 1
top_k               0 – 1000 (0: off)
repeat_penalty      0.5 – 2
max_tokens          1 – the context length
seed                random (None) or a fixed integer 0 – 2 147 483 647
n_ctx               512 – 131 072, a multiple of 256 (llama.cpp pads the
                    context to 256 while the Python-side arrays keep the
                    requested size: a prompt in the gap would fail)
n_threads           automatic (None) or 1 – os.cpu_count()
n_gpu_layers        -1 (all) – 999; only used when llama.cpp was built with
                    a GPU backend (``gpu_offload_supported``)
system_prompt       at most 8 000 characters (the settings file is capped
                    at 64 KB and also holds the servers)
embedding_model     a GGUF file's path, at most MAX_EMBEDDING_PATH_CHARS
                    characters ("": none, attachments are matched by
                    keywords only); applies at once (the window's
                    attachment service takes a new embedder)
==================  =====================================================
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from app.core.backends.base import SamplingParams
from app.core.backends.prompt_window import OverflowPolicy
from app.core.base import settings
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate
from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, Conversation
from app.core.models.paths import DEFAULT_N_CTX

log = logging.getLogger(__name__)

#: The key of the settings file that holds the preferences.
PREFERENCES_KEY = "preferences"

N_CTX_MIN = 512
N_CTX_MAX = 131072
N_CTX_STEP = 256
SEED_MAX = 2**31 - 1
N_GPU_LAYERS_ALL = -1
N_GPU_LAYERS_MAX = 999
MAX_SYSTEM_PROMPT_CHARS = 8000
MAX_EMBEDDING_PATH_CHARS = 4096

#: A conversation's seed override meaning "a new random seed every reply".
RANDOM_SEED: Final = "random"

_DEFAULT_SAMPLING = SamplingParams()


@dataclass(frozen=True)
class Field:
    """A number setting's bounds and how the dialogs show it. ``label`` and
    ``help`` are English, marked for translation in the context
    ``"Preferences"``: the dialogs show ``translate("Preferences", label)``."""

    name: str
    label: str
    kind: type  # int or float
    low: float
    high: float
    decimals: int = 0
    step: float = 1
    help: str = ""


#: The sampling settings, in the order the dialogs show them (a conversation
#: may override any of these, and the seed).
SAMPLING_FIELDS: tuple[Field, ...] = (
    Field("temperature", QT_TRANSLATE_NOOP("Preferences", "Temperature"), float, 0.0, 2.0, 2, 0.05,
          QT_TRANSLATE_NOOP("Preferences",
                            "Higher is more varied, lower more predictable (0: always the likeliest word).")),
    Field("top_p", QT_TRANSLATE_NOOP("Preferences", "Top P"), float, 0.0, 1.0, 2, 0.05,
          QT_TRANSLATE_NOOP("Preferences",
                            "Sample only from the likeliest words that together make up this probability.")),
    Field("top_k", QT_TRANSLATE_NOOP("Preferences", "Top K"), int, 0, 1000, 0, 1,
          QT_TRANSLATE_NOOP("Preferences", "Sample only from this many likeliest words (0: no limit).")),
    Field("min_p", QT_TRANSLATE_NOOP("Preferences", "Min P"), float, 0.0, 1.0, 2, 0.01,
          QT_TRANSLATE_NOOP("Preferences", "Drop words less likely than this fraction of the likeliest one.")),
    Field("repeat_penalty", QT_TRANSLATE_NOOP("Preferences", "Repeat penalty"), float, 0.5, 2.0, 2, 0.05,
          QT_TRANSLATE_NOOP("Preferences", "Above 1 discourages repeating recent words; 1 is off.")),
    Field("max_tokens", QT_TRANSLATE_NOOP("Preferences", "Max reply tokens"), int, 1, N_CTX_MAX, 0, 64,
          QT_TRANSLATE_NOOP("Preferences", "The longest reply, in tokens (at most the context length).")),
)
SAMPLING_KEYS: tuple[str, ...] = tuple(f.name for f in SAMPLING_FIELDS) + ("seed",)

#: Every number field of ``Preferences`` (n_threads' upper bound is the CPU count).
FIELDS: dict[str, Field] = {f.name: f for f in SAMPLING_FIELDS} | {
    "seed": Field("seed", QT_TRANSLATE_NOOP("Preferences", "Seed"), int, 0, SEED_MAX, 0, 1,
                  QT_TRANSLATE_NOOP("Preferences", "A fixed seed makes the same prompt give the same reply.")),
    "n_ctx": Field("n_ctx", QT_TRANSLATE_NOOP("Preferences", "Context length"), int, N_CTX_MIN, N_CTX_MAX, 0,
                   N_CTX_STEP,
                   QT_TRANSLATE_NOOP("Preferences", "Tokens the model can see at once: the conversation and the reply. "
                                                    "More uses more memory. A multiple of 256.")),
    "n_threads": Field("n_threads", QT_TRANSLATE_NOOP("Preferences", "CPU threads"), int, 1, 1024, 0, 1,
                       QT_TRANSLATE_NOOP("Preferences", "Threads llama.cpp computes with (Automatic: up to half the "
                                                        "CPUs, leaving the rest to the window).")),
    "n_gpu_layers": Field("n_gpu_layers", QT_TRANSLATE_NOOP("Preferences", "GPU layers"), int, N_GPU_LAYERS_ALL,
                          N_GPU_LAYERS_MAX, 0, 1,
                          QT_TRANSLATE_NOOP("Preferences", "Model layers put on the GPU (All: every layer; 0: none).")),
}

_LABELS = {name: f.label for name, f in FIELDS.items()} | {
    "system_prompt": QT_TRANSLATE_NOOP("Preferences", "System prompt"),
    "embedding_model": QT_TRANSLATE_NOOP("Preferences", "Embedding model")}


def cpu_count() -> int:
    """The upper bound of ``n_threads``."""
    return max(1, os.cpu_count() or 1)


def _number_text(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _is_number(value: Any, kind: type) -> bool:
    if isinstance(value, bool):
        return False
    if kind is int:
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, (int, float)) and math.isfinite(value)


def _check_number(name: str, value: Any, high: float | None = None) -> str:
    """'' when ``value`` suits field ``name``, else a plain sentence why not."""
    spec = FIELDS[name]
    top = spec.high if high is None else high
    label = translate("Preferences", spec.label)
    if not _is_number(value, spec.kind):
        if spec.kind is int:
            return translate("Preferences", "{label} must be a whole number.").format(label=label)
        return translate("Preferences", "{label} must be a number.").format(label=label)
    if not spec.low <= value <= top:
        return translate("Preferences", "{label} must be between {low} and {high} (it is {value}).").format(
            label=label, low=_number_text(spec.low), high=_number_text(top), value=_number_text(value))
    return ""


def _check_n_ctx(value: Any) -> str:
    problem = _check_number("n_ctx", value)
    if problem:
        return problem
    if int(value) % N_CTX_STEP:
        lower = max(N_CTX_MIN, int(value) // N_CTX_STEP * N_CTX_STEP)
        return translate("Preferences", "Context length must be a multiple of {step} "
                                        "(for example {lower:,} or {higher:,}).").format(
            step=N_CTX_STEP, lower=lower, higher=lower + N_CTX_STEP)
    return ""


def _check_system_prompt(value: Any) -> str:
    if not isinstance(value, str):
        return translate("Preferences", "The system prompt must be text.")
    if len(value) > MAX_SYSTEM_PROMPT_CHARS:
        return translate("Preferences", "The system prompt is too long: {length:,} characters "
                                        "(at most {limit:,}).").format(length=len(value), limit=MAX_SYSTEM_PROMPT_CHARS)
    if "\x00" in value:
        return translate("Preferences", "The system prompt cannot contain a NUL character.")
    return ""


def _check_embedding_model(value: Any) -> str:
    if not isinstance(value, str):
        return translate("Preferences", "The embedding model must be a file path.")
    if len(value) > MAX_EMBEDDING_PATH_CHARS or "\x00" in value:
        return translate("Preferences", "The embedding model's path is not a usable file path.")
    return ""


def _check_seed(value: Any) -> str:
    return "" if value is None else _check_number("seed", value)


def _check_threads(value: Any) -> str:
    return "" if value is None else _check_number("n_threads", value, cpu_count())


def _add(problems: dict[str, list[str]], name: str, problem: str) -> None:
    if problem:
        problems.setdefault(name, []).append(problem)


@dataclass(frozen=True)
class ReplySettings:
    """What one reply is sent with."""

    params: SamplingParams
    system_prompt: str


@dataclass(frozen=True)
class Preferences:
    """The user's settings (see the module docstring for bounds and when
    each applies). ``Preferences()`` is the defaults ("Reset to Defaults")."""

    temperature: float = _DEFAULT_SAMPLING.temperature
    top_p: float = _DEFAULT_SAMPLING.top_p
    top_k: int = _DEFAULT_SAMPLING.top_k
    min_p: float = _DEFAULT_SAMPLING.min_p
    repeat_penalty: float = _DEFAULT_SAMPLING.repeat_penalty
    max_tokens: int = _DEFAULT_SAMPLING.max_tokens
    #: None: a new random seed for every reply.
    seed: int | None = None
    n_ctx: int = DEFAULT_N_CTX
    #: None: automatic (``app.core.backends.llama.backend.default_thread_counts``).
    n_threads: int | None = None
    #: -1: every layer. Used only by a llama.cpp with a GPU backend.
    n_gpu_layers: int = 0
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    #: When a conversation outgrows the context (app.core.backends.prompt_window).
    overflow: str = OverflowPolicy.ROLLING.value
    #: A GGUF embedding model's path ("": none, attachments are matched by keywords only).
    embedding_model: str = ""

    # -- checking ----------------------------------------------------------------

    def validate(self) -> dict[str, list[str]]:
        """Plain messages for the user, by field name; empty when every value
        may be saved."""
        problems: dict[str, list[str]] = {}
        for spec in SAMPLING_FIELDS:
            if spec.name != "max_tokens":
                _add(problems, spec.name, _check_number(spec.name, getattr(self, spec.name)))
        _add(problems, "seed", _check_seed(self.seed))
        n_ctx_problem = _check_n_ctx(self.n_ctx)
        _add(problems, "n_ctx", n_ctx_problem)
        max_tokens_problem = _check_number("max_tokens", self.max_tokens)
        if not max_tokens_problem and _is_number(self.n_ctx, int) and self.max_tokens > self.n_ctx:
            max_tokens_problem = translate(
                "Preferences", "Max reply tokens must be at most the context length ({n_ctx:,}; it is {value:,})."
            ).format(n_ctx=self.n_ctx, value=self.max_tokens)
        _add(problems, "max_tokens", max_tokens_problem)
        _add(problems, "n_threads", _check_threads(self.n_threads))
        _add(problems, "n_gpu_layers", _check_number("n_gpu_layers", self.n_gpu_layers))
        _add(problems, "system_prompt", _check_system_prompt(self.system_prompt))
        _add(problems, "overflow", _check_overflow(self.overflow))
        _add(problems, "embedding_model", _check_embedding_model(self.embedding_model))
        return problems

    def warnings(self, trained_ctx: int | None = None) -> dict[str, list[str]]:
        """Things worth saying that do not stop saving: a context longer than
        the model was trained for (``trained_ctx``, from the model file)."""
        out: dict[str, list[str]] = {}
        if trained_ctx and isinstance(self.n_ctx, int) and self.n_ctx > trained_ctx > 0:
            out["n_ctx"] = [
                translate("Preferences", "The model was trained with a context of {trained:,} tokens; beyond that "
                                         "its replies may get worse.").format(trained=trained_ctx)
            ]
        return out

    # -- what it gives ------------------------------------------------------------

    def sampling_params(self) -> SamplingParams:
        return SamplingParams(
            temperature=float(self.temperature), top_p=float(self.top_p), top_k=int(self.top_k),
            min_p=float(self.min_p), repeat_penalty=float(self.repeat_penalty),
            max_tokens=int(self.max_tokens), seed=self.seed,
        )

    def reply_settings(self, conversation: ConversationSettings | None = None) -> ReplySettings:
        """The sampling and system prompt of a reply in a conversation with
        these overrides (None: none)."""
        return merge(self.sampling_params(), self.system_prompt, conversation)

    def model_options(self) -> dict[str, int | None]:
        """Keyword arguments for ``LlamaBackend``: n_ctx, n_threads,
        n_threads_batch (None: automatic) and n_gpu_layers."""
        return {"n_ctx": self.n_ctx, "n_threads": self.n_threads, "n_threads_batch": self.n_threads,
                "n_gpu_layers": self.n_gpu_layers}

    # -- the settings file -----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Preferences:
        """Tolerant: a missing field takes its default; a bad one takes its
        default too, with a logged warning naming it."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            log.warning("ignoring the settings key %r: not an object", PREFERENCES_KEY)
            return cls()
        defaults = cls()
        values: dict[str, Any] = {}
        checks: dict[str, Callable[[Any], str]] = {
            spec.name: functools.partial(_check_number, spec.name) for spec in SAMPLING_FIELDS
        }
        checks |= {"seed": _check_seed, "n_ctx": _check_n_ctx, "n_threads": _check_threads,
                   "n_gpu_layers": lambda v: _check_number("n_gpu_layers", v),
                   "system_prompt": _check_system_prompt, "overflow": _check_overflow,
                   "embedding_model": _check_embedding_model}
        for name, check in checks.items():
            if name not in data:
                continue
            value = data[name]
            problem = check(value)
            if problem:
                log.warning("settings: ignoring %s.%s = %s: %s", PREFERENCES_KEY, name, _short(value), problem)
                continue
            spec = FIELDS.get(name)
            if spec is not None and value is not None:
                value = spec.kind(value)
            values[name] = value
        prefs = dataclasses.replace(defaults, **values)
        if prefs.max_tokens > prefs.n_ctx:
            log.warning("settings: %s.max_tokens %d is more than the context length %d: using %d",
                        PREFERENCES_KEY, prefs.max_tokens, prefs.n_ctx, prefs.n_ctx)
            prefs = dataclasses.replace(prefs, max_tokens=prefs.n_ctx)
        return prefs


def _check_overflow(value: Any) -> str:
    if value in {p.value for p in OverflowPolicy}:
        return ""
    return translate("Preferences", "Unknown overflow policy {value}: use one of {policies}.").format(
        value=_short(value), policies=", ".join(p.value for p in OverflowPolicy))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_preferences(path: Path | None = None) -> Preferences:
    """The saved preferences (defaults for anything missing or unusable)."""
    return Preferences.from_dict(settings.load_settings(path).get(PREFERENCES_KEY))


def save_preferences(prefs: Preferences, path: Path | None = None) -> bool:
    """Write ``prefs`` into the settings file atomically, keeping its other
    keys. False (logged) when it cannot be written. ValueError when ``prefs``
    does not validate (the dialog never offers that)."""
    problems = prefs.validate()
    if problems:
        raise ValueError("; ".join(m for ms in problems.values() for m in ms))
    data = settings.load_settings(path)
    data[PREFERENCES_KEY] = prefs.to_dict()
    size = len((json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    if size > settings.MAX_SETTINGS_BYTES:
        # a file this large would be ignored when read back: every setting lost
        log.warning("cannot save the settings: they would take %d bytes (at most %d)",
                    size, settings.MAX_SETTINGS_BYTES)
        return False
    return settings.save_settings(data, path)


# -- one conversation's overrides ---------------------------------------------------------


@dataclass(frozen=True)
class ConversationSettings:
    """One conversation's overrides of the preferences. ``None`` everywhere
    means "as in Settings". ``seed``: None (not overridden), ``RANDOM_SEED``
    or a fixed integer. ``extra`` keeps keys Rill does not use (an import
    from elsewhere) as they were.

    Stored as the conversation's ``system_prompt`` column (NULL: the
    default) and ``params`` JSON (the sampling keys; a random seed is
    ``"seed": null``); carried in exports the same way; in memory as
    ``Conversation.overrides`` (``to_dict``: the flat union of both).
    """

    system_prompt: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repeat_penalty: float | None = None
    max_tokens: int | None = None
    seed: int | str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def overridden(self) -> tuple[str, ...]:
        """The names of the settings this conversation overrides."""
        names = ("system_prompt",) + SAMPLING_KEYS
        return tuple(n for n in names if getattr(self, n) is not None)

    def validate(self) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {}
        if self.system_prompt is not None:
            _add(problems, "system_prompt", _check_system_prompt(self.system_prompt))
        for spec in SAMPLING_FIELDS:
            value = getattr(self, spec.name)
            if value is not None:
                _add(problems, spec.name, _check_number(spec.name, value))
        if self.seed is not None and self.seed != RANDOM_SEED:
            _add(problems, "seed", _check_number("seed", self.seed))
        return problems

    def params(self) -> dict[str, Any]:
        """The sampling overrides as stored (``params``): JSON-ready."""
        out: dict[str, Any] = dict(self.extra)
        for name in SAMPLING_KEYS:
            value = getattr(self, name)
            if value is not None:
                out[name] = None if value == RANDOM_SEED else value
        return out

    def to_dict(self) -> dict[str, Any]:
        """The flat form kept in ``Conversation.overrides``."""
        out = self.params()
        if self.system_prompt is not None:
            out["system_prompt"] = self.system_prompt
        return out

    @classmethod
    def from_store(cls, system_prompt: str | None, params: Mapping[str, Any] | None) -> ConversationSettings:
        data = dict(params or {})
        data.pop("system_prompt", None)
        if system_prompt is not None:
            data["system_prompt"] = system_prompt
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> ConversationSettings:
        """Tolerant: a value Rill cannot use is left out (as if not
        overridden) with a logged warning; unknown keys go to ``extra``."""
        if not isinstance(data, Mapping):
            return cls()
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in data.items():
            if key == "system_prompt":
                problem = _check_system_prompt(value)
            elif key == "seed":
                if value is None or value == RANDOM_SEED:
                    values["seed"] = RANDOM_SEED
                    continue
                problem = _check_number("seed", value)
            elif key in FIELDS and key in SAMPLING_KEYS:
                problem = _check_number(key, value)
            else:
                extra[str(key)] = value
                continue
            if problem:
                log.warning("conversation settings: ignoring %s = %s: %s", key, _short(value), problem)
                continue
            spec = FIELDS.get(key)
            values[key] = spec.kind(value) if spec is not None else value
        return cls(**values, extra=extra)


def conversation_settings(conv: Conversation) -> ConversationSettings:
    """The overrides of ``conv`` (``Conversation.overrides``)."""
    return ConversationSettings.from_dict(getattr(conv, "overrides", None) or {})


def merge(base: SamplingParams, default_system_prompt: str,
          conversation: ConversationSettings | None) -> ReplySettings:
    """``base`` and ``default_system_prompt`` with a conversation's
    overrides on top: what one reply is sent with."""
    if conversation is None:
        return ReplySettings(base, default_system_prompt)
    changes: dict[str, Any] = {}
    for spec in SAMPLING_FIELDS:
        value = getattr(conversation, spec.name)
        if value is not None:
            changes[spec.name] = value
    if conversation.seed is not None:
        changes["seed"] = None if conversation.seed == RANDOM_SEED else int(conversation.seed)
    params = dataclasses.replace(base, **changes) if changes else base
    system_prompt = conversation.system_prompt if conversation.system_prompt is not None else default_system_prompt
    return ReplySettings(params, system_prompt)


def label(name: str) -> str:
    """The name of a setting as the user sees it (in the user's language)."""
    return translate("Preferences", _LABELS.get(name, name))


# -- GPU offload ------------------------------------------------------------------------

_gpu_supported: bool | None = None


def _ask_llama(llama_cpp: Any) -> bool:
    try:
        return bool(llama_cpp.llama_supports_gpu_offload())
    except Exception as exc:  # noqa: BLE001 - an older or odd build: treat as no GPU
        log.debug("llama_supports_gpu_offload() failed: %s", exc)
        return False


def gpu_offload_supported() -> bool | None:
    """Whether llama.cpp can put layers on a GPU, when that costs nothing
    (already known, or llama_cpp already imported: one C call); None when
    finding out would import llama_cpp (``detect_gpu_offload``)."""
    global _gpu_supported
    if _gpu_supported is not None:
        return _gpu_supported
    module = sys.modules.get("llama_cpp")
    if module is not None and hasattr(module, "llama_supports_gpu_offload"):
        _gpu_supported = _ask_llama(module)
        return _gpu_supported
    return None


def detect_gpu_offload() -> bool:
    """Whether llama.cpp can offload to a GPU, importing llama_cpp if needed
    (~0.3 s the first time: never on the GUI thread). False without it."""
    global _gpu_supported
    known = gpu_offload_supported()
    if known is not None:
        return known
    try:
        import llama_cpp
    except Exception as exc:  # noqa: BLE001 - ImportError or a library that fails to load
        log.debug("llama_cpp unavailable: %s", exc)
        _gpu_supported = False
        return False
    _gpu_supported = _ask_llama(llama_cpp)
    return _gpu_supported
