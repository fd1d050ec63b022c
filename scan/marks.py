"""Shape checks on a cell's ink, for the one mistake the network makes with confidence.

A written 0 is a strike (RULES.md). But "40" or "10" in pencil, with a first digit faint or
tiny enough to fall under the noise floor (a 4 pressed so lightly that only two specks of
it show), looks like a lone 0 and can be read as struck with 0.99+: the network cannot see
ink that preprocessing took away. A strike that is a closed loop with more ink beside it is
therefore never certain: a person checks it.
"""

from __future__ import annotations

import cv2
import numpy as np
from escalero.scan.digit_model import WORK_H, ink_map, noise_floor

# The loop's hole must cover this share of its bounding box (a 0, not a blot or a dash).
MIN_HOLE = 0.08
# Ink left of the loop, relative to the loop's own stroke strength, that may be a faint
# first digit. On 160 generated harsh photos 19 of 1,536 certain strikes score above this
# (paper grain, a neighbour's spill: a cheap review); 6 of 7 strikes that were really a
# faint "10", "40" or "50" did.
COMPANY = 0.12
NOISE_SIGMAS = 4.0  # robust sigmas above the paper that count as ink for the loop


def loop_with_company(crop_bgr: np.ndarray, margin_px: int) -> bool:
    """True when the cell's main mark is a closed loop (a written 0) with ink to its left.

    `margin_px` is the crop's margin around the writable box (the grid lines live there).
    """
    ink = ink_map(crop_bgr)
    h, w = ink.shape
    m = round(margin_px * WORK_H / crop_bgr.shape[0]) + 2
    if h - 2 * m < 8 or w - 2 * m < 8:
        return False
    inner = cv2.GaussianBlur(ink, (0, 0), 1.5)[m:h - m, m:w - m]
    paper, floor = noise_floor(inner, NOISE_SIGMAS)
    binary = (inner > max(floor, 0.04)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    if n < 2:
        return False
    main = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    _x, _y, bw, bh, _area = (int(v) for v in stats[main])
    mark = (labels == main).astype(np.uint8)
    contours, hierarchy = cv2.findContours(mark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    holes = [c for c, link in zip(contours, hierarchy[0], strict=True)
             if link[3] >= 0] if hierarchy is not None else []
    hole = max(holes, key=cv2.contourArea, default=None)
    if hole is None or cv2.contourArea(hole) < MIN_HOLE * bw * bh:
        return False  # not a loop: a dash, slash or cross
    # The loop is found by its hole, since a digit written before the 0 may touch it.
    hx, hy, hw, hh = cv2.boundingRect(hole)
    # Stroke width: a stroke's area over its length (half the perimeter around it).
    width = float(mark.sum()) / max(1.0, sum(cv2.arcLength(c, True) for c in contours) / 2)
    left = int(hx - width - max(2, hh // 6))
    stroke = float(np.median(inner[labels == main])) - paper
    if left <= 0 or stroke <= 0:
        return False
    # Smoothed wide, so a coherent faint stroke stands out and pixel noise does not.
    wide = cv2.GaussianBlur(inner, (0, 0), 2.5)
    top, bottom = max(0, int(hy - width)), int(hy + hh + width) + 1
    beside = wide[top:bottom, :left]
    return (float(beside.max()) - float(np.median(wide))) / stroke >= COMPANY
