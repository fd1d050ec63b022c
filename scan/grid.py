"""Stage 3b: snap every cell onto its printed light-red grid lines on the flat sheet.

The homography from the markers is exact only where the paper is flat. Each cell's box is
moved onto the grid lines found next to it, so a bent sheet still cuts clean cells; a grid
that is not where the layout puts it (a wrong layout, a folded sheet) is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from escalero.scan.geometry import Box, SheetGeometry, Slot
from escalero.scan.notes import note
from escalero.scan.rectify import PX_PER_MM
from escalero.scoring.errors import UnreadableSheetError

SEARCH_MM = 2.5  # how far a printed grid line may sit from where the homography puts it
MIN_LINES_FOUND = 0.5  # fraction of cells that must show both lines, in each direction
MAX_STRETCH_MM = 0.8  # opposite lines of one cell may move apart at most this much
MIN_LINE_STRENGTH = 2.0  # mean redness per pixel along a grid line (clean print: 10-30)
LINE_SNR = 5.0  # a line's peak over the profile's robust noise
MIN_SEEDS = 0.1  # fraction of cells that must sit where the homography puts them
MAX_BEND_MM = 12.0  # how far bending may move a cell from where the homography puts it

# Placement uncertainty (mm): measured on a cell's own lines, on one line of a pair, growing
# with the distance (mm) to the nearest cell placed by its own lines (paper bends smoothly),
# and from the homography alone (a bent page moves cells by a few mm).
FOUND_MM = 0.2
ONE_LINE_MM = 0.4
BEND_PER_MM = 0.02
HOMOGRAPHY_MM = 1.5
# The crop reaches CELL_MARGIN_MM (1.5) past the box; a box off by more than this may cut
# a neighbour's ink into the crop or its own out of it.
MAX_UNCERTAIN_MM = 1.0
MIN_PLACEABLE = 0.25  # below this share of cells placeable the sheet says nothing useful

UNPLACEABLE = ("the printed grid shows around only {n} of {total} cells: photograph the sheet "
               "flat, evenly lit, with the grid in focus")
GRID_MISSING = ("the printed grid is not where the layout puts it: photograph the whole sheet "
                "flat, or check --game/--players/--variant")


@dataclass(frozen=True)
class SnappedSlot:
    slot: Slot
    box: Box  # refined writable box, mm
    shift_mm: float  # how far the refinement moved it (largest edge move)
    edges_found: int  # 0-4 grid lines found around it
    uncertainty_mm: float = 0.0  # how far the box may still be off its printed place


def _paper_level(channel: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The paper's local level of `channel`: a median over ~4 mm, blind to ink and lines.

    A mean would be pulled by dark blue ink, making the paper next to it look red.
    The median runs on a quarter-size copy (8-bit, range lo..hi) and is scaled back up.
    """
    h, w = channel.shape
    small = cv2.resize(channel, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    q = np.clip((small - lo) * (255.0 / (hi - lo)), 0, 255).astype(np.uint8)
    med = cv2.medianBlur(q, 11).astype(np.float32) * ((hi - lo) / 255.0) + lo
    return cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR)


def line_strength(page: np.ndarray) -> np.ndarray:
    """How much each pixel looks like the light-red grid print (ink and paper score ~0).

    Redness is measured relative to the paper around it, so a blue or warm colour cast
    does not matter; dark pixels (ink, shadows) are excluded, because the print is light.
    """
    f = page.astype(np.float32)
    b, g, r = f[:, :, 0], f[:, :, 1], f[:, :, 2]
    lum = (b + g + r) / 3.0
    chroma = (r - (g + b) / 2.0) / (lum + 1.0)
    paper_chroma = _paper_level(chroma, -1.0, 1.0)
    paper_lum = _paper_level(lum, 0.0, 255.0)
    red = (chroma - paper_chroma) * 100.0 - 3.0
    red[lum < 0.55 * paper_lum] = 0.0
    return np.clip(red, 0.0, 255.0)


def is_gray(page: np.ndarray) -> bool:
    """True for a photo without colour (a grayscale JPEG, a 16-bit grey scan)."""
    if page.ndim == 2:
        return True
    sample = page[::7, ::7].astype(np.int16)
    return float(np.abs(sample[:, :, 2] - sample[:, :, 1]).mean()) < 1.5 and \
        float(np.abs(sample[:, :, 0] - sample[:, :, 1]).mean()) < 1.5


def shade_strength(page: np.ndarray) -> np.ndarray:
    """How much each pixel looks like a grid line by its shade alone: a little darker than
    the paper around it (the light-red print in a grayscale photo). Ink is far darker and
    excluded, as in line_strength."""
    lum = page.astype(np.float32) if page.ndim == 2 else \
        page.astype(np.float32).mean(axis=2)
    paper_lum = _paper_level(lum, 0.0, 255.0)
    dark = (paper_lum - lum) / (paper_lum + 1.0) * 100.0 - 3.0
    dark[lum < 0.55 * paper_lum] = 0.0
    return np.clip(dark, 0.0, 255.0)


def _peak(profile: np.ndarray, along: int) -> float | None:
    """Sub-pixel index of the grid line in a perpendicular profile, or None.

    The window may hold two lines (a neighbouring side's column, the Summe row): of
    the strong peaks, the one nearest the window's centre (the expected line) wins.
    """
    base = float(np.median(profile))
    lift = profile - base
    top = float(lift.max())
    # The line must stand out along most of the edge (mean strength per pixel) and
    # well above the profile's own noise (shadows, paper grain, ink).
    noise = 1.4826 * float(np.median(np.abs(lift)))
    if top / max(along, 1) < MIN_LINE_STRENGTH or top < LINE_SNR * noise:
        return None
    centre = (len(profile) - 1) / 2
    candidates = [i for i in range(len(profile))
                  if lift[i] >= 0.5 * top
                  and (i == 0 or lift[i] >= lift[i - 1])
                  and (i == len(profile) - 1 or lift[i] > lift[i + 1])]
    i = min(candidates, key=lambda k: abs(k - centre))
    if 0 < i < len(profile) - 1:
        a, b, c = profile[i - 1], profile[i], profile[i + 1]
        den = a - 2 * b + c
        if den < 0:
            return i + 0.5 * (a - c) / den
    return float(i)


def _edge_offset(strength: np.ndarray, pos_mm: float, lo_mm: float, hi_mm: float,
                 vertical: bool) -> float | None:
    """Offset (mm) from `pos_mm` of the grid line nearest it, along [lo, hi] of the edge."""
    s = SEARCH_MM * PX_PER_MM
    p = pos_mm * PX_PER_MM
    a0, a1 = int(round(p - s)), int(round(p + s)) + 1
    span = hi_mm - lo_mm
    b0 = int((lo_mm + 0.15 * span) * PX_PER_MM)
    b1 = int((hi_mm - 0.15 * span) * PX_PER_MM)
    h, w = strength.shape
    limit = w if vertical else h
    other = h if vertical else w
    if a0 < 0 or a1 > limit or b0 < 0 or b1 > other or b1 <= b0:
        return None
    window = strength[b0:b1, a0:a1] if vertical else strength[a0:a1, b0:b1]
    profile = window.sum(axis=0 if vertical else 1)
    peak = _peak(profile, b1 - b0)
    if peak is None:
        return None
    return (a0 + peak - p) / PX_PER_MM


def _search(strength: np.ndarray, slot: Slot, inset: float, ox: float, oy: float
            ) -> list[float | None]:
    """Offsets (mm, from the layout) of a slot's four lines, searched around (ox, oy)."""
    x, y, w, h = slot.box
    x, y = x + ox, y + oy
    found = [
        _edge_offset(strength, x - inset, y, y + h, vertical=True),
        _edge_offset(strength, x + w + inset, y, y + h, vertical=True),
        _edge_offset(strength, y - inset, x, x + w, vertical=False),
        _edge_offset(strength, y + h + inset, x, x + w, vertical=False),
    ]
    return [None if v is None else v + (ox if k < 2 else oy) for k, v in enumerate(found)]


def _pair_shift(edges: list[float | None], a: int, b: int) -> float | None:
    """The shift of a cell's two opposite lines, if both were found and moved together."""
    ea, eb = edges[a], edges[b]
    if ea is None or eb is None or abs(eb - ea) >= MAX_STRETCH_MM:
        return None
    return (ea + eb) / 2


def _neighbours(slots: tuple[Slot, ...]) -> list[list[int]]:
    centres = np.array([(s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2) for s in slots])
    sizes = np.array([(s.box[2], s.box[3]) for s in slots])
    out = []
    for i in range(len(slots)):
        d = np.abs(centres - centres[i])
        near = (d[:, 0] <= 1.6 * sizes[i, 0]) & (d[:, 1] <= 1.6 * sizes[i, 1])
        near[i] = False
        out.append([int(j) for j in np.flatnonzero(near)])
    return out


def _find_lines(strength: np.ndarray, geom: SheetGeometry
                ) -> tuple[list[list[float | None]], list[list[float | None]], int]:
    """Each slot's four line offsets (mm) and per-axis shifts (None: not found), and the
    fewest seeds of the two axes.

    Cells near the markers are found where the homography puts them; the offsets then
    spread to neighbouring cells, each searched around its neighbours' offset, so a
    sheet bent by several millimetres is followed cell by cell.
    """
    slots, inset = geom.slots, geom.inset_mm
    raw = [_search(strength, s, inset, 0.0, 0.0) for s in slots]
    shift: list[list[float | None]] = [[_pair_shift(e, 0, 1), _pair_shift(e, 2, 3)]
                                       for e in raw]
    seeds = min(sum(sh[axis] is not None for sh in shift) for axis in (0, 1))
    neighbours = _neighbours(slots)
    for _ in range(len(slots)):
        progress = False
        for i, s in enumerate(slots):
            if shift[i][0] is not None and shift[i][1] is not None:
                continue
            pred = []
            for axis in (0, 1):
                vals = [shift[j][axis] for j in neighbours[i] if shift[j][axis] is not None]
                pred.append(float(np.mean(vals)) if vals else None)
            if pred[0] is None and pred[1] is None:
                continue
            ox = shift[i][0] if shift[i][0] is not None else (pred[0] or 0.0)
            oy = shift[i][1] if shift[i][1] is not None else (pred[1] or 0.0)
            if max(abs(ox), abs(oy)) > MAX_BEND_MM:
                continue
            edges = _search(strength, s, inset, ox, oy)
            for axis, (a, b) in enumerate(((0, 1), (2, 3))):
                if shift[i][axis] is not None or pred[axis] is None:
                    continue
                found = _pair_shift(edges, a, b)
                if found is None:
                    # One line (the other hidden by ink or glare) that agrees with the
                    # neighbours still places the cell: both lines move by its offset.
                    single = [edges[k] for k in (a, b) if edges[k] is not None
                              and abs(edges[k] - pred[axis]) < MAX_STRETCH_MM]
                    if len(single) == 1:
                        found = float(single[0])
                        edges[a] = edges[b] = found
                if found is not None:
                    shift[i][axis] = found
                    raw[i][a], raw[i][b] = edges[a], edges[b]
                    progress = True
        if not progress:
            break
    return raw, shift, seeds


def _found_share(shift: list[list[float | None]]) -> float:
    """The share of slots placed by their own lines, in the worse of the two axes."""
    return min(sum(sh[axis] is not None for sh in shift) for axis in (0, 1)) / len(shift)


def snap_slots(page: np.ndarray, geom: SheetGeometry, strict: bool = True
               ) -> tuple[SnappedSlot, ...]:
    """Move each slot's box onto its grid lines; each gets a placement uncertainty.

    strict (the layout was guessed or named by the user, not read from the QR code): a
    grid that is not where the layout puts it is refused, because it says the layout is
    wrong. Otherwise the layout is certain and placement degrades: a cell whose lines are
    hidden (shadow, ink, a grayscale photo of a faint grid) keeps the place its placed
    neighbours or the homography predict, with an uncertainty that grows with the distance
    to the nearest cell placed by its own lines. Refused only when too few cells can be
    placed at all (UNPLACEABLE).
    """
    gx, gy, gw, gh = geom.grid_bounds()
    pad = SEARCH_MM + MAX_BEND_MM + 2.0
    x0, y0 = max(0, int((gx - pad) * PX_PER_MM)), max(0, int((gy - pad) * PX_PER_MM))
    x1, y1 = int((gx + gw + pad) * PX_PER_MM), int((gy + gh + pad) * PX_PER_MM)
    region = page[y0:y1, x0:x1]
    slots = geom.slots
    best: tuple[float, list, list, int] | None = None
    # The light-red print by its colour first; by its shade where the photo has no colour
    # (grayscale) or the colour finds too little (red ink, a strong colour cast).
    kinds = ("gray",) if is_gray(region) else ("red", "gray")
    for kind in kinds:
        strength = np.zeros(page.shape[:2], np.float32)  # only the grid region is needed
        strength[y0:y1, x0:x1] = (line_strength(region) if kind == "red"
                                  else shade_strength(region))
        raw, shift, seeds = _find_lines(strength, geom)
        share = _found_share(shift) if seeds >= MIN_SEEDS * len(slots) else 0.0
        if best is None or share > best[0]:
            best = (share, raw, shift, seeds)
        if share >= MIN_LINES_FOUND:
            break
    assert best is not None
    share, raw, shift, seeds = best
    # Paper bends and shifts, but it does not stretch: most cells must show both lines
    # of each direction, moved together. Lines of another grid (a wrong layout) rarely do.
    if strict and share < MIN_LINES_FOUND:
        raise UnreadableSheetError(GRID_MISSING)
    out = _place(slots, raw, shift)
    placeable = sum(s.uncertainty_mm <= MAX_UNCERTAIN_MM for s in out)
    if placeable < MIN_PLACEABLE * len(out):
        raise UnreadableSheetError(UNPLACEABLE.format(n=placeable, total=len(out)))
    return out


def _place(slots: tuple[Slot, ...], raw: list[list[float | None]],
           shift: list[list[float | None]]) -> tuple[SnappedSlot, ...]:
    """Each slot's box and uncertainty from its own lines, else from the nearest placed."""
    centres = np.array([(s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2) for s in slots])
    out = []
    moves_all: list[list[float]] = []
    uncertain: list[float] = []
    for i in range(len(slots)):
        moves: list[float] = []
        worst = 0.0
        for axis, (a, b) in enumerate(((0, 1), (2, 3))):
            if shift[i][axis] is not None:
                moves += [float(raw[i][a]), float(raw[i][b])]  # type: ignore[arg-type]
                worst = max(worst, FOUND_MM if raw[i][a] != raw[i][b] else ONE_LINE_MM)
                continue
            placed = [j for j in range(len(slots)) if shift[j][axis] is not None]
            if not placed:  # no line of this direction anywhere: the homography alone
                moves += [0.0, 0.0]
                worst = max(worst, HOMOGRAPHY_MM)
                continue
            dist = np.hypot(*(centres[placed] - centres[i]).T)
            near = np.argsort(dist)[:4]
            weights = 1.0 / (dist[near] + 1.0)
            d = float(np.sum(weights * [shift[placed[k]][axis] for k in near]) / weights.sum())
            moves += [d, d]
            worst = max(worst, min(HOMOGRAPHY_MM, FOUND_MM + BEND_PER_MM * float(dist.min())))
        moves_all.append(moves)
        uncertain.append(worst)
    for i, slot in enumerate(slots):
        left, right, top, bottom = moves_all[i]
        x, y, w, h = slot.box
        box = (x + left, y + top, w + right - left, h + bottom - top)
        out.append(SnappedSlot(slot, box, max(abs(v) for v in moves_all[i]),
                               2 * sum(sh is not None for sh in shift[i]),
                               round(uncertain[i], 2)))
    return tuple(out)


def flag_unplaced(results: Sequence[Any], snapped: Sequence[SnappedSlot]) -> list[Any]:
    """A cell placed too loosely to cut a safe crop is not certain, whatever was read.

    Runs before and after the totals check: the totals may not vouch for such a cell.
    """
    return [replace(c, certain=False,
                    note=note("place_unsure", mm=f"{s.uncertainty_mm:.1f}"))
            if c.certain and s.uncertainty_mm > MAX_UNCERTAIN_MM else c
            for c, s in zip(results, snapped, strict=True)]


def _fill(a: float | None, b: float | None) -> float:
    vals = [v for v in (a, b) if v is not None]
    return float(np.mean(vals)) if vals else 0.0
