"""Synthetic photos of score sheets this project did not print, each with its truth.

    python -m escalero.samples.foreign --kind block|hand --n 10 --seed 1 --out DIR

Two kinds, drawn here with their own code (never sheets.render):

- "block": a bought score block: a printed table of other proportions than ours, in
  another line colour and weight (0.3-0.6 mm), another font, a printed title and row
  labels, one header row for the names, no corner marks and no QR code;
- "hand": a table ruled by hand with a pen on plain or squared paper: wobbly, slanted
  lines that overshoot, uneven row heights and column widths, row labels and names
  written by hand.

Both are filled with the same handwriting as samples.make_photos (one writer per sheet,
evaluation glyphs by default) and photographed with samples.camera. The truth file has
make_photos' form (sheet, expected settlement, photo metadata, placement truth), so
benchmarks.scan compares them the same way. Everything follows from (seed, index).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from escalero.samples import camera, handwriting
from escalero.samples.games import GameSpec, expected_settlement, play_game
from escalero.samples.make_photos import MM_PER_INCH, Photo, write_photo
from escalero.scoring.model import TOTAL_ROW
from escalero.scoring.rulesets import get_ruleset
from PIL import Image, ImageDraw, ImageFont

KINDS = ("block", "hand")
# Fonts of this machine's DejaVu family and reportlab's Bitstream Vera (none of the
# handwriting packages reserved for the independent evaluation).
FONT_FILES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-Italic.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
)
# Printed line colours (BGR): black, grey, blue, green, red-brown, red.
BLOCK_INKS = ((30, 30, 30), (80, 80, 80), (150, 70, 20), (60, 110, 30), (40, 60, 140),
              (50, 40, 190))
LABELS = {
    "long": ("Neuner", "Zehner", "Buben", "Damen", "Könige", "Asse", "Straße", "Full",
             "Poker", "Grande", "Summe"),
    "short": ("9", "10", "B", "D", "K", "A", "Str", "Full", "Poker", "Gr", "Σ"),
}
# Paper (width, height mm) of blocks: narrow, A5, squat, A4.
BLOCK_PAPERS = ((105.0, 210.0), (148.0, 210.0), (130.0, 180.0), (210.0, 297.0))
HAND_PAPERS = ((210.0, 297.0), (148.0, 210.0))


@dataclass(frozen=True)
class ForeignRequest:
    """One photo to make; None: drawn at random from the photo's seed."""

    seed: int
    index: int = 0
    kind: str = "block"
    level: str = "mild"
    split: str = "eval"
    source: str = "mnist"
    players: int | None = None  # block: 2-3 at random; hand: 2
    squared: bool | None = None  # hand: squared paper (else plain)
    megapixels: float | None = None

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.level}-s{self.seed}-{self.index:03d}"


@dataclass(frozen=True)
class Table:
    """A drawn table in page mm: its lines as polylines, and every cell's writable box."""

    page_mm: tuple[float, float]
    cells: dict[tuple[int, int, str], tuple[float, float, float, float]]  # (side, col, row)
    names: tuple[tuple[float, float, float, float], ...]  # header box per side
    labels: tuple[tuple[float, float, float, float], ...]  # label box per row


def _font(path: str, px: float) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, max(6, round(px)))


def _plan_table(rng: np.random.Generator, kind: str, sides: int, page_mm: tuple[float, float],
                squared: bool) -> tuple[list[float], list[float]]:
    """The x of every vertical line and the y of every horizontal one (mm, page frame):
    label column, then `sides` groups of 3; header row, 10 rows and the total row."""
    pw, ph = page_mm
    n_cols = 1 + 3 * sides
    n_rows = 1 + 11
    if kind == "block":
        label_w = float(rng.uniform(14, 26))
        margin_x = float(rng.uniform(5, 12))
        col_w = min(float(rng.uniform(11, 22)), (pw - 2 * margin_x - label_w) / (n_cols - 1))
        widths = [label_w] + [col_w] * (n_cols - 1)
        row_h = min(float(rng.uniform(7, 12)), (ph - 45) / (n_rows + 0.5))
        heights = [row_h * float(rng.uniform(1.1, 1.6))] + [row_h] * (n_rows - 1)
        x0 = (pw - sum(widths)) / 2
        y0 = float(rng.uniform(22, max(23, ph - sum(heights) - 10)))
    else:
        step = 5.0 if squared and rng.random() < 0.6 else 0.0  # ruled along the squares
        label_w = float(rng.uniform(15, 25))
        room = pw - 20 - label_w
        widths = [label_w] + list(rng.uniform(0.8, 1.2, n_cols - 1) * room / (n_cols - 1)
                                  * float(rng.uniform(0.75, 1.0)))
        heights = list(rng.uniform(7.5, 11.5, n_rows))
        heights[0] = float(rng.uniform(9, 14))
        if step:
            widths = [max(2, round(w / step)) * step for w in widths]
            heights = [max(2, round(h / step)) * step for h in heights]
        scale = min(1.0, (ph - 30) / sum(heights))
        heights = [h * scale for h in heights]
        x0 = float(rng.uniform(8, max(9, pw - sum(widths) - 8)))
        y0 = float(rng.uniform(12, max(13, ph - sum(heights) - 10)))
        if step:
            x0, y0 = round(x0 / step) * step, round(y0 / step) * step
    xs = list(np.cumsum([x0] + [float(w) for w in widths]))
    ys = list(np.cumsum([y0] + [float(h) for h in heights]))
    return [float(v) for v in xs], [float(v) for v in ys]


def _wobble(rng: np.random.Generator, length: float, amp: float) -> Any:
    """A smooth random offset (mm) along a hand-drawn line of `length` mm."""
    waves = [(float(rng.uniform(0, amp)), float(rng.uniform(30, 160)),
              float(rng.uniform(0, 2 * np.pi))) for _ in range(3)]
    return lambda t: sum(a * np.sin(2 * np.pi * t * length / wl + ph) for a, wl, ph in waves)


def _draw_line(draw: ImageDraw.ImageDraw, pts_mm: np.ndarray, ppm: float,
               colour: tuple[int, int, int], width_mm: float) -> None:
    pts = [(float(x * ppm), float(y * ppm)) for x, y in pts_mm]
    draw.line(pts, fill=colour[::-1], width=max(1, round(width_mm * ppm)), joint="curve")


def _draw_squares(rng: np.random.Generator, draw: ImageDraw.ImageDraw, paper: tuple[int, ...],
                  page_mm: tuple[float, float], size: tuple[int, int], ppm: float) -> None:
    """Rule squared paper's 5 mm grid, in a tone a little darker than the paper."""
    pw, ph = page_mm
    tone = tuple(int(v) for v in (np.array(paper) - rng.uniform([35, 25, 5], [70, 50, 20])))
    for x in np.arange(float(rng.uniform(0, 5)), pw, 5.0):
        draw.line([(x * ppm, 0), (x * ppm, size[1])], fill=tone,
                  width=max(1, round(0.12 * ppm)))
    for y in np.arange(float(rng.uniform(0, 5)), ph, 5.0):
        draw.line([(0, y * ppm), (size[0], y * ppm)], fill=tone,
                  width=max(1, round(0.12 * ppm)))


def _draw_block(rng: np.random.Generator, draw: ImageDraw.ImageDraw, xs: list[float],
                ys: list[float], ppm: float) -> None:
    """Draw a printed score block's straight lines, its title and its row labels."""
    ink = BLOCK_INKS[int(rng.integers(len(BLOCK_INKS)))]
    width = float(rng.uniform(0.3, 0.6))
    bold = width * float(rng.uniform(1.0, 2.0))  # the frame and the sides' separators
    font_path = FONT_FILES[int(rng.integers(len(FONT_FILES)))]
    merged = rng.random() < 0.6  # a side's header spans its three columns
    for j, x in enumerate(xs):
        outer = j in (0, len(xs) - 1) or (j - 1) % 3 == 0
        top = ys[0] if outer or not merged else ys[1]
        _draw_line(draw, np.array([[x, top], [x, ys[-1]]]), ppm, ink,
                   bold if outer else width)
    for i, y in enumerate(ys):
        outer = i in (0, 1, len(ys) - 1, len(ys) - 2)
        _draw_line(draw, np.array([[xs[0], y], [xs[-1], y]]), ppm, ink,
                   bold if outer else width)
    title = _font(font_path, 7 * ppm)
    draw.text((xs[0] * ppm, (ys[0] - 11) * ppm), str(rng.choice(["ESCALERO", "Escalero",
                                                                  "Poker-Würfel"])),
              fill=ink[::-1], font=title)
    labels = LABELS[str(rng.choice(list(LABELS)))]
    lf = _font(font_path, min(0.5 * (ys[2] - ys[1]), 0.16 * (xs[1] - xs[0])) * ppm)
    for i, text in enumerate(labels):
        draw.text(((xs[0] + 1.2) * ppm, (ys[i + 1] + ys[i + 2]) / 2 * ppm), text,
                  fill=ink[::-1], font=lf, anchor="lm")


def _draw_hand(rng: np.random.Generator, draw: ImageDraw.ImageDraw, xs: list[float],
               ys: list[float], ppm: float) -> tuple[list[Any], list[Any]]:
    """Draw a hand-ruled table's wobbly, slanted, overshooting lines in one pen; returns
    each vertical line's x at a y and each horizontal line's y at an x (mm), as drawn."""
    pen = ((150, 62, 22), (38, 34, 32), (120, 48, 35), (20, 20, 20))[int(rng.integers(4))]
    width = float(rng.uniform(0.3, 0.6))
    slant = float(rng.uniform(-0.012, 0.012))
    height = ys[-1] - ys[0]
    verticals: list[Any] = []
    for x in xs:
        over = rng.uniform(0.5, 6.0, 2)
        t = np.linspace(0, 1, 40)
        wob = _wobble(rng, height, 0.5)
        start, run = ys[0] - over[0], height + over.sum()
        yy = start + t * run
        shift = float(rng.uniform(-0.4, 0.4))
        xx = x + wob(t) + slant * (yy - ys[0]) + shift
        verticals.append(lambda y, x=x, wob=wob, start=start, run=run, shift=shift:
                         x + wob((y - start) / run) + slant * (y - ys[0]) + shift)
        _draw_line(draw, np.stack([xx, yy], 1), ppm, pen,
                   width * float(rng.uniform(0.85, 1.15)))
    w_all = xs[-1] - xs[0]
    horizontals: list[Any] = []
    for y in ys:
        over = rng.uniform(0.5, 8.0, 2)
        t = np.linspace(0, 1, 60)
        wob = _wobble(rng, w_all, 0.6)
        start, run = xs[0] - over[0], w_all + over.sum()
        xx = start + t * run
        shift = float(rng.uniform(-0.4, 0.4))
        yy = y + wob(t) - slant * (xx - xs[0]) + shift
        horizontals.append(lambda x, y=y, wob=wob, start=start, run=run, shift=shift:
                           y + wob((x - start) / run) - slant * (x - xs[0]) + shift)
        _draw_line(draw, np.stack([xx, yy], 1), ppm, pen,
                   width * float(rng.uniform(0.85, 1.15)))
    return verticals, horizontals


Lines = tuple[list[Any], list[Any]]  # each vertical line's x(y), horizontal line's y(x), mm


def _cell(xs: list[float], ys: list[float], lines: Lines | None, j: int, i: int,
          inset: float) -> tuple[float, float, float, float]:
    """The writable box between vertical lines j, j + 1 and horizontal lines i, i + 1,
    where those lines were drawn (at the cell's middle): people write inside the cells
    they ruled, not inside the ones they meant to rule."""
    left, right, top, bottom = xs[j], xs[j + 1], ys[i], ys[i + 1]
    if lines is not None:
        xm, ym = (left + right) / 2, (top + bottom) / 2
        verticals, horizontals = lines
        left, right = float(verticals[j](ym)), float(verticals[j + 1](ym))
        top, bottom = float(horizontals[i](xm)), float(horizontals[i + 1](xm))
    return (left + inset, top + inset, right - left - 2 * inset, bottom - top - 2 * inset)


def _table_boxes(kind: str, sides: int, page_mm: tuple[float, float], xs: list[float],
                 ys: list[float], lines: Lines | None = None) -> Table:
    """The table's writable boxes (cells, side names, row labels) inside its lines (as
    drawn, where `lines` gives them; else straight at xs and ys)."""
    # Writable boxes: inside the lines by the line's half width and a little air.
    inset = 0.9 if kind == "hand" else 0.6
    cells: dict[tuple[int, int, str], tuple[float, float, float, float]] = {}
    rows = (*get_ruleset("escalero", ()).row_ids, TOTAL_ROW)
    for s in range(sides):
        for c in range(3):
            for r, row in enumerate(rows):
                cells[(s, c, row)] = _cell(xs, ys, lines, 1 + 3 * s + c, r + 1, inset)
    names = []
    for s in range(sides):
        first, last = _cell(xs, ys, lines, 1 + 3 * s, 0, inset), \
            _cell(xs, ys, lines, 3 + 3 * s, 0, inset)
        names.append((first[0], first[1], last[0] + last[2] - first[0], first[3]))
    labels_boxes = tuple(_cell(xs, ys, lines, 0, r + 1, inset) for r in range(len(rows)))
    return Table(page_mm, cells, tuple(names), labels_boxes)


def draw_table(rng: np.random.Generator, kind: str, sides: int, page_mm: tuple[float, float],
               ppm: float, squared: bool) -> tuple[np.ndarray, Table]:
    """The blank sheet as a BGR raster at `ppm` px/mm, and where its boxes lie."""
    pw, ph = page_mm
    size = (round(pw * ppm), round(ph * ppm))
    paper = tuple(int(v) for v in rng.integers(238, 256, 3))
    img = Image.new("RGB", size, paper)
    draw = ImageDraw.Draw(img)
    if squared:
        _draw_squares(rng, draw, paper, page_mm, size, ppm)
    xs, ys = _plan_table(rng, kind, sides, page_mm, squared)
    lines = None
    if kind == "block":
        _draw_block(rng, draw, xs, ys, ppm)
    else:
        lines = _draw_hand(rng, draw, xs, ys, ppm)
    page = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)
    return page, _table_boxes(kind, sides, page_mm, xs, ys, lines)


def _px(box: tuple[float, float, float, float], ppm: float) -> tuple[int, int, int, int]:
    return (round(box[0] * ppm), round(box[1] * ppm), round(box[2] * ppm), round(box[3] * ppm))


def make_foreign_photo(req: ForeignRequest) -> Photo:
    """Draw, fill and photograph one foreign sheet; deterministic in the request."""
    if req.kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {req.kind!r}")
    rng = np.random.default_rng([req.seed, req.index, KINDS.index(req.kind) + 7])
    sides = req.players or (int(rng.integers(2, 4)) if req.kind == "block" else 2)
    if not 2 <= sides <= 4:
        raise ValueError("a foreign sheet is drawn for 2-4 players")
    papers = BLOCK_PAPERS if req.kind == "block" else HAND_PAPERS
    page_mm = papers[int(rng.integers(len(papers)))]
    if req.kind == "block" and sides == 3 and page_mm[0] < 120:
        page_mm = (148.0, 210.0)  # three sides of 3 columns do not fit a narrow block
    squared = req.kind == "hand" and (req.squared if req.squared is not None
                                      else bool(rng.random() < 0.5))
    game = play_game(GameSpec(game="escalero", sides=sides), rng)
    sheet = dict(game.sheet)
    writer = handwriting.make_writer(rng, req.split, source=req.source)
    plan = camera.plan_shot(rng, page_mm, camera.Options(level=req.level,
                                                         megapixels=req.megapixels))
    ppm = float(np.clip(plan.px_per_mm * MM_PER_INCH * 1.2, 120, 320)) / MM_PER_INCH
    page, table = draw_table(rng, req.kind, sides, page_mm, ppm, squared)
    for s, side in enumerate(sheet["sides"]):
        handwriting.render_text(page, _px(table.names[s], ppm), side["members"][0], writer, rng)
        for (cs, c, row), box in table.cells.items():
            if cs != s:
                continue
            value = (side["written_totals"][c] if row == TOTAL_ROW
                     else side["columns"][c].get(row))
            if value is not None:
                handwriting.render_entry(page, _px(box, ppm), value, writer, rng)
    if req.kind == "hand":  # row labels by hand: the digits in the writer's own hand
        for text, box in zip(LABELS["short"], table.labels, strict=True):
            if text.isdigit():
                handwriting.render_entry(page, _px(box, ppm), int(text), writer, rng)
            else:
                handwriting.render_text(page, _px(box, ppm), text, writer, rng)
    jpeg = camera.take_photo(page, plan)
    keys = sorted(table.cells)
    centres = np.array([(b[0] + b[2] / 2, b[1] + b[3] / 2) for b in (table.cells[k] for k in keys)])
    at = camera.page_to_photo(plan, centres)
    truth = {
        "sheet": sheet,
        "expected": expected_settlement(sheet),
        "photo": {**plan.metadata(), "seed": req.seed, "index": req.index,
                  "writer": {"id": writer.id, "split": writer.split, "pen": writer.pen}},
        "layout": {"game": "escalero", "variant": [], "sides": sides, "pairs": False,
                   "kind": req.kind, "page_mm": list(page_mm), "squared": squared},
        "illegal_cells": [list(c) for c in game.illegal_cells],
        "wrong_totals": [list(t) for t in game.wrong_totals],
        "placement_px": [[s, c, r, round(float(x), 2), round(float(y), 2)]
                         for (s, c, r), (x, y) in zip(keys, at, strict=True)],
        "request": {k: v for k, v in asdict(req).items() if v is not None},
    }
    return Photo(req.name, jpeg, truth)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m escalero.samples.foreign", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kind", choices=KINDS, default="block")
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--level", choices=camera.LEVELS, default="mild")
    p.add_argument("--players", type=int, help="sides (block: 2-3 at random, hand: 2)")
    p.add_argument("--squared", action="store_true", default=None,
                   help="hand: squared paper (default: plain or squared at random)")
    p.add_argument("--megapixels", type=float, help="fix the photo size (default: 2-12 MP)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--name", help="file name stem (only with --n 1)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.name and args.n != 1:
        _parser().error("--name needs --n 1")
    for i in range(args.start, args.start + args.n):
        photo = make_foreign_photo(ForeignRequest(
            seed=args.seed, index=i, kind=args.kind, level=args.level, players=args.players,
            squared=args.squared, megapixels=args.megapixels))
        if args.name:
            photo = Photo(args.name, photo.jpeg, photo.truth)
        print(write_photo(photo, args.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
