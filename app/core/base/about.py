"""What Help › About Rill shows (Qt-free: the window passes the Qt versions in).

llama-cpp-python is imported lazily, only to describe it: the first import
costs ~0.3 s (it loads numpy, Jinja2 and libllama), so the window runs the blocking
:func:`llama_info` on a background call (``app.ui.services.lifecycle``) unless
a model has already loaded it (:func:`llama_info_if_loaded`). Its absence is described, never raised.
"""

from __future__ import annotations

import html
import logging
import platform
import sys
from dataclasses import dataclass

from app import __version__
from app.core.base import settings
from app.core.base.i18n import QT_TRANSLATE_NOOP, translate

log = logging.getLogger(__name__)

#: The About box's tagline, under "Rill <version>" (shown with ``translate("About", TAGLINE)``).
TAGLINE = QT_TRANSLATE_NOOP("About", "A desktop chat for local language models whose window never freezes.")


@dataclass(frozen=True)
class LlamaInfo:
    """llama-cpp-python and the llama.cpp library it loaded."""

    available: bool
    package_version: str = ""     # llama-cpp-python
    library_version: str = ""     # llama.cpp's libllama (llama_version())
    features: tuple[str, ...] = ()  # enabled build/CPU flags, e.g. AVX2, FMA
    system_info: str = ""         # llama_print_system_info(), verbatim
    error: str = ""               # why it is unavailable


def parse_system_info(text: str) -> tuple[str, ...]:
    """The enabled flags in ``llama_print_system_info()`` output.

    ``"CPU : SSE3 = 1 | AVX = 1 | AVX512 = 0 | OPENMP = 1 | "`` →
    ``("SSE3", "AVX", "OPENMP")``. A ``"BACKEND :"`` prefix on an item is
    dropped; items that are not ``NAME = value`` are ignored."""
    flags: list[str] = []
    for item in text.split("|"):
        if ":" in item:
            item = item.rsplit(":", 1)[1]
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if sep and name and value not in ("", "0") and name not in flags:
            flags.append(name)
    return tuple(flags)


def _decode(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value) if value is not None else ""


def _describe(llama_cpp: object) -> LlamaInfo:
    package = str(getattr(llama_cpp, "__version__", "") or "")
    library = ""
    system = ""
    try:
        library = _decode(llama_cpp.llama_version()).strip()  # type: ignore[attr-defined]  # the module, typed as object
    except Exception as exc:  # noqa: BLE001 - older/other builds lack it
        log.debug("llama_version() unavailable: %s", exc)
    try:
        system = _decode(llama_cpp.llama_print_system_info()).strip()  # type: ignore[attr-defined]  # as above
    except Exception as exc:  # noqa: BLE001 - older/other builds lack it
        log.debug("llama_print_system_info() unavailable: %s", exc)
    return LlamaInfo(
        available=True,
        package_version=package,
        library_version=library,
        features=parse_system_info(system),
        system_info=system,
    )


_cached: LlamaInfo | None = None


def llama_info() -> LlamaInfo:
    """Describe llama-cpp-python, importing it if needed (slow the first
    time: run it off the GUI thread). Computed once, then cached."""
    global _cached
    if _cached is not None:
        return _cached
    try:
        import llama_cpp
    except Exception as exc:  # noqa: BLE001 - ImportError, or a library that fails to load
        info = LlamaInfo(available=False, error=f"{type(exc).__name__}: {exc}")
    else:
        info = _describe(llama_cpp)
    _cached = info
    return info


def llama_info_if_loaded() -> LlamaInfo | None:
    """The description when it costs nothing (already known, or llama_cpp
    already imported, e.g. by a loaded model); None otherwise."""
    if _cached is not None:
        return _cached
    if "llama_cpp" in sys.modules and hasattr(sys.modules["llama_cpp"], "__version__"):
        return llama_info()
    return None


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def about_rows(
    qt_version: str, pyqt_version: str, llama: LlamaInfo | None, model: str = ""
) -> list[tuple[str, str]]:
    """The About box's label/value rows, as plain text."""
    if llama is None:
        llama_row = translate("About", "checking…")
        flags_row = translate("About", "checking…")
    elif not llama.available:
        if llama.error:
            llama_row = translate("About", "not available ({error})").format(error=llama.error)
        else:
            llama_row = translate("About", "not available")
        flags_row = "—"
    else:
        llama_row = f"llama-cpp-python {llama.package_version or '?'}"
        if llama.library_version:
            llama_row += f", libllama {llama.library_version}"
        flags_row = " ".join(llama.features) if llama.features else (llama.system_info or translate("About", "unknown"))
    if is_frozen():
        build = translate("About", "standalone executable (PyInstaller)")
    else:
        build = translate("About", "installed Python package")
    rows = [
        (translate("About", "Version"), __version__),
        ("Qt", f"Qt {qt_version}, PyQt {pyqt_version}"),
        ("Python", f"{platform.python_version()} ({build})"),
        ("llama.cpp", llama_row),
        (translate("About", "CPU build flags"), flags_row),
    ]
    if model:
        rows.append((translate("About", "Model"), model))
    rows.append((translate("About", "Models folder"), str(settings.user_models_dir())))
    rows.append((translate("About", "Settings"), str(settings.settings_path())))
    return rows


def about_text(
    qt_version: str, pyqt_version: str, llama: LlamaInfo | None, model: str = ""
) -> str:
    """The About box as plain text (for logs, bug reports and tests)."""
    lines = [f"Rill {__version__}", translate("About", TAGLINE), ""]
    lines += [f"{label}: {value}" for label, value in about_rows(qt_version, pyqt_version, llama, model)]
    return "\n".join(lines)


def about_html(
    qt_version: str, pyqt_version: str, llama: LlamaInfo | None, model: str = ""
) -> str:
    """The About box as Qt rich text; every value is escaped."""
    rows = "".join(
        f"<tr><td style='padding-right:12px'><b>{html.escape(label)}</b></td>"
        f"<td>{html.escape(value)}</td></tr>"
        for label, value in about_rows(qt_version, pyqt_version, llama, model)
    )
    tagline = translate("About", TAGLINE)
    return (
        f"<h3>Rill {html.escape(__version__)}</h3>"
        f"<p>{html.escape(tagline)}</p>"
        f"<table cellspacing='0' cellpadding='2'>{rows}</table>"
    )
