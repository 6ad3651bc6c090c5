#!/usr/bin/env bash
# Install Rill (if needed) plus matplotlib, then run the benchmark suite.
# Extra arguments go to `python -m benchmarks`, e.g.
#   scripts/bench.sh --quick              # ~5 minutes on 2 cores
#   scripts/bench.sh --out /tmp/bench     # full run (~30 minutes)
# Results: bench-out/results.json, bench-out/report.md and PNG plots.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
.venv/bin/python -m pip install --quiet "matplotlib>=3.8"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec .venv/bin/python -m benchmarks "$@"
