"""A GGUF chat template's Jinja2 sandbox, bounded in time and size (Qt-free).

A chat template comes from the model file: whoever made the file wrote the
code that runs on every prompt. Jinja2's ``ImmutableSandboxedEnvironment``
(the one llama-cpp-python's ``Jinja2ChatFormatter`` uses) already blocks
attribute escapes, but not work: ``{{ 'x' * 3000000000 }}`` allocates 3 GB
and nested ``range`` loops never end (issue #17: a looping template never
finished loading and kept the process alive after its window closed).

``BoundedTemplate`` renders a template like ``Jinja2ChatFormatter`` does (the
same environment options, extensions, ``tojson`` and globals, so prompts are
identical; a test compares them) under a ``RenderBudget``:

* **time**: ``TIME_LIMIT_S`` plus ``TIME_PER_MB_S`` per MB of input. The
  budget is checked at every sandboxed call, attribute and item access,
  ``range`` step, operator, join and output piece and, where no other tracer
  is installed (a debugger, coverage), on every line of the compiled template
  (an empty loop over a string has no other check point);
* **size**: no string, list or tuple made by an operator, a join, a filter or
  a call may exceed the output limit (``OUTPUT_BASE_CHARS`` plus
  ``OUTPUT_FACTOR`` times the input), and no integer argument may either
  (``'x'.ljust(3000000000)``), checked *before* the work where it can be;
* **cancel**: the caller's ``threading.Event``, checked at the same points.

Hand-written on purpose: the limits need the environment's hooks, and
llama-cpp-python's formatter exposes none. Threading rule: one budget per
thread (a ``threading.local``), so a template may render in several threads.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from types import FrameType
from typing import Any

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range

from app.core.base.i18n import translate

__all__ = [
    "OUTPUT_BASE_CHARS", "OUTPUT_FACTOR", "TIME_LIMIT_S", "TIME_PER_MB_S", "BoundedTemplate",
    "RenderBudget", "TemplateCancelled", "TemplateLimitError",
]

#: Seconds one render may take, plus ``TIME_PER_MB_S`` per MB of input text.
TIME_LIMIT_S = 2.0
TIME_PER_MB_S = 1.0
#: The output (and any value made on the way) may hold this many characters,
#: plus ``OUTPUT_FACTOR`` times the characters of the messages given.
OUTPUT_BASE_CHARS = 1_000_000
OUTPUT_FACTOR = 4
#: ``a ** b`` with a larger exponent is refused (big integers cost time in C).
MAX_EXPONENT = 4096
#: The compiled template's file name (``Environment.from_string``): the lines traced.
_TEMPLATE_FILE = "<template>"


class TemplateLimitError(Exception):
    """The template went past a limit; the message says which, for people."""


class TemplateCancelled(Exception):
    """The render was cancelled (the caller's event was set)."""


class RenderBudget:
    """The limits of one render: a deadline, a size cap and a cancel event."""

    def __init__(self, input_chars: int, cancel: threading.Event | None = None,
                 time_limit_s: float = TIME_LIMIT_S) -> None:
        self.time_limit_s = time_limit_s + TIME_PER_MB_S * input_chars / 1_000_000
        self.deadline = time.monotonic() + self.time_limit_s
        self.max_chars = OUTPUT_BASE_CHARS + OUTPUT_FACTOR * input_chars
        self.cancel = cancel

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise TemplateCancelled()
        if time.monotonic() > self.deadline:
            raise TemplateLimitError(translate(
                "LlamaBackend", "it took longer than {seconds:g} s").format(seconds=round(self.time_limit_s, 1)))

    def too_big(self) -> TemplateLimitError:
        return TemplateLimitError(translate(
            "LlamaBackend", "it made a text longer than {chars:,} characters").format(chars=self.max_chars))

    def check_size(self, value: Any) -> Any:
        """``value``, unless it is a sequence over the cap."""
        if isinstance(value, (str, bytes, list, tuple)) and len(value) > self.max_chars:
            raise self.too_big()
        return value

    def check_ints(self, values: Sequence[Any] | Mapping[str, Any]) -> None:
        items = values.values() if isinstance(values, Mapping) else values
        for value in items:
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > self.max_chars:
                raise self.too_big()


class _LimitedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with every hook it offers checking the thread's budget."""

    intercepted_binops = frozenset({"*", "**", "+"})

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._local = threading.local()
        self.globals["range"] = self._range

    # -- the budget of the render running in this thread

    @property
    def budget(self) -> RenderBudget | None:
        budget: RenderBudget | None = getattr(self._local, "budget", None)
        return budget

    @budget.setter
    def budget(self, value: RenderBudget | None) -> None:
        self._local.budget = value

    def _check(self) -> RenderBudget | None:
        budget = self.budget
        if budget is not None:
            budget.check()
        return budget

    # -- the sandbox's hooks

    def _range(self, *args: int) -> Iterator[int]:
        budget = self._check()
        for n in safe_range(*args):
            if budget is not None:
                budget.check()
            yield n

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = self._check()
        if budget is not None:
            if operator == "*":
                seq, count = (left, right) if isinstance(right, int) else (right, left)
                if isinstance(seq, (str, bytes, list, tuple)) and isinstance(count, int) \
                        and len(seq) * count > budget.max_chars:
                    raise budget.too_big()
            elif operator == "**":
                if isinstance(left, int) and isinstance(right, int) and abs(right) > MAX_EXPONENT:
                    raise budget.too_big()
            elif operator == "+":
                if isinstance(left, (str, bytes, list, tuple)) and isinstance(right, (str, bytes, list, tuple)) \
                        and len(left) + len(right) > budget.max_chars:
                    raise budget.too_big()
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's own signature (keyword-safe names)
        budget = __self._check()
        if budget is not None:
            budget.check_ints(args)
            budget.check_ints(kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        return budget.check_size(result) if budget is not None else result

    def getattr(self, obj: Any, attribute: str) -> Any:
        self._check()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        self._check()
        return super().getitem(obj, argument)


class _IgnoreGenerationTags(jinja2.ext.Extension):
    """Pass-through for Hugging Face's ``{% generation %}`` tag (as llama-cpp-python)."""

    tags = {"generation"}

    def parse(self, parser: Any) -> Any:
        parser.stream.skip(1)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


def _tojson(x: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    """Transformers' (and llama-cpp-python's) ``tojson``."""
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(f: str) -> str:
    return datetime.now().strftime(f)


def _raise_exception(message: str) -> None:
    raise ValueError(message)


class BoundedTemplate:
    """One compiled chat template, rendered under a ``RenderBudget``.

    ``render`` raises ``TemplateLimitError`` (a limit; its text names it),
    ``TemplateCancelled``, or whatever the template raises itself
    (``raise_exception``, a missing key): the caller words those."""

    def __init__(self, source: str, *, eos_token: str, bos_token: str, add_generation_prompt: bool,
                 time_limit_s: float = TIME_LIMIT_S) -> None:
        self.time_limit_s = time_limit_s
        self._env = _LimitedEnvironment(
            loader=jinja2.BaseLoader(), trim_blocks=True, lstrip_blocks=True,
            extensions=[_IgnoreGenerationTags, jinja2.ext.loopcontrols],
        )
        self._env.filters = {name: self._bounded_filter(f) for name, f in self._env.filters.items()}
        self._env.filters["tojson"] = self._bounded_filter(_tojson)
        self._template = self._env.from_string(source)
        # ``a ~ b`` compiles to the runtime's ``str_join``/``markup_join``,
        # which the sandbox does not see: the compiled module gets bounded ones.
        namespace = self._template.root_render_func.__globals__
        for name in ("str_join", "markup_join"):
            if name in namespace:
                namespace[name] = self._bounded(namespace[name])
        self._context = {
            "eos_token": eos_token, "bos_token": bos_token, "add_generation_prompt": add_generation_prompt,
            "raise_exception": _raise_exception, "strftime_now": _strftime_now,
        }

    def _bounded(self, f: Callable[..., Any]) -> Callable[..., Any]:
        env = self._env

        def bounded(*args: Any, **kwargs: Any) -> Any:
            budget = env._check()
            result = f(*args, **kwargs)
            return budget.check_size(result) if budget is not None else result

        return bounded

    def _bounded_filter(self, f: Callable[..., Any]) -> Callable[..., Any]:
        bounded = self._bounded(f)
        # Keep Jinja's pass_context / pass_environment markers.
        for marker in ("jinja_pass_arg",):
            if hasattr(f, marker):
                setattr(bounded, marker, getattr(f, marker))
        return bounded

    def render(self, messages: Sequence[Mapping[str, Any]], cancel: threading.Event | None = None,
               **extra: Any) -> str:
        input_chars = sum(len(str(m.get("content") or "")) for m in messages)
        budget = RenderBudget(input_chars, cancel, self.time_limit_s)
        env = self._env
        env.budget = budget
        tracer = _LineTracer(budget) if sys.gettrace() is None else None
        if tracer is not None:
            sys.settrace(tracer)
        try:
            pieces: list[str] = []
            total = 0
            for piece in self._template.generate(messages=list(messages), **self._context, **extra):
                total += len(piece)
                if total > budget.max_chars:
                    raise budget.too_big()
                budget.check()
                pieces.append(piece)
            return "".join(pieces)
        finally:
            if tracer is not None:
                sys.settrace(None)
            env.budget = None


class _LineTracer:
    """``sys.settrace`` for one render: traces only the compiled template's
    frames, checking the budget every few lines (a loop with an empty body
    runs no hook at all)."""

    EVERY = 64

    def __init__(self, budget: RenderBudget) -> None:
        self._budget = budget
        self._n = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != _TEMPLATE_FILE:
            return None
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        self._n += 1
        if self._n % self.EVERY == 0:
            self._budget.check()
        return self._line
