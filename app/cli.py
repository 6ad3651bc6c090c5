"""Command line: ``rill [options]`` opens the window, ``rill doctor`` checks the
pipeline, ``rill export`` / ``rill import`` / ``rill search`` work on the
conversation store and ``rill search-models`` / ``rill pull`` on the Hugging
Face Hub (app.hub_cli) without Qt (they never import it, so they start fast and
run on machines without a display)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from app.core.text.display import utf8_std_streams, without_controls

if TYPE_CHECKING:
    from app.core.store import Store


def _add_backend_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("local", "scripted", "openai", "ollama"), default=None,
                   help="local: llama-cpp-python with a GGUF model (default); "
                        "scripted: stream a fixed text at a fixed rate; "
                        "openai: an OpenAI-compatible server (llama-server, LM Studio, vLLM...); "
                        "ollama: an Ollama server")
    p.add_argument("--model", metavar="PATH", help="GGUF model file (default: SmolLM2-135M-Instruct)")
    p.add_argument("--rate", type=float, default=200.0, metavar="TOKENS_PER_S",
                   help="scripted backend: tokens per second (0 = as fast as possible)")
    p.add_argument("--text-file", metavar="F", help="scripted backend: the text to stream")
    p.add_argument("--base-url", metavar="URL",
                   help="openai/ollama: the server's URL, with or without /v1 "
                        "(default http://127.0.0.1:8080 for openai, http://127.0.0.1:11434 for ollama)")
    p.add_argument("--api-model", metavar="NAME", default="",
                   help="openai/ollama: the model to ask for (default: the first the server lists)")
    p.add_argument("--api-key-env", metavar="VAR", default="",
                   help="openai/ollama: read the API key from this environment variable "
                        "(never give a key on the command line)")
    p.add_argument("--stall-timeout", type=float, default=None, metavar="S",
                   help="openai/ollama: give up when the server sends nothing for S seconds (default 60)")


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
    doctor.add_argument("--idle-ms", type=int, default=0, metavar="N",
                        help="first let the window idle N ms with the heartbeat running: its lateness "
                             "then is the idle floor (idle_lag_ms), measured apart from the run")
    doctor.add_argument("--find", metavar="TEXT", default=None,
                        help="open the find bar with TEXT before sending (find stays active while the reply streams)")
    doctor.add_argument("--attach", action="append", default=[], metavar="FILE",
                        help="attach FILE to the prompt (repeatable): reports each attachment and the chunks chosen")
    doctor.add_argument("--embedding-model", metavar="GGUF", default=None,
                        help="retrieve attachment passages by meaning too, with this GGUF model (embedding=True)")
    doctor.add_argument("--print-prompt", action="store_true",
                        help="write the prompt the backend is given (attachments joined) to standard error")
    doctor.add_argument("--timeout-s", type=float, default=600.0)
    doctor.add_argument("--seed", type=int, default=None)
    doctor.add_argument("--max-tokens", type=int, default=None)
    doctor.add_argument("--ignore-eos", action="store_true",
                        help="keep generating past the end-of-generation token (benchmarks)")

    db_help = "the conversation database (default: $XDG_DATA_HOME/rill/rill.db)"
    export = sub.add_parser("export", help="write conversations as Markdown or JSON (stdout by default)",
                            description="Write conversations as Markdown or as Rill's JSON format "
                                        "(docs/FORMAT.md), to standard output or to a file.")
    which = export.add_mutually_exclusive_group()
    which.add_argument("--conversation", metavar="ID", action="append",
                       help="this conversation (an id, or a unique start of one); may be repeated")
    which.add_argument("--all", action="store_true", help="every conversation (the default)")
    export.add_argument("--format", choices=("md", "json", "html", "pdf"), default=None,
                        help="md: the current branch of each conversation, readable; json: everything, "
                             "importable; html: one self-contained page (math as SVG, no script); pdf: "
                             "the same, printed (needs -o) (default: from the -o file's extension, else json)")
    export.add_argument("--theme", choices=("light", "dark"), default="light",
                        help="html: the colours of the page (default: light)")
    export.add_argument("--progress", action="store_true",
                        help="html, pdf: print 'progress P' lines (P: percent done) on standard error")
    export.add_argument("-o", "--output", metavar="PATH", help="write to this file (default: standard output)")
    export.add_argument("--db", metavar="PATH", help=db_help)
    printing = export.add_argument_group("printing", "print the PDF export's pages on a printer instead of "
                                                     "writing a file (File › Print… uses these)")
    printing.add_argument("--printer", metavar="NAME", default=None, help="print on this printer (implies pdf)")
    printing.add_argument("--copies", type=int, default=1, metavar="N", help="this many copies (default 1)")
    printing.add_argument("--pages", metavar="FROM-TO", default=None, help="only these pages, e.g. 2-5 or 3-")
    printing.add_argument("--paper", metavar="SIZE", default="", help="paper size, e.g. A4 or Letter "
                                                                       "(default: the printer's)")
    printing.add_argument("--landscape", action="store_true", help="landscape pages")
    printing.add_argument("--grayscale", action="store_true", help="print in grey")
    printing.add_argument("--duplex", action="store_true", help="print on both sides")
    imp = sub.add_parser("import", help="add the conversations of a Rill JSON export",
                         description="Add the conversations of a Rill JSON export (all or nothing). A "
                                     "conversation that already exists is added as a copy with new ids.")
    imp.add_argument("path", metavar="PATH", help="the JSON file ('-': standard input)")
    imp.add_argument("--db", metavar="PATH", help=db_help)
    search = sub.add_parser("search", help="find messages in every conversation")
    search.add_argument("text", metavar="TEXT", help="the words to find")
    search.add_argument("--json", action="store_true", help="print a JSON list of the matches")
    search.add_argument("--limit", type=int, default=50, metavar="N", help="at most N matches (default 50)")
    search.add_argument("--db", metavar="PATH", help=db_help)
    models_cmd = sub.add_parser("models", help="list the GGUF model files Rill knows",
                                description="List the model files Rill knows (the models folder, files "
                                            "opened or added before, the default model), as Model › "
                                            "Manage Models… shows them, with what each file's header says.")
    models_cmd.add_argument("--json", action="store_true", help="print a JSON list")
    models_cmd.add_argument("--n-ctx", type=int, default=None, metavar="N",
                            help="estimate the memory for this context size (default: Rill's, 4096)")
    from app.hub_cli import add_hub_commands

    add_hub_commands(sub)
    return parser


# -- the store commands (no Qt) ------------------------------------------------------------

STORE_COMMANDS = ("export", "import", "search")


class _Failed(Exception):
    """A plain message for the user; the command exits with status 1."""


def _open_store(db: str | None, *, write: bool) -> Store:
    """The store at ``--db`` (default: the app's), or ``_Failed`` with a plain
    message. Reading (export, search) never changes the data dir: a missing,
    damaged, foreign, older or newer file is left exactly as it is and the
    command fails (``Store.open_read_only``). Writing (import) opens it as the
    app does, but never touches a newer Rill's file and fails on a read-only one."""
    import sqlite3
    from pathlib import Path

    import app.core.store as store_module

    path = Path(db).expanduser() if db else store_module.default_path()
    if not write:
        if not path.exists():
            raise _Failed(f"No conversation database at {path} (nothing saved yet, or --db points elsewhere).")
        result = store_module.Store.open_read_only(path)
        for notice in result.notices:
            print(f"rill: {without_controls(notice)}", file=sys.stderr)
        if result.store is None:
            raise _Failed(f"Cannot read the conversation database {path}" + (" (see above)." if result.notices else "."))
        return result.store
    if path.is_dir():
        raise _Failed(f"{path} is a folder, not a conversation database.")
    if path.exists():
        try:  # a newer Rill's file is refused before the store even probes it
            conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            finally:
                conn.close()
        except sqlite3.Error:
            version = 0  # the store says what is wrong with it
        if version > store_module.SCHEMA_VERSION:
            raise _Failed(f"The conversation database {path} was written by a newer version of Rill (format "
                          f"{version}; this one knows format {store_module.SCHEMA_VERSION} and older). It has "
                          "been left untouched: update Rill to use it.")
    # recover=False: the app may be running and streaming into this very file (a reply left
    # streaming reads as interrupted only when no Rill holds the data dir: Store.open).
    opened = store_module.Store.open(path, recover=False)
    notices = list(opened.notices)
    if opened.store is not None and opened.read_only and notices:
        notices.pop()  # "…is read-only: your history is shown…": the app's wording, said below if it matters
    for notice in notices:
        print(f"rill: {without_controls(notice)}", file=sys.stderr)
    if opened.store is None:
        raise _Failed(f"Cannot use the conversation database {path}" + (" (see above)." if notices else "."))
    if opened.read_only:
        opened.store.close()
        raise _Failed(f"The conversation database {path} cannot be written (a read-only file or folder). "
                      "Nothing was imported.")
    return opened.store


def _write_atomically(path_text: str, write: Callable[[TextIO], object]) -> None:
    import os
    import tempfile
    from pathlib import Path

    path = Path(path_text).expanduser()
    folder = path.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise _Failed(f"Cannot write {path}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            write(out)
        os.replace(tmp, path)
    except OSError as exc:
        raise _Failed(f"Cannot write {path}: {exc.strerror or exc}.") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _progress_printer(enabled: bool) -> Callable[[float], None] | None:
    """``progress(fraction)`` printing ``progress P`` (whole percent, each once) on stderr."""
    if not enabled:
        return None
    last = [-1]

    def report(fraction: float) -> None:
        percent = int(fraction * 100)
        if percent != last[0]:
            last[0] = percent
            print(f"progress {percent}", file=sys.stderr, flush=True)

    return report


def _writer(fmt: str, theme: str, progress: Callable[[float], None] | None) -> Callable[[Any, Any, TextIO], tuple[int, int]]:
    from app.core.store import exchange
    from app.core.store.exchange import export_html

    if fmt == "html":
        colours = export_html.DARK if theme == "dark" else export_html.LIGHT
        return lambda store, ids, out: exchange.write_html(store, ids, out, colours, progress)
    return exchange.write_markdown if fmt == "md" else exchange.write_json


def _export_pdf(store: Any, ids: list[str] | None, output: str,
                progress: Callable[[float], None] | None) -> tuple[int, int]:
    """The PDF export (Qt draws it: an offscreen application is made for it)."""
    import os
    from pathlib import Path

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PyQt6.QtGui import QGuiApplication

    from app.ui.misc.fonts import install_bundled_fonts
    from app.ui.services.pdf_export import write_pdf

    app = QGuiApplication.instance() or QGuiApplication(["rill"])
    assert isinstance(app, QGuiApplication)
    install_bundled_fonts(app)
    path = Path(output).expanduser()
    try:
        return write_pdf(store, ids, path, progress)
    except OSError as exc:
        raise _Failed(f"Cannot write {path}: {exc.strerror or exc}.") from None


def _print_job(args: argparse.Namespace) -> Any:
    """The ``--printer`` options as a ``PrintJob``, or ``_Failed``."""
    from app.ui.services.printing import PrintJob

    first = last = 0
    if args.pages:
        start, _, end = args.pages.partition("-")
        try:
            first, last = int(start or 1), int(end or 0)
        except ValueError:
            raise _Failed(f"--pages wants FROM-TO, e.g. 2-5 (not {args.pages!r}).") from None
        if first < 1 or (last and last < first):
            raise _Failed(f"--pages {args.pages}: the pages are counted from 1, FROM before TO.")
    if args.copies < 1:
        raise _Failed("--copies must be at least 1.")
    return PrintJob(args.printer, args.copies, first, last, args.landscape, args.grayscale, args.duplex, args.paper)


def _print(store: Any, ids: list[str] | None, job: Any, progress: Callable[[float], None] | None) -> tuple[int, int]:
    """Print the PDF export's page on ``job``'s printer (an offscreen Qt application)."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PyQt6.QtGui import QGuiApplication

    from app.ui.misc.fonts import install_bundled_fonts
    from app.ui.services.printing import PrintError, print_conversations, printer_for

    app = QGuiApplication.instance() or QGuiApplication(["rill"])
    assert isinstance(app, QGuiApplication)
    install_bundled_fonts(app)
    try:
        return print_conversations(store, ids, printer_for(job), progress)
    except PrintError as exc:
        raise _Failed(str(exc)) from None


def _cmd_export(args: argparse.Namespace) -> int:
    from app.core.store import exchange

    fmt = args.format
    if args.printer is not None:
        if fmt not in (None, "pdf") or args.output:
            raise _Failed("--printer prints the PDF export's pages: it takes neither -o nor another --format.")
        job = _print_job(args)
        ids = None if args.all or not args.conversation else args.conversation
        store = _open_store(args.db, write=False)
        try:
            exchange.resolve_conversations(store, ids)
            n_conv, n_msg = _print(store, ids, job, _progress_printer(args.progress))
        except exchange.UnknownConversationError as exc:
            raise _Failed(str(exc).capitalize() + ".") from None
        finally:
            store.close()
        print(f"Sent {n_conv} conversation{'s' * (n_conv != 1)} ({n_msg} messages on the current branches) "
              f"to the printer {args.printer}.", file=sys.stderr)
        return 0
    if fmt is None:
        suffix = (args.output or "").lower().rsplit(".", 1)[-1]
        fmt = {"md": "md", "markdown": "md", "html": "html", "htm": "html", "pdf": "pdf"}.get(suffix, "json")
    if fmt == "pdf" and not args.output:
        raise _Failed("A PDF export needs a file: add -o PATH.")
    ids = None if args.all or not args.conversation else args.conversation
    store = _open_store(args.db, write=False)
    try:
        exchange.resolve_conversations(store, ids)  # fail before creating any file
        if fmt == "pdf":
            n_conv, n_msg = _export_pdf(store, ids, args.output, _progress_printer(args.progress))
            print(f"Exported {n_conv} conversation{'s' * (n_conv != 1)} ({n_msg} messages on the current "
                  f"branches) to {args.output}.", file=sys.stderr)
            return 0
        write = _writer(fmt, args.theme, _progress_printer(args.progress))
        if args.output:
            counts: list[tuple[int, int]] = []
            _write_atomically(args.output, lambda out: counts.append(write(store, ids, out)))
            n_conv, n_msg = counts[0]
            what = "messages" if fmt == "json" else "messages on the current branches"
            print(f"Exported {n_conv} conversation{'s' * (n_conv != 1)} ({n_msg} {what}) to {args.output}.",
                  file=sys.stderr)
        else:
            write(store, ids, sys.stdout)
            sys.stdout.flush()
    except exchange.UnknownConversationError as exc:
        raise _Failed(str(exc).capitalize() + ".") from None
    finally:
        store.close()
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from app.core.store import exchange

    name = "standard input" if args.path == "-" else args.path
    try:
        if args.path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise _Failed(f"Cannot read {name}: {exc.strerror or exc}.") from None
    try:
        parsed = exchange.parse_export(exchange.decode_bytes(data))  # every check, before the database opens
    except exchange.ImportFormatError as exc:
        raise _Failed(f"{name}: {exc}\nNothing was imported.") from None
    store = _open_store(args.db, write=True)
    try:
        result = exchange.import_parsed(store, parsed)
    except Exception as exc:  # noqa: BLE001 - a database failure: the transaction was rolled back
        raise _Failed(f"Import failed, nothing was imported: {exc}") from None
    finally:
        store.close()
    copies = dict(result.copies)
    new_ids = {new: old for old, new in copies.items()}
    print(f"Imported {result.conversations} conversation{'s' * (result.conversations != 1)} "
          f"({result.messages} message{'s' * (result.messages != 1)}) from {name}.")
    for cid, title, count in zip(result.conversation_ids, result.titles, result.message_counts, strict=False):
        line = f"  {without_controls(cid)}  {without_controls(title) or '(untitled)'}  ({count} message{'s' * (count != 1)})"
        if cid in new_ids:
            line += f"  [a copy: {without_controls(new_ids[cid])} already existed]"
        print(line)
    for notice in result.notices:
        print(f"rill: {without_controls(notice)}", file=sys.stderr)
    return 0


def _plain_snippet(snippet: str) -> tuple[str, list[list[int]]]:
    """The snippet without the store's \\x02 … \\x03 marks, and the marked spans."""
    text, spans, start = [], [], None
    n = 0
    for ch in snippet:
        if ch == "\x02":
            start = n
        elif ch == "\x03":
            if start is not None:
                spans.append([start, n])
            start = None
        else:
            text.append(ch)
            n += 1
    return "".join(text), spans


def _cmd_search(args: argparse.Namespace) -> int:
    import json
    import time

    if not args.text.strip():
        raise _Failed("Give some text to search for.")
    if args.limit < 1:
        raise _Failed("--limit must be at least 1.")
    store = _open_store(args.db, write=False)
    try:
        hits = store.search(args.text, args.limit)
    finally:
        store.close()
    if args.json:
        out = []
        for hit in hits:
            snippet, spans = _plain_snippet(hit.snippet)
            out.append({"conversation_id": hit.conversation_id, "conversation_title": hit.conversation_title,
                        "message_id": hit.message_id, "role": hit.role, "created_at": hit.created_at,
                        "snippet": snippet, "matches": spans})
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print(f"No messages match {args.text!r}.", file=sys.stderr)
        return 0
    import os

    # Matches in [brackets]; on a terminal, highlighted instead (unless NO_COLOR).
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    mark_on, mark_off = ("\x1b[1;7m", "\x1b[0m") if color else ("[", "]")
    for hit in hits:
        who = "You" if hit.role == "user" else "Rill"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.created_at))
        snippet = without_controls(" ".join(hit.snippet.split()), keep="\x02\x03")  # no escapes from the text
        snippet = snippet.replace("\x02", mark_on).replace("\x03", mark_off)
        title = without_controls(hit.conversation_title) or "(untitled)"
        print(f"{title}  (conversation {without_controls(hit.conversation_id)})")
        print(f"  {who}, {when}, message {without_controls(hit.message_id)}:")
        print(f"    {snippet}")
    return 0


def run_store_command(args: argparse.Namespace) -> int:
    utf8_std_streams()
    command = {"export": _cmd_export, "import": _cmd_import, "search": _cmd_search}[args.command]
    try:
        return command(args)
    except _Failed as exc:
        print(f"rill {args.command}: {without_controls(str(exc), one_line=False)}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `rill export | head`
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:  # writing to standard output failed (a full disk...)
        print(f"rill {args.command}: {exc.strerror or exc}.", file=sys.stderr)
        return 1
    except Exception as exc:  # a database error: say it plainly, no traceback
        import sqlite3

        from app.core.store import StoreError

        if not isinstance(exc, (sqlite3.Error, StoreError)):
            raise
        print(f"rill {args.command}: the conversation database failed: {without_controls(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def run_models_command(args: argparse.Namespace) -> int:
    """``rill models [--json]``: app.core.models.catalog's list (no Qt)."""
    import json

    from app.core.base.settings import user_models_dir
    from app.core.models import catalog as model_catalog
    from app.core.models.paths import DEFAULT_N_CTX

    utf8_std_streams()
    n_ctx = args.n_ctx or DEFAULT_N_CTX
    if n_ctx < 1:
        print("rill models: --n-ctx must be at least 1.", file=sys.stderr)
        return 1
    try:
        entries = model_catalog.scan()
        available = model_catalog.available_memory()
        if args.json:
            print(json.dumps([e.to_dict(n_ctx, available) for e in entries], ensure_ascii=False, indent=2))
        elif not entries:
            print("No models found. Put .gguf files in "
                  f"{user_models_dir()} or open one in Rill.", file=sys.stderr)
        else:
            for entry in entries:
                print("\n".join(model_catalog.describe(entry, n_ctx, available)))
    except BrokenPipeError:  # `rill models | head`
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command in STORE_COMMANDS:
        return run_store_command(args)  # before anything imports Qt
    if args.command == "models":
        return run_models_command(args)  # no Qt either
    if args.command in ("search-models", "pull"):
        from app.hub_cli import run_hub_command

        return run_hub_command(args)  # no Qt either
    from app.application import backend_from_args, create_window, make_application, use_offscreen_without_display

    if args.backend in ("openai", "ollama"):
        from app.core.backends.remote.servers import ServerConfigError

        try:
            backend_from_args(args)  # validates the server options; no network yet
        except ServerConfigError as exc:
            print(f"rill: {exc}", file=sys.stderr)
            return 2
    if args.command == "doctor":
        use_offscreen_without_display()
        from app.doctor import run_doctor

        return run_doctor(args)
    use_offscreen_without_display()
    app = make_application()
    from app.core.config.appearance import load_appearance
    from app.ui.misc.i18n import install_translations

    # The system's language, or the one chosen in Settings (before any window).
    install_translations(app, load_appearance().language)
    from app.ui.misc.fonts import install_bundled_fonts

    install_bundled_fonts(app)  # the executable's CJK and emoji fonts (a checkout has none)
    from app.ui.misc.single_instance import claim_single_instance

    instance = claim_single_instance(app)
    if instance is None:
        return 0  # another Rill on this data dir was brought forward instead
    from app.application import backend_choice_from_args, startup_choice

    # No backend option and no --model: the model chosen last in the Model menu.
    choice = startup_choice() if args.backend is None and not args.model else None
    if choice is not None:
        window = create_window(choice.factory, choice.description, backend=choice.backend)
    else:
        window = create_window(*backend_from_args(args), backend=backend_choice_from_args(args))
    instance.attach(window)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
