"""A neighbour's ink at the edge of a cell crop: find it, and paint it over as paper.

A crop is the writable box grown by 1.5 mm (the cell reading contract), so the digit of
the cell next door often reaches into it: the right-hand bow of a 0, the foot of a 2, a
stroke of a 1. In the narrow cells of four- to six-side sheets the network's window spans
the whole crop, and such a stroke at the border reads as a leading 1: "40" becomes 140,
a number the row does not allow, and the cell is unsure.

Ink counts as a neighbour's when a connected stroke lies in the crop's margin, reaching
at most 2 mm into the writable box, and runs off the crop's edge. A grid line is not (it
spans the crop; drop_grid_lines takes it off). The recognizer reads an unsure cell with such ink
again without it and keeps the second reading only where both agree on the value
(scan.recognize): a writer's own leading digit that strayed over the line into the
margin would change the value, and then the cell stays as first read. A certain number of
two or more digits is read again too, and is no longer certain where it reads otherwise:
the stroke may be the leading 1 it was read with.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from escalero.scan.imaging import darkness


@dataclass(frozen=True)
class EdgeInkSettings:
    """What counts as a neighbour's stroke at a crop's edge (ReadingSettings.edge_ink).
    Each field says what it was fitted on; px are crop pixels at rectify.PX_PER_MM."""

    # Ink this far inside the box still counts as outside it (2 mm). Fitted on 300 tuning
    # sheets (51e83eb): at 1 mm the tail of a neighbour's dash or the bow of its 0 often
    # stayed; 2 mm made 64 more unsure cells certain (29 fewer flags after the totals
    # check), none wrong.
    tolerance_px: int = 20
    # Above and below, ink reaching this share of the box's height into it still counts
    # as outside, where that is more than tolerance_px: the lower arc of a ring drawn round
    # the number of the row above reaches 2.4-3.3 mm into a 14 mm box (real golf cards,
    # benchmarks.real), and a tall digit's tail of the row above does the same. A cell's
    # own writing that runs off the crop's top or bottom reaches further in. Set on the
    # real photos (2026-12-06).
    tolerance_share_across: float = 0.3
    # A cap (an arc that comes in through the crop's top or bottom and leaves through the
    # same edge) counts as outside where it reaches at most this share of the box's
    # height in: it is the ring of the row above or below, which no digit of this cell
    # draws (a digit of its own that ran off the crop would reach further in). The rings
    # of the real golf cards' birdies spill 4.3-5.1 mm into a 14 mm box (benchmarks.real).
    # Set by hand above those, below half the box, not fitted.
    cap_share_across: float = 0.4
    # Smaller specks are noise, not worth a second reading. Set by hand, not fitted
    # (212fc6d).
    min_area_px: int = 12
    # A component (nearly) as long as the crop is a grid line, not a neighbour. Set by
    # hand, not fitted (212fc6d).
    line_span: float = 0.9
    # Strokes are found at this share of the crop's resolution (5 px/mm): a quarter of the
    # pixels, and enough for them. A speed choice, set by hand (198aa50).
    scale: float = 0.5
    # The paper estimate's window at that scale: strokes are thinner than 2 mm. Set by
    # hand, not fitted (198aa50).
    paper_kernel_px: int = 11
    # A crop whose darkest ink (its 99.9th percentile) is fainter than this holds no stroke
    # to look for; strokes are what is darker than strong_ink and than strong_share of
    # that darkest ink. Set by hand, not fitted (212fc6d).
    least_ink: float = 0.15
    strong_ink: float = 0.2
    strong_share: float = 0.4
    # The stroke's mask grown by this (crop px) to take its soft rim (below the threshold)
    # too. Set by hand, not fitted (212fc6d).
    rim_px: int = 5

    def __post_init__(self) -> None:
        if self.tolerance_px < 0 or self.min_area_px < 0 or self.paper_kernel_px < 1 \
                or not 0.0 <= self.tolerance_share_across < 0.5 \
                or not self.tolerance_share_across <= self.cap_share_across <= 0.6:
            raise ValueError("edge ink: need tolerance_px, min_area_px >= 0, "
                             "paper_kernel_px >= 1, 0 <= tolerance_share_across < 0.5 and "
                             "tolerance_share_across <= cap_share_across <= 0.6")
        if not 0.0 < self.line_span <= 1.0 or not 0.0 < self.scale <= 1.0:
            raise ValueError("edge ink: line_span and scale are shares in (0, 1]")
        if not all(0.0 <= v <= 1.0 for v in (self.least_ink, self.strong_ink,
                                             self.strong_share)) or self.rim_px < 1:
            raise ValueError("edge ink: least_ink, strong_ink and strong_share are in [0, 1], "
                             "rim_px >= 1")


EDGE_INK = EdgeInkSettings()

def _ink(image: np.ndarray, settings: EdgeInkSettings) -> np.ndarray:
    """0 = paper, 1 = ink, from the red channel (the red grid is as bright as paper there)
    over a local paper estimate, at settings.scale of the crop's resolution."""
    red = image if image.ndim == 2 else image[:, :, 2]
    small = cv2.resize(red, None, fx=settings.scale, fy=settings.scale,
                       interpolation=cv2.INTER_AREA)
    return darkness(small, settings.paper_kernel_px, 3)


def neighbour_mask(image: np.ndarray, box_px: tuple[int, int, int, int],
                   settings: EdgeInkSettings = EDGE_INK) -> np.ndarray | None:
    """A mask (at the crop's resolution) of the neighbours' strokes in a crop, or None if
    there are none."""
    ink = _ink(image, settings)
    if not _runs_off(ink, settings.strong_ink):
        return None  # no ink as strong as a stroke's at the crop's edge (most cells)
    scale = settings.scale
    strong = _strokes(ink, settings)
    if strong is None:
        return None
    h, w = strong.shape
    if not _runs_off(strong, 0):
        return None  # nothing runs off the crop: no need to label the ink
    n, labels, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=8)
    bx, by, bw, bh = (v * scale for v in box_px)
    t = settings.tolerance_px * scale
    t_across = max(t, settings.tolerance_share_across * bh)  # above and below
    found = []
    for k in range(1, n):
        x, y, cw, ch, area = (int(v) for v in stats[k])
        if area < settings.min_area_px * scale * scale or cw > settings.line_span * w \
                or ch > settings.line_span * h:
            continue
        at_edge = x == 0 or y == 0 or x + cw == w or y + ch == h
        outside = (x + cw <= bx + t or x >= bx + bw - t
                   or y + ch <= by + t_across or y >= by + bh - t_across)
        t_cap = settings.cap_share_across * bh
        if not outside and ((y == 0 and y + ch <= by + t_cap)
                            or (y + ch == h and y >= by + bh - t_cap)):
            outside = _is_cap(labels[y:y + ch, x:x + cw] == k, at_top=y == 0)
        if at_edge and outside:
            found.append(k)
    if not found:
        return None
    small = np.isin(labels, found).astype(np.uint8)
    # back to the crop's pixels, with the stroke's soft rim (below the threshold)
    full = cv2.resize(small, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_NEAREST)
    rim = settings.rim_px
    return cv2.dilate(full, np.ones((rim, rim), np.uint8)) > 0


def _is_cap(stroke: np.ndarray, at_top: bool) -> bool:
    """Whether a stroke (a bool mask of its bounding box) that runs off the crop's top
    (bottom) is an arc that leaves through that edge again: it meets the edge near both
    ends of its width with paper between them (a ring's two legs), and is wider than
    tall. One stroke running off meets the edge once."""
    row = stroke[0 if at_top else -1]
    w = row.size
    end = max(1, w // 6)
    middle = row[w // 4: w - w // 4]
    return bool(row[:end].any() and row[-end:].any() and middle.size
                and float(np.mean(middle)) <= 0.5 and w >= stroke.shape[0])


def _strokes(ink: np.ndarray, settings: EdgeInkSettings) -> np.ndarray | None:
    """uint8, 1 on the strokes of an ink map (_ink): what is darker than strong_ink and
    than strong_share of its darkest ink; None where that ink is fainter than least_ink."""
    flat = ink.ravel()
    k = max(1, flat.size // 1000)
    top = float(np.partition(flat, flat.size - k)[flat.size - k])  # the 99.9th percentile
    if top < settings.least_ink:
        return None
    return (ink > max(settings.strong_ink, settings.strong_share * top)).astype(np.uint8)


def ink_at_scale(image: np.ndarray, settings: EdgeInkSettings = EDGE_INK
                 ) -> tuple[np.ndarray, float] | None:
    """The crop's strokes (as _strokes) at settings.scale of its resolution, and that
    scale; None where it holds no stroke."""
    strong = _strokes(_ink(image, settings), settings)
    return None if strong is None else (strong, settings.scale)


def painted(image: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A copy of the crop with the pixels of `mask` painted as the paper around them."""
    clean = image.copy()
    rest = image[::3, ::3][~mask[::3, ::3]]  # the paper around it (a sample is enough)
    colour = np.median(rest, axis=0) if len(rest) else np.median(image, axis=(0, 1))
    clean[mask] = colour.astype(image.dtype)
    return clean


def _runs_off(ink: np.ndarray, level: float) -> bool:
    """Whether any pixel on the map's border is above `level`. A stroke is ink above
    strong_ink at least: where none on the border is, none runs off the crop, and the
    99.9th percentile need not be found."""
    return bool((ink[0] > level).any() or (ink[-1] > level).any()
                or (ink[:, 0] > level).any() or (ink[:, -1] > level).any())


def without_neighbours(image: np.ndarray, box_px: tuple[int, int, int, int] | None,
                       settings: EdgeInkSettings = EDGE_INK) -> np.ndarray | None:
    """The crop with the neighbours' strokes painted as the crop's paper; None if it has
    none (or no box to tell the margin by)."""
    if box_px is None:
        return None
    mask = neighbour_mask(image, box_px, settings)
    return None if mask is None else painted(image, mask)


def box_alone(image: np.ndarray, box_px: tuple[int, int, int, int] | None
              ) -> np.ndarray | None:
    """The crop with everything outside its writable box painted as the crop's paper;
    None without a box."""
    if box_px is None:
        return None
    x, y, w, h = box_px
    outside = np.ones(image.shape[:2], bool)
    outside[max(y, 0):y + h, max(x, 0):x + w] = False
    return painted(image, outside) if outside.any() else None
