"""scan.infer_layout: a sheet whose QR code is gone still reads, its layout taken from the grid.

Sheets printed since layout version 2 name their layout in the fiducials' ids
(tests/test_scan_qrless.py); these are version 1 sheets, whose ids are 0-3.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from escalero.scan import locate
from escalero.scan.geometry import geometry_for, page_frames
from escalero.scan.infer_layout import candidates, infer_layout
from escalero.scan.load import load_photo
from escalero.scan.pipeline import NO_LAYOUT, ScanOptions, scan_photo
from escalero.scoring.errors import SheetNotFoundError
from escalero.sheets.layout import LayoutSpec
from scan_support import InkRecognizer, cover, encode_jpeg, photo_of, written_sheet

PPM = 6.0


def _torn_photo(spec: LayoutSpec, entries: dict, hide_grid: bool = False) -> bytes:
    """A photo of the filled version 1 sheet with its QR code painted over (and the grid,
    if asked)."""
    spec = replace(spec, version=1)
    geom = geometry_for(spec)
    page = written_sheet(spec, entries, "T-3", PPM)
    cover(page, geom.qr_box, PPM)
    if hide_grid:
        cover(page, geom.grid_bounds(), PPM, grow_mm=15.0)
    size = (2000, 1500) if page.shape[1] > page.shape[0] else (1500, 2000)
    return encode_jpeg(photo_of(page, size=size, angle=-3, tilt=0.05, seed=5))


def _entries(spec: LayoutSpec) -> dict:
    geom = geometry_for(spec)
    rows = geom.ruleset.row_ids
    return {(0, 0, rows[0]): 2, (geom.n_sides - 1, geom.ruleset.columns - 1, rows[-1]): "x",
            (1, 0, "total"): 45}


@pytest.mark.parametrize("spec", [
    LayoutSpec(sides=2),
    LayoutSpec(game="generala", sides=4),
    LayoutSpec(sides=3, variants=("doppel-grande",)),
    LayoutSpec(sides=3, pairs=True),
    LayoutSpec(sides=6, variants=("one-column",)),  # columns like 2 sides, but 6 name boxes
], ids=["escalero-2", "generala-4", "doppel-grande-3", "pairs-3", "one-column-6"])
def test_layout_inferred_from_the_grid_and_the_scan_reads(spec) -> None:
    entries = _entries(spec)
    result = scan_photo(_torn_photo(spec, entries), ScanOptions(), recognizer=InkRecognizer())
    assert result.layout_source == "grid"
    geom = result.geometry
    assert (geom.game, geom.variants, geom.n_sides) == (spec.game, spec.variants, spec.sides)
    assert len(geom.side_members[0]) == (2 if spec.pairs else 1)
    assert {(c.side, c.column, c.row) for c in result.cells if c.value is not None} == set(entries)
    (warning,) = result.to_json()["warnings"]
    assert warning.startswith("QR-Code unlesbar: Layout aus dem Raster erkannt")
    assert f"{spec.sides} {'Paare' if spec.pairs else 'Spieler'}" in warning
    assert "--variant" in warning  # house rules (Escalero) or the Generala look-alike


@pytest.mark.parametrize("lang, head, house", [
    ("en", "QR code unreadable: layout recognised from the grid", "house rules"),
    ("es", "código QR ilegible: diseño reconocido por la cuadrícula", "reglas de la casa"),
])
def test_the_guessed_layout_is_told_in_the_pages_language(lang: str, head: str,
                                                          house: str) -> None:
    spec = LayoutSpec(sides=3, pairs=True)
    result = scan_photo(_torn_photo(spec, _entries(spec)), ScanOptions(lang=lang),
                        recognizer=InkRecognizer())
    (warning,) = result.warnings
    assert warning.startswith(head) and house in warning
    assert "Spieler" not in warning and "Paare" not in warning and "Hausregeln" not in warning


def test_value_only_variants_fall_back_to_the_default_with_a_warning() -> None:
    spec = LayoutSpec(sides=2, variants=("strasse-25",))  # same grid as no variant
    result = scan_photo(_torn_photo(spec, _entries(spec)), ScanOptions(),
                        recognizer=InkRecognizer())
    assert result.geometry.variants == ()
    assert "Hausregeln" in result.warnings[0] and "--variant" in result.warnings[0]
    assert "warnings" not in scan_photo(
        encode_jpeg(photo_of(written_sheet(spec, {}, "T-3", PPM), size=(1500, 2000))),
        ScanOptions(), recognizer=InkRecognizer()).to_json()  # QR read: no warning


def test_no_grid_is_still_refused_with_the_old_message() -> None:
    spec = LayoutSpec(sides=2)
    photo = _torn_photo(spec, {}, hide_grid=True)
    with pytest.raises(SheetNotFoundError) as err:
        scan_photo(photo, ScanOptions(), recognizer=InkRecognizer())
    assert str(err.value) == NO_LAYOUT


def test_the_hint_wins_over_the_grid() -> None:
    spec = LayoutSpec(sides=2)
    photo = _torn_photo(spec, _entries(spec))
    result = scan_photo(photo, ScanOptions(layout=spec), recognizer=InkRecognizer())
    assert result.layout_source == "options" and not result.warnings


def test_candidates_are_distinct_grids_with_default_specs() -> None:
    for frame in page_frames():
        cands = candidates(frame)
        assert cands
        for cand in cands:
            assert "strasse-25" not in cand.spec.variants
            assert "weights-123" not in cand.spec.variants
            assert cand.spec in cand.same_geometry
        keys = {(tuple(c.xs), tuple(c.ys)) for c in cands}
        assert len(keys) == len(cands)


def test_inference_from_the_warm_cache_is_the_same() -> None:
    spec = LayoutSpec(sides=2)
    image = load_photo(_torn_photo(spec, {}))
    markers = locate.find_markers(image)
    cold = infer_layout(image, markers)  # fills the candidate cache (speed: benchmarks)
    inferred = infer_layout(image, markers)
    assert inferred is not None and inferred.spec == replace(spec, version=inferred.spec.version)
    assert inferred.score > inferred.runner_up
    assert cold is not None and (cold.spec, cold.score) == (inferred.spec, inferred.score)
