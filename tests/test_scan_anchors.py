"""scan.anchors: the page's dark print places the cells whose grid lines do not show."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.scan.anchors import AnchorSettings, Field, _loo, find_anchors, place_unplaced
from escalero.scan.geometry import geometry_for
from escalero.scan.grid import SnappedSlot
from escalero.scan.rectify import Rectified
from escalero.sheets.layout import LayoutSpec
from scan_support import written_sheet

PPM = 6.0
SPEC = LayoutSpec(sides=2)
GEOM = geometry_for(SPEC)


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    return written_sheet(SPEC, {(0, 0, "nines"): 3, (1, 1, "poker"): 40}, "T-1", PPM)


def _flat(photo: np.ndarray, shift_mm: tuple[float, float] = (0.0, 0.0)) -> Rectified:
    """The page seen through a homography that puts everything `shift_mm` off."""
    sx, sy = shift_mm
    hom = np.array([[PPM, 0, -sx * PPM], [0, PPM, -sy * PPM], [0, 0, 1.0]])
    return Rectified(photo, hom, GEOM.page_mm, PPM, 0.1)


def _unplaced() -> tuple[SnappedSlot, ...]:
    """Every cell placed by the homography alone (no grid line showed)."""
    return tuple(SnappedSlot(s, s.box, 0.0, 0, 2.5, (False, False), (2.5, 2.5))
                 for s in GEOM.slots)


def _centre_moves(snapped) -> np.ndarray:
    return np.array([(b.box[0] + b.box[2] / 2 - (b.slot.box[0] + b.slot.box[2] / 2),
                      b.box[1] + b.box[3] / 2 - (b.slot.box[1] + b.slot.box[3] / 2))
                     for b in snapped])


def test_the_printed_lines_are_found_where_the_layout_prints_them(page) -> None:
    anchors = find_anchors(_flat(page), GEOM)
    names = [line for line in GEOM.printed_lines if line.align == "left"]
    assert len(anchors) >= len(names) - 1  # every row's name, "Summe" and the rest
    assert max(abs(a.dy) for a in anchors) <= 0.4
    assert max(abs(a.dx) for a in anchors if a.dx is not None) <= 0.4


def test_a_sheet_off_its_homography_is_measured_by_its_print(page) -> None:
    anchors = find_anchors(_flat(page, (1.6, -2.4)), GEOM)
    assert len(anchors) >= 8
    assert np.median([a.dy for a in anchors]) == pytest.approx(-2.4, abs=0.3)
    assert np.median([a.dx for a in anchors if a.dx is not None]) == pytest.approx(1.6, abs=0.3)


def _bulged(page: np.ndarray, amplitude_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """The page pushed down by a curl across it that leaves its top and bottom edges
    (and marks) in place, and the push at every cell's centre (mm)."""
    h, w = page.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)

    def push(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return amplitude_mm * (1 - 0.2 * x / GEOM.page_mm[0]) * np.sin(np.pi * y / GEOM.page_mm[1])

    # Sampling: the print at y shows at y + push, so each pixel reads from y - push.
    map_y = ys - push(xs / PPM, ys / PPM) * PPM
    bent = cv2.remap(page, xs, map_y.astype(np.float32), cv2.INTER_LINEAR,
                     borderValue=(255, 255, 255))
    centres = np.array([(s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2) for s in GEOM.slots])
    return bent, push(centres[:, 0], centres[:, 1])


def test_cells_without_lines_follow_the_bend_the_print_shows(page) -> None:
    bent, truth_dy = _bulged(page, 3.0)
    placed = place_unplaced(_flat(bent), GEOM, _unplaced())
    moves = _centre_moves(placed)
    before = np.abs(truth_dy)
    after = np.abs(moves[:, 1] - truth_dy)
    # Cells far from every anchor stay where they were: the page model is no surer there.
    unsure = np.array([b.axis_mm[1] for b in placed])
    moved = unsure < 2.5
    assert moved.mean() > 0.5
    assert after[moved].mean() < 0.3 * before[moved].mean()
    assert after.mean() < 0.7 * before.mean()
    # Each moved cell says how far it may still be off, and is no farther off than that.
    assert np.all(after[moved] <= unsure[moved])


def test_cells_placed_by_their_own_lines_keep_their_place(page) -> None:
    own = tuple(SnappedSlot(s, s.box, 0.0, 4, 0.2, (True, True), (0.2, 0.2)) for s in GEOM.slots)
    assert place_unplaced(_flat(page, (0.0, 2.0)), GEOM, own) == own


def test_the_spline_reproduces_a_smooth_field_and_flags_a_stray_point() -> None:
    rng = np.random.default_rng(3)
    pts = rng.uniform(0, 200, (40, 2))
    values = 0.01 * pts[:, 0] + 0.5 * np.sin(pts[:, 1] / 60)
    field = Field.fit(pts, values, 0.0)
    assert np.allclose(field(pts), values, atol=1e-6)
    values[7] += 3.0  # one anchor found on something else
    loo = _loo(pts, values, AnchorSettings().smoothing)
    assert int(np.argmax(np.abs(loo))) == 7


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="anchors"):
        AnchorSettings(min_lead=0.5)


def test_a_generala_sheet_is_placed_by_five_labels() -> None:
    """A Generala sheet's counting rows are labelled "1" to "6", too narrow to be found: of
    its labels only the six lower ones ("Escalera" to "Summe") can be, and on blurred pub
    photos one of them often is not (here a thumb covers "Summe"). Five are enough for
    the page model (min_anchors)."""
    spec = LayoutSpec(game="generala", sides=2)
    geom = geometry_for(spec)
    generala = written_sheet(spec, {(0, 0, "poker"): 40}, "T-1", PPM)
    summe = max(geom.printed_lines, key=lambda line: line.baseline)
    x, y = round(summe.x * PPM), round(summe.baseline * PPM)
    generala[y - round(6 * PPM):y + round(3 * PPM), x - round(3 * PPM):x + round(25 * PPM)] = 255
    flat = Rectified(generala, np.array([[PPM, 0, -1.6 * PPM], [0, PPM, 2.4 * PPM],
                                         [0, 0, 1.0]]), geom.page_mm, PPM, 0.1)
    anchors = find_anchors(flat, geom)
    assert len(anchors) == 5 and all(a.y > 140 for a in anchors)
    unplaced = tuple(SnappedSlot(s, s.box, 0.0, 0, 2.5, (False, False), (2.5, 2.5))
                     for s in geom.slots)
    moves = _centre_moves(place_unplaced(flat, geom, unplaced))
    near = [i for i, s in enumerate(geom.slots) if 140 < s.box[1] < 210]  # beside them
    assert np.median(moves[near, 1]) == pytest.approx(-2.4, abs=0.6)
    assert place_unplaced(flat, geom, unplaced, AnchorSettings(min_anchors=6)) == unplaced
