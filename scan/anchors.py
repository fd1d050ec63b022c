"""Stage 3c: place the cells whose grid lines do not show from a smooth model of the page.

The light-red grid vanishes under red ink, blur and shadow, and bent paper moves a cell
several mm from where the corner marks' homography puts it. The page's dark print does
not vanish: the row labels' names and face notes, "Summe" and the column heads sit where
the layout prints them (sheets.render.printed_lines), left and above the grid. Each is
found on the flat page by its capitals' band (up and down) and its aligned edge (sideways);
together with the cells placed by their own lines and the four corner marks (which the
homography fits), they pin a smooth displacement field over the page: a thin-plate spline
per axis, so a bulge or an in-plane bend is followed, not only a plane.

A cell placed by its own lines keeps its place. Every other cell's box moves by the field,
with an uncertainty from how well the field predicts each anchor it left out (its
leave-one-out error) and how far the cell lies from the nearest anchor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from escalero.scan.geometry import SheetGeometry
from escalero.scan.rectify import Rectified

if TYPE_CHECKING:
    from escalero.sheets.render import PrintedLine


@dataclass(frozen=True)
class AnchorSettings:
    """How the printed lines are found and the page model is fitted; all in mm unless
    named. Fitted on the pub level's placement table (benchmarks.scan, seed 7600000, the
    first 60 photos, 2 sides) unless a field says otherwise."""

    # How far a printed line is looked for around its place: the pub set's cells lie up to
    # 7.6 mm off the homography's place. Held below half the rows' pitch less a capital's
    # height, so a neighbour's label is never taken for a row's own.
    search_mm: float = 7.0
    # A line's capitals must stand out of their flanks by this share of the paper's level
    # (dark print on a clean page: 0.3-0.6; set by hand) and be this sharp a peak over the
    # search's other positions (its best over the second best outside +-cap).
    min_darkness: float = 0.08
    min_lead: float = 1.15
    # The spline's smoothing (mm^2 of bending per mm of misfit): set by hand so that a
    # lone misfound anchor moves the field by a fraction of its error.
    smoothing: float = 0.02
    # An anchor this far from the field fitted without it is dropped (misfound), once.
    outlier_mm: float = 1.5
    # A cell's uncertainty: at least floor_mm, or its anchors' leave-one-out error (their
    # 90% quantile) times loo_factor, plus per_mm for each mm to the nearest anchor.
    floor_mm: float = 0.6
    loo_factor: float = 1.5
    per_mm: float = 0.02
    # Fewer (besides the marks): no field, the cells stay as placed. A Generala sheet's
    # counting rows are labelled with one digit, too narrow to be found, which leaves its
    # six lower labels, and blurred pub photos often hide one of them: at 6 such sheets'
    # cells stayed 2-4 mm off (11900000-031, -054, -111, -150), at 5 they are 0.2-2.3 mm
    # off (median).
    min_anchors: int = 5
    # The flat view the print is found on, px per mm: 0.2 mm a pixel, the grid search's
    # resolution. Set by hand, not fitted (d97142b).
    px_per_mm: float = 5.0

    def __post_init__(self) -> None:
        if not (self.search_mm > 0 and self.min_darkness > 0 and self.min_lead >= 1
                and self.smoothing >= 0 and self.outlier_mm > 0 and self.floor_mm > 0
                and self.loo_factor > 0 and self.per_mm >= 0 and self.min_anchors >= 3
                and self.px_per_mm > 0):
            raise ValueError("anchors: need positive search, darkness, outlier, floor, "
                             "factor and px_per_mm, min_lead >= 1, min_anchors >= 3")


ANCHORS = AnchorSettings()


@dataclass(frozen=True)
class Anchor:
    """A point of the page (mm) and how far the photo shows it from the homography's
    place, per axis (None: not measured on that axis)."""

    x: float
    y: float
    dx: float | None
    dy: float | None


def _darkness(view: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Dark print, 0..1 of the paper's level: the brightest channel's drop below the
    local paper. The light-red grid and coloured ink keep one channel bright and vanish;
    the dark labels do not."""
    bright = view.max(axis=2).astype(np.float32) if view.ndim == 3 else view.astype(np.float32)
    k = int(6 * px_per_mm) | 1  # the paper over 6 mm: wider than a capital
    paper = cv2.medianBlur(np.clip(bright, 0, 255).astype(np.uint8), k).astype(np.float32)
    return np.clip(1.0 - bright / np.maximum(paper, 1.0), 0.0, 1.0)


def _window_mean(profile: np.ndarray) -> Callable[[int, int], float]:
    """The mean of `profile` over [a, b), clipped to its ends (0 where nothing is left),
    from one cumulative sum."""
    sums = np.concatenate(([0.0], np.cumsum(profile)))

    def mean(a: int, b: int) -> float:
        a, b = max(0, a), min(len(profile), b)
        return float(sums[b] - sums[a]) / (b - a) if b > a else 0.0

    return mean


def _bar_offset(profile: np.ndarray, start: int, length: int, reach: int,
                settings: AnchorSettings) -> float | None:
    """How far (px) a dark bar of `length` px expected at `start` lies in `profile`:
    its mean over the bar against its two flanks, best within +-reach, sharp enough."""
    flank = max(2, length // 2)
    mean = _window_mean(profile)
    scores = np.array([mean(start + s, start + s + length)
                       - 0.5 * (mean(start + s - flank, start + s)
                                + mean(start + s + length, start + s + length + flank))
                       for s in range(-reach, reach + 1)])
    best = int(np.argmax(scores))
    far = np.abs(np.arange(len(scores)) - best) > length
    second = float(scores[far].max()) if far.any() else 0.0
    if scores[best] < settings.min_darkness or scores[best] < settings.min_lead * max(second, 0):
        return None
    return float(best - reach)


def _edge_offset(profile: np.ndarray, at: int, reach: int, rising: bool,
                 settings: AnchorSettings) -> float | None:
    """How far (px) the edge where ink starts (`rising`: from the left; else it ends)
    lies from `at`: ink on one side, paper on the other, over 2 mm."""
    width = int(2 * settings.px_per_mm)
    mean = _window_mean(profile)
    sign = 1.0 if rising else -1.0
    scores = np.array([sign * (mean(at + s, at + s + width) - mean(at + s - width, at + s))
                       for s in range(-reach, reach + 1)])
    best = int(np.argmax(scores))
    if scores[best] < settings.min_darkness:
        return None
    return float(best - reach)


def _reach_px(geom: SheetGeometry, settings: AnchorSettings) -> int:
    """The search's reach: under half the printed lines' closest vertical spacing, less a
    capital, so that one line is never taken for its neighbour."""
    ys = sorted({round(line.baseline, 1) for line in geom.printed_lines if line.align == "left"})
    pitch = min((b - a for a, b in zip(ys, ys[1:], strict=False)), default=2 * settings.search_mm)
    cap = max((line.cap for line in geom.printed_lines), default=0.0)
    return int(min(settings.search_mm, pitch / 2 - cap) * settings.px_per_mm)


def find_anchors(rect: Rectified, geom: SheetGeometry, settings: AnchorSettings = ANCHORS
                 ) -> list[Anchor]:
    """Every printed line found on the flat page, with its offset from its printed place."""
    # The column heads sit under the names written by hand: found there as often as not.
    lines = tuple(line for line in geom.printed_lines if line.align != "centre")
    if not lines:
        return []
    ppm = settings.px_per_mm
    reach = _reach_px(geom, settings)
    if reach < 2:
        return []
    pad = reach / ppm + 12.0  # the search, a line's words (left edge: 10 mm) and flanks
    x0 = max(0, int((min(line.x for line in lines) - pad) * ppm))
    y0 = max(0, int((min(line.baseline - line.cap for line in lines) - pad) * ppm))
    x1 = int((max(line.x for line in lines) + pad) * ppm)
    y1 = int((max(line.baseline for line in lines) + pad) * ppm)
    view = rect.view(x0, y0, x1, y1, ppm, averaged=True)
    dark = _darkness(view.image, ppm)
    ox, oy = view.origin
    out = []
    for line in lines:
        top, base = (round(v * ppm) - oy for v in (line.baseline - line.cap, line.baseline))
        dy = _line_dy(dark, line, top, base - top, reach, ox, settings)
        if dy is None:
            continue
        dx = _line_dx(dark, line, top + round(dy), base + round(dy), reach, ox, settings)
        out.append(Anchor(line.x, line.baseline - line.cap / 2, None if dx is None else dx / ppm,
                          dy / ppm))
    return out


def _columns(line: PrintedLine, ox: int, reach: int, ppm: float) -> tuple[int, int]:
    """The view's columns a line's words may take (its own 10 mm, the search's reach)."""
    at = round(line.x * ppm) - ox
    words = round((line.width if line.width else 10.0) * ppm)
    if line.align == "left":
        return max(0, at - reach), at + words + reach
    if line.align == "right":
        return max(0, at - words - reach), at + reach
    return max(0, at - words // 2 - reach), at + words // 2 + reach + 1


def _line_dy(dark: np.ndarray, line: PrintedLine, top: int, length: int, reach: int, ox: int,
             settings: AnchorSettings) -> float | None:
    a, b = _columns(line, ox, reach, settings.px_per_mm)
    if top - reach - length < 0 or top + length + reach + length > dark.shape[0] or b <= a:
        return None
    profile = dark[:, a:b].mean(axis=1)
    return _bar_offset(profile, top, max(2, length), reach, settings)


def _line_dx(dark: np.ndarray, line: PrintedLine, top: int, base: int, reach: int, ox: int,
             settings: AnchorSettings) -> float | None:
    at = round(line.x * settings.px_per_mm) - ox
    a, b = _columns(line, ox, reach, settings.px_per_mm)
    if top < 0 or base > dark.shape[0] or b > dark.shape[1]:
        return None
    profile = dark[top:base, :].mean(axis=0)
    if line.align == "centre":
        if line.width <= 0:
            return None
        width = max(2, round(line.width * settings.px_per_mm))
        return _bar_offset(profile, at - width // 2, width, reach, settings)
    return _edge_offset(profile, at, reach, line.align == "left", settings)


# --- the page model -----------------------------------------------------------------------

SCALE_MM = 100.0  # the spline's coordinates in units of 100 mm: a well-conditioned system


def _kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)
    return np.where(r2 > 0, 0.5 * r2 * np.log(np.maximum(r2, 1e-12)), 0.0)


def _system(p: np.ndarray, smoothing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The smoothing spline's linear system over points `p` (SCALE_MM units), with its
    kernel and affine blocks."""
    n = len(p)
    poly = np.hstack([np.ones((n, 1)), p])
    kernel = _kernel(p, p)
    system = np.zeros((n + 3, n + 3))
    system[:n, :n] = kernel + smoothing * np.eye(n)
    system[:n, n:] = poly
    system[n:, :n] = poly.T
    return system, kernel, poly


@dataclass(frozen=True)
class Field:
    """A thin-plate spline of one axis's displacement (mm) over the page."""

    points: np.ndarray  # n x 2, in SCALE_MM units
    weights: np.ndarray  # n
    affine: np.ndarray  # 3

    @staticmethod
    def fit(points_mm: np.ndarray, values: np.ndarray, smoothing: float) -> Field:
        p = np.asarray(points_mm, np.float64) / SCALE_MM
        n = len(p)
        system = _system(p, smoothing)[0]
        rhs = np.concatenate([np.asarray(values, np.float64), np.zeros(3)])
        sol = np.linalg.lstsq(system, rhs, rcond=None)[0]
        return Field(p, sol[:n], sol[n:])

    def __call__(self, points_mm: np.ndarray) -> np.ndarray:
        q = np.asarray(points_mm, np.float64).reshape(-1, 2) / SCALE_MM
        return (_kernel(q, self.points) @ self.weights + self.affine[0]
                + q @ self.affine[1:])


def _loo(points: np.ndarray, values: np.ndarray, smoothing: float) -> np.ndarray:
    """Each point's leave-one-out residual under the smoothing spline (the linear
    smoother's identity: residual / (1 - leverage)), in one solve."""
    p = points / SCALE_MM
    n = len(p)
    system, kernel, poly = _system(p, smoothing)
    inverse = np.linalg.pinv(system)[:, :n]
    hat = np.hstack([kernel, poly]) @ inverse
    fitted = hat @ values
    leverage = np.clip(np.diag(hat), 0.0, 0.95)
    return (values - fitted) / (1.0 - leverage)


def _robust(points: np.ndarray, values: np.ndarray, settings: AnchorSettings
            ) -> tuple[np.ndarray, np.ndarray] | None:
    """The points the field keeps (worst leave-one-out misfit dropped while above
    outlier_mm) and their leave-one-out residuals; None: too few to trust."""
    keep = np.ones(len(points), bool)
    while keep.sum() >= settings.min_anchors:
        res = _loo(points[keep], values[keep], settings.smoothing)
        worst = int(np.argmax(np.abs(res)))
        if abs(res[worst]) <= settings.outlier_mm:
            return keep, res
        keep[np.flatnonzero(keep)[worst]] = False
    return None


def _axis_points(geom: SheetGeometry, anchors: Sequence[Anchor], snapped: Sequence[Any],
                 axis: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(points, displacements, how many are marks) on one axis: the corner marks (0:
    the homography fits them), the printed lines found, the cells placed by own lines."""
    pts = [(m.cx, m.cy) for m in geom.markers]
    vals = [0.0] * len(pts)
    for a in anchors:
        d = a.dx if axis == 0 else a.dy
        if d is not None:
            pts.append((a.x, a.y))
            vals.append(d)
    for s in snapped:
        if s.own[axis]:
            x, y, w, h = s.slot.box
            bx, by, bw, bh = s.box
            pts.append((x + w / 2, y + h / 2))
            vals.append((bx + bw / 2) - (x + w / 2) if axis == 0 else (by + bh / 2) - (y + h / 2))
    return np.array(pts, np.float64), np.array(vals, np.float64), len(geom.markers)


def place_unplaced(rect: Rectified, geom: SheetGeometry, snapped: Sequence[Any],
                   settings: AnchorSettings = ANCHORS) -> tuple[Any, ...]:
    """The cells not placed by their own lines, moved by the page model where it is
    surer of them than their neighbours or the homography were; the others as they are."""
    if not any(not all(s.own) for s in snapped):
        return tuple(snapped)
    anchors = find_anchors(rect, geom, settings)
    out = list(snapped)
    for axis in (0, 1):
        pts, vals, n_marks = _axis_points(geom, anchors, snapped, axis)
        if len(pts) - n_marks < settings.min_anchors:
            continue
        kept = _robust(pts, vals, settings)
        if kept is None:
            continue
        keep, res = kept
        field = Field.fit(pts[keep], vals[keep], settings.smoothing)
        spread = float(np.quantile(np.abs(res), 0.9))
        out = [_moved(s, axis, field, pts[keep], spread, settings) for s in out]
    return tuple(out)


def _moved(s: Any, axis: int, field: Field, kept: np.ndarray, spread: float,
           settings: AnchorSettings) -> Any:
    """One cell moved on `axis` by the field, if that leaves it surer than it was."""
    if s.own[axis]:
        return s
    x, y, w, h = s.slot.box
    centre = np.array([[x + w / 2, y + h / 2]])
    nearest = float(np.sqrt(((kept - centre) ** 2).sum(axis=1)).min())
    unsure = round(max(settings.floor_mm, settings.loo_factor * spread)
                   + settings.per_mm * nearest, 2)
    if unsure >= s.axis_mm[axis]:
        return s
    d = float(field(centre)[0])
    bx, by, bw, bh = s.box
    box = (x + d, by, bw, bh) if axis == 0 else (bx, y + d, bw, bh)
    axis_mm = (unsure, s.axis_mm[1]) if axis == 0 else (s.axis_mm[0], unsure)
    return replace(s, box=box, axis_mm=axis_mm, uncertainty_mm=max(axis_mm),
                   shift_mm=max(s.shift_mm, abs(d)))
