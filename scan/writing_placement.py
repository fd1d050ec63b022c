"""Stage 3d: cells the print could not place, moved onto the writing around them.

Where the light-red grid is washed out, a cell is placed by the corner marks and the page's
dark print (scan.anchors), all of it left of and above the grid. A page bent by a few mm
moves the grid's far rows and columns off that model, and their writing runs out of the
boxes: a written 50 cut at its box's edge reads as empty, and sure of it (fresh pub photo
14200000-044: cells 4-6 mm off, believed within 2 mm).

The writing shows where the cells are. Each cell's ink is followed from its box's middle
to the middle of the writing nearest it (a mean shift with a Gaussian window the box's
size). One cell's writing sits wherever its writer put it, but a bend moves a whole
neighbourhood alike: a loosely placed cell moves by the median of the moves found in the
cells around it (its own included), where enough of them hold writing, and only on an
axis its own lines did not place. Its uncertainty stays as it was: the box moves onto what
is written, which is what the reader needs, not onto the print.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from escalero.scan.grid import SnappedSlot
from escalero.scan.imaging import darkness
from escalero.scan.rectify import Rectified

Move = tuple[float, float]


@dataclass(frozen=True)
class WritingPlacementSettings:
    """When and how far a cell follows the writing around it (ScanOptions.writing); all in
    mm unless named. Set by hand on fresh pub photos of 3 sides (seed 14200000: the 30
    sheets placed worst and 15 others, 2026-12-07) unless a field says otherwise."""

    # An axis placed this unsurely (SnappedSlot.axis_mm) and not by the cell's own lines
    # is moved; one placed from lines nearby is closer than the writing shows.
    least_uncertainty_mm: float = 0.5
    # Smaller moves are left alone, as this share of the box's size on the axis: where a
    # writer puts the writing in a box (low, to the left) is no bend (fresh pub 2-side
    # photo 14500000-108: boxes 0.2-1.1 mm off moved 1.2-1.5 mm onto a writing's middle,
    # and a Könige 15 cut at its 1 read as 5, sure of it).
    least_move_share: float = 0.15
    # The ink is looked at on the flat page at this resolution, as darkness against the
    # paper within paper_mm in the darkest channel (red ink shows there; the grey of the
    # 45 sheets took their cells right to 97.48%, the darkest channel to 98.12%); the
    # print's faded lines stay below ink_level.
    px_per_mm: float = 4.0
    paper_mm: float = 3.0
    ink_level: float = 0.2
    # A cell holds writing where its window holds this much ink (share of the box's area,
    # at full darkness).
    least_ink_share: float = 0.005
    # The mean shift: a Gaussian window whose sigma is this share of the box's height (at
    # 0.4 the next row's writing held a drawn sheet's boxes at half their move), this many
    # steps (12 drifted into the neighbours' writing: placement 1.38 -> 1.54 mm off).
    window_share: float = 0.25
    steps: int = 6
    # No move beyond this: half a row's pitch would reach the neighbour's writing.
    most_move_mm: float = 6.0
    # The cells whose moves a cell takes the median of: within this many rows and columns
    # on its side (with a first, wider window: 1 took the 45 sheets' cells right to 96.98%,
    # 2 to 97.57%), and at least this many of them holding writing.
    reach_cells: int = 2
    least_votes: int = 3

    def __post_init__(self) -> None:
        if self.least_uncertainty_mm < 0 or not 0 <= self.least_move_share < 1 \
                or self.px_per_mm <= 0 \
                or self.paper_mm <= 0 or not 0 < self.ink_level < 1 \
                or not 0 < self.least_ink_share < 1 or self.window_share <= 0 \
                or self.steps < 1 or self.most_move_mm <= 0 or self.reach_cells < 0 \
                or self.least_votes < 1:
            raise ValueError("writing placement: need sizes >= 0, px_per_mm, paper_mm, "
                             "window_share and most_move_mm > 0, shares in (0, 1), "
                             "steps >= 1, reach_cells >= 0 and least_votes >= 1")


WRITING_PLACEMENT = WritingPlacementSettings()


def onto_writing(rect: Rectified, snapped: Sequence[SnappedSlot],
                 settings: WritingPlacementSettings = WRITING_PLACEMENT
                 ) -> tuple[SnappedSlot, ...]:
    """The cells placed loosely on an axis moved on it onto the writing around them
    (module doc); the others as they are."""
    loose = [i for i, s in enumerate(snapped) if _loose_axes(s, settings)]
    if not loose:
        return tuple(snapped)
    ink, origin = _ink(rect, snapped, settings)
    grid = np.mgrid[0:ink.shape[0], 0:ink.shape[1]].astype(np.float32)
    moves = [_writing_move(ink, grid, origin, s, settings) for s in snapped]
    rows = _row_numbers(snapped)
    out = list(snapped)
    for i in loose:
        vote = _neighbourhood_move(i, snapped, rows, moves, settings)
        if vote is None:
            continue
        axes = _loose_axes(snapped[i], settings)
        x, y, w, h = snapped[i].box
        dx, dy = (vote[a] if a in axes and abs(vote[a]) >= settings.least_move_share * size
                  else 0.0 for a, size in ((0, w), (1, h)))
        out[i] = replace(snapped[i], box=(x + dx, y + dy, w, h))
    return tuple(out)


def _loose_axes(s: SnappedSlot, settings: WritingPlacementSettings) -> tuple[int, ...]:
    return tuple(axis for axis in (0, 1)
                 if not s.own[axis] and s.axis_mm[axis] >= settings.least_uncertainty_mm)


def _ink(rect: Rectified, snapped: Sequence[SnappedSlot],
         settings: WritingPlacementSettings) -> tuple[np.ndarray, tuple[float, float]]:
    """The grid region's ink (0 paper, up to 1) at settings.px_per_mm, and the page mm
    its pixel (0, 0) shows."""
    boxes = np.array([s.box for s in snapped], np.float64)
    pad = settings.most_move_mm + float(boxes[:, 2:].max())
    ppm = settings.px_per_mm
    x0, y0 = (boxes[:, :2].min(axis=0) - pad) * ppm
    x1, y1 = ((boxes[:, :2] + boxes[:, 2:]).max(axis=0) + pad) * ppm
    view = rect.view(round(x0), round(y0), round(x1), round(y1), ppm, averaged=True)
    # The red channel: the light-red grid is as bright as paper there (where it shows at
    # all), the writing dark; red ink is faint there too, and its cells are left alone.
    dark = darkness(view.image.min(axis=2), max(3, round(settings.paper_mm * ppm) | 1), 1.0)
    ink = np.where(dark > settings.ink_level, dark, 0.0).astype(np.float32)
    return ink, (view.origin[0] / ppm, view.origin[1] / ppm)


def _writing_move(ink: np.ndarray, grid: np.ndarray, origin: tuple[float, float],
                  s: SnappedSlot, settings: WritingPlacementSettings) -> Move | None:
    """How far (dx, dy) mm the middle of the writing nearest the box's middle lies from
    it; None where the box's window holds too little ink."""
    ppm = settings.px_per_mm
    x, y, w, h = s.box
    start = np.array([(x + w / 2 - origin[0]) * ppm, (y + h / 2 - origin[1]) * ppm])
    sigma = settings.window_share * h * ppm  # the writing's height sets its scale
    least = settings.least_ink_share * w * h * ppm * ppm
    reach = settings.most_move_mm * ppm
    # Never beyond the box grown by the furthest move: the page's print around the grid.
    bound_lo = np.maximum(0, start - np.array([w, h]) * ppm / 2 - reach).astype(int)
    bound_hi = np.minimum(ink.shape[::-1],
                          start + np.array([w, h]) * ppm / 2 + reach + 1).astype(int)
    at = start.copy()
    for _ in range(settings.steps):
        lo = np.maximum(bound_lo, at - 3 * sigma).astype(int)
        hi = np.minimum(bound_hi, at + 3 * sigma + 1).astype(int)
        part = ink[lo[1]:hi[1], lo[0]:hi[0]]
        ys, xs = grid[0, lo[1]:hi[1], lo[0]:hi[0]], grid[1, lo[1]:hi[1], lo[0]:hi[0]]
        weight = part * np.exp(-0.5 * ((xs - at[0]) ** 2 + (ys - at[1]) ** 2) / sigma ** 2)
        mass = float(weight.sum())
        if mass <= least:
            return None
        mean = np.array([(weight * xs).sum(), (weight * ys).sum()]) / mass
        at = np.clip(mean, start - reach, start + reach)
    return float(at[0] - start[0]) / ppm, float(at[1] - start[1]) / ppm


def _neighbourhood_move(i: int, snapped: Sequence[SnappedSlot], rows: Sequence[int],
                        moves: Sequence[Move | None], settings: WritingPlacementSettings
                        ) -> Move | None:
    """The median of the writing's moves around cell i on its side (itself included);
    None where too few of those cells hold writing."""
    me = snapped[i].slot
    votes = [m for j, m in enumerate(moves)
             if m is not None and snapped[j].slot.side == me.side
             and abs(snapped[j].slot.column - me.column) <= settings.reach_cells
             and abs(rows[j] - rows[i]) <= settings.reach_cells]
    if len(votes) < settings.least_votes:
        return None
    dx, dy = np.median(np.array(votes), axis=0)
    return float(dx), float(dy)


def _row_numbers(snapped: Sequence[SnappedSlot]) -> list[int]:
    """Each cell's row counted from the top, by where its box is printed."""
    tops = sorted({round(s.slot.box[1], 1) for s in snapped})
    return [tops.index(round(s.slot.box[1], 1)) for s in snapped]
