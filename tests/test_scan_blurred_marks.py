"""scan.blurred_marks: two corner marks too blurred to decode are found by their shape and
matched to the one id pair the two decoded ones allow; a dark square that is not such a
mark, or not where the page has one, is never taken for one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan import locate
from escalero.scan.blurred_marks import BlobSettings
from escalero.scan.geometry import geometry_for, page_frames
from escalero.scan.pipeline import ScanOptions, scan_image
from escalero.scoring.errors import LayoutUnknownError, Reason, SheetNotFoundError
from escalero.sheets.layout import LayoutSpec, encode_code, marker_ids
from scan_support import InkRecognizer, cover, paste_code, photo_with_truth, written_sheet

PPM = 6.0
THREE = LayoutSpec(sides=3)  # two of its ids also fit 2, 4, 5 and 6 players and pairs
ENTRIES = {(0, 0, "nines"): 3, (1, 1, "poker"): 45, (2, 2, "grande"): 80}
TOP = (0, 1)  # the far corners under the tilt: the ones a blurred photo loses
BLUR_MM = 1.0  # Gaussian sigma on the page: 0.4 of a module, no ArUco pass decodes it


def _page(spec: LayoutSpec = THREE, code: bool = False) -> np.ndarray:
    """The sheet with its top marks blurred and, unless `code`, its QR code torn off."""
    page = written_sheet(spec, ENTRIES, "T-1", PPM)
    geom = geometry_for(spec)
    if not code and geom.qr_box is not None:
        cover(page, geom.qr_box, PPM)
    for corner in TOP:
        _blur_mark(page, spec, corner)
    return page


def _blur_mark(page: np.ndarray, spec: LayoutSpec, corner: int) -> None:
    m = geometry_for(spec).marker_at(corner)
    assert m is not None
    x0, y0 = round((m.cx - m.size) * PPM), round((m.cy - m.size) * PPM)
    x1, y1 = round((m.cx + m.size) * PPM), round((m.cy + m.size) * PPM)
    page[y0:y1, x0:x1] = cv2.GaussianBlur(page[y0:y1, x0:x1], (0, 0), BLUR_MM * PPM)


def _photo(page: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return photo_with_truth(page, size=(1500, 2000), angle=5, scale=0.75, tilt=0.08)


def _second_look(photo: np.ndarray) -> tuple[tuple[locate.MarkerHit, ...],
                                             tuple[locate.MarkerHit, ...]]:
    first = locate.find_markers(photo)
    return first, locate.look_again(photo, first, locate.frame_fits(first, page_frames()))


def test_marks_too_blurred_to_decode_are_found_and_name_the_layout() -> None:
    page = _page()
    photo, hom = _photo(page)
    first, again = _second_look(photo)
    assert [m.corner for m in first] == [2, 3]  # the blur defeats every decoding pass
    assert [m.id for m in again] == list(marker_ids(THREE))
    assert [m.matched for m in again] == [True, True, False, False]
    # Their corners are where the page has them (the true mm -> px map): within 1.5 px.
    geom = geometry_for(THREE)
    for m in again[:2]:
        mark = geom.marker_at(m.corner)
        assert mark is not None
        true = cv2.perspectiveTransform(np.float32([mark.corners]) * PPM, hom)[0]
        assert float(np.abs(m.corners - true).max()) < 1.5
    assert locate.layout_from_markers(again) == THREE


def test_such_a_sheet_is_read_by_its_marks_with_its_cells_in_place() -> None:
    photo, hom = _photo(_page())
    result = scan_image(photo, ScanOptions(), InkRecognizer())
    assert result.layout_source == "markers"
    assert result.geometry.n_sides == 3
    assert result.placement.method == "markers" and len(result.placement.markers) == 4
    slots = result.geometry.slots
    centres = np.float32([[[s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2]] for s in slots])
    placed = cv2.perspectiveTransform(centres, result.placement.homography)
    true = cv2.perspectiveTransform(centres * PPM, hom)
    px_per_mm = result.photo_px_per_mm
    assert float(np.linalg.norm(placed - true, axis=2).max()) / px_per_mm < 0.5
    inked = {(c.side, c.column, c.row) for c in result.cells if c.value is not None}
    assert set(ENTRIES) <= inked


def test_a_code_naming_another_layout_than_the_matched_marks_is_refused() -> None:
    """The matched ids take part in the code-vs-marks check like decoded ones."""
    page = _page(code=True)
    paste_code(page, THREE, encode_code(LayoutSpec(sides=2), "T-1"), PPM)
    with pytest.raises(SheetNotFoundError) as err:
        scan_image(_photo(page)[0], ScanOptions(), InkRecognizer())
    assert err.value.reason == Reason.LAYOUT_CONFLICT


def _mark_box(corner: int, grow_mm: float = 0.0) -> tuple[int, int, int, int]:
    """The page px (x0, y0, x1, y1) of the black square of `corner`, grown by `grow_mm`."""
    m = geometry_for(THREE).marker_at(corner)
    assert m is not None
    half = m.size / 2 + grow_mm
    return (round((m.cx - half) * PPM), round((m.cy - half) * PPM),
            round((m.cx + half) * PPM), round((m.cy + half) * PPM))


def test_a_plain_dark_square_is_no_mark() -> None:
    """Black squares with a white quiet zone in the far marks' places: the shape is right
    but no id the decoded two allow shows in it. The sheet stays refused, for the reason
    it was before."""
    page = _page()
    for corner in TOP:
        x0, y0, x1, y1 = _mark_box(corner)
        page[y0:y1, x0:x1] = 0
    photo, _ = _photo(page)
    first, again = _second_look(photo)
    assert [m.corner for m in first] == [2, 3]
    assert again == first
    # They pass as blobs (the shape is a mark's): it is the pattern reading that refuses.
    from escalero.scan import blurred_marks

    _err, hom, frame = locate.frame_fits(first, page_frames())[0]
    for corner in TOP:
        assert blurred_marks._blob(locate.gray_of(photo), hom, frame.markers[corner].corners,
                                   blurred_marks.BLOBS) is not None
    with pytest.raises(LayoutUnknownError) as err:
        scan_image(photo, ScanOptions(), InkRecognizer())
    assert err.value.reason == Reason.NO_LAYOUT


def test_a_mark_where_the_page_cannot_have_it_is_not_taken() -> None:
    """The blurred top-left mark moved 6 mm down (its pattern intact, quiet zone white): it
    reads as its id, and four marks fit a homography wherever they lie, but the paper's
    outline puts that corner of the page elsewhere, so neither blurred mark is taken;
    with that check made blind both would be."""
    from escalero.scan import blurred_marks

    page = _page()
    x0, y0, x1, y1 = _mark_box(0, grow_mm=1.0)
    patch = page[y0:y1, x0:x1].copy()
    page[y0:y1, x0:x1] = 255
    dy = round(6 * PPM)
    page[y0 + dy:y1 + dy, x0:x1] = patch
    photo, _ = _photo(page)
    first, again = _second_look(photo)
    assert [m.corner for m in first] == [2, 3]
    assert again == first
    gray = locate.gray_of(photo)
    known = {m.corner: (m.id, m.corners) for m in first}
    fits = locate.frame_fits(first, page_frames())
    blind = blurred_marks.find_blurred_marks(gray, known, fits,
                                             BlobSettings(max_outline_mm=50.0))
    assert {c: i for c, (i, _) in blind.items()} == {0: marker_ids(THREE)[0],
                                                      1: marker_ids(THREE)[1]}


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        BlobSettings(area_range=(1.1, 1.6))
    with pytest.raises(ValueError):
        BlobSettings(min_ncc=0.0)


def test_the_pub_sample_with_two_blurred_marks_is_read_by_its_marks() -> None:
    """samples/photos/18-pub-blurred-marks: a blurred pub photo whose far marks no ArUco
    pass decodes and whose QR code is torn off; the marks found by their shape name its
    layout (the sample tests check its cells)."""
    from pathlib import Path

    from escalero.scan.pipeline import scan_photo

    photo = Path(__file__).parent.parent / "samples" / "photos" / "18-pub-blurred-marks.jpg"
    result = scan_photo(photo, ScanOptions(), InkRecognizer())
    assert result.layout_source == "markers"
    assert (result.geometry.game, result.geometry.n_sides) == ("generala", 3)
    assert sum(m.matched for m in result.placement.markers) == 2


def test_far_marks_a_tilt_puts_off_their_guess_are_found_by_the_wider_look() -> None:
    """A steep tilt foreshortens the far side, so the two near marks' frame fit may put the
    far ones several mark sides off (fresh pub photo 10100000-023: 4 sides). Here the fit
    is moved 4 sides away: only the wider look finds them."""
    import dataclasses

    from escalero.scan import blurred_marks

    photo, _ = _photo(_page())
    first = locate.find_markers(photo)
    fits = locate.frame_fits(first, page_frames())
    err, hom, frame = fits[0]
    # 4 sides of the smaller far mark, as the fit puts it
    side_px = min(float(np.linalg.norm(np.diff(cv2.perspectiveTransform(
        np.array([frame.markers[c].corners[:2]], np.float64), hom)[0], axis=0)))
        for c in TOP)
    moved = np.array([[1, 0, 4 * side_px], [0, 1, 0], [0, 0, 1]]) @ hom
    gray = locate.gray_of(photo)
    known = {m.corner: (m.id, m.corners) for m in first}
    near_only = dataclasses.replace(blurred_marks.BLOBS, wide_reach=blurred_marks.BLOBS.reach)
    assert blurred_marks.find_blurred_marks(gray, known, [(err, moved, frame)],
                                            near_only) == {}
    found = blurred_marks.find_blurred_marks(gray, known, [(err, moved, frame)])
    assert {c: i for c, (i, _) in found.items()} == {0: marker_ids(THREE)[0],
                                                     1: marker_ids(THREE)[1]}


def test_an_outline_that_leaves_a_matched_mark_outside_is_no_paper_edge() -> None:
    """A cast shadow's edge across the page is taken for the paper's outline now and then;
    the far marks then lie outside it, on paper (their quiet zone is paper): such an
    outline does not veto them (fresh pub photos 9600000-051, 10100000-030)."""
    from escalero.scan import blurred_marks

    photo, _ = _photo(_page())
    first, again = _second_look(photo)
    _err, hom, frame = locate.frame_fits(again, page_frames())[0]
    corners = {m.corner: m.corners for m in again}
    pw, ph = frame.page_mm
    page = cv2.perspectiveTransform(np.float32([[[0, 0], [pw, 0], [pw, ph], [0, ph]]]),
                                    hom)[0]
    # The paper's near corners (by the decoded marks) and a shadow's edge across the page
    # 40% of the way up from them: the far, matched marks lie outside.
    edge = page[3] + 0.4 * (page[0] - page[3]), page[2] + 0.4 * (page[1] - page[2])
    shadow_edge = np.float32([edge[0], edge[1], page[2], page[3]])
    assert not blurred_marks._outline_says_no(frame, corners, set(TOP), shadow_edge,
                                              blurred_marks.BLOBS)
    # The paper's own outline agrees with the marks; one that puts a far corner of the
    # paper 10 mm past where the marks put it (a mark where the page cannot have it) still
    # vetoes them.
    assert not blurred_marks._outline_says_no(frame, corners, set(TOP), page,
                                              blurred_marks.BLOBS)
    for corner_mm in ([-10, -10], [-10, 0]):
        off = page.copy()
        off[0] = cv2.perspectiveTransform(np.float32([[corner_mm]]), hom)[0, 0]
        assert blurred_marks._outline_says_no(frame, corners, set(TOP), off,
                                              blurred_marks.BLOBS)
    # A shadow's edge cut across that corner (the outline 12 mm short of it each way):
    # the corner lies outside the outline, which says nothing there (fresh pub photo
    # 11500000-065).
    cut = np.float32([[12, 0], [pw, 0], [pw, ph], [0, ph], [0, 12]])
    shadow_cut = cv2.perspectiveTransform(cut[None], hom)[0]
    assert not blurred_marks._outline_says_no(frame, corners, set(TOP), shadow_cut,
                                              blurred_marks.BLOBS)


def _three_blurred(plain: bool = False) -> np.ndarray:
    """The sheet with only its bottom-right mark sharp and its QR code torn off; with
    `plain`, the other three marks are plain black squares."""
    page = _page()
    for corner in (0, 1, 3):
        if plain:
            x0, y0, x1, y1 = _mark_box(corner)
            page[y0:y1, x0:x1] = 0
        elif corner not in TOP:
            _blur_mark(page, THREE, corner)
    return page


def test_one_decoded_mark_finds_the_other_three_by_their_shape() -> None:
    """Three marks too blurred to decode and no code: the one decoded mark names one digit
    of the layout; the three blobs that put four marks on a page frame are read against
    the 121 id triples it allows (fresh pub photos: 12 of 16 refused sheets were so)."""
    photo, hom = _photo(_three_blurred())
    first = locate.find_markers(photo)
    assert [m.corner for m in first] == [2]
    found = locate.look_from_one(photo, first)
    assert [m.id for m in found] == list(marker_ids(THREE))
    assert [m.matched for m in found] == [True, True, False, True]
    result = scan_image(photo, ScanOptions(), InkRecognizer())
    assert result.layout_source == "markers" and result.geometry.n_sides == 3
    slots = result.geometry.slots
    centres = np.float32([[[s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2]] for s in slots])
    placed = cv2.perspectiveTransform(centres, result.placement.homography)
    true = cv2.perspectiveTransform(centres * PPM, hom)
    assert float(np.linalg.norm(placed - true, axis=2).max()) / result.photo_px_per_mm < 0.5


def test_one_decoded_mark_takes_no_plain_squares_for_the_others() -> None:
    photo, _ = _photo(_three_blurred(plain=True))
    first = locate.find_markers(photo)
    assert [m.corner for m in first] == [2]
    assert locate.look_from_one(photo, first) == first
    with pytest.raises(SheetNotFoundError):
        scan_image(photo, ScanOptions(), InkRecognizer())


def test_two_decoded_marks_fall_back_on_either_one_finding_the_rest() -> None:
    """Where the two decoded marks' frame fits put the others too far off to find (fresh
    pub photo 11200000-055), either mark alone finds the other three by their shape; taken
    only where those hold the other decoded mark, with its id, where it was decoded."""
    photo, _ = _photo(_page())
    first = locate.find_markers(photo)
    assert [m.corner for m in first] == [2, 3]
    gray = locate.gray_of(photo)
    found = {m.corner: m for m in first}
    shaped = locate._from_either(gray, found)
    assert {c: i for c, (i, _) in shaped.items()} == {0: marker_ids(THREE)[0],
                                                      1: marker_ids(THREE)[1]}
    # A decoded mark the three do not hold as read (another id) is no confirmation.
    wrong = {2: found[2], 3: locate.MarkerHit(found[3].id + 1, found[3].corners)}
    assert locate._from_either(gray, wrong) == {}


def test_three_decoded_marks_find_the_fourth_by_its_shape() -> None:
    """One far mark too blurred to decode: the three decoded ones find it where their frame
    puts it and read it as the one id their check digit leaves, at its place in the photo."""
    page = written_sheet(THREE, ENTRIES, "T-1", PPM)
    _blur_mark(page, THREE, 0)
    photo, hom = _photo(page)
    first = locate.find_markers(photo)
    assert [m.corner for m in first] == [1, 2, 3]
    four = locate.look_for_fourth(photo, first, locate.frame_fits(first, page_frames()))
    assert [m.id for m in four] == list(marker_ids(THREE))
    assert [m.matched for m in four] == [True, False, False, False]
    mark = geometry_for(THREE).marker_at(0)
    assert mark is not None
    true = cv2.perspectiveTransform(np.float32([mark.corners]) * PPM, hom)[0]
    assert float(np.abs(four[0].corners - true).max()) < 1.5


def test_a_plain_dark_square_is_no_fourth_mark() -> None:
    """A black square in the fourth mark's place has a mark's shape, not its id."""
    page = written_sheet(THREE, ENTRIES, "T-1", PPM)
    x0, y0, x1, y1 = _mark_box(0)
    page[y0:y1, x0:x1] = 0
    photo, _ = _photo(page)
    first = locate.find_markers(photo)
    assert [m.corner for m in first] == [1, 2, 3]
    assert locate.look_for_fourth(photo, first, locate.frame_fits(first, page_frames())) \
        == first
