#!/usr/bin/env bash
# Set up (tools/setup.sh) and run the whole test suite: lint, type check, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "== ruff"
.venv/bin/ruff check .
echo "== mypy"
bash tools/mypy_tree.sh
.venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest -q "$@"
