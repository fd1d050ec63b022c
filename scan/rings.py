"""A ring drawn round a number: find it, and paint it over as paper.

Golf cards mark a birdie with a circle and a bogey with a box, and a player who wants a
total to stand out draws round it. The network reads the ring as digits: a circled 13 as
630, a circled 4 as struck (benchmarks.real: 18 circled totals, none read right). A ring is
a closed stroke with writing inside its hole and none of it touching: the writing inside
is what the cell holds. A written 0 is a closed stroke too, but with nothing in it, and a
loop of a digit (6, 8, 9) has a stroke through its side, so neither is taken for one. A
quick hand often draws the ring into the digit: then ring and writing are one stroke, told
apart by the ring's outline (the writing lies well within it).

The recognizer reads an unsure cell with such a ring again without it (scan.recognize).
The shares below are set by hand from what a ring is (it spans most of the box, follows its
outline all round, holds writing of its own); only min_along was read off the real photos.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from escalero.scan.edge_ink import EDGE_INK, EdgeInkSettings, ink_at_scale, painted
from escalero.scan.imaging import quantile_last


@dataclass(frozen=True)
class RingSettings:
    """What counts as a ring drawn round a cell's writing (ReadingSettings.rings). Each
    field is set by hand from what a ring is, not fitted; shares are of the writable box's
    height unless named."""

    # The ring spans at least this share of the box's height: a loop of a digit is smaller.
    min_height: float = 0.55
    # Share of the ring's outline that must show the ring's own strokes within `near` of it
    # (a quick hand leaves a gap where the pen starts and ends; two digits side by side,
    # fitted together round a third, cover far less: a 2 and a 6 round the 1 of 216 on a
    # fresh pub photo).
    min_cover: float = 0.8
    near: float = 0.08  # of the ring's smaller axis
    # A ring drawn round a total often runs past the crop: its outline is judged where the
    # crop shows it, which must be at least this share of it.
    min_shown: float = 0.5
    # The writing inside is a stroke of its own (not one of the ring's), inside_share of it
    # within `within` of the ring's size (1 on the fitted outline), and at least min_inside
    # of the ring's height tall (an empty loop is a written 0, a speck inside one grain).
    within: float = 0.8
    inside_share: float = 0.9
    min_inside: float = 0.3
    # The ring's own strokes: at least min_along of their pixels within `along` of its
    # outline (in shares of its size). The rings on the real photos: 0.98-1.0, or 0.71-0.74
    # with a tail or a digit touching them.
    along: float = 0.25
    min_along: float = 0.7
    # A ring is round: its axes' ratio at least this (a lone stroke's outline is a thin
    # ellipse).
    min_round: float = 0.45
    # A ring with the writing inside touching it is one stroke: at least min_touching_ring
    # of its pixels lie along the outline, and what lies within it (the writing) is not one
    # straight stroke: across it, at least min_inside_width of its length (a 0 struck
    # through: a strike, not a 1 in a ring).
    min_touching_ring: float = 0.5
    min_inside_width: float = 0.25
    # The writing starts this many of the ring's stroke widths in from its outline.
    ring_widths: float = 1.5
    # A ring drawn round a number is taller than its digits, which a hand writes at 40-85%
    # of the box's height (samples.handwriting): a touching ring spans at least this share
    # of it. The circled numbers of the real golf cards span 0.87-1.33 of theirs; a 10 or a
    # 12 blurred into one blob on pub photos (fresh 13100000-093, -194), 0.6.
    min_height_touching: float = 0.8
    # A touching ring's outline shows at most this many gaps (a quick hand leaves one where
    # the pen starts and ends). Digits written close together (a 131) make a round outline
    # too, broken where one digit meets the next.
    max_gaps_touching: int = 1
    # A row (column) of strokes filling this share of the crop's width (height) is a printed
    # rule, taken off before the ring is looked for. Writing spans at most the box (the crop
    # less its 1.5 mm margins), 90% of a wide crop's width.
    rule_span: float = 0.9

    def __post_init__(self) -> None:
        if not (0.0 < self.min_height < 1.0 and 0.0 < self.min_cover <= 1.0
                and 0.0 < self.near < 0.5 and 0.0 < self.min_shown <= 1.0
                and 0.0 < self.within < 1.0 and 0.0 < self.along < 1.0
                and 0.0 < self.min_along <= 1.0 and 0.0 < self.inside_share <= 1.0
                and 0.0 < self.min_inside < 1.0 and 0.0 < self.min_round <= 1.0
                and 0.0 < self.min_touching_ring <= 1.0 and 0.0 < self.min_inside_width < 1.0
                and self.ring_widths > 0.0 and self.max_gaps_touching >= 0
                and self.min_height_touching > 0.0 and 0.0 < self.rule_span <= 1.0):
            raise ValueError("rings: need shares in (0, 1], within < 1, ring_widths and "
                             "min_height_touching > 0, max_gaps_touching >= 0")


RINGS = RingSettings()
_ANGLES = np.linspace(0.0, 2.0 * np.pi, 72, endpoint=False)


def ring_mask(image: np.ndarray, box_px: tuple[int, int, int, int],
              settings: RingSettings = RINGS, ink: EdgeInkSettings = EDGE_INK
              ) -> np.ndarray | None:
    """A mask (at the crop's resolution) of a ring drawn round the writing in a crop, or
    None if there is none. The strokes are found as scan.edge_ink finds them; the ring is
    an ellipse fitted to the outline of the largest stroke, or of the two largest (a ring
    drawn in two strokes, or with a gap), or the part of the largest stroke along its
    outline (the writing touches the ring)."""
    found = ink_at_scale(image, ink)
    if found is None:
        return None
    strong, scale = found
    strong = _without_rules(strong, settings.rule_span)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
    if n < 2:
        return None
    order = 1 + np.argsort(-stats[1:, cv2.CC_STAT_AREA])
    shapes = _Shapes(labels, box_px[3] * scale, settings)
    tries = [[int(order[0])], [int(k) for k in order[:2]]][:n - 1]  # two only where two
    ring = next((r for parts in tries if (r := _ring(shapes, parts, stats)) is not None),
                None)
    if ring is None:
        ring = _touching_ring(shapes, [int(order[0])])
    if ring is None:
        return None
    full = cv2.resize(ring, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_NEAREST)
    rim = ink.rim_px
    return cv2.dilate(full, np.ones((rim, rim), np.uint8)) > 0


def _without_rules(strong: np.ndarray, span: float) -> np.ndarray:
    """The strokes without the rows (columns) they fill across `span` of the crop's width
    (height): a score card's printed rules, which a ring touching them would join into
    one stroke with the lines (a dark, blurred golf card)."""
    rows = strong.mean(axis=1) >= span
    cols = strong.mean(axis=0) >= span
    if not rows.any() and not cols.any():
        return strong
    out = strong.copy()
    out[rows, :] = 0
    out[:, cols] = 0
    return out


def _fitted(part: np.ndarray, rounds: int = 3, keep: float = 0.75
            ) -> tuple[Sequence[float], Sequence[float], float] | None:
    """cv2.fitEllipse's ellipse of `part`'s outline, leaving out the crop's border (a ring
    cut off by it) and, `rounds` times, the points furthest off the ellipse fitted so far
    (a neighbour's ring or a digit touching it): `keep` of them stay each round."""
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    points = np.concatenate(contours).reshape(-1, 2).astype(np.float32)
    h, w = part.shape
    points = points[(points[:, 0] > 0) & (points[:, 0] < w - 1) & (points[:, 1] > 0)
                    & (points[:, 1] < h - 1)]
    fit = None
    for _ in range(rounds):
        if len(points) < 5:
            return fit
        fit = cv2.fitEllipse(points)
        (cx, cy), (d1, d2), angle = fit
        if min(d1, d2) <= 0:
            return None
        t = np.deg2rad(angle)
        u = ((points[:, 0] - cx) * np.cos(t) + (points[:, 1] - cy) * np.sin(t)) / (d1 / 2)
        v = (-(points[:, 0] - cx) * np.sin(t) + (points[:, 1] - cy) * np.cos(t)) / (d2 / 2)
        off = np.abs(np.sqrt(u * u + v * v) - 1.0)
        points = points[off <= quantile_last(off, 100.0 * keep)]
    return fit


Outline = tuple[np.ndarray, float, float, int]  # as _outline returns it


class _Shapes:
    """A crop's strokes (labels of cv2.connectedComponentsWithStats) and the outlines of
    groups of them, each worked out once: a ring apart from the writing and a ring touching
    it are looked for on the same largest stroke."""

    def __init__(self, labels: np.ndarray, box_h: float, settings: RingSettings) -> None:
        self.labels, self.box_h, self.settings = labels, box_h, settings
        self._seen: dict[tuple[int, ...], tuple[np.ndarray, Outline | None]] = {}

    def of(self, parts: list[int]) -> tuple[np.ndarray, Outline | None]:
        """The strokes `parts` as a uint8 mask, and their outline (_outline)."""
        key = tuple(parts)
        if key not in self._seen:
            mask = np.isin(self.labels, parts).astype(np.uint8)
            outline = _outline(mask, self.box_h, self.settings)
            if outline is None:  # a triangle or a box is no ellipse
                outline = _hull_outline(mask, self.box_h, self.settings)
            self._seen[key] = (mask, outline)
        return self._seen[key]


def _ring(shapes: _Shapes, parts: list[int], stats: np.ndarray) -> np.ndarray | None:
    """The ring's strokes (uint8 mask) where the outline of the strokes
    `parts` (labels of cv2.connectedComponentsWithStats) is a ring with writing of its own
    inside, else None."""
    settings, box_h, labels = shapes.settings, shapes.box_h, shapes.labels
    # Writing inside must be a stroke of its own at least min_inside of the ring's height
    # tall, and the ring at least min_height of the box's: cheap to rule out first.
    tall = [k for k in range(1, len(stats)) if k not in parts and stats[k, cv2.CC_STAT_HEIGHT]
            >= settings.min_inside * settings.min_height * box_h]
    if not tall:
        return None
    ring, outline = shapes.of(parts)
    if outline is None:
        return None
    size, height, _, _ = outline
    if not any(stats[k, cv2.CC_STAT_HEIGHT] >= settings.min_inside * height for k in tall):
        return None
    # The ring's strokes lie along its outline: a digit's (the 2 and the 6 of a 216, fitted
    # together round its 1) leave it.
    if _along(size[ring > 0], settings) < settings.min_along:
        return None
    # Writing of its own inside: a stroke apart from the ring, well within it, tall
    # enough. A written 0 has none; a 6's or an 8's loop is one stroke with its outline.
    inside = [k for k in tall if stats[k, cv2.CC_STAT_HEIGHT] >= settings.min_inside * height
              and float(np.mean(size[labels == k] < settings.within)) >= settings.inside_share]
    if not any(_enclosed(ring, stats[k]) for k in inside):
        return None
    # The ring's strokes whole (the writing inside is apart from them): a tail where the
    # pen lifted, or the ring's part past the crop, would read as digits.
    return ring


def _outline(ring: np.ndarray, box_h: float, settings: RingSettings) -> Outline | None:
    """Where the outline of the strokes `ring` (uint8 mask) is a ring's, tall and round
    enough and covered by them all round where the crop shows it: each pixel's size
    relative to its ellipse (1 on it, 0 at its centre), the ellipse's height, its smaller
    half-axis (px) and the gaps in the strokes along it; else None."""
    fit = _fitted(ring)
    if fit is None:
        return None
    (cx, cy), (d1, d2), angle = fit
    a, b = d1 / 2, d2 / 2
    if min(a, b) <= 2 or min(a, b) < settings.min_round * max(a, b):
        return None
    t = np.deg2rad(angle)
    cos_t, sin_t = np.cos(t), np.sin(t)
    # The ellipse's height on the page: its extent along y.
    height = 2 * np.sqrt((a * sin_t) ** 2 + (b * cos_t) ** 2)
    if height < settings.min_height * box_h:
        return None
    xs = cx + a * np.cos(_ANGLES) * cos_t - b * np.sin(_ANGLES) * sin_t
    ys = cy + a * np.cos(_ANGLES) * sin_t + b * np.sin(_ANGLES) * cos_t
    h, w = ring.shape
    on = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    if on.mean() < settings.min_shown:
        return None  # mostly outside the crop: nothing to tell a ring by
    # Along the outline, the ring's own strokes (not the writing inside, nor a neighbour).
    away = cv2.distanceTransform(1 - ring, cv2.DIST_L2, 3)  # px to the ring's ink
    near = away[ys[on].astype(int), xs[on].astype(int)] <= settings.near * 2 * min(a, b) + 1
    if near.mean() < settings.min_cover:
        return None
    covered = np.ones(len(_ANGLES), bool)  # where the crop cuts the outline: no gap known
    covered[on] = near
    gaps = int(np.count_nonzero(covered & ~np.roll(covered, -1)))  # covered, then not
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = ((xx - cx) * cos_t + (yy - cy) * sin_t) / a
    v = (-(xx - cx) * sin_t + (yy - cy) * cos_t) / b
    return np.sqrt(u * u + v * v), float(height), float(min(a, b)), gaps


def _hull_outline(ring: np.ndarray, box_h: float, settings: RingSettings
                  ) -> Outline | None:
    """As _outline, with the strokes' convex hull for the ellipse: a triangle or a box
    drawn round a number (golf cards mark a bogey so). A pixel's size is 1 on the hull,
    0 at its deepest point inside (1 - its depth over the hull's inradius), above 1
    outside; the half-axis is that inradius."""
    points = cv2.findNonZero(ring)
    if points is None or len(points) < 5:
        return None
    hull = cv2.convexHull(points)
    x, y, w, h = cv2.boundingRect(hull)
    if h < settings.min_height * box_h or min(w, h) < settings.min_round * max(w, h):
        return None
    inside = np.zeros(ring.shape, np.uint8)
    cv2.fillConvexPoly(inside, hull, 1)
    depth = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
    radius = float(depth.max())
    if radius <= 2:
        return None
    out = cv2.distanceTransform(1 - inside, cv2.DIST_L2, 3)
    size = np.where(inside > 0, 1.0 - depth / radius, 1.0 + out / radius).astype(np.float32)
    # Along the hull's outline (the crop's border cuts it: no gap known there), the
    # strokes' own ink within `near` of it.
    outline = hull.reshape(-1, 2).astype(np.float32)
    ends = np.roll(outline, -1, axis=0)
    steps = np.linspace(0.0, 1.0, 8, endpoint=False)
    along = (outline[:, None, :] + (ends - outline)[:, None, :] * steps[None, :, None])
    along = along.reshape(-1, 2)
    hh, ww = ring.shape
    on = ~((along[:, 0] <= 0) | (along[:, 0] >= ww - 1) | (along[:, 1] <= 0)
           | (along[:, 1] >= hh - 1))
    if on.mean() < settings.min_shown:
        return None
    away = cv2.distanceTransform(1 - ring, cv2.DIST_L2, 3)
    near = away[along[on, 1].astype(int), along[on, 0].astype(int)] \
        <= settings.near * 2 * radius + 1
    if near.mean() < settings.min_cover:
        return None
    covered = np.ones(len(along), bool)
    covered[on] = near
    gaps = int(np.count_nonzero(covered & ~np.roll(covered, -1)))
    if gaps > settings.max_gaps_touching:
        return None  # a shape drawn round is one stroke; digits side by side leave gaps
    return size, float(h), radius, gaps


def _touching_ring(shapes: _Shapes, stroke: list[int]) -> np.ndarray | None:
    """The ring's part of one stroke (its label in a list) that is a ring with the
    writing inside touching it, else None. A quick hand draws the ring into the digit (on
    the real golf cards most circled numbers touch their ring). What lies well within the
    ring's outline is the writing, the rest the ring; the writing must be tall and not one
    straight stroke: a 0 struck through is a strike, and a 0's slash read alone a 1."""
    settings = shapes.settings
    part, outline = shapes.of(stroke)
    if outline is None:
        return None
    size, height, half_axis, gaps = outline
    if gaps > settings.max_gaps_touching or height < settings.min_height_touching * shapes.box_h:
        return None
    ys, xs = np.nonzero(part)
    rel = size[ys, xs]
    if _along(rel, settings) < settings.min_touching_ring:
        return None  # mostly not along the outline: a digit's own shape (an 8, a 6)
    # The ring's own stroke reaches this far in from its outline: a written 0's inner edge
    # is no writing inside it.
    width = _stroke_width(part)
    edge = min(settings.within, 1.0 - settings.ring_widths * width / half_axis)
    inner = rel < edge
    iy, ix = ys[inner], xs[inner]
    # Writing inside: at least a stroke min_inside of the ring's height tall (a written 0's
    # inner edge leaves a few pixels).
    if (len(iy) < settings.min_inside * height * width
            or float(np.ptp(iy)) < settings.min_inside * height):
        return None
    spread = np.sqrt(np.clip(np.linalg.eigvalsh(np.cov(np.vstack([ix, iy]).astype(float))),
                             0.0, None))
    if spread[0] < settings.min_inside_width * spread[1]:
        return None
    return (part & (size >= edge)).astype(np.uint8)


def _along(sizes: np.ndarray, settings: RingSettings) -> float:
    """The share of stroke pixels (their sizes relative to the ring's ellipse) that lie
    along its outline, within settings.along of it."""
    return float(np.mean(np.abs(sizes - 1.0) <= settings.along))


def _stroke_width(part: np.ndarray) -> float:
    """The typical width (px) of the strokes of a mask: twice the median distance to their
    edge along their ridges (where two strokes meet, the blob is wider)."""
    dist = cv2.distanceTransform(part, cv2.DIST_L2, 3)
    ridge = (dist > 0) & (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8)))
    return 2.0 * float(np.median(dist[ridge])) if ridge.any() else 1.0


def _enclosed(ring: np.ndarray, stat: np.ndarray) -> bool:
    """Whether the ring's strokes lie round a stroke (its connectedComponentsWithStats row)
    on three sides at least of left, right, above and below (a ring the crop cuts off
    shows three). Two digits either side of a third (the 1 and the 2 of a 162 round its 6)
    lie on two."""
    x, y, w, h = (int(v) for v in stat[:4])
    sides = (ring[y:y + h, :x].any(), ring[y:y + h, x + w:].any(),
             ring[:y, x:x + w].any(), ring[y + h:, x:x + w].any())
    return sum(bool(v) for v in sides) >= 3


def without_ring(image: np.ndarray, box_px: tuple[int, int, int, int] | None,
                 settings: RingSettings = RINGS, ink: EdgeInkSettings = EDGE_INK
                 ) -> np.ndarray | None:
    """The crop with the ring drawn round its writing painted as the crop's paper; None if
    it has none (or no box to measure it by)."""
    if box_px is None:
        return None
    mask = ring_mask(image, box_px, settings, ink)
    return None if mask is None else painted(image, mask)
