"""scan.marks: a strike written as a 0 with a faint digit before it is not certain."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan.cells import CellResult, flag_hidden_digits
from escalero.scan.marks import MarkSettings, hidden_first_digit, loop_with_company
from escalero.scan.recognize import CellCrop

MARGIN = 15  # the cell-reading contract: 1.5 mm at 10 px/mm


def _cell(zero: bool = True, before: int = 0, faint: float = 0.0, noise: float = 4.0,
          seed: int = 0) -> np.ndarray:
    """A 140 x 90 px box (+ margin) in pencil grey: a 0 (or a dash), maybe a digit before it."""
    rng = np.random.default_rng(seed)
    img = np.full((90 + 2 * MARGIN, 140 + 2 * MARGIN), 225.0)
    ink = np.zeros_like(img)
    if zero:
        cv2.ellipse(ink, (110, 60), (17, 27), 0, 0, 360, 1.0, 5)
    else:
        cv2.line(ink, (60, 62), (130, 58), 1.0, 5)
    if before == 1:
        cv2.line(ink, (70, 35), (64, 88), faint, 4)
    elif before == 4:
        cv2.polylines(ink, [np.array([[78, 34], [62, 70], [88, 70]])], False, faint, 4)
        cv2.line(ink, (82, 50), (80, 88), faint, 4)
    img -= 120 * ink + rng.normal(0, noise, img.shape)
    grey = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.merge([grey, grey, grey])


@pytest.mark.parametrize("digit", [1, 4])
def test_a_zero_with_a_faint_digit_before_it(digit: int) -> None:
    assert loop_with_company(_cell(before=digit, faint=0.3), MARGIN)


@pytest.mark.parametrize("seed", range(4))
def test_a_lone_zero_or_a_dash_is_left_alone(seed: int) -> None:
    assert not loop_with_company(_cell(seed=seed, noise=8.0), MARGIN)  # a 0 as a strike
    assert not loop_with_company(_cell(zero=False, seed=seed), MARGIN)  # a dash
    assert not loop_with_company(_cell(zero=False, before=1, faint=0.3), MARGIN)  # no loop


def test_only_certain_strikes_are_flagged() -> None:
    crops = [CellCrop(_cell(before=4, faint=0.3), (40,), (MARGIN, MARGIN, 140, 90))] * 3
    cells = [CellResult(0, 0, "poker", "x", 0.999, (), True, (0, 0, 14, 9)),
             CellResult(0, 0, "poker", 40, 0.999, (), True, (0, 0, 14, 9)),
             CellResult(0, 0, "poker", "x", 0.6, (), False, (0, 0, 14, 9))]
    out = flag_hidden_digits(cells, crops)
    assert not out[0].certain and "0" in out[0].note
    assert out[1] == cells[1] and out[2] == cells[2]


def _digit_cell(faint_one: float = 0.0, noise: float = 4.0, seed: int = 0) -> np.ndarray:
    """A dark ballpoint 5 in a 140 x 90 px box (+ margin), maybe a thin faint 1 before it."""
    rng = np.random.default_rng(seed)
    img = np.full((90 + 2 * MARGIN, 140 + 2 * MARGIN), 225.0)
    five = np.zeros(img.shape, np.uint8)
    cv2.putText(five, "5", (88, 88), cv2.FONT_HERSHEY_SIMPLEX, 1.8, 255, 4, cv2.LINE_AA)
    ink = five.astype(np.float64) / 255
    if faint_one:
        cv2.line(ink, (72, 40), (66, 88), faint_one, 2, cv2.LINE_AA)
    img -= 150 * ink + rng.normal(0, noise, img.shape)
    grey = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.merge([grey, grey, grey])


KINGS = (5, 10, 15, 20, 25)


def test_a_lone_digit_with_a_faint_one_before_it_may_be_fifteen() -> None:
    assert hidden_first_digit(_digit_cell(faint_one=0.2), MARGIN, 5, KINGS)
    # ...but not where the row has no longer number ending in 5 (Neuner: 1-5).
    assert not hidden_first_digit(_digit_cell(faint_one=0.2), MARGIN, 5, (1, 2, 3, 4, 5))


@pytest.mark.parametrize("seed", range(4))
def test_a_lone_digit_on_noisy_paper_is_left_alone(seed: int) -> None:
    assert not hidden_first_digit(_digit_cell(noise=8.0, seed=seed), MARGIN, 5, KINGS)


def test_a_certain_lone_digit_with_a_faint_one_is_flagged_with_its_digit() -> None:
    crops = [CellCrop(_digit_cell(faint_one=0.2), KINGS, (MARGIN, MARGIN, 140, 90))]
    cells = [CellResult(0, 0, "kings", 5, 0.999, (), True, (0, 0, 14, 9))]
    out = flag_hidden_digits(cells, crops)
    assert not out[0].certain and "5" in out[0].note and "schwache" in out[0].note


def test_the_shape_checks_values_are_checked_and_used() -> None:
    for bad in ({"min_hole": 1.0}, {"company": 0.0}, {"stroke_before": -0.1}):
        with pytest.raises(ValueError, match="MarkSettings"):
            MarkSettings(**bad)
    cell = _cell(before=4, faint=0.3)
    assert loop_with_company(cell, MARGIN)
    assert not loop_with_company(cell, MARGIN, MarkSettings(company=50.0))
