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

Bounds (numbers in app.core.base.limits, readers in ``reading``): a model list
is read up to its byte limit (gzip/deflate unpacked with the same cap), within
one time limit for the whole list, and at most ``MAX_MODELS`` are kept (the
rest counted: ``ModelNames.dropped``); a stream's lines and events are capped,
a compressed stream is refused (Rill asks for identity), Stop is looked at
after every socket read, and only real data (not keep-alive comments nor
blank lines) moves the stall deadline on. A reply is cut at
the inference worker's ``MAX_REPLY_CHARS`` with a notice, and handed on in
pieces of at most ``MAX_DELTA_CHARS``.

Batches (issue #18): a subclass reads the stream a socket read at a time
(``batching``) and gives the deltas of each read as one list; the stall
deadline and ``cancel`` are looked at once per read, and the deltas become
pieces in ``pieces`` (consecutive small ones joined into one ``TokenRun``),
so a server sending 50,000 tiny deltas a second costs the worker a few
hundred hand-overs, not 50,000.

Redirects: a model list (GET) follows up to ``MAX_REDIRECTS`` redirects to
the same scheme, host and port; a redirect elsewhere, or of a chat request
(POST: it carries the conversation), is never followed and the message says
where the server pointed.

Secrets: the API key is checked before use (``validate_api_key``); a login in
the base URL is sent as HTTP Basic auth and kept out of every URL httpx sees;
both are redacted from every message (``errors``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import replace
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote

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
from app.core.backends.remote.pieces import Delta as Delta  # re-exported: a subclass makes Deltas
from app.core.backends.remote.pieces import ReplyState, reply_pieces
from app.core.backends.remote.reading import (
    EncodingRefused,
    ReadLimitError,
    content_encoding,
    loads_gently,
    raw_chunks,
    read_body,
)
from app.core.backends.remote.servers import (
    ServerConfig,
    ServerConfigError,
    display_url,
    split_login,
    validate_api_key,
)
from app.core.base.i18n import translate
from app.core.base.limits import (
    MAX_ERROR_BODY_BYTES,
    MAX_JSON_BODY_BYTES,
    MAX_MODEL_LIST_BYTES,
    MAX_MODEL_NAME_CHARS,
    MAX_MODELS,
    MODEL_LIST_TIMEOUT_S,
)
from app.core.text.thinking import CLOSE_TAG

log = logging.getLogger(__name__)

_Item = TypeVar("_Item")


class StreamReader(Protocol[_Item]):
    """A stream's reader fed one raw read at a time (``batching``)."""

    def feed(self, chunk: bytes) -> list[_Item]: ...

    def close(self) -> list[_Item]: ...

#: At most this much of an error body is read.
MAX_ERROR_BODY = MAX_ERROR_BODY_BYTES
#: A complete (non-streamed) JSON reply larger than this is refused.
MAX_JSON_BODY = MAX_JSON_BODY_BYTES
#: Seconds allowed for the whole model list at load / Test.
LIST_TIMEOUT_S = MODEL_LIST_TIMEOUT_S
#: Same-origin redirects a model list follows.
MAX_REDIRECTS = 3


class ModelNames(list[str]):
    """A server's model ids as kept; ``dropped``: how many more it listed
    (past ``MAX_MODELS``, or names too long to be one)."""

    def __init__(self, names: Iterable[str] = (), dropped: int = 0) -> None:
        super().__init__(names)
        self.dropped = dropped


def cap_models(names: Iterable[Any]) -> ModelNames:
    """The first ``MAX_MODELS`` usable ids of ``names`` (strings, stripped,
    not empty, at most ``MAX_MODEL_NAME_CHARS``), each once; the rest counted."""
    kept: dict[str, None] = {}
    dropped = 0
    for name in names:
        text = name.strip() if isinstance(name, str) else ""
        if not text or text in kept:
            continue
        if len(text) > MAX_MODEL_NAME_CHARS or len(kept) >= MAX_MODELS:
            dropped += 1
            continue
        kept[text] = None
    return ModelNames(kept, dropped)


class RemoteBackend:
    """Base of the remote backends. ``model`` "" = ask the server at load."""

    kind = ""

    def __init__(self, server: ServerConfig, model: str = "", api_key: str = "") -> None:
        server = server.validated()
        url, login = split_login(server.base_url)
        self.server = replace(server, base_url=url)
        self.model = model.strip()
        self._redactor = errors.redactor_for(server, api_key or "")  # the raw key too, whatever is wrong with it
        try:
            self._key = validate_api_key(api_key or "")
        except ServerConfigError as exc:
            raise BackendError(translate("RemoteErrors", "{server}: {problem}").format(
                server=errors.where(self.server), problem=str(exc))) from None
        headers = {"Accept-Encoding": "identity"}  # a stream must not wait for a gzip block
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        auth = None
        if login:
            user, _, password = login.partition(":")
            auth = (unquote(user), unquote(password))
        self._http = AbortableClient(self.server.stall_s, headers=headers, auth=auth)
        self.last_prompt_tokens = 0
        self.models: list[str] = []
        self._cancel: threading.Event | None = None
        #: Keep-alive comments / empty events since the last real data.
        self._keepalives = 0

    # -- what subclasses provide ------------------------------------------------
    def _models_request(self) -> tuple[str, str]:
        raise NotImplementedError

    def _parse_models(self, data: Any) -> list[str]:
        raise NotImplementedError

    def _chat_request(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def _delta_batches(self, response: httpx.Response) -> Iterator[list[Delta]]:
        """The reply's deltas, a list per socket read (never an empty list)."""
        raise NotImplementedError

    def _deltas(self, response: httpx.Response) -> Iterator[Delta]:
        """The reply's deltas one by one (tests, diagnostics)."""
        for batch in self._delta_batches(response):
            yield from batch

    def _wire_messages(self, request: GenerationRequest) -> list[dict[str, Any]]:
        """The request's messages as JSON (images as the server's protocol
        wants them: ``_with_images``). A reply to continue goes last as an
        assistant message: llama-server and Ollama continue it (prefill);
        other servers answer it as a new turn."""
        messages = [self._with_images({"role": m.role, "content": m.content}, m.images) if m.images
                    else {"role": m.role, "content": m.content} for m in request.messages]
        if request.continue_text:
            messages.append({"role": "assistant", "content": request.continue_text})
        return messages

    @staticmethod
    def _with_images(message: dict[str, Any], images: tuple[tuple[str, str], ...]) -> dict[str, Any]:
        """``message`` carrying ``images`` the OpenAI way: its content becomes
        parts, the text first, then one ``image_url`` part per image (a data URL)."""
        parts: list[dict[str, Any]] = [{"type": "text", "text": message["content"]}]
        parts += [{"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}} for mime, data in images]
        return {**message, "content": parts}

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
        elif self.models and self.model not in self.models and not getattr(self.models, "dropped", 0):
            warnings.append(translate(
                "RemoteErrors", "{server} does not list the model {model}; it lists: {models}.").format(
                server=errors.where(self.server), model=errors.quote(self.server, repr(self.model), self._redactor),
                models=errors.quote(self.server, ", ".join(self.models[:5]), self._redactor)))
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

    def list_models(self, cancel: threading.Event | None = None) -> ModelNames:
        """The server's model ids, at most ``MAX_MODELS`` (blocking: call it
        off the GUI thread). The whole list must arrive within
        ``min(LIST_TIMEOUT_S, stall timeout)`` seconds."""
        method, url = self._models_request()
        timeout = min(LIST_TIMEOUT_S, self.server.stall_s)
        client = self._http.client
        remove = on_cancel(cancel, self._http.abort)
        self._http.set_deadline(time.monotonic() + timeout)
        try:
            body = self._get_list(client, method, url, timeout, cancel)
            if cancel is not None and cancel.is_set():
                raise LoadCancelled()
            try:
                data = loads_gently(body.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                raise errors.bad_data(self.server, translate(
                    "RemoteErrors", "the model list is not JSON (is the server kind right?)")) from None
            try:
                return cap_models(self._parse_models(data))
            except (KeyError, TypeError, AttributeError, IndexError):
                raise errors.bad_data(self.server, translate(
                    "RemoteErrors", "the model list has an unexpected shape (is the server kind right?)")) from None
        except ReadLimitError as exc:
            raise errors.limit_error(self.server, exc, "list") from None
        except EncodingRefused as exc:
            raise errors.compressed(self.server, exc.encoding, stream=False, key=self._redactor) from None
        except httpx.HTTPError as exc:
            if cancel is not None and cancel.is_set():
                raise LoadCancelled() from None
            if self._http.deadline_expired or isinstance(exc, (httpx.ReadTimeout, httpx.PoolTimeout)):
                raise errors.list_timeout(self.server, timeout) from None
            raise errors.transport_error(self.server, exc, key=self._redactor, seconds=timeout) from None
        finally:
            self._http.set_deadline(None)
            remove()

    def _get_list(self, client: httpx.Client, method: str, url: str, timeout: float,
                  cancel: threading.Event | None) -> bytes:
        """The list's body (bounded), following same-origin redirects."""
        for _hop in range(MAX_REDIRECTS + 1):
            with client.stream(method, url, timeout=timeout) as response:
                if 300 <= response.status_code < 400:
                    target = errors.redirect_target(response)
                    if target is None or not errors.is_same_origin(str(target), url):
                        raise errors.redirect_error(self.server, response, key=self._redactor)
                    url = str(target)
                    continue
                if response.status_code >= 400:
                    raise errors.status_error(self.server, response, self._error_body(response, cancel),
                                              key=self._redactor)
                return read_body(response, MAX_MODEL_LIST_BYTES, cancel)
        raise errors.too_many_redirects(self.server, MAX_REDIRECTS)

    def _error_body(self, response: httpx.Response, cancel: threading.Event | None) -> bytes:
        try:
            return read_body(response, MAX_ERROR_BODY, cancel, truncate=True)
        except (EncodingRefused, httpx.HTTPError):
            return b""

    def generate(self, request: GenerationRequest, cancel: threading.Event) -> Generator[str, None, FinishReason]:
        if cancel.is_set():
            return FinishReason.CANCELLED
        self.last_prompt_tokens = 0
        self._cancel = cancel
        self._keepalives = 0
        url, payload = self._chat_request(request)
        client = self._http.client
        remove = on_cancel(cancel, self._http.abort)
        stall = self.server.stall_s
        reply = ReplyState()
        events = 0
        try:
            with client.stream("POST", url, json=payload) as response:
                if 300 <= response.status_code < 400:
                    raise errors.redirect_error(self.server, response, key=self._redactor)
                if response.status_code >= 400:
                    raise errors.status_error(self.server, response, self._error_body(response, cancel),
                                              model=self.model, key=self._redactor)
                self._http.set_deadline(time.monotonic() + stall)
                for batch in self._delta_batches(response):
                    # Real data: the stall clock starts again (keep-alives never get here).
                    self._http.set_deadline(time.monotonic() + stall)
                    self._keepalives = 0
                    events += len(batch)
                    if cancel.is_set():
                        return FinishReason.CANCELLED
                    try:
                        yield from reply_pieces(batch, reply)
                    finally:
                        if reply.prompt_tokens is not None:
                            self.last_prompt_tokens = reply.prompt_tokens
                    if reply.ended:
                        break
        except BackendError:
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise
        except ReadLimitError as exc:
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise errors.limit_error(self.server, exc, "reply") from None
        except EncodingRefused as exc:
            raise errors.compressed(self.server, exc.encoding, stream=False, key=self._redactor) from None
        except httpx.HTTPError as exc:
            if cancel.is_set():
                return FinishReason.CANCELLED
            if self._http.deadline_expired:
                raise errors.stalled(self.server, stall, self._keepalives > 0) from None
            raise errors.transport_error(self.server, exc, during_reply=True, key=self._redactor) from None
        except OSError as exc:  # a socket error httpx did not wrap
            if cancel.is_set():
                return FinishReason.CANCELLED
            raise errors.transport_error(self.server, exc, during_reply=True, key=self._redactor) from None
        finally:
            self._http.set_deadline(None)
            self._cancel = None
            remove()
        if reply.thinking:
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
        if not reply.ended and reply.finish is None:
            raise BackendError(translate(
                "RemoteErrors", "{server} closed the connection before the reply was complete.").format(
                server=errors.where(self.server)))
        return FinishReason.LENGTH if reply.finish == "length" else FinishReason.STOP

    def close(self) -> None:
        self._http.close()

    # -- helpers for subclasses -------------------------------------------------
    def _read_stream(self, response: httpx.Response, reader: StreamReader[_Item]) -> Iterator[list[_Item]]:
        """What ``reader`` makes of each raw read of the stream, then of its
        end (bounded, Stop looked at after every read); a compressed stream
        is refused."""
        encoding = content_encoding(response)
        if encoding and not response.is_stream_consumed:
            raise errors.compressed(self.server, encoding, stream=True, key=self._redactor)
        for chunk in raw_chunks(response, self._cancel):
            yield reader.feed(chunk)
        yield reader.close()

    def _json(self, text: str, what: str) -> Any:
        """``text`` parsed; ``what`` ("event", "line" or "reply") names it in the error."""
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            if what == "event":
                problem = translate("RemoteErrors", "a malformed JSON event: {text}")
            elif what == "line":
                problem = translate("RemoteErrors", "a malformed JSON line: {text}")
            else:
                problem = translate("RemoteErrors", "a malformed JSON reply: {text}")
            quoted = repr(errors.quote(self.server, text, self._redactor, 80))
            raise errors.bad_data(self.server, problem.format(text=quoted), key=self._redactor) from None

    def _complete_body(self, response: httpx.Response) -> Any:
        """A response that is not a stream: its JSON, or a clear error."""
        ctype = response.headers.get("content-type", "").partition(";")[0].strip() or "no content type"
        if "json" not in ctype:
            raise errors.bad_data(self.server, not_a_stream(errors.quote(self.server, ctype, self._redactor, 80)))
        body = read_body(response, MAX_JSON_BODY, self._cancel)
        return self._json(body.decode("utf-8", errors="replace"), "reply")


def not_a_stream(content_type: str) -> str:
    """What ``bad_data`` says of a reply of ``content_type`` that is not a stream."""
    return translate("RemoteErrors", "the reply is not a stream ({content_type}); "
                     "is the URL that of the API, and the server kind right?").format(content_type=content_type)
