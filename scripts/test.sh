#!/usr/bin/env bash
# Install Rill with its test extras (if needed) and run the test suite
# offscreen. Extra arguments go to pytest, e.g. `scripts/test.sh -m "not model"`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh test
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest -m "not frozen" "$@"
