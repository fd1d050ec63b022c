"""Synthetic phone photos of filled score sheets, each with its truth.

    python -m escalero.samples.make_photos --n 10 --level mild --split eval --seed 1 --out DIR

For each photo: play a random legal game (samples.games), print the blank sheet
(sheets.render -> PDF -> raster with pypdfium2), write the entries and names by hand
(samples.handwriting, one writer per sheet from the requested glyph pool), photograph
it (samples.camera) and write NAME.jpg and NAME.json. The truth file holds the Sheet
JSON, the settlement `escalero settle --json` gives for it, and the photo's metadata.
Everything follows from (seed, index): the same command makes the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pypdfium2 as pdfium
from escalero.samples import camera, handwriting
from escalero.samples.games import GameSpec, expected_settlement, play_game
from escalero.scoring.errors import EscaleroError, ExitCode
from escalero.scoring.model import TOTAL_ROW, CellKey
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, get_ruleset
from escalero.sheets.layout import (
    KNOWN_VERSIONS,
    LAYOUT_VERSION,
    QR_CLEAR_MM,
    Layout,
    LayoutSpec,
    build_layout,
)
from escalero.sheets.render import SheetText, render_pdf

MM_PER_INCH = 25.4


@dataclass(frozen=True)
class Request:
    """One photo to make. None: drawn at random from the photo's seed."""

    seed: int
    index: int = 0
    level: str = "mild"
    split: str = "eval"
    source: str = "mnist"  # the writer's glyphs: see handwriting.SOURCES
    game: str | None = None
    players: int | None = None
    pairs: bool | None = None
    variants: tuple[str, ...] | None = None
    paper: str = "a4"
    rounds: int | None = None
    illegal: int = 0
    megapixels: float | None = None
    rotation: float | None = None
    tilt: float | None = None
    jpeg_quality: int | None = None
    cover_marker: int | None = None
    no_sheet: bool = False
    tiny: bool = False
    blank_qr: bool | None = None  # the QR code torn off / painted over: the ids must do
    layout_version: int | None = None  # print an older layout (1: fiducial ids 0-3)
    pen: str | None = None  # the writer's pen by name (handwriting.PUB_PENS); None: drawn
    flatbed: bool | None = None  # a flatbed or copier scan instead of a phone photo

    @property
    def name(self) -> str:
        return f"{self.level}-s{self.seed}-{self.index:03d}"


@dataclass(frozen=True)
class Photo:
    name: str
    jpeg: bytes
    truth: dict


def truth_cells(sheet: dict[str, Any]) -> dict[CellKey, Any]:
    """Every cell of a truth sheet (entries and written totals) with its true content, in
    the form `comparable` gives: what a right reading of the photo must equal."""
    rules = get_ruleset(sheet["game"], sheet.get("variant", ()))
    cells: dict[CellKey, Any] = {}
    for s, side in enumerate(sheet["sides"]):
        for c in range(rules.columns):
            column = side["columns"][c] if c < len(side["columns"]) else {}
            for row in rules.row_ids:
                cells[(s, c, row)] = comparable(column.get(row))
            totals = side.get("written_totals") or []
            cells[(s, c, TOTAL_ROW)] = comparable(totals[c] if c < len(totals) else None)
    return cells


def comparable(value: Any) -> Any:
    """Struck in any spelling (and a written 0 in a cell) compares as "x"."""
    if value == 0 or (isinstance(value, str) and value.lower() in ("x", "-", "/")):
        return "x"
    return value


def choose_game(req: Request, rng: np.random.Generator) -> tuple[LayoutSpec, GameSpec]:
    """The sheet and the game: what the request fixes, the rest at random (mostly common)."""
    game = req.game or str(rng.choice(GAMES, p=(0.8, 0.2)))
    if req.variants is not None:
        variants = req.variants
    elif game == "escalero" and rng.random() < 0.25:
        variants = (str(rng.choice(ESCALERO_VARIANTS)),)
    else:
        variants = ()
    pairs = bool(req.pairs) if req.pairs is not None else (
        game == "escalero" and req.players is None and rng.random() < 0.15)
    if req.players is not None:
        players = req.players
    elif pairs:
        players = 4
    else:
        players = int(rng.choice([2, 3, 4, 5], p=(0.5, 0.3, 0.12, 0.08)))
    if pairs and players % 2:
        raise ValueError("pairs mode needs an even number of players")
    sides = players // 2 if pairs else players
    layout_spec = LayoutSpec(game=game, variants=variants, sides=sides, pairs=pairs,
                             paper=req.paper)
    game_spec = GameSpec(game=game, variants=variants, sides=sides, pairs=pairs,
                         rounds=req.rounds, illegal_values=req.illegal)
    return layout_spec, game_spec


def blank_page(layout: Layout, serial: str, dpi: float) -> np.ndarray:
    """The printed sheet as a BGR raster at `dpi`."""
    pdf = pdfium.PdfDocument(render_pdf(layout, [serial], SheetText()))
    try:
        bitmap = pdf[0].render(scale=dpi / 72)
        return np.ascontiguousarray(bitmap.to_numpy()[:, :, :3])
    finally:
        pdf.close()


def _box_px(box: tuple[float, float, float, float], scale: tuple[float, float]
            ) -> tuple[int, int, int, int]:
    x, y, w, h = box
    return (round(x * scale[0]), round(y * scale[1]), round(w * scale[0]), round(h * scale[1]))


def fill_page(page: np.ndarray, layout: Layout, sheet: dict, writer: handwriting.Writer,
              rng: np.random.Generator) -> None:
    """Write the sheet's names, entries and written totals into the page raster, in place."""
    scale = (page.shape[1] / layout.width, page.shape[0] / layout.height)
    sides = sheet["sides"]
    seen: dict[int, int] = {}
    for name_box in layout.names:
        member = seen.get(name_box.side, 0)
        seen[name_box.side] = member + 1
        members = sides[name_box.side]["members"]
        if member < len(members):
            handwriting.render_text(page, _box_px(name_box.box, scale), members[member],
                                    writer, rng)
    for cell in layout.cells:
        value = sides[cell.side]["columns"][cell.column].get(cell.row)
        if value is not None:
            handwriting.render_entry(page, _box_px(cell.box, scale), value, writer, rng)
    for total in layout.totals:
        value = sides[total.side]["written_totals"][total.column]
        if value is not None:
            handwriting.render_entry(page, _box_px(total.box, scale), value, writer, rng)


def make_photo(req: Request) -> Photo:
    """Play, print, write and photograph one sheet; deterministic in the request."""
    rng = np.random.default_rng([req.seed, req.index])
    layout_spec, game_spec = choose_game(req, rng)
    if req.layout_version is not None:
        layout_spec = replace(layout_spec, version=req.layout_version)
    layout = build_layout(layout_spec)
    game = play_game(game_spec, rng)
    serial = f"S{req.seed % 10000}-{req.index}"
    sheet = {**game.sheet, "serial": serial}
    pens: tuple[tuple[str, tuple[int, int, int], float], ...] = (
        handwriting.PUB_PENS if req.level == "pub" else
        handwriting.HARSH_PENS if req.level == "harsh" else handwriting.PENS)
    if req.pen is not None:
        pens = tuple(p for p in handwriting.PUB_PENS if p[0] == req.pen)[:1]
        if not pens:
            raise ValueError(f"unknown pen {req.pen!r}")
    writer = handwriting.make_writer(rng, req.split, source=req.source, pens=pens)
    cover = layout.marker(req.cover_marker) if req.cover_marker is not None else None
    options = camera.Options(
        level=req.level, megapixels=req.megapixels, rotation=req.rotation, tilt=req.tilt,
        cover_mm=cover.centre if cover else None,
        cover_radius_mm=cover.size * 0.75 + 2 if cover else 14.0,
        no_sheet=req.no_sheet, tiny=req.tiny, jpeg_quality=req.jpeg_quality,
        flatbed=bool(req.flatbed),
    )  # fmt: skip
    plan = camera.plan_shot(rng, (layout.width, layout.height), options)
    page = None
    if not req.no_sheet:
        # Print a little finer than the photo resolves, so the camera sets the sharpness.
        dpi = float(np.clip(plan.px_per_mm * MM_PER_INCH * 1.2, 120, 320))
        page = camera.fade_grid(blank_page(layout, serial, dpi), plan)
        fill_page(page, layout, sheet, writer, rng)
        if req.blank_qr:
            x, y, w, h = _box_px(layout.qr.grow(QR_CLEAR_MM / 2),
                                 (page.shape[1] / layout.width, page.shape[0] / layout.height))
            page[max(0, y):y + h, max(0, x):x + w] = 255
    jpeg = camera.take_photo(page, plan)
    truth = {
        "sheet": None if req.no_sheet else sheet,
        "expected": None if req.no_sheet else expected_settlement(sheet),
        "photo": {**plan.metadata(), "seed": req.seed, "index": req.index,
                  "writer": {"id": writer.id, "split": writer.split, "pen": writer.pen}},
        "layout": {"game": layout_spec.game, "variant": list(layout_spec.variants),
                   "sides": layout_spec.sides, "pairs": layout_spec.pairs,
                   "paper": layout_spec.paper, "orientation": layout.orientation,
                   "version": layout_spec.version},
        "illegal_cells": [list(c) for c in game.illegal_cells],
        "wrong_totals": [list(t) for t in game.wrong_totals],
        "covered_marker": req.cover_marker,
        # Where each cell's box centre lies in the photo (px), bend and all: placement truth.
        "placement_px": [] if req.no_sheet else _placement_truth(layout, plan),
        "request": {k: v for k, v in asdict(req).items() if v is not None},
    }
    return Photo(req.name, jpeg, truth)


def _placement_truth(layout: Layout, plan: camera.ShotPlan) -> list[list[Any]]:
    """[side, column, row, x px, y px] of every cell's and written total's box centre."""
    keys = [(c.side, c.column, c.row, c.box) for c in layout.cells] + \
        [(t.side, t.column, TOTAL_ROW, t.box) for t in layout.totals]
    centres = np.array([(b[0] + b[2] / 2, b[1] + b[3] / 2) for *_, b in keys])
    at = camera.page_to_photo(plan, centres)
    return [[s, c, r, round(float(x), 2), round(float(y), 2)]
            for (s, c, r, _), (x, y) in zip(keys, at, strict=True)]


def write_photo(photo: Photo, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{photo.name}.jpg").write_bytes(photo.jpeg)
    (out / f"{photo.name}.json").write_text(
        json.dumps(photo.truth, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return out / f"{photo.name}.jpg"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m escalero.samples.make_photos", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=10, help="number of photos (default 10)")
    p.add_argument("--level", choices=camera.LEVELS, default="mild")
    p.add_argument("--split", choices=handwriting.SPLITS, default="eval",
                   help="handwriting glyph pool (eval: never seen by the trained reader)")
    p.add_argument("--source", choices=handwriting.SOURCES, default="mnist",
                   help="writer's glyphs: MNIST, pen strokes or either (default mnist)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0, help="index of the first photo")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--name", help="file name stem (only with --n 1)")
    p.add_argument("--game", choices=GAMES)
    p.add_argument("--players", type=int, help="number of players (default: random)")
    p.add_argument("--pairs", action="store_true", help="pairs mode: two players per side")
    p.add_argument("--variant", action="append", choices=ESCALERO_VARIANTS, dest="variants",
                   help="house variant (repeatable); default: random, mostly none")
    p.add_argument("--paper", default="a4", choices=("a4", "a5", "letter"))
    p.add_argument("--rounds", type=int, help="stop the game after this many turns per side")
    p.add_argument("--illegal", type=int, default=0, help="cells with values the row forbids")
    p.add_argument("--megapixels", type=float)
    p.add_argument("--rotation", type=float, help="page rotation in the photo, degrees")
    p.add_argument("--tilt", type=float, help="camera tilt against the page, degrees")
    p.add_argument("--quality", type=int, dest="jpeg_quality", help="JPEG quality")
    p.add_argument("--cover-marker", type=int, choices=range(4),
                   help="a finger hides this corner marker")
    p.add_argument("--no-sheet", action="store_true", help="photograph only the table")
    p.add_argument("--tiny", action="store_true", help="sheet far away: small in the frame")
    p.add_argument("--pen", choices=sorted({p[0] for p in handwriting.PUB_PENS}),
                   help="the writer's pen (default: drawn at random for the level)")
    p.add_argument("--flatbed", action="store_true", default=None,
                   help="a flatbed or copier scan (200-300 dpi, square on, against a lid)")
    p.add_argument("--blank-qr", action="store_true", default=None,
                   help="paint the QR code over (the layout must come from the corner marks)")
    p.add_argument("--layout-version", type=int, choices=KNOWN_VERSIONS,
                   help=f"print this layout version (default {LAYOUT_VERSION}; 1: marker ids 0-3)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.name and args.n != 1:
        _parser().error("--name needs --n 1")
    fields = {k: v for k, v in vars(args).items()
              if k not in ("n", "start", "out", "name", "variants")}
    fields["pairs"] = True if args.pairs else None
    fields["variants"] = tuple(args.variants) if args.variants else (
        () if args.game == "generala" else None)
    for i in range(args.start, args.start + args.n):
        t0 = time.perf_counter()
        try:
            photo = make_photo(Request(index=i, **fields))
        except (EscaleroError, ValueError) as err:  # e.g. 7 players on an Escalero sheet
            print(f"make_photos: error: {err}", file=sys.stderr)
            return getattr(err, "exit_code", ExitCode.USAGE)
        if args.name:
            photo = Photo(args.name, photo.jpeg, photo.truth)
        path = write_photo(photo, args.out)
        meta = photo.truth["photo"]
        print(f"{path}  {meta['width']}x{meta['height']}  rot {meta['rotation']:.0f}  "
              f"tilt {meta['tilt']:.0f}  {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
