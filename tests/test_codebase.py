"""The codebase as a reader meets it: functions short enough to hold in one's head."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FUNCTION_LINES = 60
# tools/ holds one-off scripts (training, data preparation); hidden folders hold
# virtual environments and caches; build/ and dist/ are packaging output.
SKIP_DIRS = {"tools", "build", "dist", "node_modules", "__pycache__"}


def _python_files() -> list[Path]:
    out = []
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts[:-1]
        if any(p in SKIP_DIRS or p.startswith(".") or p.endswith(".egg-info") for p in parts):
            continue
        out.append(path)
    return sorted(out)


def _long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
            f"({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


def test_the_walk_finds_the_packages_and_the_tests() -> None:
    found = {p.relative_to(ROOT).parts[0] for p in _python_files()}
    assert {"scan", "sheets", "scoring", "samples", "web", "escalero", "benchmarks",
            "tests"} <= found
    assert "tools" not in found


def test_no_function_is_over_60_lines() -> None:
    long = [line for path in _python_files() for line in _long_functions(path)]
    assert not long, (f"functions over {MAX_FUNCTION_LINES} lines (split them): "
                      + "; ".join(long))
