"""Reading time per sheet: ONNX Runtime against cv2.dnn, one network against the team.

    python -m benchmarks.read_speed --photos samples/photos [--n 10] [--repeat 5]

The cells of each photo are cut once; then each configuration reads the whole sheet as
one batch (preprocessing included, as the scanner's read stage does, with the features
scan/adapt.py uses), `--repeat` times. Per sheet the best of those runs counts (other jobs
on a shared machine only ever add time); reported are the median and the slowest sheet,
and the largest difference of the logits from cv2.dnn's on the same networks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from escalero.scan import digit_model
from escalero.scan.recognize import Capability, DigitModelRecognizer


class _Crops:
    """A recognizer stand-in that keeps a sheet's crops and reads them with the default."""

    name = "default"
    capabilities = frozenset({Capability.CALIBRATED})

    def __init__(self) -> None:
        self.inner = DigitModelRecognizer(engine="cv2")
        self.calibration = self.inner.calibration
        self.crops: list[Any] = []

    def available(self) -> bool:
        return True

    def read(self, crops: Any) -> list[Any]:
        self.crops = list(crops)
        return self.inner.read(crops)


def sheet_crops(paths: list[Path]) -> list[list[Any]]:
    from escalero.scan.pipeline import ScanOptions, scan_photo
    from escalero.scoring.errors import EscaleroError

    out = []
    for path in paths:
        keeper = _Crops()
        try:
            scan_photo(str(path), ScanOptions(adapt=False), recognizer=keeper)
        except EscaleroError:
            continue  # a photo the scanner refuses has no sheet to read
        out.append(keeper.crops)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.read_speed", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--photos", type=Path, default=Path("samples/photos"))
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    sheets = sheet_crops(sorted(args.photos.glob("*.jpg"))[: args.n])
    engines = [e for e in digit_model.ENGINES
               if e == "cv2" or digit_model.default_engine() == e]
    team = len(digit_model.members())
    cells = [len(c) for c in sheets]
    print(f"benchmarks.read_speed: {len(sheets)} sheets from {args.photos}, "
          f"{statistics.median(cells):.0f} cells per sheet (median), {args.repeat} repeats")
    # The team with its second readings of unsure cells (without a neighbour's ink at the
    # edge, and jittered: as the scanner reads), and without them, to show what they cost.
    configs = [(1, True), (team, False), (team, True)] if team > 1 else [(1, False), (1, True)]
    for members, edge in configs:
        ref = [DigitModelRecognizer(max_members=members, engine="cv2").logits(c) for c in sheets]
        for engine in engines:
            rec = DigitModelRecognizer(max_members=members, engine=engine, edge_ink=edge,
                                       second_look=edge)
            rec.read_with_features(sheets[0])  # load the networks outside the timing
            times = []
            for crops in sheets:
                runs = []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    rec.read_with_features(crops)
                    runs.append(time.perf_counter() - t0)
                times.append(min(runs))
            diff = max(float(np.abs(rec.logits(c) - r).max()) for c, r in zip(sheets, ref,
                                                                                 strict=True))
            what = f"{members} network(s){'' if edge else ', read once'}"
            print(f"  {what:<24} {engine:<12} read per sheet: median "
                  f"{statistics.median(times) * 1000:6.1f} ms, max {max(times) * 1000:6.1f} ms; "
                  f"logits vs cv2.dnn: {diff:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
