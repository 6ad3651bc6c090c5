"""Command line: ``rill [options]`` opens the window, ``rill doctor`` checks the pipeline."""

from __future__ import annotations

import argparse
import logging
import sys


def _add_backend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("local", "scripted"), default="local",
                   help="local: llama-cpp-python with a GGUF model (default); "
                        "scripted: stream a fixed text at a fixed rate")
    p.add_argument("--model", metavar="PATH", help="GGUF model file (default: SmolLM2-135M-Instruct)")
    p.add_argument("--rate", type=float, default=200.0, metavar="TOKENS_PER_S",
                   help="scripted backend: tokens per second (0 = as fast as possible)")
    p.add_argument("--text-file", metavar="F", help="scripted backend: the text to stream")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rill", description="Rill: chat with a local LLM.")
    _add_backend_options(parser)
    sub = parser.add_subparsers(dest="command")
    doctor = sub.add_parser("doctor", help="run one prompt through the real window and print JSON")
    _add_backend_options(doctor)
    doctor.add_argument("--prompt", default="Write a short haiku about rivers.")
    doctor.add_argument("--stop-after-ms", type=float, default=None, metavar="N",
                        help="press Stop N ms after sending")
    doctor.add_argument("--history-chars", type=int, default=0, metavar="N",
                        help="first open about N characters of earlier conversation (realistic mixed Markdown)")
    doctor.add_argument("--history-messages", type=int, default=0, metavar="N",
                        help="first open N earlier messages of realistic mixed Markdown (reports history_open_ms)")
    doctor.add_argument("--prompt-file", metavar="F",
                        help="the prompt is this file's contents (pasted, as a user would)")
    doctor.add_argument("--turns", type=int, default=1, metavar="N",
                        help="send N prompts, each the moment the previous reply ends")
    doctor.add_argument("--timeout-s", type=float, default=600.0)
    doctor.add_argument("--seed", type=int, default=None)
    doctor.add_argument("--max-tokens", type=int, default=None)
    doctor.add_argument("--ignore-eos", action="store_true",
                        help="keep generating past the end-of-generation token (benchmarks)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from app.application import backend_from_args, create_window, make_application, use_offscreen_without_display

    if args.command == "doctor":
        use_offscreen_without_display()
        from app.doctor import run_doctor

        return run_doctor(args)
    use_offscreen_without_display()
    app = make_application()
    window = create_window(*backend_from_args(args))
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
