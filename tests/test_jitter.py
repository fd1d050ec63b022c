"""scan.jitter and the recognizer's jittered second look at unsure cells."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan import digit_model
from escalero.scan.jitter import JITTERS, jittered
from escalero.scan.recognize import READING, CellCrop, CellReading, DigitModelRecognizer

PAPER = (225, 232, 236)
INK = (140, 60, 20)  # blue ballpoint (BGR)
BOX = (15, 15, 230, 110)
ROW = (1, 2, 3, 4, 5)


def _crop() -> np.ndarray:
    crop = np.full((140, 260, 3), PAPER, np.uint8)
    cv2.putText(crop, "4", (110, 105), cv2.FONT_HERSHEY_SIMPLEX, 3, INK, 6)
    return crop


def test_every_jitter_keeps_the_size_and_moves_the_ink_a_little() -> None:
    crop = _crop()
    ink = crop[:, :, 2] < 200
    out = jittered(crop)
    assert len(out) == len(JITTERS)
    for moved in out:
        assert moved.shape == crop.shape and moved.dtype == crop.dtype
        assert not np.array_equal(moved, crop)
        moved_ink = moved[:, :, 2] < 200
        # The same stroke, a little changed: most of it still where it was.
        assert (moved_ink & ink).sum() > 0.4 * ink.sum()
        assert 0.7 * ink.sum() < moved_ink.sum() < 1.8 * ink.sum()


def _logits(digit_scores: dict[int, float]) -> np.ndarray:
    """One cell's output: a 1-digit number with these digit logits."""
    z = np.zeros(digit_model.N_OUT, np.float32)
    z[2], z[3] = 20.0, 20.0  # a number, of one digit
    z[digit_model.HEAD_OFFSET[1]:digit_model.HEAD_OFFSET[1] + 10] = -20.0
    for d, s in digit_scores.items():
        z[digit_model.HEAD_OFFSET[1] + d] = s
    return z


UNSURE_4 = {4: 6.0, 3: 3.5}  # 4 first (about 0.83), not certain
DOUBTFUL_4 = {4: 6.0, 3: 5.5}  # 4 first, below READING.second_look_from


def _fake_networks(monkeypatch: pytest.MonkeyPatch, jittered_scores: dict[int, float],
                   first: dict[int, float] = UNSURE_4) -> None:
    """The first pass reads `first`, every jittered crop reads `jittered_scores`."""
    k = len(JITTERS)

    def run_members(batch: np.ndarray, paths: object, engine: object = None) -> np.ndarray:
        scores = first if len(batch) == 1 else jittered_scores
        assert len(batch) in (1, k)
        return np.stack([_logits(scores)] * len(batch))

    monkeypatch.setattr(digit_model, "run_members", run_members)


def _read(second_look: bool) -> CellReading:
    reader = DigitModelRecognizer(edge_ink=False, second_look=second_look)
    return reader.read([CellCrop(_crop(), ROW, BOX)])[0]


def test_a_second_look_that_agrees_makes_the_cell_certain(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_networks(monkeypatch, {4: 30.0})
    first, second = _read(False), _read(True)
    assert first.value == 4 and first.confidence >= READING.second_look_from and not first.certain
    assert second.value == 4 and second.certain


def test_a_reading_below_the_floor_is_not_looked_at_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_networks(monkeypatch, {4: 30.0}, first=DOUBTFUL_4)
    first, second = _read(False), _read(True)
    assert first.value == 4 and first.confidence < READING.second_look_from
    assert second == first


def test_a_second_look_never_changes_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_networks(monkeypatch, {3: 30.0})  # the jittered crops all say 3, surely
    first, second = _read(False), _read(True)
    assert first.value == 4 and not first.certain
    assert second == first  # the average said 3: the first reading stays, unsure


def test_the_real_networks_keep_the_value_of_every_cell_they_read_again() -> None:
    crops = [CellCrop(_crop(), allowed, BOX) for allowed in (ROW, (2, 4, 6, 8, 10), (20, 25))]
    plain = DigitModelRecognizer(edge_ink=False, second_look=False).read(crops)
    second = DigitModelRecognizer(edge_ink=False, second_look=True).read(crops)
    for a, b in zip(plain, second, strict=True):
        assert b.value == a.value
        assert b == a or (b.certain and not a.certain)


def test_a_cell_read_without_a_neighbours_stroke_is_looked_at_again_without_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The bow of the left neighbour's 0 runs off the crop's edge. The edge-ink pass reads
    # the cell again without it and agrees (unsure 4); the second look then jitters that
    # cleaned crop, not the one with the stroke.
    from escalero.scan import edge_ink, jitter

    crop = _crop()
    cv2.line(crop, (5, 20), (1, 120), INK, 4)
    clean = edge_ink.without_neighbours(crop, BOX)
    assert clean is not None
    seen: list[np.ndarray] = []

    def record(image: np.ndarray, jitters: tuple = JITTERS) -> list[np.ndarray]:
        seen.append(image)
        return jittered(image, jitters)

    monkeypatch.setattr(jitter, "jittered", record)
    _fake_networks(monkeypatch, {4: 30.0})
    reader = DigitModelRecognizer(edge_ink=True, second_look=True)
    reading = reader.read([CellCrop(crop, ROW, BOX)])[0]
    assert reading.value == 4 and reading.certain
    assert len(seen) == 1 and np.array_equal(seen[0], clean)
