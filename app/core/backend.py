"""The inference backend contract shared by the local model and the scripted producer.

Threading rule: a backend is created, loaded, used and closed on ONE thread, the
inference worker's thread (never the GUI thread). ``generate`` runs there too;
the only thing other threads may touch is the ``cancel`` event they passed in.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Protocol


class FinishReason(str, enum.Enum):
    STOP = "stop"            # end of generation token or a stop string
    LENGTH = "length"        # max_tokens (or the context) ran out
    CANCELLED = "cancelled"  # the user pressed Stop
    ERROR = "error"          # the backend raised


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True)
class SamplingParams:
    """Defaults suit SmolLM2-135M-Instruct: at low temperature with no repeat
    penalty it loops; 0.2-0.7 with repeat_penalty ~1.1 gives usable answers."""

    temperature: float = 0.6
    top_p: float = 0.9
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.1
    max_tokens: int = 1024
    seed: int | None = None
    ignore_eos: bool = False  # benchmarks: generate exactly max_tokens tokens


@dataclass(frozen=True)
class GenerationRequest:
    request_id: int
    messages: tuple[ChatMessage, ...]
    params: SamplingParams = SamplingParams()


@dataclass(frozen=True)
class ModelInfo:
    name: str
    path: str = ""
    n_ctx: int = 0
    n_threads: int = 0
    chat_template: str = ""          # "gguf" or a description of the fallback
    warnings: tuple[str, ...] = field(default_factory=tuple)


class BackendError(Exception):
    """A failure with a message meant for the user (shown on the reply or the
    model banner): missing/corrupt model, context overflow, dead server..."""


class Backend(Protocol):
    """An inference engine. See the module docstring for the threading rule."""

    def load(self) -> ModelInfo:
        """Load the model. Raises BackendError with a user-facing reason."""
        ...

    def generate(
        self, request: GenerationRequest, cancel: threading.Event
    ) -> Generator[str, None, FinishReason]:
        """Yield the reply's text one token at a time ("" while a multi-byte
        character is incomplete is allowed) and return the finish reason.

        Must check ``cancel`` before every token and during prompt evaluation,
        returning FinishReason.CANCELLED promptly once it is set. Raises
        BackendError for user-facing failures (e.g. the prompt cannot fit).
        """
        ...

    def close(self) -> None:
        """Free the model. Called on the worker thread after the last generate."""
        ...
