"""A scripted producer: streams a fixed text at a fixed rate, token by token.

It runs on the inference worker thread through exactly the same
worker / buffer / tick / render path as the real model. It serves demos, UI
tests and benchmarks; it never stands in for the model in the product.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Generator, Sequence
from pathlib import Path

from app.core.backends.base import (
    BackendError,
    FinishReason,
    GenerationRequest,
    LoadCancelled,
    LoadProgress,
    ModelInfo,
    PromptProgress,
    TokenRun,
)
from app.core.text.decoding import TokenDecoder

#: At most this many due tokens go out as one run (the worker's batch size).
RUN_TOKENS = 64

SAMPLE_MARKDOWN = """\
# Streaming, without the freeze

Rill keeps the window responsive while a model writes. Here is what a reply
can contain, rendered once each block is complete.

## A table

| Stage   | Thread | Cost per token |
|---------|--------|----------------|
| Produce | worker | one decode     |
| Carry   | both   | one append     |
| Consume | GUI    | O(1) per tick  |

## Some code

```python
def fibonacci(n: int) -> list[int]:
    \"\"\"Return the first n Fibonacci numbers.\"\"\"
    out = [0, 1]
    while len(out) < n:
        out.append(out[-1] + out[-2])
    return out[:n]
```

## A list

1. Type a prompt and press **Enter**.
2. Watch the reply stream in; scroll, select and copy while it does.
3. Press *Stop* (or `Esc`) at any moment.

- Nested points stay readable:
  - the producer never waits for the screen unless the buffer is full;
  - the screen never waits for the producer.
- Long paragraphs wrap as the window is resized.

## Why it matters

A chat window that freezes while the model writes feels broken even when the
model is fast. The tokens are there, in the log, but the button does not
click and the scroll bar does not move; then the text lands in one lump. The
fix is not a faster model: it is a consumer that does a small, bounded amount
of work per frame, and leaves the expensive formatting for later, when a block
of text is complete and will not change again.

## More code

```bash
# Run the pipeline check without a display
QT_QPA_PLATFORM=offscreen rill doctor --backend scripted --rate 1000
```

```javascript
const stream = async (reply) => {
  for await (const chunk of reply) {
    view.append(chunk.text);   // O(1): plain text at the end
  }
};
```

## 多语言

你好，世界！流式输出不会卡住窗口。Emoji too: 😀 🚀 👩‍💻 ✅

> Every token reaches the screen, correct and in order.

See [the Qt docs](https://doc.qt.io/) for more.
"""

_TOKEN_RE = re.compile(r"\s*[^\s]{1,5}|\s+")


def tokenize_text(text: str) -> list[bytes]:
    """Split text into token-sized UTF-8 pieces (roughly 4 characters each)."""
    return [m.group(0).encode("utf-8") for m in _TOKEN_RE.finditer(text)]


class ScriptedBackend:
    """Streams ``tokens`` (byte strings) at ``rate`` tokens/s (0 = unpaced).

    ``n_tokens`` cycles through the script until that many tokens were sent.
    ``prefill_s`` simulates prompt evaluation (cancellable): read in
    batches of ``prompt_batch`` tokens, each told to ``generate``'s
    ``progress``, as the llama backend does (``prompt_tokens``: pretend the
    prompt has that many tokens instead of its estimate), ``fail_after``
    raises a BackendError after that many tokens (for error-path tests).
    ``load_delay_s`` simulates a slow model load: ``load`` waits that long on
    its ``cancel`` event (raising LoadCancelled at once when it is set) and
    reports progress about every 50 ms.
    """

    def __init__(
        self,
        tokens: Sequence[bytes] | None = None,
        rate: float = 200.0,
        n_tokens: int | None = None,
        prefill_s: float = 0.0,
        fail_after: int | None = None,
        load_delay_s: float = 0.0,
        prompt_tokens: int | None = None,
        prompt_batch: int = 64,
    ) -> None:
        self.tokens: list[bytes] = list(tokens) if tokens is not None else tokenize_text(SAMPLE_MARKDOWN)
        if not self.tokens:
            raise ValueError("the script has no tokens")
        self.rate = rate
        self.n_tokens = n_tokens
        self.prefill_s = prefill_s
        self.fail_after = fail_after
        self.load_delay_s = load_delay_s
        self.prompt_tokens = prompt_tokens
        self.prompt_batch = max(1, int(prompt_batch))
        self.last_prompt_tokens = 0
        self.last_completion_tokens = 0

    @classmethod
    def from_text(cls, text: str, **kwargs: float | None) -> ScriptedBackend:
        return cls(tokenize_text(text), **kwargs)  # type: ignore[arg-type]  # the options are float|None by name

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: float | None) -> ScriptedBackend:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BackendError(f"Cannot read the script file {path}: {exc}") from exc
        return cls.from_text(text, **kwargs)

    def load(
        self, cancel: threading.Event | None = None, progress: LoadProgress | None = None
    ) -> ModelInfo:
        if self.load_delay_s > 0:
            self._wait_load(self.load_delay_s, cancel or threading.Event(), progress)
        elif cancel is not None and cancel.is_set():
            raise LoadCancelled()
        if progress is not None:
            progress(1.0)
        paced = f"{self.rate:g} tok/s" if self.rate > 0 else "unpaced"
        return ModelInfo(name=f"Scripted producer ({paced})", chat_template="none (scripted)")

    @staticmethod
    def _wait_load(delay: float, cancel: threading.Event, progress: LoadProgress | None) -> None:
        start = time.monotonic()
        end = start + delay
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            if progress is not None:
                progress((delay - left) / delay)
            # Event.wait, not sleep: cancelling wakes us at once.
            if cancel.wait(min(left, 0.05)):
                raise LoadCancelled()

    def generate(
        self, request: GenerationRequest, cancel: threading.Event, progress: PromptProgress | None = None
    ) -> Generator[str, None, FinishReason]:
        estimate = sum(len(m.content) // 4 + 4 for m in request.messages)
        self.last_prompt_tokens = int(self.prompt_tokens) if self.prompt_tokens is not None else estimate
        self.last_completion_tokens = 0
        if self.prefill_s > 0 and self._read_prompt(self.last_prompt_tokens, cancel, progress):
            return FinishReason.CANCELLED
        total = self.n_tokens if self.n_tokens is not None else len(self.tokens)
        decoder = TokenDecoder()
        interval = 1.0 / self.rate if self.rate > 0 else 0.0
        start = time.monotonic()
        n_script = len(self.tokens)
        i = 0
        while i < total:
            if cancel.is_set():
                return FinishReason.CANCELLED
            if self.fail_after is not None and i >= self.fail_after:
                raise BackendError(f"Scripted failure after {i} tokens")
            if interval:
                delay = start + i * interval - time.monotonic()
                # Event.wait, not sleep: a Stop wakes us at once.
                if delay > 0.0005 and cancel.wait(delay):
                    return FinishReason.CANCELLED
            # Every token due by now, handed over as one run (as a server's
            # deltas of one read are): a fast rate costs one hand-over per
            # run, not Python per token in the worker.
            due = int((time.monotonic() - start) / interval) + 1 - i if interval else RUN_TOKENS
            n = max(1, min(due, RUN_TOKENS, total - i))
            if self.fail_after is not None:
                n = min(n, self.fail_after - i)
            if n == 1:
                piece = decoder.feed(self.tokens[i % n_script])
            else:
                piece = TokenRun("".join([decoder.feed(self.tokens[k % n_script]) for k in range(i, i + n)]), n)
            i += n
            self.last_completion_tokens = i
            yield piece
        tail = decoder.flush()
        if tail:
            yield tail
        return FinishReason.STOP

    def _read_prompt(self, total: int, cancel: threading.Event, progress: PromptProgress | None) -> bool:
        """Spend ``prefill_s`` reading ``total`` tokens in batches, each told
        to ``progress``; True when cancelled meanwhile."""
        total = max(1, total)
        batches = -(-total // self.prompt_batch)
        start = time.monotonic()
        if progress is not None:
            progress(0, total)
        for n in range(1, batches + 1):
            delay = start + self.prefill_s * n / batches - time.monotonic()
            if cancel.wait(max(0.0, delay)):
                return True
            if progress is not None:
                progress(min(total, n * self.prompt_batch), total)
        return False

    def close(self) -> None:
        pass
