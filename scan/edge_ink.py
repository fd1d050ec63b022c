"""A neighbour's ink at the edge of a cell crop: find it, and paint it over as paper.

A crop is the writable box grown by 1.5 mm (the cell reading contract), so the digit of
the cell next door often reaches into it: the right-hand bow of a 0, the foot of a 2, a
stroke of a 1. In the narrow cells of four- to six-side sheets the network's window spans
the whole crop, and such a stroke at the border reads as a leading 1: "40" becomes 140,
a number the row does not allow, and the cell is unsure.

Ink counts as a neighbour's when a connected stroke lies in the crop's margin, reaching
at most 1 mm into the writable box, and runs off the crop's edge. A grid line is not (it spans the
crop; drop_grid_lines takes it off). The recognizer reads such a cell again without that
ink and keeps the second reading only where both agree on the value (scan.recognize): a
writer's own leading digit that strayed over the line into the margin would change the
value, and then the cell stays as first read, but unsure.
"""

from __future__ import annotations

import cv2
import numpy as np

TOLERANCE_PX = 10  # 1 mm: ink this far inside the box still counts as outside it
MIN_AREA_PX = 12  # smaller specks are noise, not worth a second reading
LINE_SPAN = 0.9  # a component (nearly) as long as the crop is a grid line, not a neighbour
PAPER_KERNEL_PX = 21  # strokes are thinner than 2 mm at 10 px/mm


def _ink(image: np.ndarray) -> np.ndarray:
    """0 = paper, 1 = ink, from the red channel (the red grid is as bright as paper there)
    over a local paper estimate, at the crop's own resolution."""
    red = (image if image.ndim == 2 else image[:, :, 2]).astype(np.float32) + 1.0
    paper = cv2.dilate(red, np.ones((PAPER_KERNEL_PX, PAPER_KERNEL_PX), np.uint8))
    paper = cv2.GaussianBlur(paper, (0, 0), 6)
    return np.clip(1.0 - red / paper, 0.0, 1.0)


def neighbour_mask(image: np.ndarray, box_px: tuple[int, int, int, int]) -> np.ndarray | None:
    """A mask of the neighbours' strokes in a crop, or None if there are none."""
    ink = _ink(image)
    top = float(np.percentile(ink, 99.9))
    if top < 0.15:
        return None
    strong = (ink > max(0.2, 0.4 * top)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
    h, w = strong.shape
    bx, by, bw, bh = box_px
    t = TOLERANCE_PX
    found = []
    for k in range(1, n):
        x, y, cw, ch, area = (int(v) for v in stats[k])
        if area < MIN_AREA_PX or cw > LINE_SPAN * w or ch > LINE_SPAN * h:
            continue
        at_edge = x <= 1 or y <= 1 or x + cw >= w - 1 or y + ch >= h - 1
        outside = (x + cw <= bx + t or x >= bx + bw - t
                   or y + ch <= by + t or y >= by + bh - t)
        if at_edge and outside:
            found.append(k)
    if not found:
        return None
    mask = np.isin(labels, found).astype(np.uint8)
    # the stroke's soft rim, below the threshold, goes with it
    return cv2.dilate(mask, np.ones((5, 5), np.uint8)) > 0


def without_neighbours(image: np.ndarray, box_px: tuple[int, int, int, int] | None
                       ) -> np.ndarray | None:
    """The crop with the neighbours' strokes painted as the crop's paper; None if it has
    none (or no box to tell the margin by)."""
    if box_px is None:
        return None
    mask = neighbour_mask(image, box_px)
    if mask is None:
        return None
    clean = image.copy()
    paper = _ink(image) < 0.05
    colour = np.median(image[paper], axis=0) if paper.any() else np.median(image, axis=(0, 1))
    clean[mask] = colour.astype(image.dtype)
    return clean
