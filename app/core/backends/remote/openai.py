"""OpenAI-compatible chat completions over SSE: llama.cpp's llama-server,
llama-cpp-python's server, LM Studio, vLLM, and hosted APIs (Qt-free).

``POST {api_root}/chat/completions`` with ``stream: true``; the reply is
Server-Sent Events, read with bounds by ``reading`` (line framing with
``\\n``, ``\\r\\n`` or ``\\r``, comment/keep-alive lines, multi-line
``data:``, each line and event capped, Stop looked at after every read; a
line is decoded as UTF-8 once it is whole, so a character split across reads
arrives whole). A read's plain events are found and parsed together
(``batching``: bytes operations and the C JSON scanner, no Python per line),
the rest one at a time. Keep-alive comments and empty events are counted, not passed
on: they do not keep a stalled stream alive. ``data: [DONE]`` ends the reply;
an ``error`` object ends it with the server's message; a stream that just
stops is reported as cut off. A server that answers with one JSON document
instead of a stream is read as such.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import httpx

from app.core.backends.base import BackendError, GenerationRequest
from app.core.backends.remote import errors
from app.core.backends.remote.base import RemoteBackend
from app.core.backends.remote.batching import SSEReader, decode_json_batch
from app.core.backends.remote.pieces import Delta
from app.core.base.i18n import translate
from app.core.base.limits import MAX_EVENT_BYTES, MAX_LINE_BYTES


class OpenAIBackend(RemoteBackend):
    kind = "openai"

    def _models_request(self) -> tuple[str, str]:
        return "GET", f"{self.server.api_root}/models"

    def _parse_models(self, data: Any) -> list[str]:
        items = data["data"] if isinstance(data, dict) else data
        return [str(item["id"]) for item in items]

    def _chat_request(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        messages = self._wire_messages(request)
        p = request.params
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "temperature": p.temperature,
            "top_p": p.top_p,
            "max_tokens": p.max_tokens,
        }
        if p.seed is not None:
            payload["seed"] = p.seed
        return f"{self.server.api_root}/chat/completions", payload

    def _delta_batches(self, response: httpx.Response) -> Iterator[list[Delta]]:
        ctype = response.headers.get("content-type", "")
        if "text/event-stream" not in ctype:
            yield list(self._whole_reply(self._complete_body(response)))
            return
        reader = SSEReader(MAX_LINE_BYTES, MAX_EVENT_BYTES)
        for items in self._read_stream(response, reader):
            batch: list[Delta] = []
            for item in items:
                if item is None:  # a comment: a keep-alive
                    if batch:
                        yield batch
                        batch = []
                    self._keepalives += 1
                    continue
                data = item.data
                done = "[DONE]" in data
                plain = data[:data.index("[DONE]")] if done else data
                objs = None if item.event else decode_json_batch(plain)
                if objs is None:
                    # The careful way, one event at a time (exact messages).
                    for text in data:
                        stripped = text.strip()
                        if not stripped:
                            if batch:
                                yield batch
                                batch = []
                            self._keepalives += 1  # an empty keep-alive event
                            continue
                        if stripped == "[DONE]":
                            batch.append(Delta(done=True))
                            yield batch
                            return
                        try:
                            obj = self._json(text, "event")
                        except BackendError:
                            if batch:
                                yield batch  # what came before it first
                            raise
                        batch = yield from self._add(batch, [obj], item.event)
                    continue
                batch = yield from self._add(batch, objs, "")
                if done:
                    batch.append(Delta(done=True))
                    yield batch
                    return
            if batch:
                yield batch

    def _add(self, batch: list[Delta], objs: list[Any], event: str) -> Generator[list[Delta], None, list[Delta]]:
        """``batch`` with the deltas of the events ``objs``; on an error
        event, what came before it is handed on first, then it raises."""
        for obj in objs:
            try:
                delta = self._chunk(obj, event)
            except Exception:  # an error event (BackendError), or a shape the reading trips on
                if batch:
                    yield batch
                raise
            if delta is not None:
                batch.append(delta)
        return batch

    def _chunk(self, obj: Any, event: str = "") -> Delta | None:
        if type(obj) is dict and not event:
            # The usual shape, read with fewer steps (the same Delta as below).
            choices = obj.get("choices")
            if type(choices) is list and choices and not obj.get("error") and obj.get("usage") is None:
                choice = choices[0]
                delta = choice.get("delta") if type(choice) is dict else None
                if type(delta) is dict:
                    content = delta.get("content")
                    if type(content) is str and not delta.get("reasoning_content") and not delta.get("reasoning"):
                        return Delta(content, "", choice.get("finish_reason") or None)
        if event == "error" or (isinstance(obj, dict) and obj.get("error")):
            raise errors.stream_error(self.server, obj.get("error", obj) if isinstance(obj, dict) else obj,
                                      key=self._redactor)
        if not isinstance(obj, dict):
            raise errors.bad_data(self.server, translate("RemoteErrors", "an event that is not a JSON object"))
        usage = obj.get("usage")
        prompt_tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        choices = obj.get("choices") or []
        if not choices and prompt_tokens is not None:
            return Delta(prompt_tokens=int(prompt_tokens))
        for choice in choices[:1]:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                delta = {}
            return Delta(
                _text(delta.get("content")),
                _text(delta.get("reasoning_content") or delta.get("reasoning")),
                choice.get("finish_reason") or None,
                False,
                int(prompt_tokens) if prompt_tokens is not None else None,
            )
        return None

    def _whole_reply(self, obj: Any) -> Iterator[Delta]:
        if isinstance(obj, dict) and obj.get("error"):
            raise errors.stream_error(self.server, obj["error"], key=self._redactor)
        try:
            choice = obj["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise errors.bad_data(self.server, translate(
                "RemoteErrors", "the reply is not a stream and not a chat completion")) from None
        usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
        yield Delta(
            content=_text(message.get("content")),
            reasoning=_text(message.get("reasoning_content") or message.get("reasoning")),
            finish_reason=choice.get("finish_reason") or "stop",
            done=True,
            prompt_tokens=usage.get("prompt_tokens"),
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
