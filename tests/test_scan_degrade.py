"""scan.grid: placement that degrades (uncertain cells flagged) instead of refusing."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.scan.cells import CellResult, flag_unplaced
from escalero.scan.geometry import geometry_for
from escalero.scan.grid import (
    PLACEMENT,
    PlacementSettings,
    is_gray,
    snap_slots,
)
from escalero.scan.rectify import rectify
from escalero.scoring.errors import UnreadableSheetError
from escalero.sheets.layout import LayoutSpec
from scan_support import photo_with_truth, written_sheet

PPM = 6.0
SPEC = LayoutSpec()
GEOM = geometry_for(SPEC)


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    return written_sheet(SPEC, {(0, 0, "nines"): 3}, "T-1", PPM)


def _erase_grid(page: np.ndarray, x_from_mm: float) -> np.ndarray:
    """The page with its light-red print painted out right of x_from_mm (shadow, dropout)."""
    out = page.copy()
    f = out.astype(np.int16)
    red = (f[:, :, 2] - (f[:, :, 0] + f[:, :, 1]) // 2) > 12
    red[:, : int(x_from_mm * PPM)] = False
    out[red] = 250
    return out


def _flat(page: np.ndarray, gray: bool = False) -> np.ndarray:
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=3, scale=0.85)
    if gray:
        photo = np.repeat(photo.mean(axis=2, keepdims=True), 3, axis=2).astype(np.uint8)
    return rectify(photo, hom @ np.diag([PPM, PPM, 1.0]), GEOM).image


def test_grayscale_photo_finds_the_grid_by_shade(page) -> None:
    flat = _flat(page, gray=True)
    assert is_gray(flat) and not is_gray(_flat(page))
    snapped = snap_slots(flat, GEOM)
    assert np.mean([s.edges_found for s in snapped]) > 3.5
    assert max(s.uncertainty_mm for s in snapped) <= 2 * PLACEMENT.found_mm


def test_hidden_grid_degrades_to_flagged_cells(page) -> None:
    """The grid is gone from most of the sheet: the code-read layout is not refused; cells
    far from any visible line are placed by prediction and marked too uncertain."""
    xs = sorted({s.box[0] for s in GEOM.slots})
    flat = _flat(_erase_grid(page, xs[2]))
    with pytest.raises(UnreadableSheetError, match="grid"):  # a guessed layout: refused
        snap_slots(flat, GEOM, strict=True)
    snapped = snap_slots(flat, GEOM, strict=False)
    seen = [s for s in snapped if s.box[0] < xs[1] + 1]
    far = [s for s in snapped if s.slot.box[0] >= xs[-1] - 1]
    assert seen and far
    assert max(s.uncertainty_mm for s in seen) <= 2 * PLACEMENT.found_mm
    assert min(s.uncertainty_mm for s in far) > PLACEMENT.max_uncertain_mm
    # Flagged with a note, never dropped; a certain reading elsewhere stays certain.
    cells = [CellResult(s.slot.side, s.slot.column, s.slot.row, None, 0.99, (), True, s.box,
                        place_mm=s.uncertainty_mm)
             for s in snapped]
    flagged = flag_unplaced(cells)
    assert all(not c.certain and str(c.note).startswith("Lage unsicher")
               for c, s in zip(flagged, snapped, strict=True) if s in far)
    assert all(c.certain for c, s in zip(flagged, snapped, strict=True) if s in seen)


def test_sheet_without_a_visible_grid_is_read_with_every_cell_flagged(page) -> None:
    """No grid line shows anywhere: the sheet is read, not refused; every cell is placed
    by the homography alone and cannot be certain, with its position's doubt in the note."""
    flat = _flat(_erase_grid(page, 0.0))
    snapped = snap_slots(flat, GEOM, strict=False)
    assert len(snapped) == len(GEOM.slots)
    window = PLACEMENT.max_uncertain_mm
    assert all(s.edges_found == 0 and s.uncertainty_mm > window for s in snapped)
    cells = [CellResult(s.slot.side, s.slot.column, s.slot.row, 3, 0.999, (), True, s.box,
                        place_mm=s.uncertainty_mm)
             for s in snapped]
    flagged = flag_unplaced(cells)
    assert all(not c.certain and str(c.note).startswith("Lage unsicher") for c in flagged)
    with pytest.raises(UnreadableSheetError, match="grid"):  # a guessed layout: refused
        snap_slots(flat, GEOM, strict=True)



def test_placement_settings_are_checked_and_carried_by_the_scan_options(page) -> None:
    """A wider window, given in ScanOptions' settings, is what makes a cell certain: the
    value is not patched in a module."""
    from escalero.scan.pipeline import ScanOptions

    with pytest.raises(ValueError, match="found_mm"):
        PlacementSettings(found_mm=0.5, one_line_mm=0.4)
    with pytest.raises(ValueError, match="bend"):
        PlacementSettings(bend_per_mm=0.2)
    assert ScanOptions().placement == PLACEMENT
    flat = _flat(_erase_grid(page, 0.0))
    wide = PlacementSettings(max_uncertain_mm=3.0)
    snapped = snap_slots(flat, GEOM, strict=False, settings=wide)
    cells = [CellResult(s.slot.side, s.slot.column, s.slot.row, 3, 0.999, (), True, s.box,
                        place_mm=s.uncertainty_mm)
             for s in snapped]
    assert all(c.certain for c in flag_unplaced(cells, wide))
    assert not any(c.certain for c in flag_unplaced(cells))
