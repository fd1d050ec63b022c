"""Shape checks on a cell's ink, for the one mistake the network makes with confidence.

A written 0 is a strike (RULES.md). But "40" or "10" in pencil, with a first digit faint or
tiny enough to fall under the noise floor (a 4 pressed so lightly that only two specks of
it show), looks like a lone 0 and can be read as struck with 0.99+: the network cannot see
ink that preprocessing took away. A strike that is a closed loop with more ink beside it is
therefore never certain: a person checks it.

The same goes for a lone digit whose row also allows a two-digit number ending in it: a
thin, light "1" before a dark 5 ("15" in Könige) or before a 0 ("10") vanishes under the
noise floor, and the network reads the 5 or the strike with 0.99+. A faint first digit is
a tall, thin stroke, so it is looked for by its column profile (`_stroke_before`): the ink
averaged along half the mark's height, where pixel noise cancels and a stroke does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from escalero.scan.digit_model import WORK_H, ink_map, noise_floor


@dataclass(frozen=True)
class MarkSettings:
    """When a cell's main mark is a loop, and when ink beside it may be a faint first
    digit: the shape checks' values."""

    # The loop's hole must cover this share of its bounding box (a 0, not a blot or a
    # dash). Set by hand, not fitted (acc9e5f).
    min_hole: float = 0.08
    # Ink left of the loop, relative to the loop's own stroke strength, that may be a faint
    # first digit. On 160 generated harsh photos 19 of 1,536 certain strikes score above
    # this (paper grain, a neighbour's spill: a cheap review); 6 of 7 strikes that were
    # really a faint "10", "40" or "50" did (acc9e5f).
    company: float = 0.12
    # Robust sigmas above the paper that count as ink for the loop. Set by hand (acc9e5f).
    loop_ink_sigmas: float = 4.0
    # A faint stroke before the mark, as a share of the mark's own stroke strength, averaged
    # along half the mark's height. Set on generated mild 6-side photos (40 sheets, 960
    # certain lone digits and strikes whose row allows a longer number): the two faint "15"
    # and "10" misread there score 0.102 and 0.115; 11 right readings score 0.10 or more
    # (c744d38).
    stroke_before: float = 0.095

    def __post_init__(self) -> None:
        if not 0 < self.min_hole < 1:
            raise ValueError(f"MarkSettings.min_hole must lie in (0, 1), got {self.min_hole}")
        for name in ("company", "loop_ink_sigmas", "stroke_before"):
            if getattr(self, name) <= 0:
                raise ValueError(f"MarkSettings.{name} must be positive, "
                                 f"got {getattr(self, name)}")


MARKS = MarkSettings()


@dataclass(frozen=True)
class _Mark:
    """The cell's main mark: the largest blob of ink inside the writable box."""

    inner: np.ndarray  # the box's ink map, smoothed
    paper: float  # the paper's ink level in it
    mask: np.ndarray  # uint8, 1 on the mark
    box: tuple[int, int, int, int]  # x, y, w, h of the mark in `inner`
    contours: tuple[np.ndarray, ...]
    hole: np.ndarray | None  # the mark's largest hole's contour, if it is a loop
    stroke: float  # the mark's ink strength over the paper (median over the mark)


def _main_mark(crop_bgr: np.ndarray, margin_px: int, settings: MarkSettings
               ) -> _Mark | None:
    """The main mark, or None for a box with no ink (`margin_px`: the crop's margin around
    the writable box, where the grid lines live)."""
    ink = ink_map(crop_bgr)
    h, w = ink.shape
    m = round(margin_px * WORK_H / crop_bgr.shape[0]) + 2
    if h - 2 * m < 8 or w - 2 * m < 8:
        return None
    inner = cv2.GaussianBlur(ink, (0, 0), 1.5)[m:h - m, m:w - m]
    paper, floor = noise_floor(inner, settings.loop_ink_sigmas)
    binary = (inner > max(floor, 0.04)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    if n < 2:
        return None
    main = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh, _area = (int(v) for v in stats[main])
    mark = (labels == main).astype(np.uint8)
    contours, hierarchy = cv2.findContours(mark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    holes = [c for c, link in zip(contours, hierarchy[0], strict=True)
             if link[3] >= 0] if hierarchy is not None else []
    hole = max(holes, key=cv2.contourArea, default=None)
    if hole is not None and cv2.contourArea(hole) < settings.min_hole * bw * bh:
        hole = None  # a blot's speck of paper, not a loop
    stroke = float(np.median(inner[mark > 0])) - paper
    return _Mark(inner, paper, mark, (x, y, bw, bh), tuple(contours), hole, stroke)


def _stroke_before(mark: _Mark, settings: MarkSettings) -> bool:
    """True when a faint, tall stroke stands left of the main mark (a first digit under
    the noise floor)."""
    x, y, _bw, bh = mark.box
    left = x - max(2, bh // 6)
    if left <= 2 or mark.stroke <= 0:
        return False
    excess = mark.inner - mark.paper
    along = cv2.GaussianBlur(cv2.blur(excess, (1, max(3, bh // 2))), (0, 0), 1.0)
    beside = along[max(0, y - bh // 6):y + bh + bh // 6, :left]
    return float(beside.max()) / mark.stroke >= settings.stroke_before


def hidden_first_digit(crop_bgr: np.ndarray, margin_px: int, value: object,
                       allowed: tuple[int, ...] | None, settings: MarkSettings = MARKS
                       ) -> bool:
    """A certain strike or lone digit that may hide a faint first digit: a loop with ink
    beside it (any row), or, where the row allows a longer number ending in the reading
    (10-50 for a 0, 15 and 25 for a 5), a faint tall stroke before the mark."""
    last = 0 if value == "x" else value if isinstance(value, int) and 0 < value < 10 else None
    if last is None:
        return False
    longer = allowed is not None and any(a >= 10 and a % 10 == last for a in allowed)
    if not longer and last != 0:
        return False
    mark = _main_mark(crop_bgr, margin_px, settings)
    if mark is None:
        return False
    if last == 0 and mark.hole is None:
        return False  # a dash, slash or cross: no written 0 to hide a digit before
    if last == 0 and _loop_company(mark, settings):
        return True
    return longer and _stroke_before(mark, settings)


def loop_with_company(crop_bgr: np.ndarray, margin_px: int, settings: MarkSettings = MARKS
                      ) -> bool:
    """True when the cell's main mark is a closed loop (a written 0) with ink to its left.

    `margin_px` is the crop's margin around the writable box (the grid lines live there).
    """
    found = _main_mark(crop_bgr, margin_px, settings)
    return found is not None and found.hole is not None and _loop_company(found, settings)


def _loop_company(found: _Mark, settings: MarkSettings) -> bool:
    """loop_with_company's test on a main mark that is a loop."""
    inner, mark, contours, hole = found.inner, found.mask, found.contours, found.hole
    assert hole is not None
    # The loop is found by its hole, since a digit written before the 0 may touch it.
    hx, hy, hw, hh = cv2.boundingRect(hole)
    # Stroke width: a stroke's area over its length (half the perimeter around it).
    width = float(mark.sum()) / max(1.0, sum(cv2.arcLength(c, True) for c in contours) / 2)
    left = int(hx - width - max(2, hh // 6))
    stroke = found.stroke
    if left <= 0 or stroke <= 0:
        return False
    # Smoothed wide, so a coherent faint stroke stands out and pixel noise does not.
    wide = cv2.GaussianBlur(inner, (0, 0), 2.5)
    top, bottom = max(0, int(hy - width)), int(hy + hh + width) + 1
    beside = wide[top:bottom, :left]
    return (float(beside.max()) - float(np.median(wide))) / stroke >= settings.company
