"""The ink's colour: red ink on the light-red grid is the one the grid cannot be dropped from.

The reader drops the grid by reading the red channel, where the light-red print is as
bright as paper. Red ink is nearly as bright there too: its strokes come out faint, and
the grid finder takes them for grid print. A red-ink sheet is read by its shade in green
instead, where the grid is light and the ink dark (`grey_by_shade`), and the player is
told (`scan.notes` "red_ink"). On two fresh pub sets' red- and pink-ink photos (seeds
9300000 and 9400000, 2 sides, 51 and 48 photos) that reads 98.53% and 98.02% of cells
right, against 97.50% and 97.52% with the grid's shade taken off as a floor, and with
fewer cells flagged.

Ink is told from the grid by the green channel, where every ink is darker than the
light-red print; red ink is the ink that the red channel hardly sees. Measured on the
writable interiors only (the grid lines lie outside them), so the print itself never
counts. A grayscale photo has no red ink to find.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from escalero.scan.imaging import darkness


@dataclass(frozen=True)
class InkSettings:
    """When a sheet counts as written in red ink, and how it is then read by its shade in
    green (ScanOptions.ink). Each field says what it was fitted on; px are crop pixels at
    rectify.PX_PER_MM (10 px/mm)."""

    # Darker than this share of the paper in green: ink (the light-red grid is ~0.5 there).
    # Set by hand, not fitted (b493891).
    ink_green: float = 0.45
    # ...and brighter than this share of the paper in red: red ink. Set by hand, not
    # fitted (b493891).
    red_channel_bright: float = 0.6
    # A sheet is written in red from this share of its ink on: fitted by eye on the harsh
    # bench's red-ink photos (33, colour; b493891), where red pens gave 0.59-1.0 of the
    # ink and every other pen at most 0.09.
    red_ink_share: float = 0.4
    # Less ink than this (about four written digits) says nothing about the pen. Set by
    # hand, not fitted (b493891).
    min_ink_px: int = 2000
    # The writable box shrunk by this when the ink's colour is measured: no grid line,
    # even where placement is off. Set by hand, not fitted (b493891).
    inner_px: int = 5
    # Every this many pixels each way (0.3 mm): strokes are wider. A speed choice, set by
    # hand (48d647c: about 5 ms a sheet, was 60 at every pixel).
    step_px: int = 3
    # A box is mostly paper: this quantile of its pixels is the paper's level. Set by hand,
    # not fitted (48d647c).
    paper_quantile: float = 0.9
    # Window of the local paper estimate the shade is taken against: wider than a felt
    # pen's blurred stroke (~1 mm), or its middle is "paper". Set by hand, not fitted
    # (b1bd2b5).
    shade_paper_px: int = 25

    def __post_init__(self) -> None:
        if not all(0.0 < v < 1.0 for v in (self.ink_green, self.red_channel_bright,
                                           self.paper_quantile)) \
                or not 0.0 < self.red_ink_share <= 1.0:
            raise ValueError("ink: ink_green, red_channel_bright and paper_quantile are "
                             "shares in (0, 1), red_ink_share in (0, 1]")
        if self.min_ink_px < 0 or self.inner_px < 0 or self.step_px < 1 \
                or self.shade_paper_px < 1:
            raise ValueError("ink: need min_ink_px, inner_px >= 0 and step_px, "
                             "shade_paper_px >= 1")


INK = InkSettings()


def red_ink_share(crops: Sequence[Any], settings: InkSettings = INK) -> float:
    """Share of the ink in the cells' writable interiors that is red (0 without ink)."""
    inner_px, step = settings.inner_px, settings.step_px
    by_shape: dict[tuple[int, ...], list[np.ndarray]] = {}
    for crop in crops:
        image = crop.image
        if image.ndim != 3 or crop.box_px is None:
            continue
        x, y, w, h = crop.box_px
        inner = image[y + inner_px:y + h - inner_px:step, x + inner_px:x + w - inner_px:step]
        if inner.size:
            by_shape.setdefault(inner.shape, []).append(inner)
    ink = red = 0
    for inners in by_shape.values():  # cells of a sheet share a few sizes: one pass each
        px = np.ascontiguousarray(np.stack(inners).reshape(len(inners), -1, 3).transpose(0, 2, 1))
        k = int(settings.paper_quantile * px.shape[2])  # the paper's level
        paper = np.partition(px, k, axis=2)[:, :, k:k + 1].astype(np.float32) + 1.0
        dark = px[:, 1] < settings.ink_green * paper[:, 1]
        ink += int(dark.sum())
        red += int((dark & (px[:, 2] > settings.red_channel_bright * paper[:, 2])).sum())
    return red / ink if ink >= settings.min_ink_px / step ** 2 else 0.0


def is_red_ink(crops: Sequence[Any], settings: InkSettings = INK) -> bool:
    """Whether the sheet is written (mostly) in red ink."""
    return red_ink_share(crops, settings) >= settings.red_ink_share


def _green_darkness(image: np.ndarray, paper_px: int) -> np.ndarray:
    """1 - green / local paper: the grid ~0.2-0.5, red ink ~0.8 and more."""
    return darkness(image[:, :, 1], paper_px, paper_px / 4)


def grey_by_shade(crops: Sequence[Any], settings: InkSettings = INK) -> list[Any]:
    """Crops of a red-ink sheet as grey by their shade in green, where the reader's red
    channel would see the ink faintly.

    In green red ink is far darker than the light-red print: the ink comes out dark grey
    and the grid light grey, which the reader's own grid-line handling drops as it does a
    dark-printed grid's. No floor is taken off: a floor set by the grid's darkness also
    took off the faint edges of thin or washed-out red strokes, and misplaced boxes lost
    the strokes that ran onto their lines.
    """
    out = []
    for crop in crops:
        ink = _green_darkness(crop.image, settings.shade_paper_px)
        grey = np.round(255.0 * (1.0 - ink)).astype(np.uint8)
        out.append(replace(crop, image=cv2.merge([grey, grey, grey])))
    return out
