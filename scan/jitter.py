"""A cell crop a little scaled or inked: a second look at an unsure cell.

The network sees a cell once, and a reading near the accept threshold can owe its doubt
to where the ink window happened to fall or how thin the pen was. Read at a few such
small changes and averaged with the first reading (mean logits, as the team's members
are), the cell's doubt that comes from the pixels averages out and the doubt that comes
from the glyph stays. The recognizer keeps such a reading only where it agrees with the
first (scan.recognize), so a jitter never changes a value, only its certainty.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np


class Jitter(NamedTuple):
    scale: float  # about the crop's centre
    thicker: int  # px of pen added (a min filter of this size over the crop), 0: none


# Small enough that a reader would not see a difference: 7% larger or smaller, the pen
# 0.2 mm thicker. On 300 tuning sheets these three made as many unsure cells certain as
# nine (moves of 0.2 mm and turns of 3 degrees besides: 124 against 115, none wrong) at a
# third of the cost.
JITTERS = (Jitter(0.93, 0), Jitter(1.07, 0), Jitter(1.0, 2))


def jittered(image: np.ndarray, jitters: tuple[Jitter, ...] = JITTERS) -> list[np.ndarray]:
    """The crop under each jitter, the same size; the crop's own border fills what moves in."""
    h, w = image.shape[:2]
    out = []
    for j in jitters:
        moved = image
        if j.scale != 1.0:
            m = cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, j.scale)
            moved = cv2.warpAffine(image, m, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        if j.thicker:
            moved = cv2.erode(moved, np.ones((j.thicker, j.thicker), np.uint8))  # ink is dark
        out.append(moved)
    return out
