#!/usr/bin/env bash
# Install Rill (if needed) plus matplotlib, then run the benchmark suite.
# Extra arguments go to `python -m benchmarks`, e.g.
#   scripts/bench.sh --quick              # ~6 minutes on 2 cores
#   scripts/bench.sh --out /tmp/bench     # full run (~30 minutes)
#   scripts/bench.sh --only actions       # re-run some suites, keep the rest
# Results: bench-out/results.json, bench-out/report.md (the goals of issue #7
# first: measured value, met or not) and PNG plots.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
.venv/bin/python -m pip install --quiet "matplotlib>=3.8"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec .venv/bin/python -m benchmarks "$@"
