"""scan.writing_placement: loosely placed cells follow the writing around them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from escalero.scan.geometry import geometry_for
from escalero.scan.grid import SnappedSlot
from escalero.scan.rectify import Rectified
from escalero.scan.writing_placement import WritingPlacementSettings, onto_writing
from escalero.sheets.layout import LayoutSpec
from scan_support import written_sheet

PPM = 6.0
SPEC = LayoutSpec(sides=2)
GEOM = geometry_for(SPEC)
VALUES = {"nines": 3, "tens": 20, "jacks": 6, "queens": 16, "kings": 25, "aces": 18,
          "straight": 20, "full_house": 30, "poker": 40, "grande": 50}


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    """Side 0 written in every row cell; side 1 left empty."""
    entries = {(0, s.column, s.row): VALUES[s.row] for s in GEOM.slots
               if s.side == 0 and s.row in VALUES}
    return written_sheet(SPEC, entries, "T-1", PPM)


def _seen_off(photo: np.ndarray, shift_mm: tuple[float, float]) -> Rectified:
    """The page through a homography that puts its print (and writing) `shift_mm` off the
    boxes the layout gives."""
    sx, sy = shift_mm
    hom = np.array([[PPM, 0, -sx * PPM], [0, PPM, -sy * PPM], [0, 0, 1.0]])
    return Rectified(photo, hom, GEOM.page_mm, PPM, 0.1)


def _placed(own: bool, unsure_mm: float = 2.5) -> tuple[SnappedSlot, ...]:
    return tuple(SnappedSlot(s, s.box, 0.0, 4 if own else 0, unsure_mm, (own, own),
                             (unsure_mm, unsure_mm)) for s in GEOM.slots)


def _moves(snapped: tuple[SnappedSlot, ...]) -> np.ndarray:
    return np.array([(b.box[0] - b.slot.box[0], b.box[1] - b.slot.box[1]) for b in snapped])


def _written(i: int) -> bool:
    slot = GEOM.slots[i]
    return slot.side == 0 and slot.row in VALUES


def test_loose_cells_move_onto_their_writing(page) -> None:
    """The print and writing 4 mm above the boxes, then 4 mm below (a bend the print left
    of the grid did not show): the written cells' boxes follow, 8 mm apart (the writer's
    own place in a box, a little low, is the same both times), and not sideways."""
    above = _moves(onto_writing(_seen_off(page, (0.0, -4.0)), _placed(own=False)))
    below = _moves(onto_writing(_seen_off(page, (0.0, 4.0)), _placed(own=False)))
    written = [i for i in range(len(GEOM.slots)) if _written(i)]
    assert np.all(np.abs(below[written, 1] - above[written, 1] - 8.0) <= 1.0)
    assert np.all(above[written, 1] <= -2.0) and np.all(below[written, 1] >= 4.0)
    assert np.all(above[written, 0] == 0.0) and np.all(below[written, 0] == 0.0)


def test_cells_on_their_own_lines_and_empty_ones_stay(page) -> None:
    off = _seen_off(page, (0.0, -4.0))
    assert np.all(_moves(onto_writing(off, _placed(own=True))) == 0.0)
    assert np.all(_moves(onto_writing(off, _placed(own=False, unsure_mm=0.3))) == 0.0)
    moved = _moves(onto_writing(off, _placed(own=False)))
    far = [i for i, s in enumerate(GEOM.slots) if s.side == 1]  # no writing on side 1
    assert np.all(moved[far] == 0.0)


def test_writing_where_the_boxes_are_moves_them_at_most_by_its_own_offset(page) -> None:
    """The writer writes a little low in each box: the boxes follow by that, no more."""
    moved = _moves(onto_writing(_seen_off(page, (0.0, 0.0)), _placed(own=False)))
    assert np.all(np.abs(moved) <= 2.0)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        WritingPlacementSettings(steps=0)
    with pytest.raises(ValueError):
        replace(WritingPlacementSettings(), ink_level=1.5)
