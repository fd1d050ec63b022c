"""Tesseract's text is mapped onto the row's values and never trusted (no binary needed)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan.recognize import CellCrop, CellReading
from escalero.scan.tesseract_reader import (
    TESSERACT,
    TesseractRecognizer,
    constrain,
    ink_image,
)

ACES = (6, 12, 18, 24, 30)


def top(ranked: list) -> tuple:
    return ranked[0]


def test_exact_allowed_value_is_read_but_not_sure() -> None:
    value, p = top(constrain("18", 0.95, ACES, ink=100))
    assert value == 18 and p <= TESSERACT.max_confidence < TESSERACT.accept


def test_value_outside_row_becomes_unsure_nearest_values() -> None:
    ranked = constrain("13", 0.99, ACES, ink=100)
    assert all(v != 13 for v, _ in ranked)
    assert ranked[0][0] in (12, 18) and ranked[0][1] < 0.2


def test_totals_take_any_number_and_zero_is_struck() -> None:
    assert top(constrain("245", 0.9, None, ink=100))[0] == 245
    assert top(constrain("0", 0.9, ACES, ink=100))[0] == "x"


def test_empty_and_unreadable_ink() -> None:
    assert top(constrain("", 0.0, ACES, ink=TESSERACT.ink_empty / 2))[0] is None
    assert top(constrain("", 0.0, ACES, ink=TESSERACT.ink_empty * 10))[0] == "x"


def test_never_certain() -> None:
    for text in ("18", "6", "", "0", "999"):
        r = CellReading.from_ranked(constrain(text, 1.0, None, ink=100), TESSERACT.accept)
        assert not r.certain


def test_ink_image_is_dark_ink_on_white() -> None:
    crop = np.full((120, 170, 3), 230, np.uint8)
    crop[50:70, 80:84] = (150, 60, 20)
    img = ink_image(crop)
    assert img.dtype == np.uint8 and img.ndim == 2
    assert img.min() < 60 and np.median(img) == 255


def test_tesseract_giving_up_on_a_cell_is_no_crash(monkeypatch) -> None:
    pytesseract = pytest.importorskip("pytesseract")

    def gives_up(*_args, **_kwargs):
        raise pytesseract.TesseractError(-8, "")

    monkeypatch.setattr(pytesseract, "image_to_data", gives_up)
    crop = np.full((120, 170, 3), 255, np.uint8)
    cv2.line(crop, (40, 60), (130, 60), (150, 62, 22), 6)  # ink, so tesseract is asked
    (reading,) = TesseractRecognizer().read([CellCrop(crop, (1, 2, 3, 4, 5), (15, 15, 140, 90))])
    assert not reading.certain
