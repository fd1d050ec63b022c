"""Scanner accuracy and speed on fresh synthetic phone photos with known truth.

    python -m benchmarks.scan --n 200 --level harsh [--recognizer default|tesseract|both]

Photos come from samples.make_photos with evaluation writers only (digit shapes the
trained reader never saw) and seeds far from those of samples/photos. They are made
first (in parallel with --jobs) and cached per seed, so making them never counts as scan
time. Each photo is then scanned one at a time and compared cell by cell with its truth:

- cell accuracy: cells (entries and written totals, empty ones included) read right;
- flagged: cells the scanner asks a person to check, per sheet;
- silent errors: cells read wrong and *not* flagged, per sheet, and the share of sheets
  with any (the number that must be zero);
- payout right, nothing to review: the sheet's points equal the truth's and no cell is
  flagged (the photo needs no person at all);
- payout certain: the scanner says the payout needs no review (settlement.certain);
  certain and wrong: such sheets whose points are not the truth's (must stay 0);
- cells to check per sheet: the cells that can change the payout on sheets whose payout
  is not certain (a certain payout asks nothing);
- answers until certain: the asked cells answered one by one with the truth, in the
  order the scanner asks them (as the web review walks them), until the payout is
  certain; the mean over read sheets (0 for a sheet certain from the start);
- failed: photos refused (an EscaleroError, e.g. "too blurred") or crashed;
- time per photo (median, p95) next to the time to merely decode the same JPEG;
- time per stage (scan.pipeline's timings): each stage's median seconds and its share of
  the scan time, and registration's share (finding and placing the sheet: markers, code,
  layout, placement, flat sheet, grid).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from escalero.samples.foreign import KINDS, ForeignRequest, make_foreign_photo
from escalero.samples.handwriting import SOURCES
from escalero.samples.make_photos import (
    Request,
    make_photo,
    truth_cells,
    write_photo,
)
from escalero.scoring.model import TOTAL_ROW, CellKey

# samples/photos and the tests use small seeds; these never meet them.
SEED_BASE = {"mild": 910_000, "harsh": 920_000, "pub": 930_000}
# Sheets this project did not print (samples.foreign), per kind: --foreign.
FOREIGN_SEED_BASE = {"block": 940_000, "hand": 950_000}
CACHE = Path(tempfile.gettempdir()) / "escalero-bench-photos"

@dataclass
class Outcome:
    """One photo scanned by one recognizer, compared with the truth."""

    name: str
    seconds: float
    failure: str | None = None  # "refused: ..." or "crashed: ..."
    cells: int = 0
    correct: int = 0
    filled: int = 0
    filled_correct: int = 0
    flagged: int = 0
    silent: list[dict[str, Any]] = field(default_factory=list)
    payout_right: bool = False
    no_sheet: bool = False  # the photo shows no sheet: refusing it is right
    payout_certain: bool = False  # the scanner says the payout needs no review
    deciding: int = 0  # cells a player is asked to check: those that can change an uncertain payout
    answers: int | None = None  # answers (the truth) a player gives until it is certain
    timings: dict[str, float] = field(default_factory=dict)  # seconds per pipeline stage
    placement: list[tuple[float, float]] = field(default_factory=list)  # see placement_errors
    # Wrong cells by what was written and what was read (wrong_kind), flagged or not.
    wrong: dict[str, int] = field(default_factory=dict)
    # Per reason a cell was flagged (flag_reasons): [cells flagged, of them read right].
    flag_reasons: dict[str, list[int]] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        """Right payout and nothing for a person to check."""
        return (self.failure is None and not self.no_sheet and self.payout_right
                and self.flagged == 0)


# --- photos ---------------------------------------------------------------------------------


def generator_version() -> str:
    """Hash of the generator's code and of the print (layout, renderer): cached photos
    from older code or an older print are not reused."""
    from escalero import samples, sheets

    digest = hashlib.sha256()
    for name in ("games.py", "camera.py", "handwriting.py", "strokes.py", "make_photos.py",
                 "foreign.py"):
        digest.update((Path(samples.__file__).parent / name).read_bytes())
    for name in ("layout.py", "render.py"):
        digest.update((Path(sheets.__file__).parent / name).read_bytes())
    return digest.hexdigest()[:10]


def photo_dir(level: str, seed: int, megapixels: float | None = None, source: str = "mnist",
              players: int | None = None, foreign: str | None = None) -> Path:
    """Where a set's photos are cached (the generator's version in the name)."""
    mp = f"-{megapixels:g}mp" if megapixels else ""
    src = "" if source == "mnist" else f"-{source}"
    sides = f"-p{players}" if players else ""
    kind = f"{foreign}-" if foreign else ""
    return CACHE / f"{kind}{level}-s{seed}{mp}{src}{sides}-{generator_version()}"


def _make_one(req: Request | ForeignRequest, out: Path) -> tuple[Path, float]:
    path = out / f"{req.name}.jpg"
    if path.exists() and path.with_suffix(".json").exists():
        return path, 0.0
    t0 = time.perf_counter()
    write_photo(make_foreign_photo(req) if isinstance(req, ForeignRequest) else make_photo(req),
                out)
    return path, time.perf_counter() - t0


def make_photos(n: int, level: str, seed: int, out: Path, jobs: int, megapixels: float | None,
                source: str = "mnist", players: int | None = None, foreign: str | None = None
                ) -> tuple[list[Path], float]:
    """Make (or reuse from `out`) n evaluation photos (of a sheet this project did not
    print with `foreign`, a samples.foreign kind); returns paths and seconds spent."""
    out.mkdir(parents=True, exist_ok=True)
    reqs: list[Request | ForeignRequest] = [
        ForeignRequest(seed=seed, index=i, kind=foreign, level=level, split="eval",
                       source=source, players=players, megapixels=megapixels)
        if foreign else Request(seed=seed, index=i, level=level, split="eval", source=source,
                                megapixels=megapixels, players=players) for i in range(n)]
    t0 = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(_make_one, reqs, [out] * n))
    else:
        done = []
        for i, req in enumerate(reqs):
            done.append(_make_one(req, out))
            print(f"\rmaking photos {i + 1}/{n}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    return [p for p, _ in done], time.perf_counter() - t0


# --- scanning -------------------------------------------------------------------------------

Scanner = Callable[[Path], dict[str, Any]]
TIMINGS = "_timings"  # the in-process scanner's stage times, beside the scan JSON
PLACEMENT = "_placement"  # (error mm, stated uncertainty mm) per cell, beside it too
FLAG_REASONS = "_flag_reasons"  # (side, column, row, why) per flagged cell: flag_reasons
# The stages that find and place the sheet before any cell is read (pipeline timings).
REGISTRATION = ("markers", "qr", "outline", "layout", "infer", "place", "rectify", "grid")


def scanner_for(recognizer: str, adapt: bool, members: int | None = None,
                *, row_priors: bool, lone_stroke: bool = True, edge_ink: bool = True,
                second_look: bool = True) -> tuple[Scanner, str]:
    """The in-process scanner if scan.pipeline exists, else the `escalero scan` command.
    `adapt` and `row_priors` have no default here: ScanOptions' are the product's, --adapt
    and --row-priors the bench's."""
    try:
        from escalero.scan.pipeline import ScanOptions, scan_photo
    except ImportError as err:
        exe = shutil.which("escalero") or str(Path(sys.executable).parent / "escalero")

        def run_cli(path: Path) -> dict[str, Any]:
            proc = subprocess.run([exe, "scan", "--json", "--recognizer", recognizer, str(path)],
                                  capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                last = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
                raise _Refused(last[0])
            return json.loads(proc.stdout)

        return run_cli, f"`escalero scan` command (scan.pipeline not importable: {err})"

    options = ScanOptions(recognizer=recognizer, adapt=adapt, row_priors=row_priors)
    reader = None
    if (members is not None or not (lone_stroke and edge_ink and second_look)) \
            and recognizer == "default":
        from escalero.scan.recognize import DigitModelRecognizer

        reader = DigitModelRecognizer(max_members=members, lone_stroke=lone_stroke,
                                      edge_ink=edge_ink, second_look=second_look)

    def scan_one(path: Path) -> dict[str, Any]:
        result = scan_photo(str(path), options, reader)
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        return {**result.to_json(), TIMINGS: dict(result.timings),
                PLACEMENT: placement_errors(result, truth.get("placement_px") or []),
                FLAG_REASONS: flag_reasons(result)}

    return scan_one, "escalero.scan.pipeline.scan_photo"


def placement_errors(result: Any, truth_px: list[list[Any]]) -> list[tuple[float, float]]:
    """(how far each cell's box centre is from where the photo has it, mm; the placement
    uncertainty the scanner stated) for the cells the truth places (samples.make_photos)."""
    hom = result.placement.homography
    where = {(s, c, r): (x, y) for s, c, r, x, y in truth_px}
    out = []
    for cell in result.cells:
        key = (cell.side, cell.column, cell.row)
        if key not in where:
            continue
        x, y, w, h = cell.box_mm
        pts = np.array([[[x + w / 2, y + h / 2]], [[x + w / 2 + 1, y + h / 2]],
                        [[x + w / 2, y + h / 2 + 1]]], np.float64)
        p = cv2.perspectiveTransform(pts, hom).reshape(3, 2)
        jac = np.stack([p[1] - p[0], p[2] - p[0]], axis=1)  # px per mm, 2 x 2
        off_mm = np.linalg.solve(jac, np.array(where[key]) - p[0])
        out.append((round(float(np.hypot(*off_mm)), 3), float(cell.place_mm)))
    return out


def flag_reasons(result: Any) -> list[tuple[int, int, str, str]]:
    """(side, column, row, why) for each cell the scan leaves unsure: the note of the last
    pass that made it so (its key), or that pass's name where it gave no note."""
    out = []
    for cell in result.cells:
        if cell.certain:
            continue
        last = next((d for d in reversed(cell.reasons) if not d.certain), None)
        why = ("unsure" if last is None else last.why.key if last.why is not None
               else last.by.name.lower())
        out.append((cell.side, cell.column, cell.row, why))
    return out


def wrong_kind(cell: CellKey, truth: Any, read: Any) -> str:
    """A wrong cell's kind: the row's kind, what was written and what was read."""
    def kind(value: Any) -> str:
        return "empty" if value is None else "struck" if value == "x" else "number"

    row = "total" if cell[2] == TOTAL_ROW else "entry"
    if row == "total" and isinstance(truth, int) and isinstance(read, int):
        return f"total: number -> {'number' if len(str(truth)) == len(str(read)) else 'digits'}"
    return f"{row}: {kind(truth)} -> {kind(read)}"


class _Refused(Exception):
    """The command-line scanner exited with an error (its message is the argument)."""


def compare(name: str, seconds: float, truth: dict[str, Any], scanned: dict[str, Any],
            reasons: Sequence[Sequence[Any]] = ()) -> Outcome:
    want = truth_cells(truth["sheet"])
    try:
        got = truth_cells({**truth["sheet"], "sides": scanned["sides"]})
    except (KeyError, IndexError, TypeError):
        return Outcome(name, seconds, failure="crashed: scan JSON lacks sides/columns")
    flagged = {(r["side"], r["column"], r["row"]) for r in scanned.get("review", [])}
    out = Outcome(name, seconds, cells=len(want), flagged=len(flagged & set(want)))
    for cell, value in want.items():
        right = got.get(cell) == value
        out.correct += right
        if value is not None:
            out.filled += 1
            out.filled_correct += right
        if not right:
            key = wrong_kind(cell, value, got.get(cell))
            out.wrong[key] = out.wrong.get(key, 0) + 1
        if not right and cell not in flagged:
            out.silent.append({"cell": list(cell), "truth": value, "read": got.get(cell)})
    for side, column, row, why in reasons:
        cell = (side, column, row)
        if cell in want:
            counts = out.flag_reasons.setdefault(why, [0, 0])
            counts[0] += 1
            counts[1] += got.get(cell) == want[cell]
    points = scanned.get("settlement", {}).get("points")
    out.payout_right = points == truth["expected"]["settlement"]["points"]
    out.payout_certain = bool(scanned.get("settlement", {}).get("certain"))
    out.deciding = 0 if out.payout_certain else sum(
        bool(r.get("affects_payout")) for r in scanned.get("review", []))
    if "readings" in scanned:
        out.answers = answers_until_certain(scanned, want)
    return out


def answers_until_certain(scanned: dict[str, Any], want: dict[CellKey, Any]) -> int | None:
    """Answer the cells the scanner asks about first, one by one, with the truth (as the
    web review walks them) until the payout is certain; None if it never gets there."""
    from escalero.scan.payout import beliefs_from_json, reassess
    from escalero.scoring.model import Sheet, with_cell

    sheet = Sheet.from_json({k: v for k, v in scanned.items()
                             if k in ("game", "variant", "serial", "sides")})
    beliefs = beliefs_from_json(scanned["readings"])
    asked = [(r["side"], r["column"], r["row"]) for r in scanned.get("review", [])]
    answered: list[CellKey] = []
    certainty = reassess(sheet, beliefs, asked, answered)
    while not certainty.certain:
        if not certainty.impacts:
            return None
        key = certainty.impacts[0].key
        sheet = with_cell(sheet, key, want[key])
        answered.append(key)
        certainty = reassess(sheet, beliefs, asked, answered)
    return len(answered)


def scan_all(paths: Sequence[Path], scanner: Scanner, label: str) -> list[Outcome]:
    from escalero.scoring.errors import EscaleroError

    outcomes = []
    for i, path in enumerate(paths):
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        t0 = time.perf_counter()
        try:
            scanned = scanner(path)
        except (EscaleroError, _Refused) as err:
            outcomes.append(Outcome(path.stem, time.perf_counter() - t0,
                                    failure=None if truth["sheet"] is None else f"refused: {err}",
                                    no_sheet=truth["sheet"] is None))
        except Exception as err:  # a crash is a finding, not the end of the benchmark
            outcomes.append(Outcome(path.stem, time.perf_counter() - t0,
                                    failure=f"crashed: {type(err).__name__}: {err}"))
        else:
            seconds = time.perf_counter() - t0
            timings = scanned.pop(TIMINGS, {})
            placed = scanned.pop(PLACEMENT, [])
            reasons = scanned.pop(FLAG_REASONS, [])
            if truth["sheet"] is None:  # a photo without a sheet must be refused
                outcomes.append(Outcome(path.stem, seconds, failure="read a sheet where none is",
                                        no_sheet=True))
            else:
                outcomes.append(compare(path.stem, seconds, truth, scanned, reasons))
                outcomes[-1].timings = timings
                outcomes[-1].placement = placed
        print(f"\rscanning ({label}) {i + 1}/{len(paths)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return outcomes


def decode_times(paths: Sequence[Path]) -> list[float]:
    times = []
    for path in paths:
        t0 = time.perf_counter()
        img = cv2.imread(str(path))
        times.append(time.perf_counter() - t0)
        assert img is not None, path
    return times


# --- report ---------------------------------------------------------------------------------


def run_facts() -> dict[str, Any]:
    """When, at which commit and on what a benchmark ran: measured figures carry these."""
    import datetime
    import os
    import platform

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False, cwd=Path(__file__).parent
                                ).stdout.strip() or "unknown"
    except OSError:
        commit = "unknown"
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"date": datetime.date.today().isoformat(), "commit": commit,
            "machine": f"{os.cpu_count()} cores, {cpu}", "python": platform.python_version()}


def _pct(values: Sequence[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")


def summary(outcomes: Sequence[Outcome], decode: Sequence[float]) -> dict[str, Any]:
    ok = [o for o in outcomes if o.failure is None and o.cells]  # read sheets
    n = sum(not o.no_sheet for o in outcomes)  # photos of a sheet
    cells = sum(o.cells for o in ok)
    filled = sum(o.filled for o in ok)
    times = [o.seconds for o in outcomes]
    decode = decode[: len(outcomes)]  # the photos this recognizer scanned
    med_decode = statistics.median(decode) if decode else float("nan")
    return {
        "photos": len(outcomes),
        "no_sheet_refused": (f"{sum(o.no_sheet and not o.failure for o in outcomes)}/"
                             f"{sum(o.no_sheet for o in outcomes)}"),
        "scanned": len(ok),
        "failed": sum(o.failure is not None for o in outcomes),
        "cell_accuracy": sum(o.correct for o in ok) / cells if cells else float("nan"),
        "filled_cell_accuracy": (sum(o.filled_correct for o in ok) / filled
                                 if filled else float("nan")),
        "flagged_per_sheet": statistics.mean(o.flagged for o in ok) if ok else float("nan"),
        "silent_errors_per_sheet": (statistics.mean(len(o.silent) for o in ok)
                                    if ok else float("nan")),
        "sheets_with_silent_errors": (sum(bool(o.silent) for o in ok) / len(ok)
                                      if ok else float("nan")),
        "payout_right": sum(o.payout_right for o in ok) / n if n else float("nan"),
        "payout_right_nothing_to_review": sum(o.clean for o in outcomes) / n if n else 0.0,
        "payout_certain": sum(o.payout_certain for o in ok) / n if n else float("nan"),
        "certain_wrong": sum(o.payout_certain and not o.payout_right for o in ok),
        "certain_wrong_share": (sum(o.payout_certain and not o.payout_right for o in ok) / n
                                if n else float("nan")),
        "deciding_per_sheet": statistics.mean(o.deciding for o in ok) if ok else float("nan"),
        "answers_mean": (statistics.mean(o.answers for o in ok if o.answers is not None)
                         if any(o.answers is not None for o in ok) else float("nan")),
        "never_certain": sum(o.answers is None for o in ok),
        "scan_median_s": statistics.median(times) if times else float("nan"),
        "scan_p95_s": _pct(times, 0.95),
        "read_median_s": (statistics.median(o.seconds for o in ok) if ok else float("nan")),
        "decode_median_s": med_decode,
        "decode_p95_s": _pct(decode, 0.95),
        "scan_over_decode": (statistics.median(times) / med_decode
                             if times and med_decode else float("nan")),
        **registration(outcomes),
    }


def registration(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """Registration's seconds and its share of each photo's scan time, medians over the
    photos read."""
    timed = [o for o in outcomes if o.timings and o.seconds > 0]
    if not timed:
        return {"registration_median_s": float("nan"), "registration_share": float("nan")}
    reg = [sum(o.timings.get(s, 0.0) for s in REGISTRATION) for o in timed]
    return {"registration_median_s": statistics.median(reg),
            "registration_share": statistics.median(
                r / o.seconds for r, o in zip(reg, timed, strict=True))}


def stage_lines(outcomes: Sequence[Outcome], label: str) -> list[str]:
    """Each pipeline stage's median seconds over the photos read, and that as a share of
    their median scan time; "untimed": the scan time no stage holds."""
    timed = [o for o in outcomes if o.timings]
    if not timed:
        return []
    scan_s = statistics.median(o.seconds for o in timed)
    stages = [s for s in dict.fromkeys(k for o in timed for k in o.timings) if s != "total"]
    lines = [f"{label}: time per stage, median over {len(timed)} photos read (s, share of "
             f"the median scan time)"]
    for stage in stages:
        median = statistics.median(o.timings[stage] for o in timed if stage in o.timings)
        mark = " *" if stage in REGISTRATION else ""
        lines.append(f"  {stage + mark:<14} {median:7.4f} {median / scan_s:7.1%}")
    untimed = statistics.median(o.seconds - sum(o.timings.get(s, 0.0) for s in stages)
                                for o in timed)
    lines.append(f"  {'untimed':<14} {untimed:7.4f} {untimed / scan_s:7.1%}")
    lines.append(f"  {'scan':<14} {scan_s:7.4f}")
    lines.append("  * registration (finding and placing the sheet)")
    return lines


ROWS = (
    ("photos", "photos", "{:d}"),
    ("failed", "failed (refused or crashed)", "{:d}"),
    ("no_sheet_refused", "photos without a sheet refused", "{}"),
    ("cell_accuracy", "cell accuracy (all cells)", "{:.2%}"),
    ("filled_cell_accuracy", "cell accuracy (written cells)", "{:.2%}"),
    ("flagged_per_sheet", "cells flagged for review / sheet", "{:.2f}"),
    ("silent_errors_per_sheet", "silent errors / sheet", "{:.3f}"),
    ("sheets_with_silent_errors", "sheets with any silent error", "{:.1%}"),
    ("payout_right", "payout right", "{:.1%}"),
    ("payout_right_nothing_to_review", "payout right, nothing to review", "{:.1%}"),
    ("payout_certain", "payout certain (no review needed)", "{:.1%}"),
    ("certain_wrong", "payout certain and wrong (sheets)", "{:d}"),
    ("certain_wrong_share", "payout certain and wrong (share)", "{:.2%}"),
    ("deciding_per_sheet", "cells to check per sheet (can change it)", "{:.2f}"),
    ("answers_mean", "answers until payout certain (mean)", "{:.2f}"),
    ("never_certain", "sheets never certain after all answers", "{:d}"),
    ("scan_median_s", "scan time median (s)", "{:.3f}"),
    ("scan_p95_s", "scan time p95 (s)", "{:.3f}"),
    ("read_median_s", "scan time median, read sheets (s)", "{:.3f}"),
    ("decode_median_s", "JPEG decode median (s)", "{:.3f}"),
    ("decode_p95_s", "JPEG decode p95 (s)", "{:.3f}"),
    ("scan_over_decode", "scan / decode (median)", "{:.1f}x"),
    ("registration_median_s", "registration median (s)", "{:.3f}"),
    ("registration_share", "registration / scan (median)", "{:.1%}"),
)


def format_table(results: dict[str, dict[str, Any]]) -> str:
    names = list(results)
    width = max(len(label) for _, label, _ in ROWS) + 2
    lines = [" " * width + "".join(f"{n:>14}" for n in names)]
    for key, label, fmt in ROWS:
        cells = []
        for n in names:
            v = results[n][key]
            cells.append(f"{fmt.format(v) if v == v else 'n/a':>14}")  # v != v: NaN
        lines.append(f"{label:<{width}}" + "".join(cells))
    return "\n".join(lines)


def failures_text(outcomes: Sequence[Outcome], limit: int = 8) -> list[str]:
    """Failures grouped by message, then the first silent errors."""
    reasons = Counter(o.failure for o in outcomes if o.failure)
    lines = [f"  {n} x {reason} (e.g. {next(o.name for o in outcomes if o.failure == reason)})"
             for reason, n in reasons.most_common(limit)]
    for o in outcomes:
        for s in o.silent:
            if len(lines) >= 2 * limit:
                return lines
            lines.append(f"  {o.name}: silent error at {tuple(s['cell'])}: "
                         f"read {s['read']!r}, truth {s['truth']!r}")
    return lines


# Stated placement uncertainty (mm) buckets the placement table reports.
UNCERTAINTY_BUCKETS = ((0.0, 0.3), (0.3, 0.6), (0.6, 1.0), (1.0, 1.5), (1.5, 2.0), (2.0, 99.0))


def placement_table(outcomes: Sequence[Outcome]) -> list[str]:
    """How far read cells' boxes lie from their true place (photos made by samples), by the
    placement uncertainty the scanner stated: the uncertainty is honest where the error
    stays below it."""
    pairs = [p for o in outcomes for p in o.placement]
    if not pairs:
        return []
    lines = ["placement: box centre's error (mm) by stated uncertainty (mm)",
             f"  {'stated':<10} {'cells':>6} {'median':>7} {'p99':>6} {'max':>6} {'> stated':>9}"]
    for lo, hi in UNCERTAINTY_BUCKETS:
        errs = sorted(e for e, u in pairs if lo <= u < hi)
        if not errs:
            continue
        over = sum(e > u for e, u in pairs if lo <= u < hi)
        label = f"{lo:g}-{hi:g}" if hi < 99 else f">= {lo:g}"
        lines.append(f"  {label:<10} {len(errs):6d} {statistics.median(errs):7.2f} "
                     f"{errs[int(0.99 * (len(errs) - 1))]:6.2f} {errs[-1]:6.2f} "
                     f"{over / len(errs):9.2%}")
    return lines


def wrong_table(outcomes: Sequence[Outcome]) -> list[str]:
    """Wrong cells of the read sheets by kind (wrong_kind): "total: number -> digits" is a
    written total read with a digit too many or too few."""
    kinds: Counter[str] = Counter()
    for o in outcomes:
        kinds.update(o.wrong)
    if not kinds:
        return []
    total = sum(kinds.values())
    lines = [f"wrong cells by kind: {total}"]
    width = max(len(k) for k in kinds)
    lines += [f"  {k:<{width}} {n:5d}  {n / total:6.1%}" for k, n in kinds.most_common()]
    return lines


def flag_table(outcomes: Sequence[Outcome]) -> list[str]:
    """Flagged cells by why they were flagged (flag_reasons), per read sheet, and the share
    whose reading was right all the same: a flag's cost where the reader was right, its
    worth where it was wrong."""
    counts: dict[str, list[int]] = {}
    for o in outcomes:
        for why, (n, right) in o.flag_reasons.items():
            acc = counts.setdefault(why, [0, 0])
            acc[0] += n
            acc[1] += right
    read = sum(1 for o in outcomes if o.failure is None and not o.no_sheet)
    if not counts or not read:
        return []
    width = max([len(k) for k in counts] + [6])
    lines = ["flags by reason (the last pass that left the cell unsure)",
             f"  {'reason':<{width}} {'per sheet':>9} {'read right':>10}"]
    for why, (n, right) in sorted(counts.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"  {why:<{width}} {n / read:9.2f} {right / n:10.1%}")
    return lines


# Photo conditions the refusal table counts (from each truth file's "photo" record).
CONDITIONS = (
    ("grayscale", lambda m: bool(m.get("gray"))),
    ("flatbed scan", lambda m: bool(m.get("flatbed"))),
    ("long side <= 2600 px", lambda m: max(m.get("width", 0), m.get("height", 0)) <= 2600),
    ("cast shadow", lambda m: bool(m.get("cast_shadow"))),
    ("red/brown/green ink", lambda m: m.get("writer", {}).get("pen", "").split("-")[-1]
     in ("red", "brown", "green")),
    ("tilt >= 25 deg", lambda m: m.get("tilt", 0) >= 25),
)


def refusal_table(outcomes: Sequence[Outcome], paths: Sequence[Path]) -> list[str]:
    """Refusals counted by reason (the message up to its advice), then by photo condition:
    how many photos had the condition and how many of those were refused."""
    sheets = [o for o in outcomes if not o.no_sheet]
    refused = [o for o in sheets if o.failure]
    lines = [f"refusals: {len(refused)} of {len(sheets)} photos of a sheet"]
    if not sheets:
        return lines
    reasons = Counter(o.failure.split(":")[0] if o.failure.startswith("crashed") else
                      o.failure.removeprefix("refused: ").split(":")[0] for o in refused
                      if o.failure)
    width = max([len(r) for r in reasons] + [30])
    for reason, n in reasons.most_common():
        lines.append(f"  {reason:<{width}} {n:4d}  {n / len(sheets):6.1%}")
    meta = {p.stem: json.loads(p.with_suffix(".json").read_text(encoding="utf-8"))["photo"]
            for p in paths}
    lines.append(f"  {'photo condition':<{width}} {'photos':>6} {'refused':>8}")
    for label, test in CONDITIONS:
        having = [o for o in sheets if o.name in meta and test(meta[o.name])]
        if having:
            lines.append(f"  {label:<{width}} {len(having):6d} "
                         f"{sum(bool(o.failure) for o in having):8d}")
    return lines


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scan", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200, help="photos (default 200)")
    p.add_argument("--level", choices=("mild", "harsh", "pub"), default="harsh")
    p.add_argument("--recognizer", choices=("default", "tesseract", "both"), default="both")
    p.add_argument("--n-tesseract", type=int, default=20,
                   help="photos for tesseract, which is slow (default 20)")
    p.add_argument("--jobs", type=int, default=1, help="processes that make the photos")
    p.add_argument("--seed", type=int, help="photo seed (default: fixed per level)")
    p.add_argument("--megapixels", type=float, help="fix the photo size (default: 2-12 MP)")
    p.add_argument("--players", type=int,
                   help="sides on every sheet (default: 2-5 at random, some in pairs)")
    p.add_argument("--source", choices=SOURCES, default="mnist",
                   help="writers' glyphs: MNIST, pen strokes (samples.strokes) or mixed")
    p.add_argument("--foreign", choices=KINDS,
                   help="sheets this project did not print (samples.foreign): a bought "
                        "block or a table ruled by hand, read by their lines")
    p.add_argument("--keep", type=Path, help="make/keep the photos here (default: a cache)")
    p.add_argument("--photos", type=Path,
                   help="scan these photos (NAME.jpg + NAME.json truth) instead of making new "
                        "ones, e.g. samples/photos")
    p.add_argument("--json", type=Path, help="write every per-photo outcome here")
    p.add_argument("--members", type=int,
                   help="read with only the first N networks of the team (default: all)")
    p.add_argument("--adapt", action="store_true",
                   help="read with the per-sheet adaptation (scan/adapt.py, off by default), "
                        "to compare")
    p.add_argument("--row-priors", action="store_true",
                   help="weigh unsure cells by what their row holds (scan/models/"
                        "row_priors.json, off by default), to compare")
    p.add_argument("--no-lone-stroke", dest="lone_stroke", action="store_false",
                   help="keep the network's own split between 1 and struck (scan/"
                        "lone_stroke.py refits it by default), to compare")
    p.add_argument("--no-edge-ink", dest="edge_ink", action="store_false",
                   help="read cells only once, through a neighbour's ink at their edge "
                        "(scan/edge_ink.py reads them again without it by default), to compare")
    p.add_argument("--no-second-look", dest="second_look", action="store_false",
                   help="leave unsure cells as first read (by default they are read again "
                        "at the small changes of scan/jitter.py), to compare")
    return p


def _photo_paths(args: argparse.Namespace, seed: int) -> list[Path]:
    """The photos to scan: the first n from --photos, else made (or reused) for the run."""
    out = args.keep or photo_dir(args.level, seed, args.megapixels, args.source, args.players,
                                 args.foreign)
    if args.photos:
        paths = sorted(args.photos.glob("*.jpg"))[: args.n]
        print(f"{len(paths)} photos from {args.photos}", file=sys.stderr)
    else:
        paths, made_s = make_photos(args.n, args.level, seed, out, args.jobs, args.megapixels,
                                    args.source, args.players, args.foreign)
        print(f"{len(paths)} {args.level} photos in {out} (made in {made_s:.0f} s; not counted)",
              file=sys.stderr)
    return paths


def _recognizers(choice: str) -> list[str]:
    """The recognizers to run for --recognizer, less tesseract where it is not installed."""
    recognizers = ["default", "tesseract"] if choice == "both" else [choice]
    if "tesseract" in recognizers and shutil.which("tesseract") is None:
        print("tesseract is not installed: skipping its column", file=sys.stderr)
        recognizers.remove("tesseract")
    return recognizers


def _scan_each(args: argparse.Namespace, paths: list[Path], recognizers: list[str],
               decode: list[float]
               ) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]], list[str]]:
    """Scan the photos with each recognizer: its summary, per-photo details and notes."""
    results: dict[str, dict[str, Any]] = {}
    details: dict[str, list[dict[str, Any]]] = {}
    notes = []
    for rec in recognizers:
        scanner, how = scanner_for(rec, adapt=args.adapt, members=args.members,
                                   row_priors=args.row_priors, lone_stroke=args.lone_stroke,
                                   edge_ink=args.edge_ink, second_look=args.second_look)
        subset = paths[: args.n_tesseract] if rec == "tesseract" else paths
        outcomes = scan_all(subset, scanner, rec)
        results[rec] = summary(outcomes, decode)
        details[rec] = [o.__dict__ | {"clean": o.clean} for o in outcomes]
        notes.append(f"{rec}: scanned with {how}")
        notes.extend(failures_text(outcomes))
        notes.extend(stage_lines(outcomes, rec))
        notes.extend(refusal_table(outcomes, subset))
        notes.extend(placement_table(outcomes))
        notes.extend(wrong_table(outcomes))
        notes.extend(flag_table(outcomes))
    return results, details, notes


def _headline(args: argparse.Namespace, seed: int) -> str:
    """The report's first line: where the photos came from and how they were scanned."""
    if args.photos:
        return f"benchmarks.scan: photos from {args.photos}"
    return (f"benchmarks.scan: {f'foreign {args.foreign}, ' if args.foreign else ''}"
            f"level {args.level}, seed {seed}, {args.source} eval writers, "
            f"photos {args.megapixels or '2-12'} MP, "
            f"{args.players or '2-5 (random)'} sides"
            f"{', with adaptation' if args.adapt else ''}"
            f"{', with row priors' if args.row_priors else ''}"
            f"{'' if args.lone_stroke else ', without the lone-stroke split'}"
            f"{'' if args.edge_ink else ', without the second reading at the edge'}"
            f"{'' if args.second_look else ', without the jittered second look'}"
            f"{f', {args.members} network(s)' if args.members else ''}")


def _write_json(args: argparse.Namespace, seed: int, n_photos: int,
                results: dict[str, dict[str, Any]],
                details: dict[str, list[dict[str, Any]]]) -> None:
    """Write the run's settings, summaries and per-photo details to --json."""
    meta = {"level": args.level, "seed": None if args.photos else seed,
            "foreign": args.foreign,
            "players": args.players, "source": args.source, "photos": n_photos,
            "adapt": args.adapt, "row_priors": args.row_priors,
            "lone_stroke": args.lone_stroke, "edge_ink": args.edge_ink,
            "second_look": args.second_look, **run_facts()}
    args.json.write_text(json.dumps({"meta": meta, "summary": results, "photos": details},
                                    indent=1,
                                    default=str) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    seed = args.seed if args.seed is not None else (
        FOREIGN_SEED_BASE[args.foreign] if args.foreign else SEED_BASE[args.level])
    paths = _photo_paths(args, seed)
    decode = decode_times(paths)
    results, details, notes = _scan_each(args, paths, _recognizers(args.recognizer), decode)
    print(_headline(args, seed))
    print(format_table(results))
    print("\n".join(notes))
    if args.json:
        _write_json(args, seed, len(paths), results, details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
