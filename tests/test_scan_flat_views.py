"""The flat sheet in parts: views warped from the photo are the same pixels as the whole
flat page, crops cut a column at a time are the crops of the whole page, and the batched
preprocess gives the network the numbers the per-crop one gives (its calibration depends
on them)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan.cells import cut_crops
from escalero.scan.digit_model import preprocess, preprocess_batch
from escalero.scan.geometry import geometry_for
from escalero.scan.grid import SnappedSlot, snap_slots
from escalero.scan.imaging import shrink
from escalero.scan.rectify import averaged_view, rectify
from escalero.sheets.layout import LayoutSpec
from scan_support import photo_with_truth, written_sheet

PPM = 6.0
SPEC = LayoutSpec(sides=3)
GEOM = geometry_for(SPEC)


@pytest.fixture(scope="module")
def flat():  # type: ignore[no-untyped-def]
    page = written_sheet(SPEC, {(0, 0, "nines"): 3, (1, 2, "poker"): 45, (2, 1, "tens"): "x"},
                         "T-1", PPM)
    photo, hom = photo_with_truth(page, size=(2400, 3200), angle=7, scale=0.9, tilt=0.15)
    return rectify(photo, hom @ np.diag([PPM, PPM, 1.0]), GEOM)


def test_a_view_is_that_part_of_the_whole_page(flat) -> None:  # type: ignore[no-untyped-def]
    whole = flat.image
    for x0, y0, x1, y1 in ((0, 0, 300, 200), (733, 1201, 1390, 1655), (1500, 2500, 2100, 2970)):
        part = flat.view(x0, y0, x1, y1).image
        diff = np.abs(part.astype(int) - whole[y0:y1, x0:x1])
        assert diff.max() <= 1 and (diff > 0).mean() < 0.001  # fixed-point rounding at most


def test_crops_cut_a_column_at_a_time_are_the_whole_page_crops(flat) -> None:  # type: ignore[no-untyped-def]
    snapped = snap_slots(flat, GEOM, strict=False)
    by_column = cut_crops(flat, snapped, GEOM)
    from_page = cut_crops(flat.image, snapped, GEOM)
    for a, b in zip(by_column, from_page, strict=True):
        assert a.box_px == b.box_px and a.allowed == b.allowed
        assert np.abs(a.image.astype(int) - b.image).max() <= 1


def test_snapping_the_warped_grid_and_the_flat_page_agree(flat) -> None:  # type: ignore[no-untyped-def]
    """The pipeline warps the grid's region from the photo; a flat page (tests, tools) is
    shrunk to the same resolution. Either finds the same lines."""
    warped = snap_slots(flat, GEOM)
    shrunk = snap_slots(flat.image, GEOM)
    assert np.mean([s.edges_found for s in warped]) > 3.5
    moves = [max(abs(a - b) for a, b in zip(s.box, t.box, strict=True))
             for s, t in zip(warped, shrunk, strict=True)]
    assert np.median(moves) < 0.1 and max(moves) < 0.5


def test_an_averaged_view_shows_the_same_page() -> None:
    """A photo far finer than the view is averaged down before the warp: the same picture
    (smoother), at the same place."""
    page = written_sheet(SPEC, {(0, 0, "nines"): 3}, "T-1", 12.0)
    photo, hom = photo_with_truth(page, size=(3000, 4000), angle=3, scale=0.95)
    flat = rectify(photo, hom @ np.diag([12.0, 12.0, 1.0]), GEOM)
    assert flat.photo_px_per_mm > 11  # twice the view's 5 px/mm and more: averaged
    rect = (200, 300, 800, 1100)  # page px at 5 px/mm: part of the grid
    plain = flat.view(*rect, px_per_mm=5.0).image.astype(np.float32)
    averaged = averaged_view(flat.photo, flat.homography, 5.0, rect).image.astype(np.float32)
    assert plain.shape == averaged.shape and not np.array_equal(plain, averaged)
    assert abs(float(plain.mean()) - float(averaged.mean())) < 1.0
    shift, _ = cv2.phaseCorrelate(cv2.cvtColor(plain, cv2.COLOR_BGR2GRAY),
                                  cv2.cvtColor(averaged, cv2.COLOR_BGR2GRAY))
    assert max(abs(shift[0]), abs(shift[1])) < 0.2  # px at 5 px/mm


@pytest.mark.parametrize("rough", [False, True])
def test_shrink_keeps_positions(rough: bool) -> None:
    """Coordinates scale by the scale returned (pixel centres), both ways of shrinking."""
    image = np.zeros((3000, 4000), np.uint8)
    cv2.circle(image, (2873, 1111), 12, 255, -1)
    small, scale = shrink(image, 1600, rough=rough)
    assert max(small.shape) <= 1601 and scale == pytest.approx(0.4)
    m = cv2.moments(small.astype(np.float32))
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    assert cx == pytest.approx((2873 + 0.5) * scale - 0.5, abs=0.3)
    assert cy == pytest.approx((1111 + 0.5) * scale - 0.5, abs=0.3)


def _cells(rng: np.random.Generator) -> list[np.ndarray]:
    """Crops of many sizes and kinds: narrow and wide, grey and colour, empty, faint,
    dark, noisy, ink touching the border."""
    out = []
    for i in range(60):
        h = int(rng.integers(70, 190))
        w = int(rng.integers(60, 330))
        paper = rng.uniform(90, 240)
        crop = np.full((h, w, 3), paper, np.float32) + rng.normal(0, rng.uniform(0, 15), (h, w, 3))
        if i % 5:
            text = str(int(rng.integers(0, 1000)))
            ink = np.zeros((h, w), np.uint8)
            cv2.putText(ink, text, (int(rng.integers(0, max(1, w // 3))), int(h * 0.75)),
                        cv2.FONT_HERSHEY_SIMPLEX, h / 60, 1, int(rng.integers(1, 6)))
            crop -= ink[:, :, None] * rng.uniform(20, 150) * np.array([0.3, 0.6, 1.0])
        crop = np.clip(crop, 0, 255).astype(np.uint8)
        out.append(crop[:, :, 0].copy() if i % 7 == 0 else crop)
        if i % 4 == 0:  # a second crop of the same size: a batch of one size
            out.append(np.ascontiguousarray(crop[::-1]))
    return out


def test_batched_preprocess_gives_the_per_crop_numbers() -> None:
    crops = _cells(np.random.default_rng(7))
    batch = preprocess_batch(crops)
    single = np.stack([preprocess(c) for c in crops])
    assert batch.shape == single.shape == (len(crops), *single.shape[1:])
    assert batch.dtype == np.float32
    np.testing.assert_allclose(batch, single, rtol=0, atol=1e-5)


def test_batched_preprocess_of_no_crops() -> None:
    assert preprocess_batch([]).shape[0] == 0


def test_crops_of_snapped_slots_still_follow_the_contract(flat) -> None:  # type: ignore[no-untyped-def]
    snapped = [SnappedSlot(s, s.box, 0.0, 4) for s in GEOM.slots]
    for crop, s in zip(cut_crops(flat, snapped, GEOM), GEOM.slots, strict=True):
        x, y, w, h = crop.box_px
        assert (x, y) == (15, 15) and crop.image.shape[:2] == (h + 30, w + 30)
        assert crop.image.dtype == np.uint8 and crop.image.ndim == 3
        assert abs(w - s.box[2] * 10) <= 1 and abs(h - s.box[3] * 10) <= 1
