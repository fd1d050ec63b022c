"""Writing much smaller than its box: read again at the size the network knows.

The network reads a cell at the crop's own scale (the contract's 10 px/mm), so a number
written a third as tall as the box reaches it at a third of the size its training digits
had. On the real photos' digit strings (`benchmarks.real`) small, flat 0s written for a
strike read as 1, 2, 4, 6 or 9, all unsure; read with the writing enlarged to fill most of
the box, they read as written 0s at 0.92-0.99. The recognizer reads a cell read below 0.8
whose writing is that small once more so (scan.recognize), and takes that reading where it
is nearly sure and surer than the first; never certain by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from escalero.scan import edge_ink
from escalero.scan.edge_ink import EDGE_INK, EdgeInkSettings


@dataclass(frozen=True)
class SmallInkSettings:
    """When writing counts as small, and how far it is enlarged (ReadingSettings.
    small_ink). Set by hand on the real photos' digit strings (2026-12-06), not fitted."""

    # Writing whose strokes span at most this share of the box's height, and of its width,
    # is small: a digit string's 0 spans 25-40% of its line's height.
    max_height_share: float = 0.45
    max_width_share: float = 0.6
    # It is enlarged until it spans this share of the box's height (a bench digit spans
    # 50-90%), by at most max_zoom, and never beyond max_fill of the box's width.
    height_share: float = 0.7
    max_zoom: float = 2.5
    max_fill: float = 0.9
    # Smaller ink than this (px at the crop's resolution) is a speck, not writing.
    min_ink_px: int = 6

    def __post_init__(self) -> None:
        shares = (self.max_height_share, self.max_width_share, self.height_share,
                  self.max_fill)
        if not all(0.0 < v <= 1.0 for v in shares) or self.max_zoom <= 1.0 \
                or self.min_ink_px < 1:
            raise ValueError("small ink: shares in (0, 1], max_zoom > 1, min_ink_px >= 1")


SMALL_INK = SmallInkSettings()


def enlarged(image: np.ndarray, box_px: tuple[int, int, int, int] | None,
             settings: SmallInkSettings = SMALL_INK, strokes: EdgeInkSettings = EDGE_INK
             ) -> np.ndarray | None:
    """The crop with its writing enlarged about the writing's middle, where the writing
    lies within the box and is small (settings); None otherwise. The crop keeps its size,
    so the box is where it was; the paper beyond the crop's edge is its edge's colour.
    A neighbour's strokes at the crop's edge (scan.edge_ink) are painted over first: the
    digits of a string written close reach into every crop."""
    if box_px is None:
        return None
    cleaned = edge_ink.without_neighbours(image, box_px, strokes)
    image = image if cleaned is None else cleaned
    found = edge_ink.ink_at_scale(image, strokes)
    if found is None:
        return None
    ink, scale = found
    ys, xs = np.nonzero(ink)
    if len(ys) == 0:
        return None
    x0, x1 = xs.min() / scale, (xs.max() + 1) / scale
    y0, y1 = ys.min() / scale, (ys.max() + 1) / scale
    bx, by, bw, bh = box_px
    if x0 < bx or y0 < by or x1 > bx + bw or y1 > by + bh:
        return None  # writing beyond the box: not small, or a neighbour's
    ink_w, ink_h = x1 - x0, y1 - y0
    if max(ink_w, ink_h) < settings.min_ink_px or ink_h > settings.max_height_share * bh \
            or ink_w > settings.max_width_share * bw:
        return None
    zoom = min(settings.max_zoom, settings.height_share * bh / ink_h,
               settings.max_fill * bw / ink_w)
    if zoom <= 1.0:
        return None
    h, w = image.shape[:2]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    # The writing's middle to the box's middle, enlarged by `zoom`.
    mx, my = bx + bw / 2, by + bh / 2
    move = np.array([[zoom, 0.0, mx - zoom * cx], [0.0, zoom, my - zoom * cy]], np.float32)
    return cv2.warpAffine(image, move, (w, h), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
