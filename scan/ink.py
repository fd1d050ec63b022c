"""The ink's colour: red ink on the light-red grid is the one the grid cannot be dropped from.

The reader drops the grid by reading the red channel, where the light-red print is as
bright as paper. Red ink is nearly as bright there too: its strokes come out faint, and
the grid finder takes them for grid print. The scan still reads them (faint ink is
stretched, unsure readings are flagged), but the player is told (`scan.notes` "red_ink").

Ink is told from the grid by the green channel, where every ink is darker than the
light-red print; red ink is the ink that the red channel hardly sees. Measured on the
writable interiors only (the grid lines lie outside them), so the print itself never
counts. A grayscale photo has no red ink to find.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

INK_GREEN = 0.45  # darker than this share of the paper in green: ink (the grid is ~0.5)
RED_CHANNEL_BRIGHT = 0.6  # ...and brighter than this in red: red ink
RED_INK_SHARE = 0.4  # of the sheet's ink (harsh bench: red pens 0.59-1.0, others <= 0.09)
MIN_INK_PX = 2000  # at 10 px/mm, about four written digits: too little ink says nothing
INNER_PX = 5  # the writable box shrunk by this: no grid line, even where placement is off


def red_ink_share(crops: Sequence[Any]) -> float:
    """Share of the ink in the cells' writable interiors that is red (0 without ink)."""
    ink = red = 0
    for crop in crops:
        image = crop.image
        if image.ndim != 3 or crop.box_px is None:
            continue
        x, y, w, h = crop.box_px
        inner = image[y + INNER_PX:y + h - INNER_PX, x + INNER_PX:x + w - INNER_PX]
        if inner.size == 0:
            continue
        inner = inner.reshape(-1, 3).astype(np.float32)
        paper = np.percentile(inner, 90, axis=0) + 1.0  # the writable box is mostly paper
        dark = inner[:, 1] < INK_GREEN * paper[1]
        ink += int(dark.sum())
        red += int((dark & (inner[:, 2] > RED_CHANNEL_BRIGHT * paper[2])).sum())
    return red / ink if ink >= MIN_INK_PX else 0.0


def is_red_ink(crops: Sequence[Any]) -> bool:
    """Whether the sheet is written (mostly) in red ink."""
    return red_ink_share(crops) >= RED_INK_SHARE
