"""The cell reader on real phone photos of other people's handwriting, truth read by eye.

    python -m benchmarks.real [--data ../shared/data/real] [--json out.json]
                              [--recognizer default|tesseract|both] [--crops DIR] [--overlay DIR]

The photos are not in the repo: they are read from `../shared/data/real/` beside the
checkout (or --data, or $ESCALERO_REAL_DATA); their sources and licences are in that
folder's README and in benchmarks/real_truth/README.md. The truth lives in
benchmarks/real_truth/<photo>.json, one file per photo: for each block of cells the four
grid corners in photo pixels (top-left, top-right, bottom-right, bottom-left, in the
block's reading direction, so a card photographed upside down or sideways is read upright),
its rows x columns, and each cell's truth as a token (real_truth/README.md):

- an entry (a hole score, a single digit): read with `allowed` = the values the block's
  entries allow (1-9 for golf holes);
- a written total (OUT, IN, TOTAL): read with allowed None (any number 0-999);
- a strike: a dash, or a written 0 (the sheet JSON holds a written 0 as struck);
- an empty cell: read with the entries' `allowed`;
- cells left out: "?" (the truth is not sure to the eye) and "!" (no number at all: a
  triangle for a birdie, a negative number), counted in the report, never scored.

Each cell is cut by the cell reading contract (docs/ARCHITECTURE.md): the block's corners
give a homography from grid units to photo pixels; a cell's box (its pitch less an inset,
as an Escalero cell's writable box lies 0.5 mm inside its 15 mm pitch) is warped at 10 px/mm
scaled so it fits the two-sides Escalero writable box (26.1 x 14 mm) with its own aspect,
grown by the 1.5 mm margin, BGR uint8. The default recognizer and Tesseract read the same
crops, one batch per photo.

Reported per photo, per kind of cell and in all: cells scored, right, certain
(CellReading.certain), certain and wrong, and the cells left out (unsure, not a number);
for Tesseract only "right" (its readings are never certain).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TRUTH_DIR = Path(__file__).resolve().parent / "real_truth"
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "real"
DATA_ENV = "ESCALERO_REAL_DATA"

# The contract's resolution and margin (scan.rectify.PX_PER_MM, scan.rectify.CELL_MARGIN_MM);
# kept here so the truth files can be checked without importing the scanner.
PX_PER_MM = 10.0
MARGIN_MM = 1.5
# An Escalero cell's writable box on a two-sides A4 sheet (sheets.layout: 27.08 x 15 mm
# pitch less 0.5 mm each side): a cell's box is scaled to fit it, keeping its aspect.
ESCALERO_BOX_MM = (26.083, 14.0)
# The box inside a cell's pitch: Escalero's 0.5 mm inside a 15 mm pitch, as a share.
INSET = 0.5 / 15.0

KINDS = ("entry", "total", "strike", "empty")
LEFT_OUT = ("unsure", "not_a_number")
SOURCES = {
    "golf": "golf/: Lelekhoa1812/Golf-Scorecard-Scanner (GitHub), Apache-2.0",
    "digit-strings": "digit-strings/: HYPJUDY/handwritten-digits-recognition (GitHub), MIT",
}


# --- truth ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One cell's truth: `truth` a number, "x" (struck) or None (empty); `kind` one of
    KINDS or LEFT_OUT; `note` what marks it (circled, triangled, ...), for the failures."""

    truth: int | str | None
    kind: str
    note: str = ""


NOTES = {"o": "circled", "^": "triangled", "#": "boxed", "'": "ticked", "~": "overwritten",
         "*": "by the sums"}


def parse_token(token: str) -> Cell:
    """A truth token (real_truth/README.md) as a Cell.

    "." empty; "5" an entry; "=35" a written total; "-" a strike (a dash); "0" a written 0
    (a strike in the sheet's terms); "?" or "?5" unsure (left out; a guess after it is only a
    note); "!" or "!text" no number (left out). A number or a total may end in marks:
    o circled, ^ triangled, # boxed, ' ticked, ~ overwritten, * told for sure only by the
    card's own sums (e.g. "4o", "=13o", "=3o*").
    """
    if token == ".":
        return Cell(None, "empty")
    if token.startswith("?"):
        return Cell(None, "unsure", token[1:])
    if token.startswith("!"):
        return Cell(None, "not_a_number", token[1:])
    if token == "-":
        return Cell("x", "strike", "dash")
    total = token.startswith("=")
    body = token[1:] if total else token
    marks = ""
    while body and body[-1] in NOTES:
        marks = body[-1] + marks
        body = body[:-1]
    if not body.isdigit():
        raise ValueError(f"bad truth token {token!r}")
    note = ", ".join(NOTES[m] for m in marks)
    value = int(body)
    if total:
        return Cell(value, "total", note)
    if value == 0:
        return Cell("x", "strike", ", ".join(filter(None, ["written 0", note])))
    return Cell(value, "entry", note)


@dataclass(frozen=True)
class Block:
    name: str
    corners: tuple[tuple[float, float], ...]  # TL, TR, BR, BL in photo px
    rows: int
    cols: int
    cells: tuple[tuple[Cell, ...], ...]  # rows x cols
    allowed: tuple[int, ...]  # what an entry (and an empty cell) is read with


@dataclass(frozen=True)
class Truth:
    name: str  # the truth file's stem
    photo: str  # path under the data folder
    size: tuple[int, int]  # (width, height) of the photo
    source: str
    blocks: tuple[Block, ...]


def load_truth(path: Path) -> Truth:
    """A truth file, checked: four corners inside the photo, as many rows and columns of
    tokens as the block says."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    width, height = raw["size"]
    blocks = []
    for b in raw["blocks"]:
        name = b.get("name", "")
        corners = tuple((float(x), float(y)) for x, y in b["corners"])
        if len(corners) != 4:
            raise ValueError(f"{path.name} {name}: {len(corners)} corners, not 4")
        for x, y in corners:
            if not (0 <= x < width and 0 <= y < height):
                raise ValueError(f"{path.name} {name}: corner {x}, {y} outside the photo")
        rows, cols = int(b["rows"]), int(b["cols"])
        tokens = [row.split() if isinstance(row, str) else list(row) for row in b["cells"]]
        if len(tokens) != rows or any(len(t) != cols for t in tokens):
            raise ValueError(f"{path.name} {name}: cells are not {rows} x {cols}")
        allowed = tuple(int(v) for v in b.get("allowed", range(1, 10)))
        cells = tuple(tuple(parse_token(t) for t in row) for row in tokens)
        blocks.append(Block(name, corners, rows, cols, cells, allowed))
    return Truth(path.stem, raw["photo"], (int(width), int(height)), raw["source"],
                 tuple(blocks))


def truth_files(folder: Path = TRUTH_DIR) -> list[Path]:
    return sorted(folder.glob("*.json"))


# --- cutting crops by the contract -----------------------------------------------------------


def block_homography(block: Block) -> np.ndarray:
    """Grid units (column, row; 0..cols, 0..rows) -> photo pixels."""
    src = np.asarray([[0, 0], [block.cols, 0], [block.cols, block.rows], [0, block.rows]],
                     np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(block.corners, np.float32))


def pitch_px(block: Block) -> tuple[float, float]:
    """A cell's mean pitch (w, h) in photo pixels, from the block's edges."""
    c = np.asarray(block.corners, np.float64)
    top, bottom = np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3])
    left, right = np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1])
    return (float(top + bottom) / 2 / block.cols, float(left + right) / 2 / block.rows)


def box_size(block: Block) -> tuple[int, int]:
    """The writable box's (w, h) in crop px: the cell's box less the inset, with its aspect,
    scaled to fit the Escalero box at PX_PER_MM."""
    pw, ph = pitch_px(block)
    bw, bh = pw * (1 - 2 * INSET), ph * (1 - 2 * INSET)
    scale = min(ESCALERO_BOX_MM[0] * PX_PER_MM / bw, ESCALERO_BOX_MM[1] * PX_PER_MM / bh)
    return max(1, round(bw * scale)), max(1, round(bh * scale))


def crop_homography(block: Block, row: int, col: int) -> tuple[np.ndarray, tuple[int, int],
                                                                   tuple[int, int, int, int]]:
    """The homography crop px -> photo px of cell (row, col), the crop's size (w, h) and the
    box inside it (x, y, w, h)."""
    bw, bh = box_size(block)
    m = round(MARGIN_MM * PX_PER_MM)
    # crop px -> grid units: the box spans the cell less its inset.
    sx, sy = (1 - 2 * INSET) / bw, (1 - 2 * INSET) / bh
    to_units = np.array([[sx, 0, col + INSET - m * sx],
                         [0, sy, row + INSET - m * sy],
                         [0, 0, 1]], np.float64)
    return block_homography(block) @ to_units, (bw + 2 * m, bh + 2 * m), (m, m, bw, bh)


def cut_cell(photo: np.ndarray, block: Block, row: int, col: int
             ) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Cell (row, col) of `block` as the contract's crop (BGR uint8) and its box_px."""
    h, size, box = crop_homography(block, row, col)
    crop = cv2.warpPerspective(photo, h, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    return np.ascontiguousarray(crop), box


def overlay(photo: np.ndarray, blocks: Sequence[Block]) -> np.ndarray:
    """The photo with every block's cell boxes drawn (to check the corners by eye)."""
    out = photo.copy()
    for block in blocks:
        for r in range(block.rows):
            for c in range(block.cols):
                h, (w, hh), (x, y, bw, bh) = crop_homography(block, r, c)
                pts = np.asarray([[x, y, 1], [x + bw, y, 1], [x + bw, y + bh, 1],
                                  [x, y + bh, 1]], np.float64) @ h.T
                poly = (pts[:, :2] / pts[:, 2:]).round().astype(np.int32)
                cv2.polylines(out, [poly], True, (0, 200, 0), 1)
        cv2.circle(out, tuple(round(v) for v in block.corners[0]), 4, (0, 0, 255), -1)
    return out


# --- reading and scoring ----------------------------------------------------------------------


@dataclass
class Tally:
    cells: int = 0
    right: int = 0
    certain: int = 0
    certain_wrong: int = 0
    tesseract_right: int = 0
    unsure: int = 0
    not_a_number: int = 0

    def add(self, other: Tally) -> None:
        for key in vars(self):
            setattr(self, key, getattr(self, key) + getattr(other, key))


@dataclass
class PhotoResult:
    name: str
    tallies: dict[str, Tally] = field(default_factory=dict)  # per kind, and "all"
    wrong: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def drawn_round(cell: Cell) -> bool:
    """A number drawn round (circled, boxed, in a triangle): golf cards mark par and
    birdies so; an Escalero sheet's cells hold none."""
    return any(m in cell.note for m in ("circled", "boxed", "triangled"))


def data_folder(option: str | None) -> Path:
    return Path(option or os.environ.get(DATA_ENV) or DEFAULT_DATA)


def _shown(value: object) -> str:
    return "empty" if value is None else str(value)


def read_photo(truth: Truth, data: Path, readers: dict[str, Any],
               crops_dir: Path | None = None, overlay_dir: Path | None = None
               ) -> PhotoResult:
    from escalero.scan.recognize import CellCrop

    photo = cv2.imread(str(data / truth.photo), cv2.IMREAD_COLOR)
    if photo is None:
        raise FileNotFoundError(data / truth.photo)
    if (photo.shape[1], photo.shape[0]) != truth.size:
        raise ValueError(f"{truth.photo} is {photo.shape[1]} x {photo.shape[0]}, its truth "
                         f"file says {truth.size[0]} x {truth.size[1]}")
    if overlay_dir is not None:
        overlay_dir.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(overlay_dir / f"{truth.name}.jpg"), overlay(photo, truth.blocks))
    result = PhotoResult(truth.name, {k: Tally() for k in (*KINDS, "all")})
    where, cells, crops = [], [], []
    for bi, block in enumerate(truth.blocks):
        for r, row in enumerate(block.cells):
            for c, cell in enumerate(row):
                if cell.kind in LEFT_OUT:
                    setattr(result.tallies["all"], cell.kind,
                            getattr(result.tallies["all"], cell.kind) + 1)
                    continue
                image, box = cut_cell(photo, block, r, c)
                allowed = None if cell.kind == "total" else block.allowed
                where.append((block.name or str(bi), r, c))
                cells.append(cell)
                crops.append(CellCrop(image, allowed, box))
                if crops_dir is not None:
                    crops_dir.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(crops_dir / f"{truth.name}-b{bi}-r{r}-c{c}.png"), image)
    t0 = time.perf_counter()
    readings = {name: rec.read(crops) if crops else [] for name, rec in readers.items()}
    result.seconds = time.perf_counter() - t0
    for i, cell in enumerate(cells):
        tally = Tally(cells=1)
        wrong: dict[str, Any] = {}
        if "default" in readings:
            reading = readings["default"][i]
            right = reading.value == cell.truth
            tally.right, tally.certain = int(right), int(reading.certain)
            tally.certain_wrong = int(reading.certain and not right)
            if not right:
                wrong = {"read": _shown(reading.value),
                         "confidence": round(reading.confidence, 3),
                         "certain": reading.certain}
        if "tesseract" in readings:
            tally.tesseract_right = int(readings["tesseract"][i].value == cell.truth)
        result.tallies[cell.kind].add(tally)
        result.tallies["all"].add(tally)
        part = "marked" if drawn_round(cell) else "plain"
        result.tallies.setdefault(f"{cell.kind}:{part}", Tally()).add(tally)
        if wrong:
            name, r, c = where[i]
            result.wrong.append({"block": name, "row": r, "col": c, "kind": cell.kind,
                                 "truth": _shown(cell.truth), "note": cell.note, **wrong})
    return result


# --- report ------------------------------------------------------------------------------------


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "n/a"


HEAD = ("cells", "right", "certain", "certain and wrong", "tesseract right", "left out")


def table_rows(label: str, t: Tally, tesseract: bool) -> list[str]:
    left = f"{t.unsure} unsure, {t.not_a_number} no number" if label.endswith("all") else ""
    return [label, str(t.cells), f"{t.right} ({_pct(t.right, t.cells)})",
            f"{t.certain} ({_pct(t.certain, t.cells)})", str(t.certain_wrong),
            f"{t.tesseract_right} ({_pct(t.tesseract_right, t.cells)})" if tesseract else "-",
            left]


def render(rows: list[list[str]]) -> str:
    table = [["", *HEAD], *rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True))
                     .rstrip() for r in table)


def summary(results: Sequence[PhotoResult]) -> dict[str, Tally]:
    total: dict[str, Tally] = {}
    for res in results:
        for k, t in res.tallies.items():
            total.setdefault(k, Tally()).add(t)
    return total


def report(results: Sequence[PhotoResult], tesseract: bool) -> str:
    """Per photo its kinds of cell and all, then per kind over all photos (entries and
    totals also split into plain ones and ones drawn round: circled, boxed, triangled),
    then all."""
    rows = []
    for res in results:
        for kind in KINDS:
            if res.tallies[kind].cells:
                rows.append(table_rows(f"{res.name} {kind}", res.tallies[kind], tesseract))
        rows.append(table_rows(f"{res.name} all", res.tallies["all"], tesseract))
    total = summary(results)
    for kind in KINDS:
        rows.append(table_rows(f"{kind}", total[kind], tesseract))
        for part in ("plain", "marked"):
            key = f"{kind}:{part}"
            if total.get(key) and total[key].cells and total[key].cells != total[kind].cells:
                rows.append(table_rows(f"  {kind}, {'drawn round' if part == 'marked' else part}",
                                       total[key], tesseract))
    rows.append(table_rows("all", total["all"], tesseract))
    return render(rows)


def markdown(results: Sequence[PhotoResult], truths: Sequence[Truth],
             tesseract: bool = True) -> str:
    """The summary as a Markdown table (docs/digit-model.md): per source of photos its kinds
    of cell, then all; the cells left out after each source's name."""
    source = {t.name: t.source for t in truths}
    lines = ["| cells | n | right | certain | certain and wrong | Tesseract right |",
             "|---|---|---|---|---|---|"]

    def row(label: str, t: Tally) -> str:
        return (f"| {label} | {t.cells} | {_pct(t.right, t.cells)} | {_pct(t.certain, t.cells)}"
                f" | {t.certain_wrong} | "
                f"{_pct(t.tesseract_right, t.cells) if tesseract else '-'} |")

    for src in sorted(set(source.values())):
        total = summary([r for r in results if source[r.name] == src])
        a = total["all"]
        lines.append(f"| **{src}** ({a.unsure} unsure and {a.not_a_number} with no number "
                     "left out) | | | | | |")
        for kind in KINDS:
            if kind in total and total[kind].cells:
                lines.append(row(kind, total[kind]))
                marked = total.get(f"{kind}:marked")
                if marked and marked.cells:
                    lines.append(row(f"{kind}, drawn round", marked))
        lines.append(row("all", a))
    lines.append(row("**all**", summary(results)["all"]))
    return "\n".join(lines)


def meta() -> dict[str, Any]:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    return {"date": datetime.date.today().isoformat(), "commit": commit or "unknown",
            "machine": f"{os.cpu_count()} cores {platform.processor() or platform.machine()}"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.real", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", help=f"the photos' folder (default ${DATA_ENV}, else "
                   f"{DEFAULT_DATA})")
    p.add_argument("--recognizer", choices=("default", "tesseract", "both", "none"),
                   default="both", help="none: only cut the crops and overlays (to check the "
                   "corners before a cell is read)")
    p.add_argument("--only", nargs="*", help="truth file stems to read (default: all)")
    p.add_argument("--json", type=Path, help="write the results here")
    p.add_argument("--crops", type=Path, help="write every crop here as PNG")
    p.add_argument("--overlay", type=Path, help="write each photo with its cell boxes here")
    p.add_argument("--wrong", action="store_true", help="list the cells read wrong")
    p.add_argument("--markdown", action="store_true",
                   help="also print the summary as a Markdown table")
    return p


def _readers(choice: str) -> dict[str, Any] | None:
    """The recognizers `choice` names; None (after a message) if the default cannot run."""
    from escalero.scan.recognize import get_recognizer
    from escalero.scoring.errors import EscaleroError

    names: tuple[str, ...] = {"both": ("default", "tesseract"), "none": ()}.get(
        choice, (choice,))
    readers = {}
    for name in names:
        try:
            readers[name] = get_recognizer(name)
        except EscaleroError as err:
            print(f"benchmarks.real: {name}: {err}", file=sys.stderr)
            if name == "default" or len(names) == 1:
                return None
    return readers


def _print_wrong(results: Sequence[PhotoResult]) -> None:
    for res in results:
        for wr in res.wrong:
            print(f"{res.name} {wr['block']} r{wr['row']} c{wr['col']} {wr['kind']}: "
                  f"{wr['truth']}{' (' + wr['note'] + ')' if wr['note'] else ''} read "
                  f"{wr['read']} at {wr['confidence']}{' CERTAIN' if wr['certain'] else ''}")


def _write_json(path: Path, results: Sequence[PhotoResult], truths: Sequence[Truth],
                m: dict[str, Any]) -> None:
    path.write_text(json.dumps({
        "meta": {**m, "sources": [SOURCES.get(t, t) for t in sorted(
            {t.source for t in truths})]},
        "summary": {k: vars(t) for k, t in summary(results).items()},
        "photos": [{"name": r.name, "seconds": round(r.seconds, 3),
                    "tallies": {k: vars(t) for k, t in r.tallies.items()},
                    "wrong": r.wrong} for r in results],
    }, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    data = data_folder(args.data)
    if not data.is_dir():
        print(f"benchmarks.real: no photos at {data}; put the real photos there (see "
              f"benchmarks/real_truth/README.md) or pass --data / set ${DATA_ENV}",
              file=sys.stderr)
        return 2
    readers = _readers(args.recognizer)
    if readers is None:
        return 2
    truths = [load_truth(f) for f in truth_files()
              if not args.only or f.stem in args.only]
    results = []
    for truth in truths:
        if not (data / truth.photo).exists():
            print(f"benchmarks.real: {truth.photo} is missing under {data}", file=sys.stderr)
            return 2
        results.append(read_photo(truth, data, readers, args.crops, args.overlay))
    m = meta()
    print(f"Real photos, measured {m['date']} at commit {m['commit']} on {m['machine']}.")
    for src in sorted({t.source for t in truths}):
        print(f"Photos: {SOURCES.get(src, src)} (not in the repo; see "
              "benchmarks/real_truth/README.md)")
    print()
    print(report(results, "tesseract" in readers))
    if args.markdown:
        print()
        print(markdown(results, truths, "tesseract" in readers))
    if args.wrong:
        print()
        _print_wrong(results)
    if args.json:
        _write_json(args.json, results, truths, m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
