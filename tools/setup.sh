#!/usr/bin/env bash
# Set up a fresh Debian machine (Python 3.11) for escalero: system packages and a venv.
# Idempotent: safe to run again. Used by tools/demo.sh, tools/test.sh and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

need_apt=()
command -v tesseract >/dev/null 2>&1 || need_apt+=(tesseract-ocr)
if [ "${ESCALERO_BROWSER:-1}" = "1" ]; then
    command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "== installing system packages: ${need_apt[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv"
    "$PY" -m venv .venv
fi
echo "== installing escalero into .venv"
# Some machines' pip configs name local mirrors that may be absent; those warnings are noise.
quiet() { "$@" 2>&1 | (grep -v "^WARNING: Location" || true); }
quiet .venv/bin/python -m pip install -q --upgrade pip
quiet .venv/bin/python -m pip install -q -c tools/constraints.txt -e ".[dev]"
