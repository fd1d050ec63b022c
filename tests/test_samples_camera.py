"""samples.camera: photo sizes, geometry, fixtures and determinism."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.samples import camera

A4 = (210.0, 297.0)


def _page(px_per_mm: float = 4.0) -> np.ndarray:
    """A white page with a black square at (20, 20)-(40, 40) mm."""
    w, h = int(A4[0] * px_per_mm), int(A4[1] * px_per_mm)
    page = np.full((h, w, 3), 255, np.uint8)
    s = int(px_per_mm)
    page[20 * s:40 * s, 20 * s:40 * s] = 0
    return page


def _decode(jpeg: bytes) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None
    return img


@pytest.mark.parametrize("level", camera.LEVELS)
def test_levels_draw_sizes_and_geometry_in_range(level: str) -> None:
    rng = np.random.default_rng(1)
    lv = camera.LEVEL_TABLE[level]
    rotations = []
    for _ in range(60):
        plan = camera.plan_shot(rng, A4, camera.Options(level=level))
        w, h = plan.size
        assert 1.9e6 <= w * h <= 12.1e6
        if plan.flatbed:  # pressed flat on the glass, square on
            assert plan.tilt == 0 and plan.bend == (0.0,) * 4
        else:
            assert lv.tilt[0] <= plan.tilt <= lv.tilt[1]
        corners = np.array(plan.corners)
        assert (corners >= 0).all() and (corners[:, 0] <= w).all() and (corners[:, 1] <= h).all()
        if not plan.flatbed:  # a scanner saves at 80-95
            assert 60 <= lv.jpeg[0] <= plan.jpeg_quality <= lv.jpeg[1] <= 95
        rotations.append(plan.rotation)
    # Upside down and sideways shots happen at both levels.
    quadrants = {round(r / 90) % 4 for r in rotations}
    assert quadrants == {0, 1, 2, 3}


def test_harsh_level_makes_uploads_shadows_grayscale_and_scans() -> None:
    """The harsh level's other people's photos: each kind turns up, the mild level has none."""
    kinds = {"low-res": 0, "cast": 0, "gray": 0, "flatbed": 0}
    for level in camera.LEVELS:
        rng = np.random.default_rng(3)
        for _ in range(120):
            plan = camera.plan_shot(rng, A4, camera.Options(level=level))
            if level == "mild":
                assert not (plan.gray or plan.flatbed or plan.cast[0])
                continue
            kinds["low-res"] += max(plan.size) <= 2600 and not plan.flatbed
            kinds["cast"] += plan.cast[0] > 0
            kinds["gray"] += plan.gray
            kinds["flatbed"] += plan.flatbed
    assert all(n >= 5 for n in kinds.values()), kinds


def test_flatbed_scan_is_square_on_and_grayscale_jpeg_has_one_channel() -> None:
    rng = np.random.default_rng(0)
    plan = camera._plan_flatbed(rng, A4, camera.Options(level="harsh"))
    plan = camera.ShotPlan(**{**plan.__dict__, "gray": True})
    tl, tr, br, bl = np.array(plan.corners)
    assert abs(tr[1] - tl[1]) < 0.03 * plan.size[0] and abs(bl[0] - tl[0]) < 0.03 * plan.size[1]
    assert 7.8 <= plan.px_per_mm <= 11.9  # 200-300 dpi
    img = cv2.imdecode(np.frombuffer(camera.take_photo(_page(), plan), np.uint8),
                       cv2.IMREAD_UNCHANGED)
    assert img.ndim == 2 and img.shape[::-1] == plan.size


def test_requested_megapixels_rotation_and_quality() -> None:
    opts = camera.Options(megapixels=1.0, rotation=180, jpeg_quality=70)
    plan = camera.plan_shot(np.random.default_rng(2), A4, opts)
    assert abs(plan.size[0] * plan.size[1] / 1e6 - 1.0) < 0.02
    assert plan.rotation == 180 and plan.jpeg_quality == 70
    tl, tr, br, bl = np.array(plan.corners)
    assert tl[1] > bl[1]  # upside down: the page's top edge is at the bottom
    img = _decode(camera.take_photo(_page(), plan))
    assert img.shape[1::-1] == plan.size


def test_photo_is_deterministic_and_the_page_lands_where_planned() -> None:
    plan = camera.plan_shot(np.random.default_rng(4), A4, camera.Options(megapixels=1.0))
    page = _page()
    a, b = camera.take_photo(page, plan), camera.take_photo(page, plan)
    assert a == b
    img = cv2.cvtColor(_decode(a), cv2.COLOR_BGR2GRAY)
    # The page centre is paper (bright); the printed black square stays dark.
    h_mat = cv2.getPerspectiveTransform(np.float32([[0, 0], [A4[0], 0], A4, [0, A4[1]]]),
                                        np.float32(plan.corners))
    pts = cv2.perspectiveTransform(np.float32([[[105, 148], [30, 30]]]), h_mat)[0]
    (cx, cy), (sx, sy) = pts.astype(int)
    assert img[cy - 3:cy + 4, cx - 3:cx + 4].mean() > 120
    assert img[sy - 2:sy + 3, sx - 2:sx + 3].mean() < img[cy - 3:cy + 4, cx - 3:cx + 4].mean() - 60


def test_finger_hides_the_covered_point() -> None:
    rng_seed = 6
    base = camera.Options(level="mild", megapixels=1.0, rotation=0)
    covered = camera.Options(level="mild", megapixels=1.0, rotation=0, cover_mm=(30, 30),
                             cover_radius_mm=12)
    dark = []
    for opts in (base, covered):
        plan = camera.plan_shot(np.random.default_rng(rng_seed), A4, opts)
        img = cv2.cvtColor(_decode(camera.take_photo(_page(), plan)), cv2.COLOR_BGR2GRAY)
        h_mat = cv2.getPerspectiveTransform(np.float32([[0, 0], [A4[0], 0], A4, [0, A4[1]]]),
                                            np.float32(plan.corners))
        x, y = cv2.perspectiveTransform(np.float32([[[30, 30]]]), h_mat)[0, 0].astype(int)
        dark.append(float(img[y - 3:y + 4, x - 3:x + 4].mean()))
    assert dark[0] < 60 < dark[1]  # the black square is visible, then hidden


def test_no_sheet_needs_no_page_and_a_page_is_needed_otherwise() -> None:
    plan = camera.plan_shot(np.random.default_rng(8), A4,
                            camera.Options(megapixels=0.5, no_sheet=True))
    assert _decode(camera.take_photo(None, plan)).shape[1::-1] == plan.size
    plan = camera.plan_shot(np.random.default_rng(8), A4, camera.Options(megapixels=0.5))
    with pytest.raises(ValueError):
        camera.take_photo(None, plan)


def test_tiny_sheet_is_small_in_the_frame() -> None:
    plan = camera.plan_shot(np.random.default_rng(3), A4,
                            camera.Options(megapixels=2.0, tiny=True))
    corners = np.array(plan.corners)
    span = corners.max(axis=0) - corners.min(axis=0)
    assert (span / np.array(plan.size)).max() < 0.3


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        camera.plan_shot(np.random.default_rng(0), A4, camera.Options(level="brutal"))


def test_clutter_stays_off_the_sheet() -> None:
    import dataclasses

    plan = camera.plan_shot(np.random.default_rng(12), A4,
                            camera.Options(megapixels=1.0, rotation=0, tilt=0))
    page = _page()
    imgs = [cv2.GaussianBlur(_decode(camera.take_photo(page, dataclasses.replace(
        plan, clutter=flag, glare=(0.0, 0, 0, 1)))).astype(np.float32), (0, 0), 4)
        for flag in (False, True)]
    diff = np.abs(imgs[0] - imgs[1]).max(axis=2)
    on_page = np.zeros(diff.shape, np.uint8)
    corners = np.float32(plan.corners)
    centre = corners.mean(axis=0)
    cv2.fillConvexPoly(on_page, np.int32(centre + (corners - centre) * 0.9), 1)
    assert diff[on_page == 1].mean() < 3  # only the noise differs on the sheet
    assert diff[on_page == 0].max() > 40  # dice or a pen appeared next to it
