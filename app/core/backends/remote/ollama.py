"""Ollama's native chat API: ``POST {base}/api/chat``, newline-delimited JSON
(Qt-free). Each line is ``{"message": {"content", "thinking"}, "done": …}``;
the last has ``done: true`` and ``done_reason``; an error is a line (or a
non-200 body) ``{"error": "…"}``. Sampling goes in ``options``. Lines are
read with bounds (``reading``: 4 MB a line, Stop after every read); a line
is decoded as UTF-8 once it is whole. A read's lines are parsed together
(``batching``: the C JSON scanner over them all); any it cannot parse
exactly, one at a time."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import httpx

from app.core.backends.base import BackendError, GenerationRequest
from app.core.backends.remote import errors
from app.core.backends.remote.base import RemoteBackend, not_a_stream
from app.core.backends.remote.batching import NDJSONReader, decode_json_batch
from app.core.backends.remote.pieces import Delta
from app.core.base.i18n import translate
from app.core.base.limits import MAX_LINE_BYTES


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

    def _delta_batches(self, response: httpx.Response) -> Iterator[list[Delta]]:
        ctype = response.headers.get("content-type", "")
        if "ndjson" not in ctype and "json" in ctype:
            # stream: false servers / proxies: one JSON document
            yield [self._line(self._complete_body(response), force_done=True)]
            return
        if "json" not in ctype and "text/plain" not in ctype and ctype:
            raise errors.bad_data(self.server, not_a_stream(errors.quote(self.server, ctype.partition(";")[0],
                                                                         self._redactor, 80)))
        for lines in self._read_stream(response, NDJSONReader(MAX_LINE_BYTES)):
            if not lines:
                continue
            objs = decode_json_batch(b"\n".join(lines).decode("utf-8", errors="replace").split("\n"))
            batch: list[Delta] = []
            if objs is None:  # the careful way, one line at a time (exact messages)
                for line in lines:
                    if not line.strip():
                        if batch:
                            yield batch
                            batch = []
                        self._keepalives += 1
                        continue
                    try:
                        obj = self._json(line.decode("utf-8", errors="replace"), "line")
                    except BackendError:
                        if batch:
                            yield batch  # what came before it first
                        raise
                    batch = yield from self._add(batch, [obj])
            else:
                batch = yield from self._add(batch, objs)
            if batch:
                yield batch

    def _add(self, batch: list[Delta], objs: list[Any]) -> Generator[list[Delta], None, list[Delta]]:
        """``batch`` with the deltas of the lines ``objs``; on an error line,
        what came before it is handed on first, then it raises."""
        for obj in objs:
            try:
                batch.append(self._line(obj))
            except Exception:  # an error event (BackendError), or a shape the reading trips on
                if batch:
                    yield batch
                raise
        return batch

    def _line(self, obj: Any, force_done: bool = False) -> Delta:
        if not isinstance(obj, dict):
            raise errors.bad_data(self.server, translate("RemoteErrors", "a line that is not a JSON object"))
        if obj.get("error"):
            raise errors.stream_error(self.server, obj["error"], key=self._redactor)
        found = obj.get("message")
        message: dict[str, Any] = found if isinstance(found, dict) else {}
        done = bool(obj.get("done")) or force_done
        prompt = obj.get("prompt_eval_count")
        return Delta(
            _text(message.get("content")),
            _text(message.get("thinking")),
            (obj.get("done_reason") or "stop") if done else None,
            done,
            int(prompt) if isinstance(prompt, int) else None,
        )


def _text(value: Any) -> str:
    """A string field of a reply line ('' when absent or not a string)."""
    return value if isinstance(value, str) else ""
