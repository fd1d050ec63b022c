"""scan.line_strikes: a strike drawn right across a cell is not taken for a printed rule."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan import digit_model
from escalero.scan.line_strikes import LineStrikeSettings, line_across
from escalero.scan.recognize import CellCrop, DigitModelRecognizer

# A 2-side entry cell as the contract cuts it: a 26 x 8 mm box and 1.5 mm margins, 10 px/mm.
BOX = (15, 15, 260, 80)


def _crop(line_y: int | None, colour: tuple[int, int, int] = (130, 130, 130)) -> np.ndarray:
    """A pencil-grey stroke, level, past both edges of the crop; blurred and noisy as a
    phone photo is."""
    crop = np.full((110, 290, 3), 235, np.uint8)
    cv2.rectangle(crop, (15, 15), (275, 95), (120, 120, 235), 2)  # the light-red grid
    if line_y is not None:
        cv2.line(crop, (0, line_y), (289, line_y + 1), colour, 4)
    noise = np.random.default_rng(1).normal(0.0, 6.0, crop.shape)
    return np.clip(cv2.GaussianBlur(crop, (0, 0), 1.5) + noise, 0, 255).astype(np.uint8)


def test_a_line_through_the_middle_is_a_strike_and_one_along_the_edge_is_not() -> None:
    assert line_across(_crop(55), BOX)
    assert not line_across(_crop(20), BOX)  # a rule along the box's top edge
    assert not line_across(_crop(None), BOX)
    assert not line_across(_crop(55, (215, 215, 225)), BOX)  # too faint for a stroke
    assert not line_across(_crop(55), BOX, LineStrikeSettings(min_ink=0.9))


def test_the_preprocessing_keeps_the_line_only_when_asked() -> None:
    crop = _crop(55)
    dropped, kept = (digit_model.preprocess_batch([crop], keep_rules=k)[0] for k in (False, True))
    assert np.array_equal(dropped, digit_model.preprocess(crop))
    assert kept.sum() > 5 * dropped.sum() and kept.max() > 0.9


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="line strikes"):
        LineStrikeSettings(min_ink=0.0)
    with pytest.raises(ValueError, match="line strikes"):
        LineStrikeSettings(edge=0.5)


def _sure(kind: int) -> np.ndarray:
    """A network output sure of one kind: 0 empty, 1 struck."""
    z = np.full(digit_model.N_OUT, -20.0, np.float32)
    z[kind] = 20.0
    return z


def test_a_struck_cell_read_empty_is_read_again_with_its_line_never_certain(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A network that sees only what the preprocessing leaves: with the line taken off as a
    # printed rule the cell looks empty, with the line kept it looks struck.
    dropped, kept = (float(digit_model.preprocess_batch([_crop(55)], keep_rules=k)[0].sum())
                     for k in (False, True))

    def run_members(batch: np.ndarray, paths: object, engine: object = None) -> np.ndarray:
        return np.stack([_sure(1 if x.sum() > (dropped + kept) / 2 else 0) for x in batch])

    monkeypatch.setattr(digit_model, "run_members", run_members)
    allowed = (1, 2, 3, 4, 5)
    crops = [CellCrop(_crop(55), allowed, BOX), CellCrop(_crop(None), allowed, BOX)]
    struck, empty = DigitModelRecognizer().read(crops)
    assert struck.value == "x" and not struck.certain and "line is drawn across" in struck.why
    assert empty.value is None and empty.certain and "line" not in empty.why


def test_the_committed_networks_read_a_line_across_as_struck_never_certain() -> None:
    reader = DigitModelRecognizer()
    if not reader.available():
        pytest.skip("digit model not installed")
    allowed = (1, 2, 3, 4, 5)
    crops = [CellCrop(_crop(55), allowed, BOX), CellCrop(_crop(None), allowed, BOX)]
    struck, empty = reader.read(crops)
    assert struck.value == "x" and not struck.certain
    assert empty.value is None and "line" not in empty.why
