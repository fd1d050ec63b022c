"""A cell struck out with a line drawn right across it.

The preprocessing takes a row that is dark across the whole crop off as a printed rule
(digit_model.drop_rules: a score card's divider bar reaching into a box placed by hand).
A player who strikes a cell with one long stroke across the box, and past it, draws such
a row: the network then sees a faint remnant, or nothing, and reads the struck cell as
empty. On the pub bench (2 sides, seed 9600000) six struck cells read as empty, one of them
certain (at 0.988), read as struck at 0.99-1.0 with the line kept.

A printed rule lies along the box's edge (the divider bar, a neighbouring box's line); a
hand's line crosses the box's middle. A cell read as empty whose middle holds such a line
is read again with the line kept. The second reading stands where it is surer, and is
never certain: the accept threshold was fitted on crops without the line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from escalero.scan.digit_model import WORK_H, rule_levels


@dataclass(frozen=True)
class LineStrikeSettings:
    """When a line across the crop is a hand's strike (ReadingSettings.line_strikes). Set
    by hand, not fitted."""

    # The line's darkness over the paper, on nearly all of the crop's width: a pencil
    # stroke blurred in a shadow 0.16-0.18; the light-red grid, seen in the red channel,
    # about 0.05.
    min_ink: float = 0.12
    # The box's middle: less this share of its height at the top and at the bottom, where a
    # printed rule of a box placed a little off would lie.
    edge: float = 0.2

    def __post_init__(self) -> None:
        if not 0.0 < self.min_ink < 1.0 or not 0.0 <= self.edge < 0.5:
            raise ValueError("line strikes: need min_ink in (0, 1) and edge in [0, 0.5)")


LINE_STRIKES = LineStrikeSettings()


def line_across(image: np.ndarray, box_px: tuple[int, int, int, int] | None,
                settings: LineStrikeSettings = LINE_STRIKES) -> bool:
    """Whether a line runs across the whole crop through the middle of its writable box
    `box_px` (x, y, w, h in the crop; None: the whole crop)."""
    levels = rule_levels(image)
    scale = WORK_H / image.shape[0]
    y, h = (box_px[1], box_px[3]) if box_px is not None else (0, image.shape[0])
    top = round((y + settings.edge * h) * scale)
    bottom = round((y + (1.0 - settings.edge) * h) * scale)
    middle = levels[max(0, top):max(top + 1, bottom)]
    return bool(middle.size) and float(middle.max()) >= settings.min_ink
