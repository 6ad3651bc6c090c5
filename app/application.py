"""Creating the QApplication and the wired-up main window."""

from __future__ import annotations

import argparse
import os
import sys

from PyQt6.QtCore import QTimer
from PyQt6.QtWidgets import QApplication

from app import __version__
from app.core.factory import BackendFactory, local_factory, scripted_factory
from app.ui.crash_guard import install_crash_guard
from app.ui.main_window import MainWindow


def use_offscreen_without_display() -> None:
    """Qt's xcb plugin aborts with no display: fall back to offscreen."""
    if (
        sys.platform.startswith("linux")
        and not os.environ.get("QT_QPA_PLATFORM")
        and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def make_application(argv: list[str] | None = None) -> QApplication:
    # Every ctypes call into llama.cpp releases the GIL and then waits up to
    # the switch interval to get it back while the GUI thread runs Python:
    # 5 ms (the default) cut decode from 39 to 22 tok/s with a busy GUI here,
    # and made the GUI's worst stall 12 ms instead of 2.6 ms (benchmarks/threads.py).
    sys.setswitchinterval(0.001)
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("Rill")
    app.setApplicationVersion(__version__)
    app.setOrganizationName("Rill")
    # An exception escaping a slot would otherwise abort the process (PyQt6
    # calls qFatal without a sys.excepthook): log it, tell the user, carry on.
    # Once per process; later calls get the same guard.
    install_crash_guard(app)  # type: ignore[arg-type]
    return app  # type: ignore[return-value]


def backend_from_args(args: argparse.Namespace) -> tuple[BackendFactory, str]:
    """The backend the command line asks for. Raises ServerConfigError (a
    message for the user) when a server option is unusable."""
    if args.backend == "scripted":
        return scripted_factory(rate=args.rate, text_file=args.text_file)
    if args.backend in ("openai", "ollama"):
        return remote_factory_from_args(args)
    return local_factory(args.model)


def remote_factory_from_args(args: argparse.Namespace) -> tuple[BackendFactory, str]:
    from app.core.factory import remote_factory
    from app.core.remote.servers import DEFAULT_STALL_S, DEFAULT_URLS, ServerConfig

    kind = args.backend
    url = getattr(args, "base_url", None) or DEFAULT_URLS[kind]
    stall = getattr(args, "stall_timeout", None) or DEFAULT_STALL_S
    server = ServerConfig(name="the server", kind=kind, base_url=url, id="command-line", stall_s=stall).validated()
    key_env = getattr(args, "api_key_env", "") or ""
    key = os.environ.get(key_env, "") if key_env else ""
    return remote_factory(server, getattr(args, "api_model", "") or "", api_key=key)


def create_window(factory: BackendFactory, description: str, persist: bool = True) -> MainWindow:
    """The main window with its model loading in the background. With
    ``persist=False`` nothing is read from or written to the history (doctor)."""
    window = MainWindow(persist=persist)
    window.model_open_requested.connect(
        lambda path: window.chat.load_model(*local_factory(path))
    )
    window.chat.load_model(factory, description)
    QTimer.singleShot(0, lambda: warm_up(window))
    return window


def warm_up(window: MainWindow) -> None:
    """Pay one-time costs (Markdown instance, lexers, fonts) at start-up idle.
    Runs once per window; later calls return at once."""
    if window.property("rill_warmed_up"):
        return
    window.setProperty("rill_warmed_up", True)
    from app.core import render
    from app.core.scripted import SAMPLE_MARKDOWN

    render.warm_up()
    window.view.warm_up(SAMPLE_MARKDOWN)
