"""The ink's colour: red ink on the light-red grid is the one the grid cannot be dropped from.

The reader drops the grid by reading the red channel, where the light-red print is as
bright as paper. Red ink is nearly as bright there too: its strokes come out faint, and
the grid finder takes them for grid print. On a red-ink sheet the grid is dropped by its
shade instead (`drop_grid_by_shade`), and the player is told (`scan.notes` "red_ink").
On the harsh bench's red-ink photos (33, colour) that took cell accuracy from 94.3% to
98.8% and flagged cells from 26.6 to 6.5 per sheet, with no silent error either way.

Ink is told from the grid by the green channel, where every ink is darker than the
light-red print; red ink is the ink that the red channel hardly sees. Measured on the
writable interiors only (the grid lines lie outside them), so the print itself never
counts. A grayscale photo has no red ink to find.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from escalero.scan.imaging import darkness

INK_GREEN = 0.45  # darker than this share of the paper in green: ink (the grid is ~0.5)
RED_CHANNEL_BRIGHT = 0.6  # ...and brighter than this in red: red ink
RED_INK_SHARE = 0.4  # of the sheet's ink (harsh bench: red pens 0.59-1.0, others <= 0.09)
MIN_INK_PX = 2000  # at 10 px/mm, about four written digits: too little ink says nothing
INNER_PX = 5  # the writable box shrunk by this: no grid line, even where placement is off
STEP_PX = 3  # every third pixel each way (0.3 mm): strokes are wider, and it is 9x cheaper


def red_ink_share(crops: Sequence[Any]) -> float:
    """Share of the ink in the cells' writable interiors that is red (0 without ink)."""
    by_shape: dict[tuple[int, ...], list[np.ndarray]] = {}
    for crop in crops:
        image = crop.image
        if image.ndim != 3 or crop.box_px is None:
            continue
        x, y, w, h = crop.box_px
        inner = image[y + INNER_PX:y + h - INNER_PX:STEP_PX, x + INNER_PX:x + w - INNER_PX:STEP_PX]
        if inner.size:
            by_shape.setdefault(inner.shape, []).append(inner)
    ink = red = 0
    for inners in by_shape.values():  # cells of a sheet share a few sizes: one pass each
        px = np.ascontiguousarray(np.stack(inners).reshape(len(inners), -1, 3).transpose(0, 2, 1))
        k = int(0.9 * px.shape[2])  # a box is mostly paper: its 90th percentile is paper
        paper = np.partition(px, k, axis=2)[:, :, k:k + 1].astype(np.float32) + 1.0
        dark = px[:, 1] < INK_GREEN * paper[:, 1]
        ink += int(dark.sum())
        red += int((dark & (px[:, 2] > RED_CHANNEL_BRIGHT * paper[:, 2])).sum())
    return red / ink if ink >= MIN_INK_PX / STEP_PX ** 2 else 0.0


def is_red_ink(crops: Sequence[Any]) -> bool:
    """Whether the sheet is written (mostly) in red ink."""
    return red_ink_share(crops) >= RED_INK_SHARE


GRID_PERCENTILE = 97  # of the crop's margin (where the grid lines run): the grid's darkness
GRID_CLEARANCE = 0.1  # taken off above the grid's darkness, so no line survives
SHADE_PAPER_PX = 25  # window of the local paper estimate the shade is taken against (10 px/mm)
BOX_INSIDE_PX = 2  # the writable box shrunk by this holds no print: all its darkness is ink


def _green_darkness(image: np.ndarray) -> np.ndarray:
    """1 - green / local paper: the grid ~0.2-0.5, red ink ~0.8 and more."""
    # Wider than a felt pen's blurred stroke (~1 mm at 10 px/mm), or its middle is "paper".
    return darkness(image[:, :, 1], SHADE_PAPER_PX, SHADE_PAPER_PX / 4)


def drop_grid_by_shade(crops: Sequence[Any]) -> list[Any]:
    """Crops of a red-ink sheet with the grid dropped by its shade instead of its hue.

    In the green channel red ink is far darker than the light-red print; the print's
    darkness is measured in the crops' margins (where the grid lines run), and only what
    is darker is kept, as grey ink on white: the reader's red channel then sees the ink.
    """
    from dataclasses import replace

    dark = [_green_darkness(c.image) for c in crops]
    levels = []
    for c, d in zip(crops, dark, strict=True):
        x, y, w, h = c.box_px
        band = np.ones(d.shape, bool)
        band[y:y + h, x:x + w] = False
        levels.append(float(np.percentile(d[band], GRID_PERCENTILE)))
    floor = float(np.median(levels)) + GRID_CLEARANCE
    out = []
    m = BOX_INSIDE_PX
    for c, d in zip(crops, dark, strict=True):
        ink = np.clip((d - floor) / (1.0 - floor), 0.0, 1.0)
        x, y, w, h = c.box_px
        ink[y + m:y + h - m, x + m:x + w - m] = d[y + m:y + h - m, x + m:x + w - m]
        grey = np.round(255.0 * (1.0 - ink)).astype(np.uint8)
        out.append(replace(c, image=cv2.merge([grey, grey, grey])))
    return out
