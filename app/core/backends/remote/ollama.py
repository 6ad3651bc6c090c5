"""Ollama's native chat API: ``POST {base}/api/chat``, newline-delimited JSON
(Qt-free). Each line is ``{"message": {"content", "thinking"}, "done": …}``;
the last has ``done: true`` and ``done_reason``; an error is a line (or a
non-200 body) ``{"error": "…"}``. Sampling goes in ``options``. Lines are
read with bounds (``reading``: 4 MB a line, Stop after every read); a line
is decoded as UTF-8 once it is whole."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from app.core.backends.base import GenerationRequest
from app.core.backends.remote import errors
from app.core.backends.remote.base import Delta, RemoteBackend, not_a_stream
from app.core.base.i18n import translate


class OllamaBackend(RemoteBackend):
    kind = "ollama"

    @staticmethod
    def _with_images(message: dict[str, Any], images: tuple[tuple[str, str], ...]) -> dict[str, Any]:
        """Ollama's way: the base64 data in the message's ``images`` list."""
        return {**message, "images": [data for _mime, data in images]}

    def _models_request(self) -> tuple[str, str]:
        return "GET", f"{self.server.api_root}/api/tags"

    def _parse_models(self, data: Any) -> list[str]:
        return [str(item.get("name") or item["model"]) for item in data["models"]]

    def _chat_request(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        messages = self._wire_messages(request)
        p = request.params
        options: dict[str, Any] = {
            "temperature": p.temperature,
            "top_p": p.top_p,
            "top_k": p.top_k,
            "min_p": p.min_p,
            "repeat_penalty": p.repeat_penalty,
            "num_predict": p.max_tokens,
        }
        if p.seed is not None:
            options["seed"] = p.seed
        return f"{self.server.api_root}/api/chat", {
            "model": self.model, "messages": messages, "stream": True, "options": options,
        }

    def _deltas(self, response: httpx.Response) -> Iterator[Delta]:
        ctype = response.headers.get("content-type", "")
        if "ndjson" not in ctype and "json" in ctype:
            # stream: false servers / proxies: one JSON document
            yield from self._line(self._complete_body(response), force_done=True)
            return
        if "json" not in ctype and "text/plain" not in ctype and ctype:
            raise errors.bad_data(self.server, not_a_stream(errors.quote(self.server, ctype.partition(";")[0],
                                                                         self._redactor, 80)))
        for line in self._stream_lines(response, sse=False):
            if not line.strip():
                self._keepalives += 1
                continue
            yield from self._line(self._json(line.decode("utf-8", errors="replace"), "line"))

    def _line(self, obj: Any, force_done: bool = False) -> Iterator[Delta]:
        if not isinstance(obj, dict):
            raise errors.bad_data(self.server, translate("RemoteErrors", "a line that is not a JSON object"))
        if obj.get("error"):
            raise errors.stream_error(self.server, obj["error"], key=self._redactor)
        found = obj.get("message")
        message: dict[str, Any] = found if isinstance(found, dict) else {}
        done = bool(obj.get("done")) or force_done
        prompt = obj.get("prompt_eval_count")
        yield Delta(
            content=_text(message.get("content")),
            reasoning=_text(message.get("thinking")),
            finish_reason=(obj.get("done_reason") or "stop") if done else None,
            done=done,
            prompt_tokens=int(prompt) if isinstance(prompt, int) else None,
        )


def _text(value: Any) -> str:
    """A string field of a reply line ('' when absent or not a string)."""
    return value if isinstance(value, str) else ""
