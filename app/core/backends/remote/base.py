"""What the OpenAI-compatible and the Ollama backends share (Qt-free).

Threading rule (the Backend protocol's): one backend is created, loaded, used
and closed on the inference worker's thread. Other threads only set the
``cancel`` event; through ``on_cancel`` that cuts the connection at once
(``AbortableClient.abort``), so Stop never waits for the server's next byte,
also while the server is still reading the prompt and has sent nothing.

A subclass says where to send a request and how to read the reply's stream
into ``Delta``s; this class turns those into the text the pipeline carries:
thinking (``reasoning_content`` / Ollama's ``thinking``) is wrapped in
``<think>…</think>`` before the answer (app.core.text.thinking), and every failure
becomes a BackendError whose message names the server.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from app.core.backends.base import (
    BackendError,
    FinishReason,
    GenerationRequest,
    LoadCancelled,
    LoadProgress,
    ModelInfo,
    on_cancel,
)
from app.core.backends.remote import errors
from app.core.backends.remote.http import AbortableClient
from app.core.backends.remote.servers import ServerConfig, display_url, redact
from app.core.base.i18n import translate
from app.core.text.thinking import CLOSE_TAG, OPEN_TAG

log = logging.getLogger(__name__)

#: At most this much of an error body is read.
MAX_ERROR_BODY = 64 * 1024
#: A complete (non-streamed) JSON reply larger than this is refused.
MAX_JSON_BODY = 8 * 1024 * 1024
#: Seconds allowed for the model list at load / Test.
LIST_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Delta:
    """One event of a reply's stream, whatever the server's format."""

    content: str = ""
    reasoning: str = ""
    finish_reason: str | None = None  # "stop", "length"... when the server says
    done: bool = False                # the stream's explicit end ([DONE], done:true)
    prompt_tokens: int | None = None


class RemoteBackend:
    """Base of the remote backends. ``model`` "" = ask the server at load."""

    kind = ""

    def __init__(self, server: ServerConfig, model: str = "", api_key: str = "") -> None:
        self.server = server.validated()
        self.model = model.strip()
        self._key = api_key or ""
        headers = {"Accept-Encoding": "identity"}  # a stream must not wait for a gzip block
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._http = AbortableClient(self.server.stall_s, headers=headers)
        self.last_prompt_tokens = 0
        self.models: list[str] = []

    # -- what subclasses provide ------------------------------------------------
    def _models_request(self) -> tuple[str, str]:
        raise NotImplementedError

    def _parse_models(self, data: Any) -> list[str]:
        raise NotImplementedError

    def _chat_request(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def _deltas(self, response: httpx.Response) -> Iterator[Delta]:
        raise NotImplementedError

    @staticmethod
    def _wire_messages(request: GenerationRequest) -> list[dict[str, str]]:
        """The request's messages as JSON. A reply to continue goes last as an
        assistant message: llama-server and Ollama continue it (prefill);
        other servers answer it as a new turn."""
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        if request.continue_text:
            messages.append({"role": "assistant", "content": request.continue_text})
        return messages

    # -- Backend protocol -------------------------------------------------------
    def load(self, cancel: threading.Event | None = None, progress: LoadProgress | None = None) -> ModelInfo:
        """Check the server answers and learn its models (nothing is loaded:
        the server owns the model). Picks the first model when none was named."""
        cancel = cancel or threading.Event()
        warnings: list[str] = []
        try:
            self.models = self.list_models(cancel)
        except BackendError as exc:
            if cancel.is_set():
                raise LoadCancelled() from exc
            if not self.model or getattr(exc, "status", None) != 404:
                raise
            # Some OpenAI-compatible servers have no model list: chat anyway.
            warnings.append(translate("RemoteErrors", "{server} does not list its models.").format(
                server=errors.where(self.server)))
        if not self.model:
            if not self.models:
                raise BackendError(translate(
                    "RemoteErrors", "{server} offers no model. Load one in the server, "
                    "or name one in Model › Servers….").format(server=errors.where(self.server)))
            self.model = self.models[0]
        elif self.models and self.model not in self.models:
            warnings.append(translate(
                "RemoteErrors", "{server} does not list the model {model}; it lists: {models}.").format(
                server=errors.where(self.server), model=repr(self.model), models=", ".join(self.models[:5])))
        if progress is not None:
            progress(1.0)
        return ModelInfo(
            # English: it is stored with each reply (the message's model).
            name=f"{self.model} on {self.server.name}",
            path=display_url(self.server.base_url),
            n_ctx=0,
            chat_template=translate("RemoteErrors", "the server's"),
            warnings=tuple(warnings),
        )

    def list_models(self, cancel: threading.Event | None = None) -> list[str]:
        """The server's model ids (blocking: call it off the GUI thread)."""
        method, url = self._models_request()
        client = self._http.client
        remove = on_cancel(cancel, self._http.abort)
        try:
            response = client.request(method, url, timeout=min(LIST_TIMEOUT_S, self.server.stall_s))
            if response.status_code >= 400:
                raise errors.status_error(self.server, response, response.content[:MAX_ERROR_BODY], key=self._key)
            try:
                data = response.json()
            except ValueError:
                raise errors.bad_data(self.server, translate(
                    "RemoteErrors", "the model list is not JSON (is the server kind right?)")) from None
            try:
                return self._parse_models(data)
            except (KeyError, TypeError, AttributeError):
                raise errors.bad_data(self.server, translate(
                    "RemoteErrors", "the model list has an unexpected shape (is the server kind right?)")) from None
        except httpx.HTTPError as exc:
            raise errors.transport_error(self.server, exc) from None
        finally:
            remove()

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        if cancel.is_set():
            return FinishReason.CANCELLED
        self.last_prompt_tokens = 0
        url, payload = self._chat_request(request)
        client = self._http.client
        remove = on_cancel(cancel, self._http.abort)
        thinking = False
        finish: str | None = None
        ended = False
        events = 0
        try:
            with client.stream("POST", url, json=payload) as response:
                if response.status_code >= 400:
                    raise errors.status_error(self.server, response, _read_limited(response, MAX_ERROR_BODY),
                                              model=self.model, key=self._key)
                for delta in self._deltas(response):
                    events += 1
                    if cancel.is_set():
                        return FinishReason.CANCELLED
                    if delta.prompt_tokens is not None:
                        self.last_prompt_tokens = delta.prompt_tokens
                    if delta.reasoning:
                        yield delta.reasoning if thinking else OPEN_TAG + delta.reasoning
                        thinking = True
                    if delta.content:
                        yield (CLOSE_TAG + delta.content) if thinking else delta.content
                        thinking = False
                    if delta.finish_reason:
                        finish = delta.finish_reason
                    if delta.done:
                        ended = True
                        break
        except BackendError:
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise
        except httpx.HTTPError as exc:
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise errors.transport_error(self.server, exc, during_reply=True) from None
        except OSError as exc:  # a socket error httpx did not wrap
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise errors.transport_error(self.server, exc, during_reply=True) from None
        except ValueError as exc:  # e.g. an endless line (iter_lines)
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise errors.bad_data(self.server, str(exc)) from None
        finally:
            remove()
        if thinking:
            yield CLOSE_TAG
        if cancel.is_set():
            return FinishReason.CANCELLED
        if events == 0:
            # llama-cpp-python's server answers a streamed prompt that does
            # not fit its context with exactly this: 200 and an empty stream.
            raise BackendError(translate(
                "RemoteErrors", "{server} ended the reply without sending anything. "
                "The conversation may be longer than the server's context window: "
                "start a new chat or shorten the message.").format(server=errors.where(self.server)))
        if not ended and finish is None:
            raise BackendError(translate(
                "RemoteErrors", "{server} closed the connection before the reply was complete.").format(
                server=errors.where(self.server)))
        return FinishReason.LENGTH if finish == "length" else FinishReason.STOP

    def close(self) -> None:
        self._http.close()

    # -- helpers for subclasses -------------------------------------------------
    def _json(self, text: str, what: str) -> Any:
        """``text`` parsed; ``what`` ("event", "line" or "reply") names it in the error."""
        try:
            return json.loads(text)
        except ValueError:
            if what == "event":
                problem = translate("RemoteErrors", "a malformed JSON event: {text}")
            elif what == "line":
                problem = translate("RemoteErrors", "a malformed JSON line: {text}")
            else:
                problem = translate("RemoteErrors", "a malformed JSON reply: {text}")
            raise errors.bad_data(self.server, problem.format(text=repr(redact(text[:80], self._key)))) from None

    def _complete_body(self, response: httpx.Response) -> Any:
        """A response that is not a stream: its JSON, or a clear error."""
        ctype = response.headers.get("content-type", "").partition(";")[0].strip() or "no content type"
        if "json" not in ctype:
            raise errors.bad_data(self.server, not_a_stream(ctype))
        body = _read_limited(response, MAX_JSON_BODY + 1)
        if len(body) > MAX_JSON_BODY:
            raise errors.bad_data(self.server, translate("RemoteErrors", "a non-streamed reply over 8 MB"))
        return self._json(body.decode("utf-8", errors="replace"), "reply")


def not_a_stream(content_type: str) -> str:
    """What ``bad_data`` says of a reply of ``content_type`` that is not a stream."""
    return translate("RemoteErrors", "the reply is not a stream ({content_type}); "
                     "is the URL that of the API, and the server kind right?").format(content_type=content_type)


def _read_limited(response: httpx.Response, limit: int) -> bytes:
    out = bytearray()
    for part in response.iter_bytes():
        out += part
        if len(out) >= limit:
            break
    return bytes(out[:limit])


def iter_lines(response: httpx.Response, max_line: int = 4 * 1024 * 1024) -> Iterator[str]:
    """NDJSON lines: split on "\\n" only (httpx's ``iter_lines`` also splits on
    U+0085, U+2028... which JSON may carry raw inside strings); "\\r" trimmed.
    Text decoding is httpx's incremental UTF-8 decoder, so a character split
    across reads arrives whole."""
    pending = ""
    for text in response.iter_text():
        if "\n" not in text:
            pending += text
            if len(pending) > max_line:
                raise ValueError(translate("RemoteErrors", "a line longer than 4 MB"))
            continue
        lines = (pending + text).split("\n")
        pending = lines.pop()
        for line in lines:
            yield line.rstrip("\r")
    if pending.strip():
        yield pending.rstrip("\r")
