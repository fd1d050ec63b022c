"""scan.pipeline end to end on synthetic photos of real printed sheets.

The InkRecognizer stand-in reads "ink / no ink", which checks that every stage puts
each crop on the right cell; the trained recognizer is tested against samples/.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from escalero.scan.geometry import geometry_for
from escalero.scan.pipeline import ScanOptionError, ScanOptions, scan_photo
from escalero.scoring.errors import Reason, UnreadableSheetError
from escalero.sheets.layout import LayoutSpec
from scan_support import InkRecognizer, cover, encode_jpeg, photo_of, written_sheet

PPM = 6.0
ENTRIES = {(0, 0, "nines"): 3, (0, 1, "tens"): "x", (1, 2, "grande"): 80,
           (1, 1, "poker"): 45, (0, 0, "total"): 3}


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    return written_sheet(LayoutSpec(), ENTRIES, "T-7", PPM)


def _inked(result) -> set[tuple[int, int, str]]:
    return {(c.side, c.column, c.row) for c in result.cells if c.value is not None}


@pytest.mark.parametrize("angle", [5.0, 183.0])
def test_every_written_cell_and_only_those(page, angle, tmp_path) -> None:
    photo = encode_jpeg(photo_of(page, size=(1500, 2000), angle=angle, tilt=0.06, seed=2))
    result = scan_photo(photo, ScanOptions(debug_dir=tmp_path / "dbg"),
                        recognizer=InkRecognizer())
    assert _inked(result) == set(ENTRIES)
    assert result.layout_source == "qr" and result.sheet_json["serial"] == "T-7"
    out = result.to_json()
    json.dumps(out)  # serialisable
    assert {"game", "variant", "sides", "review", "validation", "settlement"} <= set(out)
    flagged = {(r["side"], r["column"], r["row"]) for r in out["review"]}
    assert flagged == set(ENTRIES)  # the stand-in is never sure of ink
    assert out["sides"][0]["name"] == "Spieler 1"
    assert set(result.timings) >= {"load", "markers", "qr", "rectify", "grid", "read", "total"}
    assert result.overlay().shape == result.rectified.shape
    for name in ("photo_overlay.png", "sheet_overlay.png", "rectified.jpg"):
        assert (tmp_path / "dbg" / name).stat().st_size > 1000


def test_layout_from_the_markers_when_the_qr_code_is_gone(page) -> None:
    geom = geometry_for(LayoutSpec())
    torn = page.copy()
    cover(torn, geom.qr_box, PPM)
    photo = encode_jpeg(photo_of(torn, size=(1500, 2000), angle=-4))
    result = scan_photo(photo, ScanOptions(), recognizer=InkRecognizer())
    assert result.layout_source == "markers" and _inked(result) == set(ENTRIES)
    assert not result.warnings and "serial" not in result.sheet_json
    # A hint naming another sheet than the printed ids do is refused, not overruled.
    with pytest.raises(ScanOptionError) as err:
        scan_photo(photo, ScanOptions(layout=LayoutSpec(sides=4)), recognizer=InkRecognizer())
    assert err.value.reason == Reason.LAYOUT_NOT_AS_NAMED and "corner marks" in str(err.value)
    result = scan_photo(photo, ScanOptions(layout=LayoutSpec(sides=2)),
                        recognizer=InkRecognizer())
    assert result.layout_source == "markers" and result.geometry.n_sides == 2


def test_layout_from_options_when_an_old_sheets_qr_code_is_gone() -> None:
    old = LayoutSpec(version=1)  # printed before the fiducials' ids named the layout
    torn = written_sheet(old, ENTRIES, "T-7", PPM)
    cover(torn, geometry_for(old).qr_box, PPM)
    photo = encode_jpeg(photo_of(torn, size=(1500, 2000), angle=-4))
    result = scan_photo(photo, ScanOptions(), recognizer=InkRecognizer())
    assert result.layout_source == "grid" and _inked(result) == set(ENTRIES)  # inferred
    result = scan_photo(photo, ScanOptions(layout=LayoutSpec(sides=2)),
                        recognizer=InkRecognizer())
    assert result.layout_source == "options" and _inked(result) == set(ENTRIES)
    with pytest.raises(UnreadableSheetError, match="grid"):
        scan_photo(photo, ScanOptions(layout=LayoutSpec(sides=4)), recognizer=InkRecognizer())


def test_names(page) -> None:
    photo = encode_jpeg(photo_of(page, size=(1500, 2000), angle=1))
    result = scan_photo(photo, ScanOptions(names=("Anna", "Bernd"), stake="0.50"),
                        recognizer=InkRecognizer())
    assert [s["name"] for s in result.sheet_json["sides"]] == ["Anna", "Bernd"]
    assert "money" in result.to_json()
    with pytest.raises(ScanOptionError, match="for 2 players"):
        scan_photo(photo, ScanOptions(names=("Anna",)), recognizer=InkRecognizer())


def test_blurred_photo_is_refused(page) -> None:
    photo = encode_jpeg(photo_of(page, size=(1500, 2000), angle=2, blur=7.0))
    with pytest.raises(UnreadableSheetError):
        scan_photo(photo, ScanOptions(), recognizer=InkRecognizer())


def test_pair_names_are_grouped_in_order() -> None:
    from escalero.scan.pipeline import _with_names

    geom = geometry_for(LayoutSpec(sides=3, pairs=True))
    named = _with_names(geom, ("A", "B", "C", "D", "E"))
    assert named.side_members == (("A", "B"), ("C", "D"), ("E",))
    assert named.side_names == ("A & B", "C & D", "E")
    with pytest.raises(ScanOptionError, match="5 or 6 players"):
        _with_names(geom, ("A", "B", "C"))


@pytest.mark.parametrize("spec", [
    LayoutSpec(game="generala", sides=4),
    LayoutSpec(sides=5),  # landscape
    LayoutSpec(sides=2, paper="a5"),
    LayoutSpec(sides=3, pairs=True, variants=("doppel-grande",)),
    LayoutSpec(sides=2, paper="letter", variants=("one-column",)),
], ids=lambda s: f"{s.game}-{s.sides}-{s.paper}-{'pairs' if s.pairs else ''}{'+'.join(s.variants)}")
def test_every_kind_of_sheet(spec) -> None:
    geom = geometry_for(spec)
    rows = geom.ruleset.row_ids
    entries = {(0, 0, rows[0]): 2, (geom.n_sides - 1, geom.ruleset.columns - 1, rows[-1]): "x",
               (1, 0, "total"): 45}
    page = written_sheet(spec, entries, "K7Q2-001", PPM)
    photo = encode_jpeg(photo_of(page, size=(2000, 1500) if page.shape[1] > page.shape[0]
                                 else (1500, 2000), angle=-2, tilt=0.05))
    result = scan_photo(photo, ScanOptions(), recognizer=InkRecognizer())
    assert result.geometry.game == spec.game and result.geometry.n_sides == spec.sides
    assert _inked(result) == set(entries)


def test_heic_photo_end_to_end(page) -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    import io

    from PIL import Image

    pillow_heif.register_heif_opener()
    rgb = photo_of(page, size=(960, 1280), angle=2, scale=0.95)[:, :, ::-1]
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, "HEIF", quality=85)
    result = scan_photo(buf.getvalue(), ScanOptions(), recognizer=InkRecognizer())
    assert _inked(result) == set(ENTRIES)


def test_all_markers_hidden_outline_and_qr_code_place_the_sheet(page) -> None:
    geom = geometry_for(LayoutSpec())
    hidden = page.copy()
    for m in geom.markers:
        cover(hidden, (m.cx - m.size / 2, m.cy - m.size / 2, m.size, m.size), PPM)
    photo = encode_jpeg(photo_of(hidden, size=(1500, 2000), angle=176, scale=0.8))
    result = scan_photo(photo, ScanOptions(), recognizer=InkRecognizer())
    assert result.placement.method == "outline" and not result.placement.markers
    assert _inked(result) == set(ENTRIES)
    blurred = encode_jpeg(photo_of(hidden, size=(1500, 2000), angle=176, scale=0.8, blur=7))
    with pytest.raises(UnreadableSheetError):
        scan_photo(blurred, ScanOptions(), recognizer=InkRecognizer())
