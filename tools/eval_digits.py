"""Measure the committed digit model on writers from the "eval" glyph pool.

    .venv/bin/python tools/eval_digits.py [--cells 3000] [--seed 7]

Runs the run-time path (scan.recognize.get_recognizer, cv2.dnn, no torch) on synthetic crops
rendered like mild and harsh phone photos and prints a markdown table for
docs/digit-model.md: accuracy of the top reading, share auto-accepted (`certain`), accuracy of
the accepted readings and the silent errors (certain but wrong), per kind of cell.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from escalero.samples.cell_crops import narrow_box, random_entry, synth_cell  # noqa: E402
from escalero.samples.handwriting import SOURCES, make_writer  # noqa: E402
from escalero.scan.recognize import CellCrop, DigitModelRecognizer, get_recognizer  # noqa: E402


def category(entry: object, allowed: tuple[int, ...] | None) -> str:
    if entry is None:
        return "empty"
    if entry == "x":
        return "struck"
    if entry == 0:
        return "written 0 (struck)"
    if allowed is not None and entry not in allowed:
        return "value not allowed in row"
    kind = "total" if allowed is None else "row value"
    return f"{kind}, {len(str(entry))} digit{'s' if entry >= 10 else ''}"


def _expected(entry: object, allowed: tuple[int, ...] | None) -> object:
    """The reading that is right: a written 0 is a strike, and in a written total (allowed
    None) a strike or a 0 is no total (the sheet holds a total as a number or null)."""
    if entry in (0, "x"):
        return None if allowed is None else "x"
    return entry


def evaluate(n: int, seed: int, harsh: bool, recognizer: str, unconstrained: bool,
             model: Path | None = None, source: str = "mnist", narrow: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    crops, entries = [], []
    writer = make_writer(rng, "eval", source=source)
    for i in range(n):
        if i % 25 == 0:
            writer = make_writer(rng, "eval", source=source)
        entry, allowed = random_entry(rng)
        if unconstrained:
            allowed = None
        box = narrow_box(rng) if narrow else None  # four- and six-side cells only
        crops.append(CellCrop(synth_cell(rng, writer, entry, harsh=harsh, box_size=box).image,
                              allowed))
        entries.append(entry)
    rec = DigitModelRecognizer(model) if model else get_recognizer(recognizer)
    rec.read(crops[:8])  # load the model outside the timing
    start = time.perf_counter()
    readings = []
    for i in range(0, n, 90):  # a sheet's worth of cells per call
        readings += rec.read(crops[i:i + 90])
    ms = (time.perf_counter() - start) * 1000 / n
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for crop, entry, r in zip(crops, entries, readings, strict=True):
        ok = r.value == _expected(entry, crop.allowed)
        cat = category(entry, crop.allowed)
        for key in (cat,) if cat.startswith("value not") else (cat, "all valid cells"):
            s = stats[key]
            s[0] += 1
            s[1] += ok
            s[2] += r.certain
            s[3] += r.certain and ok
            s[4] += r.certain and not ok
    return {"ms_per_cell": ms, "stats": dict(stats)}


def table(result: dict, title: str) -> str:
    lines = [f"**{title}** ({result['ms_per_cell']:.2f} ms per cell, batches of 90)", "",
             "| cells | n | top reading right | auto-accepted | accepted right | silent errors |",
             "|---|---|---|---|---|---|"]
    for key, (n, ok, acc, acc_ok, silent) in sorted(result["stats"].items()):
        lines.append(f"| {key} | {n} | {ok / n:.1%} | {acc / n:.1%} | "
                     f"{(acc_ok / acc if acc else 1):.2%} | {silent} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--recognizer", default="default")
    ap.add_argument("--unconstrained", action="store_true",
                    help="read every cell as a total (any number 0-999)")
    ap.add_argument("--model", type=Path, help="an ONNX file other than the committed one")
    ap.add_argument("--source", choices=SOURCES, default="mnist",
                    help="eval writers' glyphs: MNIST, pen strokes (samples.strokes) or mixed")
    ap.add_argument("--narrow", action="store_true",
                    help="cells of four- and six-side sheets only (11.5-13.5 mm wide)")
    args = ap.parse_args()
    for harsh in (False, True):
        res = evaluate(args.cells, args.seed + harsh, harsh, args.recognizer, args.unconstrained,
                       args.model, args.source, args.narrow)
        cells = ", narrow cells" if args.narrow else ""
        print(table(res, f"{'harsh' if harsh else 'mild'} photos, {args.source} writers{cells}"))
        print()


if __name__ == "__main__":
    main()
