"""scan.small_ink: writing much smaller than its box is enlarged to be read again; writing
of the usual size, writing beyond the box and an empty cell are left alone; a reading of
the enlarged writing is never certain."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from escalero.scan.edge_ink import ink_at_scale
from escalero.scan.small_ink import SmallInkSettings, enlarged

MARGIN = 15  # the cell reading contract's 1.5 mm at 10 px/mm
BOX = (MARGIN, MARGIN, 290, 140)  # a two-side cell: 29 x 14 mm
INK = (140, 60, 40)  # blue ballpoint (BGR)


def _cell(height: int = 0, at: tuple[int, int] | None = None, width: int = 0,
          pen: int = 3) -> np.ndarray:
    """A crop with a written 0 `height` px tall (none for 0) and `width` px wide (by
    default 4/3 its height), its middle at `at`."""
    h, w = BOX[3] + 2 * MARGIN, BOX[2] + 2 * MARGIN
    crop = np.full((h, w, 3), (225, 232, 238), np.uint8)
    cv2.rectangle(crop, (MARGIN, MARGIN), (MARGIN + BOX[2], MARGIN + BOX[3]), (190, 190, 240), 1)
    if height:
        centre = at or (w // 2, h // 2)
        cv2.ellipse(crop, centre, ((width or height * 4 // 3) // 2, height // 2), 0, 0, 360,
                    INK, pen, cv2.LINE_AA)
    return crop


def _ink_height(image: np.ndarray) -> float:
    found = ink_at_scale(image)
    assert found is not None
    ink, scale = found
    ys = np.nonzero(ink)[0]
    return float(ys.max() + 1 - ys.min()) / scale


def test_a_small_zero_is_enlarged_to_most_of_the_box() -> None:
    small = _cell(40, at=(100, 70))  # 4 mm tall in a 14 mm box, left of the middle
    big = enlarged(small, BOX)
    assert big is not None and big.shape == small.shape
    assert _ink_height(big) == pytest.approx(0.7 * BOX[3], rel=0.15)
    found = ink_at_scale(big)
    assert found is not None
    ys, xs = np.nonzero(found[0])
    middle = ((xs.min() + xs.max()) / 2 / found[1], (ys.min() + ys.max()) / 2 / found[1])
    assert middle == pytest.approx((MARGIN + BOX[2] / 2, MARGIN + BOX[3] / 2), abs=6)


def test_writing_of_the_usual_size_an_empty_cell_and_no_box_are_left_alone() -> None:
    assert enlarged(_cell(90), BOX) is None  # 9 mm tall: as the network knows it
    assert enlarged(_cell(), BOX) is None
    assert enlarged(_cell(40), None) is None


def test_writing_beyond_the_box_is_left_alone() -> None:
    assert enlarged(_cell(40, at=(MARGIN + 5, 85)), BOX) is None  # over the left line


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="max_zoom"):
        SmallInkSettings(max_zoom=1.0)
    with pytest.raises(ValueError, match="shares"):
        SmallInkSettings(height_share=1.5)


def test_a_reading_of_the_enlarged_writing_is_never_certain() -> None:
    """A small, flat written 0 in the Neuner row (2 x 3.6 mm, as in the real photos' digit
    strings): read below 0.8 as written, read as a strike enlarged, and still unsure."""
    from escalero.scan.recognize import READING, CellCrop, get_recognizer

    crop = CellCrop(_cell(20, width=36, pen=2), (1, 2, 3, 4, 5), BOX)
    (reading,) = get_recognizer("default").read([crop])
    assert "enlarged" in reading.why and reading.value == "x" and not reading.certain
    off = replace(READING, small_ink=SmallInkSettings(max_height_share=0.01))
    (first,) = get_recognizer("default", off).read([crop])
    assert "enlarged" not in first.why and first.confidence < READING.enlarged_below
