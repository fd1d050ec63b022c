"""scan.rectify: refusing small/blurred sheets, snapping cells onto the printed grid."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.scan import locate
from escalero.scan.geometry import geometry_for
from escalero.scan.grid import LineSearchSettings, PlacementSettings, snap_slots
from escalero.scan.pipeline import ScanOptions, scan_image
from escalero.scan.rectify import RECTIFY, Rectified, RectifySettings, rectify
from escalero.scoring.errors import Reason, UnreadableSheetError
from escalero.sheets.layout import LayoutSpec
from scan_support import photo_with_truth, written_sheet

PPM = 6.0
SPEC = LayoutSpec()
GEOM = geometry_for(SPEC)


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    return written_sheet(SPEC, {(0, 0, "nines"): 3}, "T-1", PPM)


def _true_hom(hom_page: np.ndarray) -> np.ndarray:
    """mm -> photo px, from the photo generator's page-px -> photo-px matrix."""
    return hom_page @ np.diag([PPM, PPM, 1.0])


def test_sharp_sheet_is_accepted_and_grid_found(page) -> None:
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=4, scale=0.85, blur=0.8)
    rect = rectify(photo, _true_hom(hom), GEOM)
    assert rect.photo_px_per_mm > 5 and rect.blur_mm < RECTIFY.max_blur_mm
    snapped = snap_slots(rect, GEOM)
    assert np.mean([s.edges_found for s in snapped]) > 3.5
    assert max(s.shift_mm for s in snapped) < 0.5  # the true homography needs no snapping


def test_a_sheet_too_blurred_for_its_marks_is_refused(page) -> None:
    photo, _ = photo_with_truth(page, size=(1500, 2000), angle=4, scale=0.85, blur=7.0)
    with pytest.raises(UnreadableSheetError, match="blurred") as err:
        scan_image(photo)
    assert err.value.reason == Reason.TOO_BLURRED


def test_a_blurred_sheet_whose_marks_are_read_is_read_with_every_cell_unsure(page) -> None:
    """Beyond max_blur_mm the reader's calibration does not hold: the sheet is read, not
    refused, but no cell and no payout is certain, and the photo's blur is said."""
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=4, scale=0.85, blur=3.5)
    rect = rectify(photo, _true_hom(hom), GEOM)
    assert RECTIFY.max_blur_mm < rect.blur_mm < RECTIFY.unreadable_blur_mm
    result = scan_image(photo)
    assert not any(c.certain for c in result.cells)
    assert not result.certainty.certain
    assert any("blurred" in w for w in scan_image(photo, ScanOptions(lang="en")).warnings)


def test_tiny_sheet_is_refused(page) -> None:
    photo, hom = photo_with_truth(page, size=(1500, 2000), scale=0.25)
    with pytest.raises(UnreadableSheetError, match="too small") as err:
        rectify(photo, _true_hom(hom), GEOM)
    assert err.value.reason == Reason.TOO_SMALL


def test_snapping_recovers_a_misplaced_grid(page) -> None:
    """The homography is 1.2 mm off (bent paper): each cell still lands on its lines."""
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=-3, scale=0.85)
    off = _true_hom(hom) @ np.array([[1, 0, 1.2], [0, 1, -0.8], [0, 0, 1.0]])
    rect = rectify(photo, off, GEOM)
    snapped = snap_slots(rect, GEOM)
    # The page as seen through `off` is shifted by (-1.2, +0.8) mm: boxes must follow.
    dx = np.median([s.box[0] - s.slot.box[0] for s in snapped])
    dy = np.median([s.box[1] - s.slot.box[1] for s in snapped])
    assert dx == pytest.approx(-1.2, abs=0.25) and dy == pytest.approx(0.8, abs=0.25)


def test_wrong_layout_grid_is_refused(page) -> None:
    """A layout hint that does not match the printed grid is refused, not read."""
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=2, scale=0.85)
    wrong = geometry_for(LayoutSpec(sides=4))
    markers = locate.find_markers(photo)
    placement = locate.place_sheet(wrong, markers, None, None)
    rect = rectify(photo, placement.homography, wrong)
    with pytest.raises(UnreadableSheetError, match="grid") as err:
        snap_slots(rect.image, wrong)
    assert err.value.reason == Reason.GRID_MISSING


def test_sheet_partly_outside_the_picture_is_refused(page) -> None:
    """Marker 2 and the grid's corner lie beyond the frame: three markers still place the
    sheet, but the cut-off cells would read as empty paper."""
    photo, _ = photo_with_truth(page, size=(1500, 2000), angle=-15, scale=0.8)
    cut = np.ascontiguousarray(photo[:, :1300])  # the frame ends left of marker 2
    markers = locate.find_markers(cut)
    assert sorted(m.corner for m in markers) == [0, 1, 3]
    placement = locate.place_sheet(GEOM, markers, None, None)
    with pytest.raises(UnreadableSheetError, match="outside the picture") as err:
        rectify(cut, placement.homography, GEOM)
    assert err.value.reason == Reason.OUT_OF_VIEW


def test_the_refusals_limits_are_settings_the_scan_options_carry(page) -> None:
    """A sheet read at the default limits is refused as too small where the settings ask
    for more pixels per mm, in rectify and through ScanOptions.rectifying."""
    with pytest.raises(ValueError, match="max_blur_mm"):
        RectifySettings(max_blur_mm=2.0)
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=4, scale=0.85, blur=0.8)
    strict = RectifySettings(min_sheet_px_per_mm=50.0)
    with pytest.raises(UnreadableSheetError, match="too small"):
        rectify(photo, _true_hom(hom), GEOM, settings=strict)
    with pytest.raises(UnreadableSheetError) as err:
        scan_image(photo, ScanOptions(rectifying=strict))
    assert err.value.reason == Reason.TOO_SMALL


def test_the_line_search_is_a_setting_of_the_placement(page) -> None:
    """Where no peak is strong enough to be a grid line, none is found: a guessed layout is
    refused, a certain one keeps the homography's places."""
    with pytest.raises(ValueError, match="clear_share"):
        LineSearchSettings(clear_share=1.5)
    with pytest.raises(ValueError, match="reaim_gain"):
        PlacementSettings(reaim_gain=-0.1)
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=4, scale=0.85, blur=0.8)
    rect = rectify(photo, _true_hom(hom), GEOM)
    blind = PlacementSettings(lines=LineSearchSettings(min_line_strength=1000.0))
    with pytest.raises(UnreadableSheetError, match="grid"):
        snap_slots(rect, GEOM, settings=blind)
    snapped = snap_slots(rect, GEOM, strict=False, settings=blind)
    assert all(s.edges_found == 0 for s in snapped)
    assert all(s.uncertainty_mm == blind.homography_mm for s in snapped)


def test_a_red_hand_near_the_lines_is_not_taken_for_them(page) -> None:
    """Ink in the grid's colour 1.6 mm inside each box's top, the lines 1.4 mm above the
    homography's place (pub photo 11500000-013, a red ballpoint): the row of strokes, a
    pitch apart from the next, lay nearer the expected place than the faint lines and was
    taken for them, every cell 3 mm off. Ink and its blurred rim add no line strength."""
    import cv2

    inked = page.copy()
    for slot in GEOM.slots:
        x, y, w, _h = slot.box
        a = (round((x + 0.25 * w) * PPM), round((y + 1.6) * PPM))
        b = (round((x + 0.75 * w) * PPM), round((y + 1.6) * PPM))
        cv2.line(inked, a, b, (40, 40, 200), max(1, round(0.5 * PPM)))
    photo, hom = photo_with_truth(inked, size=(1500, 2000), angle=-3, scale=0.85, blur=1.5)
    off = _true_hom(hom) @ np.array([[1, 0, 0.0], [0, 1, 1.4], [0, 0, 1.0]])
    snapped = snap_slots(rectify(photo, off, GEOM), GEOM)
    dy = np.median([s.box[1] - s.slot.box[1] for s in snapped])
    assert dy == pytest.approx(-1.4, abs=0.3)


def _faint_grid(page: np.ndarray, blur: float, dy_mm: float) -> Rectified:
    """The sheet with its grid print half faded, photographed blurred by `blur` px and
    flattened by a homography `dy_mm` off its true place."""
    faint = page.astype(np.float32)
    grid_print = faint[:, :, 2] > faint[:, :, 1] + 20
    faint[grid_print] += (255.0 - faint[grid_print]) * 0.5
    photo, hom = photo_with_truth(faint.astype(np.uint8), size=(1500, 2000), angle=4,
                                  scale=0.85, blur=blur)
    off = _true_hom(hom) @ np.array([[1, 0, 0.0], [0, 1, dy_mm], [0, 0, 1.0]])
    return rectify(photo, off, GEOM)


def test_a_faint_grid_blurred_over_a_mm_is_found_by_its_summed_profile(page) -> None:
    """Lines half faded and blurred (pub photos: a pink grid a person sees, whose redness
    per pixel the blur has spread under min_line_strength) are found summed over 1 mm:
    the cells land on them, 0.5 mm from the homography's place."""
    rect = _faint_grid(page, blur=1.5, dy_mm=0.5)
    sharp_only = PlacementSettings(lines=LineSearchSettings(blurred_line_mm=0.0))
    sharp = snap_slots(rect, GEOM, strict=False, settings=sharp_only)
    assert np.mean([s.edges_found for s in sharp]) < 2.0
    assert np.mean([all(s.own) for s in sharp]) < 0.1
    snapped = snap_slots(rect, GEOM)
    assert np.mean([all(s.own) for s in snapped]) > 0.8
    dy = np.median([s.box[1] - s.slot.box[1] for s in snapped if s.own[1]])
    assert dy == pytest.approx(-0.5, abs=0.15)


def test_a_grid_further_off_than_the_search_is_found_by_its_comb(page) -> None:
    """A faint grid 4 mm from the homography's place (a bent sheet placed by blurred
    marks: pub photos whose every cell was 3-4 mm off) is beyond each cell's own search;
    the lines of a column (row) summed at their printed spacing find it, and each cell
    its own lines around that."""
    rect = _faint_grid(page, blur=1.0, dy_mm=4.0)
    no_comb = PlacementSettings(lines=LineSearchSettings(comb_mm=0.0))
    assert np.mean([s.own[1] for s in snap_slots(rect, GEOM, False, no_comb)]) < 0.1
    snapped = snap_slots(rect, GEOM, strict=False)
    assert np.mean([s.own[1] for s in snapped]) > 0.8
    dy = np.median([s.box[1] - s.slot.box[1] for s in snapped if s.own[1]])
    assert dy == pytest.approx(-4.0, abs=0.2)


def test_the_comb_is_no_wider_than_a_row_allows() -> None:
    with pytest.raises(ValueError, match="comb"):
        LineSearchSettings(comb_pitch_share=0.5)


def test_a_lone_find_does_not_move_the_sheet() -> None:
    """Two cells placed by their own lines on an axis (a washed-out grid's stray "lines")
    place nobody: each would move every other cell by its offset. Three do."""
    from escalero.scan.grid import PLACEMENT, _without_lone_finds

    two = [[1.5, None], [1.4, 0.2], [None, 0.3], [None, 0.1], [None, None]]
    kept = _without_lone_finds(two, PLACEMENT)
    assert [sh[0] for sh in kept] == [None] * 5
    assert [sh[1] for sh in kept] == [None, 0.2, 0.3, 0.1, None]
    with pytest.raises(ValueError, match="min_placed"):
        PlacementSettings(min_placed=0)
