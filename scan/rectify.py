"""Stage 3: the flat sheet, refused if cut off, too small or too blurred.

The page is never warped whole to be read: each stage warps the part it needs straight
from the photo through the homography (the blur check the markers and the QR code at
10 px/mm, scan.grid the grid at 5 px/mm, scan.cells each column of cells at 10 px/mm), and
every such part is pixel for pixel the same part of the whole page at that resolution.
The whole page (`Rectified.image`) is made only when asked for (overlays, the web review).

The homography is exact only where the paper is flat; scan.grid then moves each cell onto
its printed grid lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np
from escalero.scan.geometry import Box, SheetGeometry
from escalero.scoring.errors import Reason, UnreadableSheetError

from escalero.i18n import N_

PX_PER_MM = 10.0  # the cell-reading contract's resolution
CELL_MARGIN_MM = 1.5  # ...and its margin: a crop is the writable box grown by this each side


@dataclass(frozen=True)
class RectifySettings:
    """When the flat sheet is too small or too blurred to read (ScanOptions.rectifying)."""

    # The digit model is trained down to ~2.8 px/mm: cells shown below
    # scan.cells.CuttingSettings.small_px_per_mm are read but flagged (a 1600 px upload of
    # a sheet filling most of the frame is ~2.5-3 px/mm); a sheet shown below this (median
    # cell) is refused. Not fitted: chosen by hand (364931e).
    min_sheet_px_per_mm: float = 2.0
    # Gaussian sigma of the marker edges, mm on the sheet, up to which the reader's
    # calibration holds (the photos it was calibrated on). Set by hand (6ffcd46).
    max_blur_mm: float = 0.45
    # Beyond max_blur_mm the sheet is read with every cell unsure. At 1.2 mm a 0.4 mm pen
    # stroke is smeared over 3 mm: a cell's digits blend into one blot, which a person
    # cannot read either: refused. Set by hand, not fitted (d97142b).
    unreadable_blur_mm: float = 1.2

    def __post_init__(self) -> None:
        if self.min_sheet_px_per_mm <= 0:
            raise ValueError("RectifySettings.min_sheet_px_per_mm must be positive, got "
                             f"{self.min_sheet_px_per_mm}")
        if not 0 < self.max_blur_mm <= self.unreadable_blur_mm:
            raise ValueError("RectifySettings: need 0 < max_blur_mm <= unreadable_blur_mm")


RECTIFY = RectifySettings()

TOO_SMALL = N_("sheet too small in the photo to read safely: move closer so the sheet "
               "fills the picture")
TOO_BLURRED = N_("sheet too blurred to read safely: hold still, let the camera focus, use "
                 "more light")
OUT_OF_VIEW = N_("part of the score grid is outside the picture: hold the phone so the "
                 "whole sheet is in the picture")


@dataclass(frozen=True)
class PageView:
    """Part of the flat page at `px_per_mm`: pixel (u, v) of `image` is pixel
    (u + origin[0], v + origin[1]) of the whole page at that resolution, which shows page
    mm (x, y) at pixel (x * px_per_mm, y * px_per_mm)."""

    image: np.ndarray
    px_per_mm: float
    origin: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Rectified:
    photo: np.ndarray  # the photo, BGR
    homography: np.ndarray  # 3x3, sheet mm -> photo px
    page_mm: tuple[float, float]
    photo_px_per_mm: float  # the photo's own resolution on the sheet (worst grid corner)
    blur_mm: float  # estimated blur (Gaussian sigma) on the sheet, mm
    slot_px_per_mm: tuple[float, ...] = ()  # per slot of the geometry, in order

    def view(self, x0: int, y0: int, x1: int, y1: int, px_per_mm: float = PX_PER_MM,
             averaged: bool = False) -> PageView:
        """Pixels [x0, x1) x [y0, y1) of the flat page at `px_per_mm`, warped from the photo
        (paper white outside it); `averaged`: see averaged_view."""
        rect = (x0, y0, x1, y1)
        if averaged:
            return averaged_view(self.photo, self.homography, px_per_mm, rect)
        return warp_view(self.photo, self.homography, px_per_mm, rect)

    @cached_property
    def image(self) -> np.ndarray:
        """The whole page, BGR, PX_PER_MM, origin at the page's top-left corner."""
        return warp_page(self.photo, self.homography, self.page_mm)[0]


def photo_resolution(hom: np.ndarray, region: Box) -> float:
    """Photo px per sheet mm at the worst corner of `region` (perspective shrinks far ends)."""
    x, y, w, h = region
    worst = math.inf
    for cx, cy in ((x, y), (x + w, y), (x + w, y + h), (x, y + h)):
        pts = np.array([[[cx, cy]], [[cx + 1, cy]], [[cx, cy + 1]]], np.float32)
        p = cv2.perspectiveTransform(pts, hom).reshape(3, 2)
        a, b = p[1] - p[0], p[2] - p[0]
        jac = abs(float(a[0] * b[1] - a[1] * b[0]))
        worst = min(worst, math.sqrt(float(jac)))
    return worst


def slot_resolutions(hom: np.ndarray, geom: SheetGeometry) -> tuple[float, ...]:
    """Photo px per sheet mm at each slot's worst corner (a tilted photo shrinks far cells)."""
    boxes = np.array([s.box for s in geom.slots], np.float64).reshape(-1, 4)
    x, y, w, h = boxes.T
    corners = np.stack([np.stack([x, y], 1), np.stack([x + w, y], 1),
                        np.stack([x + w, y + h], 1), np.stack([x, y + h], 1)], 1)  # (n, 4, 2)
    pts = np.stack([corners, corners + [1, 0], corners + [0, 1]], 1)  # (n, 3, 4, 2)
    p = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), hom)
    p = p.reshape(-1, 3, 4, 2)
    a, b = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
    jac = np.abs(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])
    return tuple(float(v) for v in np.sqrt(jac.min(axis=1)))


def page_px(page_mm: tuple[float, float], px_per_mm: float = PX_PER_MM) -> tuple[int, int]:
    """The whole flat page's size in px (width, height) at `px_per_mm`."""
    return round(page_mm[0] * px_per_mm), round(page_mm[1] * px_per_mm)


def warp_view(image: np.ndarray, hom: np.ndarray, px_per_mm: float,
              rect: tuple[int, int, int, int], interpolation: int = cv2.INTER_LINEAR
              ) -> PageView:
    """Pixels rect = (x0, y0, x1, y1) of the flat page at `px_per_mm`, warped from the photo
    through `hom` (sheet mm -> photo px), paper white outside the photo."""
    x0, y0, x1, y1 = rect
    to_view = np.array([[px_per_mm, 0, -x0], [0, px_per_mm, -y0], [0, 0, 1.0]]) \
        @ np.linalg.inv(hom)
    out = cv2.warpPerspective(image, to_view, (max(1, x1 - x0), max(1, y1 - y0)),
                              flags=interpolation, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=(255, 255, 255))
    return PageView(out, px_per_mm, (x0, y0))


def warp_page(image: np.ndarray, hom: np.ndarray, page_mm: tuple[float, float]
              ) -> tuple[np.ndarray, np.ndarray]:
    """The whole page (`page_mm` wide and high) at PX_PER_MM, paper white outside the
    photo; returns (image, photo->page matrix)."""
    view = warp_view(image, hom, PX_PER_MM, (0, 0, *page_px(page_mm)))
    return view.image, np.diag([PX_PER_MM, PX_PER_MM, 1.0]) @ np.linalg.inv(hom)


def averaged_view(image: np.ndarray, hom: np.ndarray, px_per_mm: float,
                  rect: tuple[int, int, int, int]) -> PageView:
    """warp_view of a photo that shows the page at more than twice `px_per_mm`: the photo
    under the view is averaged down by whole k x k blocks first (to at most twice the
    view's resolution where the page is farthest), so each view pixel reflects all the
    photo pixels under it, not the four nearest: noise averages out, thin lines keep
    their weight. Also faster: the warp reads the small copy, not the whole photo."""
    x0, y0, x1, y1 = rect
    region = (x0 / px_per_mm, y0 / px_per_mm, (x1 - x0) / px_per_mm, (y1 - y0) / px_per_mm)
    k = int(photo_resolution(hom, region) / px_per_mm)
    if k < 2:
        return warp_view(image, hom, px_per_mm, rect)
    rx, ry, rw, rh = region
    corners = np.array([[rx, ry], [rx + rw, ry], [rx + rw, ry + rh], [rx, ry + rh]])
    quad = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), hom).reshape(-1, 2)
    h, w = image.shape[:2]
    # Blocks counted from the photo's corner: views of overlapping parts agree.
    bx0, by0 = (max(0, int(v) - 2 * k) // k * k for v in quad.min(axis=0))
    bx1, by1 = (min(size, int(v) + 2 * k) for v, size in zip(quad.max(axis=0), (w, h),
                                                               strict=True))
    bx1, by1 = bx0 + (bx1 - bx0) // k * k, by0 + (by1 - by0) // k * k
    if bx1 <= bx0 or by1 <= by0:
        return warp_view(image, hom, px_per_mm, rect)
    small = cv2.resize(image[by0:by1, bx0:bx1], ((bx1 - bx0) // k, (by1 - by0) // k),
                       interpolation=cv2.INTER_AREA)
    # Photo px -> block px: block i spans photo px [bx0 + i k, bx0 + (i + 1) k).
    to_small = np.array([[1 / k, 0, -(bx0 + (k - 1) / 2) / k],
                         [0, 1 / k, -(by0 + (k - 1) / 2) / k], [0, 0, 1.0]])
    # Each block already holds the mean of the photo under it: the nearest one will do,
    # at a third of a bilinear warp's cost.
    return warp_view(small, to_small @ hom, px_per_mm, rect, cv2.INTER_NEAREST)


def step_blur_mm(contrast: float, slope: float, px_per_mm: float) -> float:
    """Blur (Gaussian sigma, mm) of a step edge from its contrast and steepest slope (per
    px): a step of contrast C blurred by sigma is at most C / (sigma * sqrt(2 pi)) steep."""
    return contrast / (slope * math.sqrt(2 * math.pi)) / px_per_mm


def edge_blur_mm(page: np.ndarray, boxes: list[Box]) -> float | None:
    """Blur (Gaussian sigma, mm) from the sharpest black/white edges in `boxes` (markers):
    their slope and contrast are measured, sigma follows (step_blur_mm)."""
    sigmas = []
    gray = cv2.cvtColor(page, cv2.COLOR_BGR2GRAY)
    for x0, y0, x1, y1 in (_blur_patch(box) for box in boxes):
        sigma = _patch_blur(gray[y0:y1, x0:x1])
        if sigma is not None:
            sigmas.append(sigma)
    return float(np.median(sigmas)) if sigmas else None


def _blur_patch(box: Box) -> tuple[int, int, int, int]:
    """The page px (x0, y0, x1, y1) whose edges measure the blur of `box`: 1 mm around it."""
    x, y, w, h = box
    return (max(0, int((x - 1) * PX_PER_MM)), max(0, int((y - 1) * PX_PER_MM)),
            int((x + w + 1) * PX_PER_MM), int((y + h + 1) * PX_PER_MM))


def _patch_blur(patch: np.ndarray) -> float | None:
    """Blur (sigma, mm) of the sharpest edges in a grey uint8 patch at PX_PER_MM, or None
    when it holds no clear black/white edge."""
    if patch.shape[0] < 10 or patch.shape[1] < 10:
        return None
    lo, hi = _grey_percentiles(patch, (5, 95))
    contrast = hi - lo
    if contrast < 60:  # covered or blank: says nothing about focus
        return None
    grey = patch.astype(np.float32)
    gx = (grey[1:-1, 2:] - grey[1:-1, :-2]) / 2
    gy = (grey[2:, 1:-1] - grey[:-2, 1:-1]) / 2
    slope = _percentile(np.hypot(gx, gy), 99.5)
    if slope <= 0:
        return None
    return step_blur_mm(contrast, slope, PX_PER_MM)


def _percentile(values: np.ndarray, q: float) -> float:
    """np.percentile's default (linear) of `values`, from one partial sort."""
    flat = values.ravel()
    pos = q / 100 * (flat.size - 1)
    lo = int(pos)
    hi = min(lo + 1, flat.size - 1)
    part = np.partition(flat, [lo, hi])
    return float(part[lo] + (pos - lo) * (part[hi] - part[lo]))


def _grey_percentiles(patch: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """np.percentile's default (linear) of a uint8 patch, from its histogram."""
    below = np.cumsum(np.bincount(patch.ravel(), minlength=256))  # values <= v
    out = []
    for q in qs:
        pos = q / 100 * (patch.size - 1)
        lo = int(pos)
        hi = min(lo + 1, patch.size - 1)
        v_lo, v_hi = (int(np.searchsorted(below, k, side="right")) for k in (lo, hi))
        out.append(v_lo + (pos - lo) * (v_hi - v_lo))
    return out


def photo_blur_mm(image: np.ndarray, hom: np.ndarray, boxes: list[Box]) -> float | None:
    """edge_blur_mm of the flat page, from a small warp around each box (not the page)."""
    sigmas = []
    for rect in (_blur_patch(box) for box in boxes):
        patch = warp_view(image, hom, PX_PER_MM, rect).image
        sigma = _patch_blur(patch if patch.ndim == 2 else
                            cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY))
        if sigma is not None:
            sigmas.append(sigma)
    return float(np.median(sigmas)) if sigmas else None


def check_markers_sharp(image: np.ndarray, hom: np.ndarray, boxes: list[Box],
                        settings: RectifySettings = RECTIFY) -> None:
    """Refuse a small or blurred sheet from its markers alone (before the layout is known)."""
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
    # The grid is not known yet: judge the middle half of the page (the grid's core).
    w, h = x1 - x0, y1 - y0
    if photo_resolution(hom, (x0 + w / 4, y0 + h / 4, w / 2, h / 2)) \
            < settings.min_sheet_px_per_mm:
        raise UnreadableSheetError(TOO_SMALL, reason=Reason.TOO_SMALL)
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
    if blurs and float(np.median(blurs)) > settings.max_blur_mm:
        raise UnreadableSheetError(TOO_BLURRED, reason=Reason.TOO_BLURRED)


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
                sigmas.append(step_blur_mm(contrast, slope, px_per_mm))
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
    proj = cv2.perspectiveTransform(np.array(pts, np.float32).reshape(-1, 1, 2), hom).reshape(-1, 2)
    if (proj[:, 0].min() < 0 or proj[:, 1].min() < 0
            or proj[:, 0].max() > w - 1 or proj[:, 1].max() > h - 1):
        raise UnreadableSheetError(OUT_OF_VIEW, reason=Reason.OUT_OF_VIEW)


def rectify(image: np.ndarray, hom: np.ndarray, geom: SheetGeometry,
            blur_boxes: list[Box] | None = None, settings: RectifySettings = RECTIFY
            ) -> Rectified:
    """The flat sheet, refused when it is cut off, too small or too blurred."""
    check_in_view(hom, geom, image.shape)
    res = slot_resolutions(hom, geom)
    # Refuse when most cells are too small; a few far ones (a tilted photo) are only
    # flagged (see cells.flag_small).
    if float(np.median(res)) < settings.min_sheet_px_per_mm:
        raise UnreadableSheetError(TOO_SMALL, reason=Reason.TOO_SMALL)
    if blur_boxes is None:  # the sharpest print there is: markers and the QR code
        blur_boxes = [(m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size)
                      for m in geom.markers]
        if geom.qr_box is not None:
            blur_boxes.append(geom.qr_box)
    # A sheet whose marks were found is read however blurred (its cells then are not
    # certain: cells.flag_blurred); only one too blurred for a person to read is refused.
    blur = photo_blur_mm(image, hom, blur_boxes)
    if blur is not None and blur > settings.unreadable_blur_mm:
        raise UnreadableSheetError(TOO_BLURRED, reason=Reason.TOO_BLURRED)
    return Rectified(image, hom, geom.page_mm, min(res),
                     blur if blur is not None else float("nan"), res)
