#!/usr/bin/env bash
# Set up (tools/setup.sh) and run the whole test suite: lint, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "== ruff"
.venv/bin/ruff check .
echo "== pytest"
.venv/bin/python -m pytest -q "$@"
