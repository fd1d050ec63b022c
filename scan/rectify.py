"""Stage 3: photo -> flat sheet at 10 px/mm; refuse it if too small or blurred; snap cells.

The homography is exact only where the paper is flat. Each cell's box is then
moved onto the printed light-red grid lines found next to it, so a bent sheet
still cuts clean cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from scan.geometry import Box, SheetGeometry, Slot
from scoring.errors import UnreadableSheetError

PX_PER_MM = 10.0  # the cell-reading contract's resolution (CELL_PX_PER_MM)
MIN_PHOTO_PX_PER_MM = 3.0  # the digit model is trained down to ~2.8 px/mm; below, refuse
MAX_BLUR_MM = 0.45  # Gaussian sigma of the marker edges, in mm on the sheet
SEARCH_MM = 2.5  # how far a printed grid line may sit from where the homography puts it
MIN_LINES_FOUND = 0.5  # fraction of cells that must show both lines, in each direction
MAX_STRETCH_MM = 0.8  # opposite lines of one cell may move apart at most this much
MIN_LINE_STRENGTH = 2.0  # mean redness per pixel along a grid line (clean print: 10-30)
LINE_SNR = 5.0  # a line's peak over the profile's robust noise
MIN_SEEDS = 0.1  # fraction of cells that must sit where the homography puts them
MAX_BEND_MM = 12.0  # how far bending may move a cell from where the homography puts it

TOO_SMALL = ("sheet too small in the photo to read safely: move closer so the sheet fills "
             "the picture")
TOO_BLURRED = "sheet too blurred to read safely: hold still, let the camera focus, use more light"
OUT_OF_VIEW = ("part of the score grid is outside the picture: hold the phone so the whole "
               "sheet is in the picture")
GRID_MISSING = ("the printed grid is not where the layout puts it: photograph the whole sheet "
                "flat, or check --game/--players/--variant")


@dataclass(frozen=True)
class Rectified:
    image: np.ndarray  # the page, BGR, PX_PER_MM, origin at the page's top-left corner
    photo_px_per_mm: float  # the photo's own resolution on the sheet (worst grid corner)
    blur_mm: float  # estimated blur (Gaussian sigma) on the sheet, mm
    to_page: np.ndarray  # 3x3, photo px -> rectified px
    slot_px_per_mm: tuple[float, ...] = ()  # per slot of the geometry, in order


@dataclass(frozen=True)
class SnappedSlot:
    slot: Slot
    box: Box  # refined writable box, mm
    shift_mm: float  # how far the refinement moved it (largest edge move)
    edges_found: int  # 0-4 grid lines found around it


def photo_resolution(hom: np.ndarray, region: Box) -> float:
    """Photo px per sheet mm at the worst corner of `region` (perspective shrinks far ends)."""
    x, y, w, h = region
    worst = math.inf
    for cx, cy in ((x, y), (x + w, y), (x + w, y + h), (x, y + h)):
        pts = np.float32([[[cx, cy]], [[cx + 1, cy]], [[cx, cy + 1]]])
        p = cv2.perspectiveTransform(pts, hom).reshape(3, 2)
        a, b = p[1] - p[0], p[2] - p[0]
        jac = abs(float(a[0] * b[1] - a[1] * b[0]))
        worst = min(worst, math.sqrt(float(jac)))
    return worst


def slot_resolutions(hom: np.ndarray, geom: SheetGeometry) -> tuple[float, ...]:
    """Photo px per sheet mm at each slot's worst corner (a tilted photo shrinks far cells)."""
    out = []
    for s in geom.slots:
        x, y, w, h = s.box
        corners = np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
        pts = np.concatenate([corners, corners + [1, 0], corners + [0, 1]]).reshape(-1, 1, 2)
        p = cv2.perspectiveTransform(pts, hom).reshape(3, 4, 2)
        a, b = p[1] - p[0], p[2] - p[0]
        jac = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
        out.append(float(np.sqrt(jac.min())))
    return tuple(out)


def warp_page(image: np.ndarray, hom: np.ndarray, geom: SheetGeometry) -> tuple[np.ndarray,
                                                                                 np.ndarray]:
    """The whole page at PX_PER_MM; returns (image, photo->page matrix)."""
    scale = np.diag([PX_PER_MM, PX_PER_MM, 1.0])
    to_page = scale @ np.linalg.inv(hom)
    size = (round(geom.page_mm[0] * PX_PER_MM), round(geom.page_mm[1] * PX_PER_MM))
    page = cv2.warpPerspective(image, to_page, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    return page, to_page


def edge_blur_mm(page: np.ndarray, boxes: list[Box]) -> float | None:
    """Blur (Gaussian sigma, mm) from the sharpest black/white edges in `boxes` (markers).

    For a step edge of contrast C blurred by sigma, the steepest slope is
    C / (sigma * sqrt(2 pi)); slope and contrast are measured, sigma follows.
    """
    sigmas = []
    gray = cv2.cvtColor(page, cv2.COLOR_BGR2GRAY).astype(np.float32)
    for x, y, w, h in boxes:
        x0, y0 = max(0, int((x - 1) * PX_PER_MM)), max(0, int((y - 1) * PX_PER_MM))
        x1, y1 = int((x + w + 1) * PX_PER_MM), int((y + h + 1) * PX_PER_MM)
        patch = gray[y0:y1, x0:x1]
        if patch.shape[0] < 10 or patch.shape[1] < 10:
            continue
        lo, hi = np.percentile(patch, (5, 95))
        contrast = hi - lo
        if contrast < 60:  # covered or blank: says nothing about focus
            continue
        gx = (patch[1:-1, 2:] - patch[1:-1, :-2]) / 2
        gy = (patch[2:, 1:-1] - patch[:-2, 1:-1]) / 2
        slope = float(np.percentile(np.hypot(gx, gy), 99.5))
        if slope <= 0:
            continue
        sigmas.append(contrast / (slope * math.sqrt(2 * math.pi)) / PX_PER_MM)
    return float(np.median(sigmas)) if sigmas else None


def check_markers_sharp(image: np.ndarray, hom: np.ndarray, boxes: list[Box]) -> None:
    """Refuse a small or blurred sheet from its markers alone (before the layout is known)."""
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
    # The grid is not known yet: judge the middle half of the page (the grid's core).
    w, h = x1 - x0, y1 - y0
    if photo_resolution(hom, (x0 + w / 4, y0 + h / 4, w / 2, h / 2)) \
            < MIN_PHOTO_PX_PER_MM:
        raise UnreadableSheetError(TOO_SMALL)
    patches = []
    for x, y, w, h in boxes:
        pad = 2.0
        to_patch = np.array([[PX_PER_MM, 0, -(x - pad) * PX_PER_MM],
                             [0, PX_PER_MM, -(y - pad) * PX_PER_MM], [0, 0, 1]]) \
            @ np.linalg.inv(hom)
        size = (round((w + 2 * pad) * PX_PER_MM), round((h + 2 * pad) * PX_PER_MM))
        patch = cv2.warpPerspective(image, to_patch, size, flags=cv2.INTER_LINEAR,
                                    borderValue=(255, 255, 255))
        patches.append(edge_blur_mm(patch, [(pad, pad, w, h)]))
    blurs = [b for b in patches if b is not None]
    if blurs and float(np.median(blurs)) > MAX_BLUR_MM:
        raise UnreadableSheetError(TOO_BLURRED)


def outline_blur_mm(image: np.ndarray, outline: np.ndarray, short_side_mm: float = 210.0
                    ) -> float | None:
    """Blur (sigma, mm) of the paper's edge against the table: used when no marker is seen."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    sides = [float(np.linalg.norm(outline[(i + 1) % 4] - outline[i])) for i in range(4)]
    px_per_mm = min(sides) / short_side_mm
    half = max(6, int(3 * px_per_mm))  # profile half-length: 3 mm
    sigmas = []
    for i in range(4):
        a, b = outline[i], outline[(i + 1) % 4]
        direction = (b - a) / max(np.linalg.norm(b - a), 1e-6)
        normal = np.array([-direction[1], direction[0]])
        for t in np.linspace(0.2, 0.8, 9):
            centre = a + t * (b - a)
            offs = np.arange(-half, half + 1, dtype=np.float32)
            pts = centre[None, :] + offs[:, None] * normal[None, :]
            prof = cv2.remap(gray, pts[:, 0].reshape(1, -1).astype(np.float32),
                             pts[:, 1].reshape(1, -1).astype(np.float32),
                             cv2.INTER_LINEAR).astype(np.float32).ravel()
            contrast = float(prof.max() - prof.min())
            slope = float(np.max(np.abs(np.diff(prof))))
            if contrast >= 40 and slope > 0:
                sigmas.append(contrast / (slope * math.sqrt(2 * math.pi)) / px_per_mm)
    return float(np.median(sigmas)) if sigmas else None


def check_in_view(hom: np.ndarray, geom: SheetGeometry, shape: tuple[int, ...]) -> None:
    """Every cell (with its margin) must be in the picture: a cell cut off would read as
    empty paper, and "empty" would be a confident lie."""
    h, w = shape[:2]
    pts = []
    for s in geom.slots:
        x, y, bw, bh = s.box
        m = 2.0
        pts += [(x - m, y - m), (x + bw + m, y - m), (x + bw + m, y + bh + m), (x - m, y + bh + m)]
    proj = cv2.perspectiveTransform(np.float32(pts).reshape(-1, 1, 2), hom).reshape(-1, 2)
    if (proj[:, 0].min() < 0 or proj[:, 1].min() < 0
            or proj[:, 0].max() > w - 1 or proj[:, 1].max() > h - 1):
        raise UnreadableSheetError(OUT_OF_VIEW)


def rectify(image: np.ndarray, hom: np.ndarray, geom: SheetGeometry,
            blur_boxes: list[Box] | None = None) -> Rectified:
    """Warp the sheet flat and refuse it when it is cut off, too small or too blurred."""
    check_in_view(hom, geom, image.shape)
    res = slot_resolutions(hom, geom)
    # Refuse when most cells are too small; a few far ones (a tilted photo) are only
    # flagged (see cells.flag_small).
    if float(np.median(res)) < MIN_PHOTO_PX_PER_MM:
        raise UnreadableSheetError(TOO_SMALL)
    page, to_page = warp_page(image, hom, geom)
    if blur_boxes is None:  # the sharpest print there is: markers and the QR code
        blur_boxes = [(m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size)
                      for m in geom.markers]
        if geom.qr_box is not None:
            blur_boxes.append(geom.qr_box)
    blur = edge_blur_mm(page, blur_boxes)
    if blur is not None and blur > MAX_BLUR_MM:
        raise UnreadableSheetError(TOO_BLURRED)
    return Rectified(page, min(res), blur if blur is not None else float("nan"), to_page, res)


# --- grid snapping -------------------------------------------------------------------


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
