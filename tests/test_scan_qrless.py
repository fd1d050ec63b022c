"""Sheets whose QR code cannot be read: the layout comes from the fiducials' ids (layout
version 2 on), or from the printed grid on a version 1 sheet, and the scan reads right or
flags. Real handwriting and camera (samples.make_photos) and the real recognizer."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from escalero.samples.make_photos import Request, make_photo
from escalero.scan.pipeline import ScanOptions, scan_photo
from escalero.sheets.layout import LayoutSpec, build_layout

SAMPLES = Path(__file__).parent.parent / "samples" / "photos"


def _truth_cells(sheet: dict) -> dict[tuple[int, int, str], object]:
    out: dict[tuple[int, int, str], object] = {}
    for s, side in enumerate(sheet["sides"]):
        for c, col in enumerate(side["columns"]):
            for row, value in col.items():
                out[(s, c, row)] = "x" if value == 0 else value
        for c, total in enumerate(side.get("written_totals") or []):
            out[(s, c, "total")] = total
    return out


def _read_right_or_flagged(result, sheet: dict) -> None:
    want = _truth_cells(sheet)
    assert {(c.side, c.column, c.row) for c in result.cells} >= set(want)
    for c in result.cells:
        if c.certain:  # never a wrong value as certain
            assert c.value == want.get((c.side, c.column, c.row)), c


# Generala and Eskalero with one column and Doppel-Grande print the very same grid;
# strasse-25 changes only the allowed values. The ids tell all of them apart.
@pytest.mark.parametrize("game, players, variants", [
    ("generala", 3, ()),
    ("escalero", 3, ("doppel-grande", "one-column")),
    ("escalero", 2, ("strasse-25",)),
    ("escalero", 4, ()),  # pairs below
], ids=["generala-3", "one-column-doppel-grande-3", "strasse-25-2", "pairs-2"])
def test_layout_from_the_markers_when_the_qr_code_is_painted_over(game, players, variants):
    pairs = players == 4
    photo = make_photo(Request(seed=77, level="mild", game=game, players=players,
                               variants=variants, pairs=pairs, blank_qr=True, megapixels=3.0))
    result = scan_photo(photo.jpeg, ScanOptions())
    assert result.qr is None and result.layout_source == "markers"
    assert result.geometry.game == game
    assert result.geometry.variants == tuple(sorted(variants))
    assert result.geometry.n_sides == (players // 2 if pairs else players)
    assert len(result.geometry.side_members[0]) == (2 if pairs else 1)
    assert not result.warnings  # the layout is known, not guessed
    _read_right_or_flagged(result, photo.truth["sheet"])


def test_three_markers_suffice_without_the_qr_code():
    photo = make_photo(Request(seed=78, level="mild", game="generala", players=2,
                               blank_qr=True, cover_marker=1, megapixels=3.0))
    result = scan_photo(photo.jpeg, ScanOptions())
    assert result.layout_source == "markers" and result.geometry.game == "generala"
    assert len(result.placement.markers) == 3
    _read_right_or_flagged(result, photo.truth["sheet"])


def test_an_old_sheet_without_its_qr_code_still_reads_from_its_grid():
    photo = make_photo(Request(seed=79, level="mild", game="escalero", players=2, variants=(),
                               blank_qr=True, layout_version=1, megapixels=3.0))
    assert photo.truth["layout"]["version"] == 1
    result = scan_photo(photo.jpeg, ScanOptions())
    assert result.layout_source == "grid"
    assert (result.geometry.game, result.geometry.n_sides) == ("escalero", 2)
    _read_right_or_flagged(result, photo.truth["sheet"])


def _paint_qr_white(name: str) -> tuple[bytes, dict]:
    """A committed (version 1) sample photo with its QR code painted over in the photo."""
    truth = json.loads((SAMPLES / f"{name}.json").read_text())
    lay = truth["layout"]
    layout = build_layout(LayoutSpec(lay["game"], tuple(lay["variant"]), lay["sides"],
                                      lay["pairs"], lay["paper"], version=1))
    w, h = layout.width, layout.height
    page = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    hom = cv2.getPerspectiveTransform(page, np.float32(truth["photo"]["page_corners_px"]))
    q = layout.qr.grow(2.0)
    box = np.float32([[[q.x, q.y]], [[q.right, q.y]], [[q.right, q.bottom]], [[q.x, q.bottom]]])
    image = cv2.imread(str(SAMPLES / f"{name}.jpg"))
    cv2.fillConvexPoly(image, cv2.perspectiveTransform(box, hom).reshape(-1, 2).astype(np.int32),
                       (235, 235, 235))
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes(), truth


@pytest.mark.parametrize("name, game", [("01-easy-2-players", "escalero"),
                                        ("04-generala-4-players", "generala")])
def test_committed_version_1_sample_without_its_qr_code(name, game):
    jpeg, truth = _paint_qr_white(name)
    result = scan_photo(jpeg, ScanOptions())
    assert result.qr is None and result.layout_source == "grid"
    assert (result.geometry.game, result.geometry.n_sides) == (game, truth["layout"]["sides"])
    assert result.warnings and result.warnings[0].startswith("QR-Code unlesbar")
    _read_right_or_flagged(result, truth["sheet"])


def test_a_stray_marker_in_the_clutter_is_no_sheet():
    from escalero.scan import locate
    from escalero.scan.load import load_photo
    from escalero.scoring.errors import SheetNotFoundError

    photo = SAMPLES / "14-no-sheet.jpg"
    stray = locate.find_markers(load_photo(photo))
    assert len(stray) == 1  # the table cloth shows one of the 44 ids the sheets now print
    with pytest.raises(SheetNotFoundError) as err:
        scan_photo(photo, ScanOptions())
    assert str(err.value) == locate.NO_SHEET


def test_markers_not_where_their_sheet_prints_them_name_no_layout():
    from escalero.scan import locate
    from escalero.scan.load import load_photo

    photo = make_photo(Request(seed=77, level="mild", game="generala", players=3,
                               blank_qr=True, megapixels=3.0))
    markers = locate.find_markers(load_photo(photo.jpeg))
    assert locate.layout_from_markers(markers) == LayoutSpec("generala", sides=3)
    three = list(markers[:3])
    three[1] = locate.MarkerHit(three[1].id, three[1].corners + np.float32([150, 220]))
    assert locate.layout_from_markers(tuple(three)) is None  # a stray find: no layout from it
    assert locate.layout_from_markers(markers[:3]) == LayoutSpec("generala", sides=3)
