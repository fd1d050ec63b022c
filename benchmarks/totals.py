"""The written totals' confirmation rule (scan.cells.ConfirmRule) on fresh photos with known truth.

    python -m benchmarks.totals --n 200 --set mild:2:3710000 mild:6:3740000 \\
        --rule 0.999:0.9 0.995:0.5:0.999:0.9 0.995:0.5:0.999:0.9/none

Each photo is scanned once and the cells as read, before the totals check
(`ScanResult.unchecked`), are kept; the check is then re-run under each rule
(POSTERIOR:FIRST[:P:F], P:F for strikes and empty cells, /S the suspicion above which a
certain entry of a column that does not add up goes to review, scan.cells.TOTALS.suspect if
not given, none for every entry below TotalsSettings.doubt; the first rule is the one
compared against).
Reported per set and rule:
cells flagged per sheet, cells certain and wrong (silent errors), and the readings the rule
makes certain that the first rule does not, with how many of those are wrong (the figure
that must stay 0). A set is LEVEL:SIDES:SEED, or LEVEL:SIDES:SEED:SOURCE for other
writers than MNIST's; photos are made and cached as in benchmarks.scan. The flag for cells
the grid did not place is left out (it does not depend on the rule).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from escalero.samples.make_photos import truth_cells
from escalero.scan.cells import TOTALS, CellResult, ConfirmRule, TotalsSettings, check_totals

from benchmarks.scan import make_photos, photo_dir


@dataclass(frozen=True)
class PhotoSet:
    level: str
    sides: int
    seed: int
    source: str = "mnist"

    @staticmethod
    def parse(spec: str) -> PhotoSet:
        parts = spec.split(":")
        if len(parts) not in (3, 4) or parts[0] not in ("mild", "harsh"):
            raise argparse.ArgumentTypeError(
                f"a set is LEVEL:SIDES:SEED[:SOURCE] with LEVEL mild or harsh, not {spec!r}")
        try:
            return PhotoSet(parts[0], int(parts[1]), int(parts[2]), *parts[3:])
        except ValueError as err:
            raise argparse.ArgumentTypeError(f"{spec!r}: sides and seed are numbers") from err

    def __str__(self) -> str:
        src = "" if self.source == "mnist" else f", {self.source}"
        return f"{self.sides} sides {self.level}, seed {self.seed}{src}"


@dataclass(frozen=True)
class Rule:
    """What the totals check is run with: the confirmation rule and the suspicion above
    which a certain entry of a column that does not add up goes to review."""

    confirm: ConfirmRule
    suspect: float | None = TOTALS.suspect  # None: every entry below TOTALS.doubt

    @property
    def settings(self) -> TotalsSettings:
        return replace(TOTALS, confirm=self.confirm, suspect=self.suspect)


STRICT = Rule(ConfirmRule(0.999, 0.9, 0.999, 0.9))  # one rule for numbers and strikes alike


def parse_rule(spec: str) -> Rule:
    """POSTERIOR:FIRST for numbers and strikes alike, or POSTERIOR:FIRST:P:F with P:F for
    strikes and empty cells; either followed by /SUSPECT (a number, or none) or not."""
    confirm, _, suspect = spec.partition("/")
    try:
        values = [float(v) for v in confirm.split(":")]
        threshold = (None if suspect == "none" else float(suspect) if suspect
                     else TOTALS.suspect)
    except ValueError:
        values = []
    if len(values) == 2:
        return Rule(ConfirmRule(*values, *values), threshold)
    if len(values) == 4:
        return Rule(ConfirmRule(*values), threshold)
    raise argparse.ArgumentTypeError(
        f"a rule is POSTERIOR:FIRST or POSTERIOR:FIRST:P:F, then /SUSPECT or /none or not, "
        f"not {spec!r}")


def rule_name(rule: Rule) -> str:
    c = rule.confirm
    return (f"{c.posterior}:{c.first}:{c.unwritten_posterior}:{c.unwritten_first}"
            f"/{rule.suspect}")


Sheet = tuple[tuple[CellResult, ...], dict[Any, Any]]  # cells as read, the truth's cells


def read_one(path: Path) -> Sheet | None:
    from escalero.scan.pipeline import ScanOptions, scan_photo
    from escalero.scoring.errors import EscaleroError

    truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    if truth["sheet"] is None:
        return None
    try:
        result = scan_photo(str(path), ScanOptions())
    except EscaleroError:
        return None
    return result.unchecked, truth_cells(truth["sheet"])


def read_all(paths: Sequence[Path], jobs: int) -> list[Sheet]:
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            sheets = list(pool.map(read_one, paths, chunksize=4))
    else:
        sheets = [read_one(p) for p in paths]
    return [s for s in sheets if s is not None]


def measure(sheets: Sequence[Sheet], rules: Sequence[Rule]) -> list[dict[str, Any]]:
    firsts = [check_totals(cells, rules[0].settings)  # compared against
              for cells, _ in sheets]
    out = []
    for rule in rules:
        flagged = silent = made = made_wrong = 0
        for (cells, want), first in zip(sheets, firsts, strict=True):
            checked = check_totals(cells, rule.settings)
            for a, c in zip(first, checked, strict=True):
                key = (c.side, c.column, c.row)
                if key not in want:
                    continue
                right = want[key] == c.value
                flagged += not c.certain
                silent += c.certain and not right
                if c.certain and not a.certain:
                    made += 1
                    made_wrong += not right
        n = max(1, len(sheets))
        out.append({"rule": rule_name(rule), "sheets": len(sheets),
                    "flagged_per_sheet": round(flagged / n, 3), "silent_cells": silent,
                    "certain_beyond_first_rule": made, "of_those_wrong": made_wrong})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.totals", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--set", dest="sets", type=PhotoSet.parse, nargs="+", required=True)
    p.add_argument("--rule", dest="rules", type=parse_rule, nargs="+",
                   default=[STRICT, Rule(ConfirmRule())],
                   help="POSTERIOR:FIRST[:P:F][/SUSPECT|/none] (P:F: strikes and empty cells); "
                        "the first is the one compared against (default: 0.999:0.9, then "
                        "the scanner's own rule)")
    p.add_argument("--n", type=int, default=200, help="photos per set")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", type=Path, help="write the figures here too")
    args = p.parse_args(argv)
    report: dict[str, Any] = {}
    every: list[Sheet] = []
    for s in args.sets:
        out = photo_dir(s.level, s.seed, None, s.source, s.sides)
        paths, _ = make_photos(args.n, s.level, s.seed, out, args.jobs, None, s.source, s.sides)
        sheets = read_all(paths, args.jobs)
        every += sheets
        report[str(s)] = measure(sheets, args.rules)
        print(f"{s} ({len(sheets)} sheets read)")
        for row in report[str(s)]:
            print("  ", json.dumps(row))
    if len(args.sets) > 1:
        report["all sets"] = measure(every, args.rules)
        print(f"all sets ({len(every)} sheets)")
        for row in report["all sets"]:
            print("  ", json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
