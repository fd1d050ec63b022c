"""Per-sheet adaptation (scan/adapt.py) cell by cell on fresh photos with known truth.

    python -m benchmarks.adapt --n 80 --level mild --players 3 --seed 913202

Each photo is read once without adaptation; the readings and features are then adapted
as the scanner does, and every cell compared with its truth *before* the written totals
are consulted (those are a separate check). Reported: unsure cells, the cells adaptation
made certain (flags it removes at the reading stage), and how many of those are wrong
(the figure that must be 0). Photos are made and cached as in benchmarks.scan.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from escalero.samples.make_photos import comparable, truth_cells
from escalero.scan.adapt import AdaptParams, adapt
from escalero.scan.recognize import Capability, DigitModelRecognizer

from benchmarks.scan import SEED_BASE, make_photos, photo_dir


@dataclass(frozen=True)
class SheetCells:
    readings: tuple[Any, ...]
    features: np.ndarray
    allowed: tuple[Any, ...]
    truth: tuple[Any, ...]


class _Recorder:
    """A recognizer that reads as the default one and keeps what it read."""

    capabilities = frozenset({Capability.CALIBRATED})

    def __init__(self, inner: DigitModelRecognizer) -> None:
        self.inner, self.name, self.calibration = inner, inner.name, inner.calibration
        self.last: tuple[list[Any], np.ndarray | None, list[Any]] | None = None

    def available(self) -> bool:
        return self.inner.available()

    def read(self, crops: Any) -> list[Any]:
        readings, feats = self.inner.read_with_features(crops)
        self.last = (readings, feats, [c.allowed for c in crops])
        return readings


def collect(paths: list[Path]) -> list[SheetCells]:
    from escalero.scan.pipeline import ScanOptions, scan_photo
    from escalero.scoring.errors import EscaleroError

    rec = _Recorder(DigitModelRecognizer())
    sheets = []
    for k, path in enumerate(paths):
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        if truth["sheet"] is None:
            continue
        try:
            result = scan_photo(str(path), ScanOptions(adapt=False), recognizer=rec)
        except EscaleroError:
            continue
        assert rec.last is not None and rec.last[1] is not None
        readings, feats, allowed = rec.last
        want = truth_cells(truth["sheet"])
        cells = tuple(want[(c.side, c.column, c.row)] for c in result.cells)
        sheets.append(SheetCells(tuple(readings), feats, tuple(allowed), cells))
        print(f"\rreading {k + 1}/{len(paths)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return sheets


def measure(sheets: list[SheetCells], params: AdaptParams, threshold: Any) -> dict[str, Any]:
    cells = unsure = made = wrong_made = wrong_certain = 0
    for s in sheets:
        got = adapt(s.readings, s.features,
                    lambda i, v, s=s: threshold(s.allowed[i], v), params)
        cells += len(s.readings)
        unsure += sum(not r.certain for r in s.readings)
        wrong_certain += sum(r.certain and comparable(r.value) != t
                             for r, t in zip(s.readings, s.truth, strict=True))
        made += len(got.made_certain)
        wrong_made += sum(comparable(got.readings[i].value) != s.truth[i] for i in got.made_certain)
    n = max(1, len(sheets))
    return {"sheets": len(sheets), "cells": cells, "unsure_per_sheet": unsure / n,
            "made_certain_per_sheet": made / n, "made_certain": made,
            "wrong_made_certain": wrong_made, "wrong_certain_before": wrong_certain}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.adapt", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=80)
    p.add_argument("--level", choices=("mild", "harsh"), default="mild")
    p.add_argument("--seed", type=int)
    p.add_argument("--players", type=int)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--sweep", action="store_true", help="also try other thresholds")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else SEED_BASE[args.level]
    out = photo_dir(args.level, seed, players=args.players)
    paths, _ = make_photos(args.n, args.level, seed, out, args.jobs, None, "mnist", args.players)
    sheets = collect(paths)
    cal = DigitModelRecognizer().calibration
    grid = [AdaptParams()]
    if args.sweep:
        grid += [AdaptParams(sh, fl, ms) for sh in (20.0, 40.0, 80.0)
                 for fl in (0.5, 0.8) for ms in (0.8, 0.9, 0.95)]
    print(f"benchmarks.adapt: level {args.level}, seed {seed}, "
          f"{args.players or '2-5 (random)'} sides, {len(sheets)} sheets read")
    for params in grid:
        print(params, json.dumps(measure(sheets, params, cal.threshold)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
