#!/usr/bin/env bash
# Install Rill with its test extras (if needed), then check and test it:
#   1. ruff (lint and import order) over the code, the tests and the benchmarks;
#   2. mypy over app/ (strict for the Qt-free core, mypy's defaults for the UI);
#   3. the whole test suite offscreen, the real-model and the frozen-bundle
#      tests included.
# Extra arguments go to pytest, e.g. `scripts/test.sh -m "not model and not frozen"`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh test
echo "ruff: $(.venv/bin/ruff --version)"
.venv/bin/ruff check app tests benchmarks scripts packaging
echo "mypy: $(.venv/bin/mypy --version)"
.venv/bin/mypy
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
