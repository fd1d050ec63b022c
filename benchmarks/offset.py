"""How the cell reader holds up when a cell's box is off its printed place.

    python -m benchmarks.offset --n 20 --level mild --players 2 --seed 7200000

Scans synthetic photos (samples, evaluation writers), keeps the cells placed on their own
grid lines (uncertainty <= 0.45 mm: their box is where the print is), then moves every box
by d mm in a random direction and reads the cells again. Per offset it prints the cells
read right, the share the reader calls certain, and the certain ones that are wrong: the
window a placement uncertainty may use before a cell must be flagged (scan.grid).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.scan import make_photos, photo_dir, run_facts

OFFSETS_MM = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.offset", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20, help="photos (default 20)")
    p.add_argument("--level", choices=("mild", "harsh", "pub"), default="mild")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=7_200_000)
    p.add_argument("--jobs", type=int, default=2, help="processes that make the photos")
    return p


Tally = dict[tuple[float, str], list[int]]  # (offset, kind) -> cells, right, certain, wrong


def read_moved(path: Path, reader: Any, rng: np.random.Generator, tally: Tally) -> bool:
    """Read one photo's well-placed cells at every offset into `tally`; False if refused."""
    from escalero.samples.make_photos import truth_cells
    from escalero.scan import cells as cells_mod
    from escalero.scan import grid, pipeline
    from escalero.scoring.errors import EscaleroError
    from escalero.scoring.model import TOTAL_ROW

    truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    want = truth_cells(truth["sheet"])
    try:
        result = pipeline.scan_photo(str(path))
    except EscaleroError:
        return False
    rect, geom = result.flat, result.geometry
    snapped = grid.snap_slots(rect, geom, strict=False)
    keep = [k for k, s in enumerate(snapped) if s.uncertainty_mm <= 0.45]
    angles = rng.uniform(0, 2 * math.pi, len(snapped))
    for d in OFFSETS_MM:
        moved = [replace(s, box=(s.box[0] + d * math.cos(a), s.box[1] + d * math.sin(a),
                                 s.box[2], s.box[3]))
                 for s, a in zip(snapped, angles, strict=True)]
        crops = [replace(c, row=None) for c in cells_mod.cut_crops(rect, moved, geom)]
        readings = reader.read([crops[k] for k in keep])
        for cell in cells_mod.to_results([moved[k] for k in keep], readings):
            key = (cell.side, cell.column, cell.row)
            if key not in want:
                continue
            kind = "total" if cell.row == TOTAL_ROW else \
                "empty" if want[key] is None else "written"
            t = tally[d, kind]
            right = cell.value == want[key]
            t[0] += 1
            t[1] += right
            t[2] += cell.certain
            t[3] += cell.certain and not right
    return True


def main(argv: list[str] | None = None) -> int:
    from escalero.scan.recognize import get_recognizer

    args = _parser().parse_args(argv)
    out = photo_dir(args.level, args.seed, None, "mnist", args.players)
    paths, _ = make_photos(args.n, args.level, args.seed, out, args.jobs, None,
                           players=args.players)
    reader = get_recognizer("default")
    rng = np.random.default_rng(args.seed)
    tally: Tally = {(d, kind): [0, 0, 0, 0] for d in OFFSETS_MM
                    for kind in ("empty", "written", "total")}
    used = 0
    for i, path in enumerate(paths):
        print(f"\rreading {i + 1}/{len(paths)}", end="", file=sys.stderr, flush=True)
        used += read_moved(path, reader, rng, tally)
    print(file=sys.stderr)
    print(f"benchmarks.offset: level {args.level}, seed {args.seed}, {used} of {len(paths)} "
          f"photos read, {args.players} sides; {run_facts()}")
    print(f"{'offset mm':>9} {'kind':>7} {'cells':>6} {'right':>7} {'certain':>8} "
          f"{'certain+wrong':>14}")
    for d in OFFSETS_MM:
        for kind in ("empty", "written", "total"):
            n, right, certain, wrong = tally[d, kind]
            if n:
                print(f"{d:9.1f} {kind:>7} {n:6d} {right / n:7.2%} {certain / n:8.2%} "
                      f"{wrong:14d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
