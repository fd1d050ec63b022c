"""scan.locate: fiducials, QR code, page outline and the homography, on synthetic photos."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan import locate
from escalero.scan.geometry import geometry_for, page_frames
from escalero.scan.pipeline import resolve_geometry
from escalero.scoring.errors import SheetNotFoundError
from escalero.sheets.layout import LayoutSpec, encode_code
from scan_support import cover, photo_with_truth, written_sheet

PPM = 6.0  # page render resolution, px/mm
SPEC = LayoutSpec()
SERIAL = "T-1"


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    return written_sheet(SPEC, {(0, 0, "nines"): 3, (1, 2, "grande"): 80}, SERIAL, PPM)


def _truth_error_mm(placement: locate.Placement, true_hom: np.ndarray) -> float:
    """Largest distance (mm) between placed and true cell centres."""
    geom = geometry_for(SPEC)
    centres = np.float32([[[s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2]]
                          for s in geom.slots])
    placed = cv2.perspectiveTransform(centres, placement.homography).reshape(-1, 2)
    true = cv2.perspectiveTransform(centres * PPM, true_hom).reshape(-1, 2)
    px_per_mm = float(np.linalg.norm(
        cv2.perspectiveTransform(np.float32([[[0, 0]], [[PPM, 0]]]), true_hom)[1]
        - cv2.perspectiveTransform(np.float32([[[0, 0]], [[PPM, 0]]]), true_hom)[0]))
    return float(np.max(np.linalg.norm(placed - true, axis=1))) / px_per_mm


def _locate(photo: np.ndarray) -> tuple[locate.Placement, locate.QrHit | None]:
    markers = locate.find_markers(photo)
    qr = locate.read_qr(photo, markers, page_frames())
    outline = locate.find_outline(photo) if len(markers) < 3 else None
    geom, _ = resolve_geometry(qr, None, True)
    return locate.place_sheet(geom, markers, qr, outline), qr


@pytest.mark.parametrize("angle, tilt", [(6.0, 0.08), (180.0, 0.05), (-90.0, 0.0), (200.0, 0.1)])
def test_rotated_and_upside_down(page, angle, tilt) -> None:
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=angle, tilt=tilt, scale=0.8,
                                  seed=1)
    placement, qr = _locate(photo)
    assert qr is not None and qr.text == encode_code(SPEC, SERIAL)
    assert placement.method == "markers" and len(placement.markers) >= 3
    assert _truth_error_mm(placement, hom) < 0.6


def test_the_code_is_read_where_the_frame_puts_it_without_a_search(page) -> None:
    photo, _ = photo_with_truth(page, size=(1500, 2000), angle=95, tilt=0.05, seed=3)
    markers = locate.find_markers(photo)
    assert locate.layout_from_markers(markers) == SPEC  # the ids name it: no search needed
    hit = locate.read_qr(photo, markers, page_frames(), search=False)
    assert hit is not None and hit.text == encode_code(SPEC, SERIAL)
    assert locate.read_qr(photo, (), page_frames(), search=False) is None  # no frame, no search


def test_one_marker_covered_uses_the_other_three(page) -> None:
    geom = geometry_for(SPEC)
    covered = page.copy()
    m = geom.marker_at(2)
    cover(covered, (m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size), PPM)
    photo, hom = photo_with_truth(covered, size=(1500, 2000), angle=3, tilt=0.05)
    placement, _ = _locate(photo)
    assert sorted(h.corner for h in placement.markers) == [0, 1, 3]
    assert placement.method == "markers"
    assert _truth_error_mm(placement, hom) < 0.6


def test_two_markers_covered_falls_back_to_page_outline(page) -> None:
    geom = geometry_for(SPEC)
    covered = page.copy()
    for mid in (2, 3):
        m = geom.marker_at(mid)
        cover(covered, (m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size), PPM)
    photo, hom = photo_with_truth(covered, size=(1500, 2000), angle=172, scale=0.75)
    placement, _ = _locate(photo)
    assert placement.method == "outline"
    assert _truth_error_mm(placement, hom) < 1.5


def test_no_sheet() -> None:
    rng = np.random.default_rng(3)
    table = np.clip(rng.normal(110, 25, (1200, 1600, 1)), 0, 255).astype(np.uint8)
    photo = np.repeat(cv2.GaussianBlur(table, (0, 0), 3)[:, :, None], 3, axis=2)
    assert locate.find_markers(photo) == ()
    assert locate.read_qr(photo) is None
    with pytest.raises(SheetNotFoundError, match="no score sheet found"):
        resolve_geometry(None, None, False)


def test_unreadable_code_needs_a_layout_hint(page) -> None:
    with pytest.raises(SheetNotFoundError, match="--game"):
        resolve_geometry(None, None, True)
    geom, source = resolve_geometry(None, LayoutSpec(sides=3), True)
    assert source == "options" and geom.n_sides == 3


def test_foreign_qr_code_is_refused() -> None:
    hit = locate.QrHit("https://example.com", np.zeros((4, 2), np.float32))
    with pytest.raises(SheetNotFoundError, match="not an Escalero sheet"):
        resolve_geometry(hit, None, True)


def test_a_misplaced_marker_is_left_out(page) -> None:
    photo, hom = photo_with_truth(page, size=(1500, 2000), angle=4)
    markers = list(locate.find_markers(photo))
    assert len(markers) == 4
    bad = markers[2]
    markers[2] = locate.MarkerHit(bad.id, bad.corners + np.float32([60, -45]))  # a stray find
    geom = geometry_for(SPEC)
    placement = locate.place_sheet(geom, tuple(markers), None, None)
    assert sorted(h.corner for h in placement.markers) == [0, 1, 3]
    assert _truth_error_mm(placement, hom) < 0.6


def test_two_sheets_in_one_picture_are_refused(page) -> None:
    gap = np.full((page.shape[0], 40, 3), 255, np.uint8)
    both = np.hstack([page, gap, page])
    photo, _ = photo_with_truth(both, size=(2400, 1800), angle=2, scale=0.9)
    with pytest.raises(SheetNotFoundError, match="two score sheets"):
        locate.find_markers(photo)


def test_two_different_sheets_in_one_picture_are_refused(page) -> None:
    # Their fiducials' ids differ (they name different layouts); their corners do not.
    other = written_sheet(LayoutSpec(sides=3), {}, SERIAL, PPM)
    gap = np.full((page.shape[0], 40, 3), 255, np.uint8)
    photo, _ = photo_with_truth(np.hstack([page, gap, other]), size=(2400, 1800), angle=2,
                                scale=0.9)
    with pytest.raises(SheetNotFoundError, match="two score sheets"):
        locate.find_markers(photo)


def test_both_qr_decoders_agree_on_text_and_corners(page, monkeypatch) -> None:
    pytest.importorskip("zxingcpp")
    photo, _hom = photo_with_truth(page, size=(1500, 2000), angle=20, tilt=0.05, seed=2)
    markers = locate.find_markers(photo)
    with_zxing = locate.read_qr(photo, markers, page_frames())
    monkeypatch.setattr(locate, "_zxing", lambda: None)  # as on a machine without it
    opencv_only = locate.read_qr(photo, markers, page_frames())
    assert with_zxing is not None and opencv_only is not None
    assert with_zxing.text == opencv_only.text == encode_code(SPEC, SERIAL)
    assert np.abs(with_zxing.corners - opencv_only.corners).max() < 4.0  # px, same order


def test_blurred_code_is_read_where_opencv_alone_gives_up(page, monkeypatch) -> None:
    pytest.importorskip("zxingcpp")
    photo, _hom = photo_with_truth(page, size=(1100, 1500), angle=-8, tilt=0.08, scale=0.45,
                                   seed=4)
    photo = cv2.GaussianBlur(photo, (0, 0), 0.9)  # ~2.7 px/mm and out of focus
    markers = locate.find_markers(photo)
    hit = locate.read_qr(photo, markers, page_frames())
    assert hit is not None and hit.text == encode_code(SPEC, SERIAL)
    monkeypatch.setattr(locate, "_zxing", lambda: None)
    assert locate.read_qr(photo, markers, page_frames()) is None


def test_marks_the_first_passes_missed_are_found_where_the_others_put_them(page) -> None:
    """Two marks are enough to say where the other two must be: a second look there
    (enlarged, the small-marker detector) finds them, at their own corners."""
    photo, _ = photo_with_truth(page, size=(1500, 2000), angle=8, scale=0.75, tilt=0.08)
    every = locate.find_markers(photo)
    assert [m.corner for m in every] == [0, 1, 2, 3]
    for kept in ((2, 3), (0, 1), (1, 3)):
        two = tuple(m for m in every if m.corner in kept)
        again = locate.look_again(photo, two, locate.frame_fits(two, page_frames()))
        assert [m.corner for m in again] == [0, 1, 2, 3]
        for m, first in zip(again, every, strict=True):
            assert m.id == first.id
            assert float(np.abs(m.corners - first.corners).max()) < 1.5


def test_a_mark_where_the_page_cannot_have_it_does_not_move_the_sheet(page) -> None:
    """The top-left mark torn off and a copy of it pasted a hand's width too far in: the
    second look may take it, but placement leaves out a mark the other three put far
    from where it was found, so the cells stay where they are."""
    geom = geometry_for(SPEC)
    moved = page.copy()
    m = geom.marker_at(0)
    x0, y0 = round((m.cx - m.size / 2 - 1) * PPM), round((m.cy - m.size / 2 - 1) * PPM)
    x1, y1 = round((m.cx + m.size / 2 + 1) * PPM), round((m.cy + m.size / 2 + 1) * PPM)
    patch = moved[y0:y1, x0:x1].copy()
    moved[y0:y1, x0:x1] = 255
    dx, dy = round(14 * PPM), round(18 * PPM)
    moved[y0 + dy:y1 + dy, x0 + dx:x1 + dx] = patch
    photo, hom = photo_with_truth(moved, size=(1500, 2000), angle=3, scale=0.75)
    every = locate.find_markers(photo)
    two = tuple(h for h in every if h.corner in (2, 3))
    assert len(two) == 2
    again = locate.look_again(photo, two, locate.frame_fits(two, page_frames()))
    assert 1 in [h.corner for h in again]
    placement = locate.place_sheet(geom, again, None, None)
    assert 0 not in [h.corner for h in placement.markers]
    assert _truth_error_mm(placement, hom) < 1.0


def test_no_second_look_finds_a_mark_that_is_not_there(page) -> None:
    geom = geometry_for(SPEC)
    covered = page.copy()
    for mid in (0, 1):
        m = geom.marker_at(mid)
        cover(covered, (m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size), PPM)
    photo, _ = photo_with_truth(covered, size=(1500, 2000), angle=-4, scale=0.75)
    two = locate.find_markers(photo)
    assert [h.corner for h in two] == [2, 3]
    assert locate.look_again(photo, two, locate.frame_fits(two, page_frames())) == two


def test_the_locate_settings_are_checked_and_reach_the_detection(page) -> None:
    for bad in ({"quick_window": 24}, {"marker_fit_share": 0.0}, {"qr_tries": ()},
                {"qr_tries": ((8.0, False, "other"),)}, {"look_again_zoom": (0.0,)},
                {"frame_fit_share": 1.0}, {"stray_gain": 0.5}, {"min_fit_px": -1.0}):
        with pytest.raises(ValueError, match="LocateSettings"):
            locate.LocateSettings(**bad)
    photo, _ = photo_with_truth(page, size=(1500, 2000), angle=6, scale=0.8)
    assert len(locate.find_markers(photo, locate.LocateSettings(detect_long_side=800))) == 4
    # No QR try at all but one that cannot decode: the code is not read where it lies.
    hopeless = locate.LocateSettings(qr_tries=((0.5, False, "plain"),))
    markers = locate.find_markers(photo)
    assert locate.read_qr(photo, markers, page_frames()) is not None
    assert locate.read_qr(photo, markers, page_frames(), search=False,
                          settings=hopeless) is None


def test_a_find_far_smaller_than_the_marks_is_no_mark() -> None:
    """A die's face beside two real marks (pub 7700000-097) is dropped, so the second
    look goes for the real third and fourth marks; a tilt's smaller far mark is kept."""
    from escalero.scan.locate import LOCATE, MarkerHit, _without_odd_sizes

    def hit(corner_id: int, size: float) -> MarkerHit:
        square = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
        return MarkerHit(corner_id, square)

    found = (hit(0, 30.0), hit(2, 27.0), hit(3, 8.0))
    assert [h.id for h in _without_odd_sizes(found, LOCATE.least_size_share)] == [0, 2]
    tilted = (hit(0, 30.0), hit(1, 18.0), hit(2, 14.0), hit(3, 29.0))
    assert _without_odd_sizes(tilted, LOCATE.least_size_share) == tilted


def test_a_qr_detector_that_fails_its_own_assertion_finds_no_code() -> None:
    """OpenCV's QR detector can raise on a stray pattern (an assertion in its convex
    hull); that image then holds no code, and the scan goes on instead of crashing."""

    class Failing:
        def detectAndDecode(self, image: np.ndarray) -> tuple[str, None, None]:  # noqa: N802
            raise cv2.error("convexHull: total >= 0")

    image = np.full((64, 64), 255, np.uint8)
    assert locate._decode({"plain": Failing()}, "plain", image) == ("", None)
