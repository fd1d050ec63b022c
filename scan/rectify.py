"""Stage 3: photo -> flat sheet at 10 px/mm, refused if cut off, too small or too blurred.

The homography is exact only where the paper is flat; scan.grid then moves each cell onto
its printed grid lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from escalero.scan.geometry import Box, SheetGeometry
from escalero.scoring.errors import UnreadableSheetError

PX_PER_MM = 10.0  # the cell-reading contract's resolution
# The digit model is trained down to ~2.8 px/mm: cells shown below MIN_PHOTO_PX_PER_MM are
# read but flagged (a 1600 px upload of a sheet filling most of the frame is ~2.5-3 px/mm);
# a sheet shown below MIN_SHEET_PX_PER_MM (median cell) is refused.
MIN_PHOTO_PX_PER_MM = 2.5
MIN_SHEET_PX_PER_MM = 2.0
MAX_BLUR_MM = 0.45  # Gaussian sigma of the marker edges, in mm on the sheet

TOO_SMALL = ("sheet too small in the photo to read safely: move closer so the sheet fills "
             "the picture")
TOO_BLURRED = "sheet too blurred to read safely: hold still, let the camera focus, use more light"
OUT_OF_VIEW = ("part of the score grid is outside the picture: hold the phone so the whole "
               "sheet is in the picture")


@dataclass(frozen=True)
class Rectified:
    image: np.ndarray  # the page, BGR, PX_PER_MM, origin at the page's top-left corner
    photo_px_per_mm: float  # the photo's own resolution on the sheet (worst grid corner)
    blur_mm: float  # estimated blur (Gaussian sigma) on the sheet, mm
    to_page: np.ndarray  # 3x3, photo px -> rectified px
    slot_px_per_mm: tuple[float, ...] = ()  # per slot of the geometry, in order


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
            < MIN_SHEET_PX_PER_MM:
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
    if float(np.median(res)) < MIN_SHEET_PX_PER_MM:
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
