"""scan.written_zero: a strike written as one 0 against the lookalikes a strike may be."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest
from escalero.scan.digit_model import HEAD_OFFSET, N_OUT, score_cell
from escalero.scan.recognize import READING, CellCrop, DigitModelRecognizer
from escalero.scan.written_zero import WRITTEN_ZERO, WrittenZeroSettings, is_written_zero

INK = (120, 40, 20)  # blue ballpoint, BGR
H, W = 100, 140  # a cell's crop at the contract's 10 px/mm


def _paper() -> np.ndarray:
    page = np.full((H, W, 3), 235, np.uint8)
    page += np.random.default_rng(0).integers(0, 8, page.shape, dtype=np.uint8)
    return page


def _zero(page: np.ndarray, cx: int = W // 2, half: tuple[int, int] = (14, 24),
          thick: int = 4) -> np.ndarray:
    cv2.ellipse(page, (cx, H // 2), half, 0, 0, 360, INK, thick, cv2.LINE_AA)
    return page


def _nine(page: np.ndarray) -> np.ndarray:
    cv2.ellipse(page, (W // 2, 36), (13, 13), 0, 0, 360, INK, 4, cv2.LINE_AA)
    cv2.line(page, (W // 2 + 12, 38), (W // 2 + 6, 80), INK, 4, cv2.LINE_AA)
    return page


def _six(page: np.ndarray) -> np.ndarray:
    cv2.ellipse(page, (W // 2, 62), (13, 13), 0, 0, 360, INK, 4, cv2.LINE_AA)
    cv2.line(page, (W // 2 - 12, 60), (W // 2 + 2, 20), INK, 4, cv2.LINE_AA)
    return page


def _ten(page: np.ndarray) -> np.ndarray:
    cv2.line(page, (W // 2 - 26, 28), (W // 2 - 26, 74), INK, 4, cv2.LINE_AA)
    return _zero(page, cx=W // 2 + 8, half=(12, 23))


def _ten_as_d(page: np.ndarray) -> np.ndarray:
    """A 10 whose 1 is drawn into the 0's left side: a D."""
    cv2.line(page, (W // 2 - 12, 26), (W // 2 - 12, 74), INK, 4, cv2.LINE_AA)
    cv2.ellipse(page, (W // 2 - 12, H // 2), (22, 24), 0, -90, 90, INK, 4, cv2.LINE_AA)
    return page


def _ringed_four(page: np.ndarray) -> np.ndarray:
    _zero(page, half=(26, 34), thick=3)
    cv2.line(page, (W // 2 - 4, 32), (W // 2 - 12, 56), INK, 4, cv2.LINE_AA)
    cv2.line(page, (W // 2 - 12, 56), (W // 2 + 10, 56), INK, 4, cv2.LINE_AA)
    cv2.line(page, (W // 2 + 4, 40), (W // 2 + 4, 70), INK, 4, cv2.LINE_AA)
    return page


def _with_neighbour(page: np.ndarray) -> np.ndarray:
    cv2.line(page, (2, 20), (6, 80), INK, 4, cv2.LINE_AA)  # a neighbour's 1 at the edge
    return page


def test_a_written_zero_is_one() -> None:
    assert is_written_zero(_zero(_paper()))
    assert is_written_zero(_zero(_paper(), half=(18, 26), thick=6))  # a felt pen's
    assert is_written_zero(_with_neighbour(_zero(_paper())))


@pytest.mark.parametrize("draw", [_nine, _six, _ten, _ten_as_d, _ringed_four, lambda p: p],
                         ids=["nine", "six", "ten", "ten as a D", "ringed four", "empty"])
def test_a_lookalike_or_nothing_is_no_zero(draw: Callable[[np.ndarray], np.ndarray]) -> None:
    assert not is_written_zero(draw(_paper()))


def _loop_open_at(centre: float, gap: float) -> np.ndarray:
    """A 0 drawn with its rim left open `gap` degrees round `centre` (0 = right, 90 =
    bottom)."""
    page = _paper()
    cv2.ellipse(page, (W // 2, H // 2), (14, 24), 0, centre + gap / 2, centre + 360 - gap / 2,
                INK, 4, cv2.LINE_AA)
    return page


@pytest.mark.parametrize("centre", [0, 90, 180, 270, 315])
def test_a_zero_the_pen_left_open_a_little_is_one(centre: float) -> None:
    """A gap of a third of its width or less, where a closed ink mask sees none."""
    assert is_written_zero(_loop_open_at(centre, 30))


@pytest.mark.parametrize(("centre", "gap"), [(0, 60), (180, 60), (270, 75), (90, 75),
                                             (0, 120), (270, 120)])
def test_a_loop_open_wide_is_no_zero(centre: float, gap: float) -> None:
    """A C or a U is not a 0 the pen lifted off."""
    assert not is_written_zero(_loop_open_at(centre, gap))


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        WrittenZeroSettings(middle=(0.6, 0.4))
    with pytest.raises(ValueError):
        replace(WRITTEN_ZERO, ink_level=0.0)
    with pytest.raises(ValueError):
        replace(READING, written_zero_accept=READING.struck_lookalike_accept + 0.0005)


def _struck_or(digit: int, p_struck: float) -> np.ndarray:
    """Logits of a cell read as struck with p_struck, else as the one digit `digit`."""
    z = np.full(N_OUT, -30.0)
    z[1], z[2] = np.log(p_struck), np.log(1 - p_struck)
    z[3] = 0.0
    z[HEAD_OFFSET[1] + digit] = 0.0
    return z


def test_a_written_zero_needs_less_than_another_strike_where_a_nine_is_allowed() -> None:
    """In the Buben row (9 allowed) a strike needs struck_lookalike_accept; one written as
    a 0 only written_zero_accept."""
    reader = DigitModelRecognizer(lone_stroke=False)
    jacks = (3, 6, 9, 12, 15)
    p = (max(reader.calibration.accept, READING.written_zero_accept)
         + READING.struck_lookalike_accept) / 2
    scores = score_cell(_struck_or(9, p))
    zero = reader._decode(scores, CellCrop(_zero(_paper()), jacks))
    assert zero.value == "x" and zero.certain
    nine = reader._decode(scores, CellCrop(_nine(_paper()), jacks))
    assert nine.value == "x" and not nine.certain
    slash = _paper()
    cv2.line(slash, (40, 80), (100, 20), INK, 4, cv2.LINE_AA)
    assert not reader._decode(scores, CellCrop(slash, jacks)).certain


def test_a_written_zero_needs_less_than_a_lone_stroke_where_a_one_is_allowed() -> None:
    """In the Neuner row (1 allowed) a strike the 1-or-struck split reads needs the split's
    accept: a slash may be a slanted 1. A closed loop is no lone stroke, so a strike written
    as a 0 needs only written_zero_accept."""
    reader = DigitModelRecognizer()
    assert reader.lone_stroke is not None
    nines = (1, 2, 3, 4, 5)
    slash = _paper()
    cv2.line(slash, (50, 85), (90, 15), INK, 4, cv2.LINE_AA)
    floor = max(reader.calibration.accept, READING.written_zero_accept)
    wanted = (floor + reader.lone_stroke.accept) / 2
    low, high = 0.5, 1 - 1e-9  # the struck share whose split reads `wanted` sure
    for _ in range(60):
        mid = (low + high) / 2
        reading = reader._decode(score_cell(_struck_or(1, mid)), CellCrop(slash, nines))
        low, high = (mid, high) if reading.value != "x" or reading.confidence < wanted \
            else (low, mid)
    scores = score_cell(_struck_or(1, high))
    slashed = reader._decode(scores, CellCrop(slash, nines))
    assert slashed.value == "x" and floor < slashed.confidence < reader.lone_stroke.accept
    assert not slashed.certain
    zero = reader._decode(scores, CellCrop(_zero(_paper()), nines))
    assert zero.value == "x" and zero.certain
