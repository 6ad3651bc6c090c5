"""The composition root: the QApplication, the services (``AppServices``)
and the main window they are injected into."""

from __future__ import annotations

import argparse
import os
import sys
from typing import NamedTuple

from PyQt6.QtCore import QCoreApplication, QTimer
from PyQt6.QtWidgets import QApplication

from app import __version__
from app.core.base import settings
from app.core.factory import BackendFactory, local_factory, remote_factory, scripted_factory
from app.ui.misc.crash_guard import install_crash_guard
from app.ui.misc.lazy_types import touch_lazy_types
from app.ui.misc.teardown import install_ordered_teardown
from app.ui.services import collector
from app.ui.services.lifecycle import AppServices
from app.ui.window.main_window import MainWindow
from app.ui.window.model_choice import LAST_BACKEND_KEY
from app.ui.window.model_menu import LOCAL, server_choice


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
    install_crash_guard(app)  # type: ignore[arg-type]  # instance() is typed QCoreApplication; Rill makes a QApplication
    install_ordered_teardown()  # Rill's objects are deleted at exit before PyQt's clean-up walks them
    collector.enable()  # start-up objects leave the garbage collector's walks (app.ui.services.collector)
    return app  # type: ignore[return-value]  # as above


def backend_from_args(args: argparse.Namespace) -> tuple[BackendFactory, str]:
    """The backend the command line asks for. Raises ServerConfigError (a
    message for the user) when a server option is unusable."""
    if args.backend == "scripted":
        return scripted_factory(rate=args.rate, text_file=args.text_file)
    if args.backend in ("openai", "ollama"):
        return remote_factory_from_args(args)
    return local_factory(args.model)


def remote_factory_from_args(args: argparse.Namespace) -> tuple[BackendFactory, str]:
    from app.core.backends.remote.servers import DEFAULT_STALL_S, DEFAULT_URLS, ServerConfig
    from app.core.factory import remote_factory

    kind = args.backend
    url = getattr(args, "base_url", None) or DEFAULT_URLS[kind]
    stall = getattr(args, "stall_timeout", None) or DEFAULT_STALL_S
    #: The name of a server given by command-line options, inside its error messages and model name.
    name = QCoreApplication.translate("Application", "the server")
    server = ServerConfig(name=name, kind=kind, base_url=url, id="command-line", stall_s=stall).validated()
    key_env = getattr(args, "api_key_env", "") or ""
    key = os.environ.get(key_env, "") if key_env else ""
    return remote_factory(server, getattr(args, "api_model", "") or "", api_key=key)


class StartupChoice(NamedTuple):
    """The backend remembered from the last session (``startup_choice``)."""

    factory: BackendFactory
    description: str
    #: The ``last_backend`` value it came from: pass it to create_window(backend=...).
    backend: dict[str, str]


def startup_choice() -> StartupChoice | None:
    """The remote backend to start with: the server model chosen last
    (settings ``last_backend``) when that server is still configured; None
    otherwise (the last choice was the local model, nothing was recorded, or
    the server was removed): start with the local model then.

    Reads the settings file only; no network, no keyring (the factory reads
    the key on the inference thread)."""
    from app.core.backends.remote.servers import load_servers

    value = settings.load_settings().get(LAST_BACKEND_KEY)
    if not isinstance(value, dict) or value.get("kind") != "server":
        return None
    server_id, model = value.get("server_id"), value.get("model") or ""
    if not isinstance(server_id, str) or not isinstance(model, str):
        return None
    server = next((s for s in load_servers() if s.id == server_id), None)
    if server is None:
        return None
    factory, description = remote_factory(server, model)
    return StartupChoice(factory, description, server_choice(server.id, model))


def backend_choice_from_args(args: argparse.Namespace) -> dict[str, str] | None:
    """What the command line's backend is in the Model menu: the local model,
    or None (scripted, or a server given by options, not a configured one)."""
    return dict(LOCAL) if (getattr(args, "backend", None) or "local") == "local" else None


def create_window(
    factory: BackendFactory, description: str, persist: bool = True, backend: dict[str, str] | None = None
) -> MainWindow:
    """The main window with its model loading in the background. With
    ``persist=False`` nothing is read from or written to the history (doctor).
    ``backend``: what ``factory`` is in the Model menu (``{"kind": "local"}``,
    ``StartupChoice.backend``), checked there once it has loaded; None: nothing
    is checked until the user chooses."""
    window = MainWindow(AppServices(persist=persist), persist=persist)
    window.model_open_requested.connect(
        lambda path: window.chat.load_model(*local_factory(path))
    )
    window.local_model_requested.connect(lambda: window.chat.load_model(*local_factory(None)))
    window.remote_model_requested.connect(
        lambda server, model: window.chat.load_model(*remote_factory(server, model))
    )
    if backend is not None:
        window.expect_load(description, backend, remember=False)
    window.chat.load_model(factory, description)
    collector.freeze_after_first(window.chat.model_ready)  # the first model's modules too
    # A long conversation's messages, then its items, leave the collector's walks too.
    window.chat.conversation_shown.connect(lambda conv: collector.settle_long(len(conv.messages)))
    window.view.history_completed.connect(lambda: collector.settle_long(window.view.item_count()))
    QTimer.singleShot(0, lambda: warm_up(window))
    return window


def warm_up(window: MainWindow) -> None:
    """Pay one-time costs (Markdown instance, lexers, fonts, PyQt's lazy
    enums) at start-up idle.
    Runs once per window; later calls return at once."""
    if window.property("rill_warmed_up"):
        return
    window.setProperty("rill_warmed_up", True)
    from app.core.backends.scripted import SAMPLE_MARKDOWN
    from app.core.render import markdown as render

    render.warm_up()
    window.view.warm_up(SAMPLE_MARKDOWN)
    touch_lazy_types()  # PyQt's lazy enums: out of the first Enter
    collector.freeze_long_lived()
