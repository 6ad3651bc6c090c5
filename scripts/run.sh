#!/usr/bin/env bash
# Install Rill (if needed) and open the window on the default model.
# Extra arguments go to rill, e.g. `scripts/run.sh --backend scripted --rate 500`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
exec .venv/bin/rill "$@"
