"""The README's measured tables, from benchmark JSON files, so no figure is typed by hand.

    python -m benchmarks.report m2.json m3.json m6.json h2.json

Each file is one `python -m benchmarks.scan ... --json FILE` run; each becomes a column
headed by its set (sides, level, seed). The line above the table names the date, commit
and machine the runs recorded.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.scan import ROWS

# The rows a reader of the README needs; the rest stay in the benchmark's own output.
README_ROWS = (
    "photos", "failed", "cell_accuracy", "flagged_per_sheet", "sheets_with_silent_errors",
    "payout_right", "payout_right_nothing_to_review", "payout_certain", "certain_wrong",
    "deciding_per_sheet", "answers_mean", "scan_median_s", "scan_p95_s", "scan_over_decode")


def column_name(meta: dict[str, Any]) -> str:
    sides = f"{meta['players']} sides" if meta.get("players") else "2-5 sides"
    source = "" if meta.get("source", "mnist") == "mnist" else f", {meta['source']}"
    return f"{sides}, {meta.get('level', '?')}{source} (seed {meta.get('seed')})"


def markdown(runs: list[dict[str, Any]], recognizer: str = "default") -> str:
    labels = {key: (label, fmt) for key, label, fmt in ROWS}
    metas = [r.get("meta", {}) for r in runs]
    facts = {(m.get("date"), m.get("commit"), m.get("machine")) for m in metas}
    head = "; ".join(f"measured {d} at commit {c} on {m}" for d, c, m in sorted(
        facts, key=str))
    lines = [head[0].upper() + head[1:] + ".", "",
             "| | " + " | ".join(column_name(m) for m in metas) + " |",
             "|---|" + "---|" * len(runs)]
    for key in README_ROWS:
        label, fmt = labels[key]
        cells = []
        for run in runs:
            value = run["summary"].get(recognizer, {}).get(key)
            cells.append("n/a" if value is None or value != value else fmt.format(value))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", type=Path, nargs="+", help="benchmarks.scan --json files")
    p.add_argument("--recognizer", default="default")
    args = p.parse_args(argv)
    try:
        runs = [json.loads(path.read_text(encoding="utf-8")) for path in args.runs]
    except (OSError, ValueError) as err:
        print(f"benchmarks.report: cannot read a run ({err})", file=sys.stderr)
        return 2
    print(markdown(runs, args.recognizer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
