#!/usr/bin/env bash
# Install Rill with its test extras (if needed) and run the whole test suite
# offscreen, the real-model and the frozen-bundle tests included. Extra
# arguments go to pytest, e.g. `scripts/test.sh -m "not model and not frozen"`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh test
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
