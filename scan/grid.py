"""Stage 3b: snap every cell onto its printed light-red grid lines on the flat sheet.

The homography from the markers is exact only where the paper is flat. Each cell's box is
moved onto the grid lines found next to it, so a bent sheet still cuts clean cells; a grid
that is not where the layout puts it (a wrong layout, a folded sheet) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scan.geometry import Box, SheetGeometry, Slot
from scan.rectify import PX_PER_MM
from scoring.errors import UnreadableSheetError

SEARCH_MM = 2.5  # how far a printed grid line may sit from where the homography puts it
MIN_LINES_FOUND = 0.5  # fraction of cells that must show both lines, in each direction
MAX_STRETCH_MM = 0.8  # opposite lines of one cell may move apart at most this much
MIN_LINE_STRENGTH = 2.0  # mean redness per pixel along a grid line (clean print: 10-30)
LINE_SNR = 5.0  # a line's peak over the profile's robust noise
MIN_SEEDS = 0.1  # fraction of cells that must sit where the homography puts them
MAX_BEND_MM = 12.0  # how far bending may move a cell from where the homography puts it

GRID_MISSING = ("the printed grid is not where the layout puts it: photograph the whole sheet "
                "flat, or check --game/--players/--variant")


@dataclass(frozen=True)
class SnappedSlot:
    slot: Slot
    box: Box  # refined writable box, mm
    shift_mm: float  # how far the refinement moved it (largest edge move)
    edges_found: int  # 0-4 grid lines found around it


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


def snap_slots(page: np.ndarray, geom: SheetGeometry) -> tuple[SnappedSlot, ...]:
    """Move each slot's box onto its grid lines; refuse if the grid is not there.

    Cells near the markers are found where the homography puts them; the offsets then
    spread to neighbouring cells, each searched around its neighbours' offset, so a
    sheet bent by several millimetres is followed cell by cell.
    """
    gx, gy, gw, gh = geom.grid_bounds()
    pad = SEARCH_MM + MAX_BEND_MM + 2.0
    x0, y0 = max(0, int((gx - pad) * PX_PER_MM)), max(0, int((gy - pad) * PX_PER_MM))
    x1, y1 = int((gx + gw + pad) * PX_PER_MM), int((gy + gh + pad) * PX_PER_MM)
    strength = np.zeros(page.shape[:2], np.float32)  # only the grid region is needed
    strength[y0:y1, x0:x1] = line_strength(page[y0:y1, x0:x1])
    slots, inset = geom.slots, geom.inset_mm
    raw = [_search(strength, s, inset, 0.0, 0.0) for s in slots]
    shift: list[list[float | None]] = [[_pair_shift(e, 0, 1), _pair_shift(e, 2, 3)]
                                       for e in raw]
    for axis in (0, 1):  # seeds: enough cells exactly where the homography says
        if sum(sh[axis] is not None for sh in shift) < MIN_SEEDS * len(slots):
            raise UnreadableSheetError(GRID_MISSING)
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
    # Paper bends and shifts, but it does not stretch: most cells must show both lines
    # of each direction, moved together. Lines of another grid (a wrong layout) rarely do.
    for axis in (0, 1):
        if sum(sh[axis] is not None for sh in shift) < MIN_LINES_FOUND * len(slots):
            raise UnreadableSheetError(GRID_MISSING)
    out = []
    for i, slot in enumerate(slots):
        moves: list[float] = []
        for axis, (a, b) in enumerate(((0, 1), (2, 3))):
            if shift[i][axis] is not None:
                moves += [float(raw[i][a]), float(raw[i][b])]  # type: ignore[arg-type]
            else:  # no lines of its own: move with its neighbours
                vals = [shift[j][axis] for j in neighbours[i] if shift[j][axis] is not None]
                d = float(np.mean(vals)) if vals else 0.0
                moves += [d, d]
        left, right, top, bottom = moves
        x, y, w, h = slot.box
        box = (x + left, y + top, w + right - left, h + bottom - top)
        out.append(SnappedSlot(slot, box, max(abs(v) for v in moves),
                               2 * sum(sh is not None for sh in shift[i])))
    return tuple(out)


def _fill(a: float | None, b: float | None) -> float:
    vals = [v for v in (a, b) if v is not None]
    return float(np.mean(vals)) if vals else 0.0
