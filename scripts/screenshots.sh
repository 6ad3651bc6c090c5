#!/usr/bin/env bash
# Screenshots of the real window under Xvfb, on the scripted backend (so they
# are reproducible): docs/screenshots/*.png. Installs Xvfb, the xcb libraries
# Qt needs and CJK/emoji fonts with apt when they are missing (needs root).
#   scripts/screenshots.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
if ! command -v Xvfb >/dev/null || ! fc-list | grep -qi "Noto Sans CJK"; then
  apt-get update -qq
  apt-get install -y -qq xvfb fonts-noto-cjk fonts-noto-color-emoji >/dev/null  # Qt's xcb libraries: install.sh
fi
display=":$((90 + RANDOM % 9))"
Xvfb "$display" -screen 0 1200x1000x24 >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill $xvfb_pid 2>/dev/null || true' EXIT
sleep 1
# Each scene in a fresh profile: the pictures never show the user's own history.
for args in "--scene main" "--scene main --theme dark" "--scene main --theme dark --lang zh_CN" \
            "--scene thinking" "--scene library" "--scene hub" "--scene math" "--scene math --theme dark" \
            "--scene composer" "--scene attachments"; do
  profile="$(mktemp -d)"
  # shellcheck disable=SC2086 # (the scene's options are words)
  DISPLAY="$display" QT_QPA_PLATFORM=xcb XDG_CONFIG_HOME="$profile/config" XDG_DATA_HOME="$profile/data" \
    .venv/bin/python scripts/screenshots.py $args "$(realpath -m "${1:-docs/screenshots}")"
  rm -rf "$profile"
done
echo "screenshots in ${1:-docs/screenshots}"
