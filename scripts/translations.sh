#!/usr/bin/env bash
# Update the translation sources and rebuild the compiled catalogues.
#   1. pylupdate6 (PyQt6's Qt Linguist extractor) reads every tr()/translate()
#      string of app/ into resources/i18n/rill_<lang>.ts, keeping the
#      translations already made and dropping strings no longer in the code.
#   2. Translate the new entries (Qt Linguist, or any editor: remove
#      type="unfinished" once done).
#   English gets rill_en.ts: only the plural messages ("%n page(s)" -> "1 page",
#   "2 pages"), written by scripts/english_plurals.py.
#   3. lrelease compiles each .ts into the .qm the app loads. PyQt6 ships no
#      lrelease; this uses PySide6-Essentials' (same Qt, same .qm format),
#      installed once into .venv-tools (not into the app's venv), or an
#      lrelease already on PATH (Debian: qt6-l10n-tools).
# tests/ui/misc/test_translations.py fails when a .ts is behind the code, has
# unfinished or obsolete entries, or when a .qm differs from its .ts.
#   scripts/translations.sh            extract + compile
#   scripts/translations.sh --compile  compile only
set -euo pipefail
cd "$(dirname "$0")/.."
LANGS="zh_CN"
if [ "${1:-}" != "--compile" ]; then
  for lang in $LANGS; do
    .venv/bin/pylupdate6 --no-obsolete --ts "resources/i18n/rill_$lang.ts" app
  done
  # English: only the plural messages, with their singular and plural forms
  extracted="$(mktemp --suffix=.ts)"
  rm -f "$extracted"
  .venv/bin/pylupdate6 --no-obsolete --no-summary --ts "$extracted" app
  .venv/bin/python scripts/english_plurals.py "$extracted" resources/i18n/rill_en.ts
  rm -f "$extracted"
fi
if command -v lrelease >/dev/null 2>&1; then
  LRELEASE=lrelease
else
  if [ ! -x .venv-tools/bin/pyside6-lrelease ]; then
    python3 -m venv .venv-tools
    .venv-tools/bin/python -m pip install --quiet "PySide6-Essentials>=6.5"
  fi
  LRELEASE=.venv-tools/bin/pyside6-lrelease
fi
for lang in $LANGS en; do
  "$LRELEASE" -silent "resources/i18n/rill_$lang.ts" -qm "resources/i18n/rill_$lang.qm"
done
echo "translations: $(ls resources/i18n/*.qm | tr '\n' ' ')"
