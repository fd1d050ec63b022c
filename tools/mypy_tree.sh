#!/usr/bin/env bash
# The tree mypy reads (pyproject.toml, [tool.mypy]): build/mypy/escalero holds links to
# escalero/*.py and to the folders scan/, sheets/, scoring/, samples/ and web/, so the
# checkout has the shape of the installed package (escalero.scan, ...), which mypy cannot
# map otherwise (escalero/__init__.py extends its __path__ at run time).
set -euo pipefail
cd "$(dirname "$0")/.."
tree=build/mypy/escalero
rm -rf build/mypy/escalero
mkdir -p "$tree"
for f in escalero/*.py; do ln -s "../../../$f" "$tree/"; done
for d in scan sheets scoring samples web; do ln -s "../../../$d" "$tree/$d"; done
