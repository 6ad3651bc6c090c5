"""OpenAI-compatible chat completions over SSE: llama.cpp's llama-server,
llama-cpp-python's server, LM Studio, vLLM, and hosted APIs (Qt-free).

``POST {api_root}/chat/completions`` with ``stream: true``; the reply is
Server-Sent Events, read with bounds by ``reading`` (line framing with
``\\n``, ``\\r\\n`` or ``\\r``, comment/keep-alive lines, multi-line
``data:``, each line and event capped, Stop looked at after every read; a
line is decoded as UTF-8 once it is whole, so a character split across reads
arrives whole). Keep-alive comments and empty events are counted, not passed
on: they do not keep a stalled stream alive. ``data: [DONE]`` ends the reply;
an ``error`` object ends it with the server's message; a stream that just
stops is reported as cut off. A server that answers with one JSON document
instead of a stream is read as such.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from app.core.backends.base import GenerationRequest
from app.core.backends.remote import errors
from app.core.backends.remote.base import Delta, RemoteBackend
from app.core.backends.remote.reading import SSEParser
from app.core.base.i18n import translate
from app.core.base.limits import MAX_EVENT_BYTES


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

    def _deltas(self, response: httpx.Response) -> Iterator[Delta]:
        ctype = response.headers.get("content-type", "")
        if "text/event-stream" not in ctype:
            yield from self._whole_reply(self._complete_body(response))
            return
        parser = SSEParser(MAX_EVENT_BYTES)
        for line in self._stream_lines(response, sse=True):
            if line[:1] == b":":
                self._keepalives += 1
                continue
            event = parser.feed(line)
            if event is None:
                continue
            data = event.data
            if not data.strip():
                self._keepalives += 1  # an empty keep-alive event
                continue
            if data.strip() == "[DONE]":
                yield Delta(done=True)
                return
            obj = self._json(data, "event")
            if event.event == "error" or (isinstance(obj, dict) and obj.get("error")):
                raise errors.stream_error(self.server, obj.get("error", obj) if isinstance(obj, dict) else obj,
                                          key=self._redactor)
            yield from self._chunk(obj)

    def _chunk(self, obj: Any) -> Iterator[Delta]:
        if not isinstance(obj, dict):
            raise errors.bad_data(self.server, translate("RemoteErrors", "an event that is not a JSON object"))
        usage = obj.get("usage")
        prompt_tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        choices = obj.get("choices") or []
        if not choices and prompt_tokens is not None:
            yield Delta(prompt_tokens=int(prompt_tokens))
            return
        for choice in choices[:1]:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            if not isinstance(delta, dict):
                delta = {}
            yield Delta(
                content=_text(delta.get("content")),
                reasoning=_text(delta.get("reasoning_content") or delta.get("reasoning")),
                finish_reason=choice.get("finish_reason") or None,
                prompt_tokens=int(prompt_tokens) if prompt_tokens is not None else None,
            )

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
