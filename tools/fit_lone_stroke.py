"""Fit and measure scan.lone_stroke: a lone stroke, 1 or struck, by its geometry.

    .venv/bin/python tools/fit_lone_stroke.py [--fit 24000] [--check 12000] [--out scan/models]

Fits on cells of the Neuner row (1-5 allowed) written by *training* writers of all three
sources, half 1s and half strikes (so the model's prior between them is even; the network's
own leans to struck, which its training cells hold 7 times as often as a lone 1). Measures
on cells by *evaluation* writers, per source, with a played Neuner row's mix (1s, strikes,
2-5, empty): of the cells the model applies to, how many the committed reader accepts with
and without it, and how many of the accepted are wrong. Writes `lone_stroke.json` with the
weights and those figures. Needs no torch: the committed networks read the cells.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from escalero.samples.cell_crops import (  # noqa: E402
    MARGIN_PX,
    narrow_box,
    random_box,
    synth_cell,
)
from escalero.samples.handwriting import make_writer  # noqa: E402
from escalero.scan import lone_stroke  # noqa: E402
from escalero.scan.digit_model import fit_accept  # noqa: E402
from escalero.scan.recognize import CellCrop, DigitModelRecognizer  # noqa: E402

NEUNER = (1, 2, 3, 4, 5)
# A played Neuner row (tools/row_priors.py's games, rounded), a few empty cells added.
# The split cells are accepted where, over all evaluation sources together, this many are
# right: stricter than the network's 99.98%, since this threshold is fitted on a few
# thousand cells of one row and the misreadings it would let through are strikes read as 1.
TARGET = 0.9999
PLAYED = ((1, 0.36), ("x", 0.22), (2, 0.2), (3, 0.12), (4, 0.05), (5, 0.02), (None, 0.03))


def _cells(job: tuple[int, int, str, str, bool]) -> list[tuple[Any, Any, tuple[int, ...]]]:
    n, seed, split, source, fitting = job
    rng = np.random.default_rng(seed)
    values = [v for v, _ in PLAYED]
    shares = np.array([p for _, p in PLAYED])
    out = []
    writer = make_writer(rng, split, source=source)
    for i in range(n):
        if i % 25 == 0:
            writer = make_writer(rng, split, source=source)
        if fitting:
            entry: Any = 1 if rng.random() < 0.5 else "x"
        else:
            entry = values[int(rng.choice(len(values), p=shares / shares.sum()))]
        box = narrow_box(rng) if rng.random() < 0.35 else random_box(rng)
        sample = synth_cell(rng, writer, entry, harsh=rng.random() < 0.35, box_size=box,
                            spill=0.3)
        out.append((sample.image, entry, (MARGIN_PX, MARGIN_PX, box[0], box[1])))
    return out


def make_cells(n: int, seed: int, split: str, source: str, fitting: bool, workers: int
               ) -> list[tuple[Any, Any, tuple[int, ...]]]:
    size = 500
    jobs = [(min(size, n - s), seed * 100003 + s, split, source, fitting)
            for s in range(0, n, size)]
    with multiprocessing.Pool(workers) as pool:
        parts = pool.map(_cells, jobs)
    return [c for p in parts for c in p]


def read(cells: list, reader: DigitModelRecognizer) -> list[tuple[tuple, Any]]:
    crops = [CellCrop(img, NEUNER, box) for img, _, box in cells]
    out = []
    for s in range(0, len(crops), 256):
        out += [r.distribution for r in reader.read(crops[s:s + 256])]
    return out


def log_odds(ranked: list) -> tuple[np.ndarray, np.ndarray]:
    """The network's log-odds of 1 against struck of the cells the model applies to, and
    their indices."""
    index = [i for i, r in enumerate(ranked) if lone_stroke.applies(r, NEUNER)]
    return np.array([lone_stroke.log_odds(ranked[i]) for i in index]), np.array(index, int)


def fit_logistic(x: np.ndarray, y: np.ndarray) -> lone_stroke.LoneStrokeModel:
    """Slope and intercept of a logistic regression on one feature, by Newton's method."""
    z = np.stack([x, np.ones_like(x)], axis=1)
    w = np.array([1.0, 0.0])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -50, 50)))
        grad = z.T @ (p - y)
        hess = (z * (p * (1 - p) + 1e-9)[:, None]).T @ z
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return lone_stroke.LoneStrokeModel(slope=float(w[0]), intercept=float(w[1]))


def split_readings(entries: list, ranked: list, model: lone_stroke.LoneStrokeModel
                   ) -> list[tuple[Any, tuple, tuple]]:
    """(truth, the network's readings, the split readings) of the cells the model applies to."""
    return [(e, r, model.split(r)) for e, r in zip(entries, ranked, strict=True)
            if lone_stroke.applies(r, NEUNER)]


def accept_threshold(cells: list[tuple[Any, tuple, tuple]], floor: float) -> float:
    """The lowest confidence at which the split cells at or above it are TARGET right, over
    all evaluation sources together; never below the network's own threshold."""
    conf = np.array([after[0][1] for _, _, after in cells])
    right = np.array([after[0][0] == truth for truth, _, after in cells])
    return fit_accept(conf, right, TARGET, floor)


def measure(cells: list[tuple[Any, tuple, tuple]], total: int, accept: float, split_accept: float
            ) -> dict[str, int]:
    """Of the cells the model applies to: accepted and wrong, without and with it."""
    stats = {"cells": total, "applies": len(cells), "accepted_before": 0, "wrong_before": 0,
             "accepted_after": 0, "wrong_after": 0, "right_top_before": 0, "right_top_after": 0}
    for truth, before, after in cells:
        for tag, rk, threshold in (("before", before, accept), ("after", after, split_accept)):
            value, conf = rk[0]
            stats[f"right_top_{tag}"] += value == truth
            if conf >= threshold:
                stats[f"accepted_{tag}"] += 1
                stats[f"wrong_{tag}"] += value != truth
    return stats


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fit", type=int, default=24000, help="fitting cells (training writers)")
    p.add_argument("--check", type=int, default=12000, help="cells per evaluation source")
    p.add_argument("--sources", nargs="+", default=["mnist", "fonts", "strokes"])
    p.add_argument("--seed", type=int, default=61)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, help="write lone_stroke.json here")
    args = p.parse_args()

    reader = DigitModelRecognizer(lone_stroke=False)  # the network's own split
    accept = reader.calibration.accept
    t0 = time.perf_counter()
    fit_cells = make_cells(args.fit, args.seed, "train", "all", True, args.workers)
    fit_ranked = read(fit_cells, reader)
    x, idx = log_odds(fit_ranked)
    y = np.array([fit_cells[i][1] == 1 for i in idx], float)
    model = fit_logistic(x, y)
    print(f"slope {model.slope:.4f}, intercept {model.intercept:.4f}", file=sys.stderr)
    print(f"fitted on {len(idx)} of {len(fit_cells)} cells ({time.perf_counter() - t0:.0f} s)",
          file=sys.stderr)
    evaluated = {}
    for k, source in enumerate(args.sources):
        cells = make_cells(args.check, args.seed + 1000 + k, "eval", source, False,
                           args.workers)
        entries = [entry for _, entry, _ in cells]
        evaluated[source] = (len(cells), split_readings(entries, read(cells, reader), model))
    split_accept = accept_threshold([c for _, cs in evaluated.values() for c in cs], accept)
    print(f"split cells are certain from {split_accept:.4f} (the network's: {accept:.4f})",
          file=sys.stderr)
    checks = {source: measure(cs, n, accept, split_accept)
              for source, (n, cs) in evaluated.items()}
    print("| eval writers | cells it decides | accepted without -> with | wrong among accepted |")
    print("|---|---|---|---|")
    for source, st in checks.items():
        print(f"| {source} | {st['applies']} of {st['cells']} | {st['accepted_before']} -> "
              f"{st['accepted_after']} | {st['wrong_before']} -> {st['wrong_after']} |")
    if args.out:
        data = {"slope": round(model.slope, 6), "intercept": round(model.intercept, 6),
                "accept": round(split_accept, 6), "network_accept": accept, "target": TARGET,
                "fit_cells": int(len(idx)), "seed": args.seed, "check": checks}
        path = args.out / "lone_stroke.json"
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
