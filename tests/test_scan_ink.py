"""scan.ink: red ink on the red grid is told from every other ink, and the scan says so."""

from __future__ import annotations

import numpy as np
import pytest
import scan_support
from escalero.scan.ink import grey_by_shade, is_red_ink, red_ink_share
from escalero.scan.pipeline import ScanOptions, scan_photo
from escalero.scan.recognize import CellCrop
from escalero.sheets.layout import LayoutSpec
from scan_support import InkRecognizer, encode_jpeg, photo_of, write_entry, written_sheet

PAPER = (235, 238, 240)
GRID = (120, 120, 235)  # the light-red print, BGR
INKS = {"blue": (120, 40, 20), "black": (30, 30, 30), "pencil": (110, 110, 110),
        "brown": (30, 55, 110), "green": (60, 125, 30), "ballpoint-red": (45, 35, 185),
        "felt-red": (40, 30, 210)}


def _crop(ink_bgr: tuple[int, int, int]) -> CellCrop:
    """A 16 x 11 mm cell at 10 px/mm: grid lines in the margin, a thick stroke inside."""
    image = np.full((110, 160, 3), PAPER, np.uint8)
    image[10:12, :] = GRID
    image[98:100, :] = GRID
    image[:, 10:12] = GRID
    image[30:80, 60:72] = ink_bgr  # a "1"
    image[30:40, 60:110] = ink_bgr
    return CellCrop(image, None, (15, 15, 130, 80))


@pytest.mark.parametrize("ink", list(INKS))
def test_only_red_ink_is_red(ink: str) -> None:
    crops = [_crop(INKS[ink])] * 4
    assert is_red_ink(crops) == ink.endswith("red")
    grey = [CellCrop(c.image.mean(axis=2).astype(np.uint8)[:, :, None].repeat(3, axis=2),
                     None, c.box_px) for c in crops]
    assert red_ink_share(grey) == 0.0  # a grayscale photo has no colour to tell


def test_empty_cells_and_the_grid_are_no_ink() -> None:
    empty = CellCrop(_crop(PAPER).image, None, (15, 15, 130, 80))
    assert red_ink_share([empty] * 20) == 0.0
    assert red_ink_share([_crop(INKS["felt-red"])]) == 0.0  # too little ink to say


@pytest.mark.parametrize("ink, warned", [("felt-red", True), ("blue", False)])
def test_the_scan_says_when_the_ink_is_red(monkeypatch, ink: str, warned: bool) -> None:
    monkeypatch.setattr(scan_support, "INK_BGR", INKS[ink])
    spec = LayoutSpec()
    entries = {(s, c, "kings"): 20 for s in range(2) for c in range(3)}
    entries |= {(s, c, "aces"): 24 for s in range(2) for c in range(3)}
    page = written_sheet(spec, entries, "T-2", 6.0)
    result = scan_photo(encode_jpeg(photo_of(page, size=(1500, 2000), angle=3)),
                        ScanOptions(lang="en"), recognizer=InkRecognizer())
    assert result.layout_source == "qr"
    assert any(w.startswith("red ink on the red grid") for w in result.warnings) == warned
    assert ("warnings" in result.to_json()) == warned


def test_write_entry_follows_the_patched_ink(monkeypatch) -> None:
    monkeypatch.setattr(scan_support, "INK_BGR", INKS["felt-red"])
    page = np.full((100, 100, 3), 255, np.uint8)
    write_entry(page, (10, 10, 80, 80), 7, 1.0)
    assert (page.reshape(-1, 3) == INKS["felt-red"]).all(axis=1).any()


def test_red_ink_is_read_by_its_shade_in_green_dark_and_the_grid_light() -> None:
    crop = _crop(INKS["felt-red"])
    crop.image[40:44, 0:60] = INKS["felt-red"]  # a stroke out over the grid line, into the margin
    (out,) = grey_by_shade([crop])
    grey = out.image[:, :, 2]
    assert (out.image[:, :, 0] == grey).all()  # grey: every channel the same
    ink, margin_ink = grey[30:80, 60:72].max(), grey[40:44, 0:9].max()
    grid = min(grey[10:12, 20:50].min(), grey[98:100].min(), grey[:, 10:12][60:90].min())
    assert ink < 100 and margin_ink < 140  # the ink is dark for the reader, in the box and out
    assert grid > ink + 60  # the grid stays far lighter than any ink: the reader drops it
    assert _crop(INKS["felt-red"]).image[30:80, 60:72, 2].min() > 200  # (red channel: faint)


def test_a_red_ink_sheet_reads_right_or_flagged() -> None:
    from escalero.samples.make_photos import Request, make_photo

    photo = make_photo(Request(seed=80, level="mild", game="escalero", players=2,
                               pen="felt-red", megapixels=3.0))
    result = scan_photo(photo.jpeg, ScanOptions(lang="en"))
    assert any(w.startswith("red ink") for w in result.warnings)
    truth = photo.truth["sheet"]
    want = {}
    for s, side in enumerate(truth["sides"]):
        for c, col in enumerate(side["columns"]):
            want |= {(s, c, row): ("x" if v == 0 else v) for row, v in col.items()}
        want |= {(s, c, "total"): t for c, t in enumerate(side["written_totals"])}
    right = sum(c.value == want.get((c.side, c.column, c.row)) for c in result.cells)
    for c in result.cells:
        assert not c.certain or c.value == want.get((c.side, c.column, c.row)), c
    assert right >= 0.9 * len(result.cells)  # read, not merely flagged
