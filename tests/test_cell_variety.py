"""samples.cell_crops.CellVariety: the training cells' share of what real sheets show."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from escalero.samples.cell_crops import (
    HANDS_VARIETY,
    REAL_VARIETY,
    CellVariety,
    real_pen,
    scaled,
    synth_cell,
)
from escalero.samples.handwriting import (
    REAL_PENS,
    _glyph_pool,
    continental_glyph,
    make_writer,
    render_ring,
)

BOX = (200, 120)


def _cell(variety: CellVariety | None, entry: object, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    writer = make_writer(rng, "train")
    return synth_cell(rng, writer, entry, box_size=BOX, variety=variety).image


def test_no_variety_draws_the_same_cells_as_before() -> None:
    # The photo generator and the earlier recipes pass no variety: their cells must not move.
    rng = np.random.default_rng(3)
    writer = make_writer(rng, "train")
    plain = synth_cell(rng, writer, 47, box_size=BOX).image
    assert np.array_equal(plain, _cell(None, 47))


@pytest.mark.parametrize("field", ["real_pen", "dark_grid", "offset", "touching", "zero_strike",
                                   "ring", "continental"])
def test_shares_outside_zero_to_one_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        CellVariety(**{field: 1.5})


def test_a_strike_written_as_zero_leaves_ink_where_a_dash_would_not_reach() -> None:
    zero = CellVariety(zero_strike=1.0)
    inks = [255 - _cell(zero, "x", seed).min(axis=2) for seed in range(6)]
    # A 0 is a closed loop: ink above and below the middle row of the box.
    tall = [int((ink[15:135, 15:215] > 90).any(axis=1).sum()) for ink in inks]
    assert min(tall) >= 25, tall


def test_dark_grids_are_dark_in_the_red_channel() -> None:
    dark = CellVariety(dark_grid=1.0)
    red_dark = [_cell(dark, None, seed)[:, :, 2] for seed in range(4)]
    red_light = [_cell(None, None, seed)[:, :, 2] for seed in range(4)]
    assert min(int(r.min()) for r in red_dark) < min(int(r.min()) for r in red_light)
    assert max(int(r.min()) for r in red_dark) < 120


def test_markers_write_heavier_than_the_writer_and_a_light_pencil_lighter() -> None:
    rng = np.random.default_rng(5)
    writer = make_writer(rng, "train")
    pens = {real_pen(writer, np.random.default_rng(s)).pen for s in range(200)}
    assert pens == {p[0] for p in REAL_PENS}
    ink = {}
    for pen, colour, opacity in (REAL_PENS[2], REAL_PENS[0]):  # marker-black, pencil-light
        w = replace(writer, pen=pen, ink_bgr=colour, opacity=opacity)
        image = synth_cell(np.random.default_rng(9), w, 8, box_size=BOX).image
        grey = image.min(axis=2).astype(float)
        ink[pen] = float(np.clip(np.median(grey) - grey, 0, None).sum())  # below the paper
    assert ink["marker-black"] > 1.5 * ink["pencil-light"]


def test_the_real_variety_is_valid_and_names_its_cache() -> None:
    assert REAL_VARIETY.offset_mm == 2.0
    assert REAL_VARIETY.key() != CellVariety().key()
    assert HANDS_VARIETY.key() not in (REAL_VARIETY.key(), CellVariety().key())


def test_a_scaled_variety_halves_each_share_and_keeps_the_offset() -> None:
    half = scaled(REAL_VARIETY, 0.5)
    assert half.touching == REAL_VARIETY.touching / 2 and half.ring == REAL_VARIETY.ring / 2
    assert half.offset_mm == REAL_VARIETY.offset_mm
    assert half.key() != REAL_VARIETY.key()
    assert scaled(HANDS_VARIETY, 1.0) == HANDS_VARIETY


def _added_ink(glyph: np.ndarray, digit: int, seed: int, long: bool = False) -> np.ndarray:
    """The ink continental_glyph adds to `glyph`: the result less the glyph itself, found
    where it lies in the result (drawn at 3x, then cropped to the ink)."""
    changed = continental_glyph(glyph, digit, np.random.default_rng(seed), long) > 0.5
    plain = cv2.resize(glyph, (glyph.shape[1] * 3, glyph.shape[0] * 3),
                       interpolation=cv2.INTER_CUBIC) > 0.5
    for dy in range(changed.shape[0] - plain.shape[0] + 1):
        for dx in range(changed.shape[1] - plain.shape[1] + 1):
            window = changed[dy:dy + plain.shape[0], dx:dx + plain.shape[1]]
            if (window | ~plain).all():  # the glyph's own ink is all still there
                added = changed.copy()
                added[dy:dy + plain.shape[0], dx:dx + plain.shape[1]] &= ~plain
                return added
    raise AssertionError("the glyph's own ink is not kept")


def _added_inks(source: str, digit: int, long: bool = False) -> list[tuple[int, np.ndarray]]:
    """(glyph index, added ink) for every sixth of the first 60 training glyphs of `digit`."""
    glyphs = _glyph_pool(source, "train")[digit]
    return [(i, _added_ink(glyphs[i], digit, i, long)) for i in range(0, 60, 6)]


@pytest.mark.parametrize("source", ["mnist", "fonts"])
def test_a_continental_one_has_a_long_upstroke_from_its_top(source: str) -> None:
    for i, added in _added_inks(source, 1):
        h = added.shape[0]
        # A fifth of the height wide or more, from the top fifth down, none in the bottom
        # third: an upstroke, not a foot.
        assert added.any(axis=0).sum() >= 0.2 * h, (i, added.any(axis=0).sum(), h)
        assert added[: h // 5].any() and not added[2 * h // 3:].any(), i


@pytest.mark.parametrize("source", ["mnist", "fonts"])
def test_a_long_upstroke_reaches_further_down_than_the_usual_one(source: str) -> None:
    # The same glyphs and draws: the long upstroke ends lower (past half the 1's height
    # for most glyphs, where the usual one never reaches), and still none at the foot.
    def lowest(added: np.ndarray) -> float:
        return float(np.nonzero(added.any(axis=1))[0].max() / added.shape[0])

    usual = [lowest(a) for _, a in _added_inks(source, 1)]
    long = [lowest(a) for _, a in _added_inks(source, 1, long=True)]
    assert all(b > a for a, b in zip(usual, long, strict=True)), (usual, long)
    assert max(usual) < 0.6 and sum(b >= 0.5 for b in long) >= 7, (usual, long)
    assert max(long) < 0.95, long


@pytest.mark.parametrize("source", ["mnist", "fonts"])
def test_a_continental_seven_is_crossed_through_its_middle(source: str) -> None:
    for i, added in _added_inks(source, 7):
        h = added.shape[0]
        rows = np.nonzero(added.any(axis=1))[0]
        assert added.any(axis=0).sum() >= 0.2 * h, (i, added.any(axis=0).sum(), h)
        assert 0.3 * h <= rows.min() and rows.max() <= 0.75 * h, (i, rows.min(), rows.max(), h)


def test_continental_writers_come_only_from_a_variety_that_asks_for_them() -> None:
    # make_writer (the photo generator's writers) never draws them.
    rng = np.random.default_rng(8)
    assert not any(make_writer(rng, "train", source="all").continental for _ in range(50))


@pytest.mark.parametrize("shape", ["circle", "square", "triangle"])
def test_a_ring_goes_round_the_number_and_leaves_it_clear(shape: str) -> None:
    rng = np.random.default_rng(4)
    writer = make_writer(rng, "train")
    for seed in range(5):
        page = np.full((200, 300, 3), 240, np.uint8)
        render_ring(page, (120, 70, 180, 130), writer, np.random.default_rng(seed), shape)
        ink = page.min(axis=2) < 200
        assert not ink[85:115, 135:165].any(), seed  # the number's middle stays clear
        assert ink[:70].any() and ink[130:].any(), seed  # above and below the number
        assert ink[:, :120].any() and ink[:, 180:].any(), seed  # left and right of it


def test_an_empty_cell_under_a_printed_bar_stays_empty_truth() -> None:
    # A row's divider reaching into the box darkens whole rows of the crop, and the cell's
    # truth stays empty: the reader learns that a bar is no strike.
    barred = CellVariety(dark_grid=1.0, band=1.0)
    rng = np.random.default_rng(2)
    sample = synth_cell(rng, make_writer(rng, "train"), None, box_size=BOX, variety=barred)
    assert sample.entry is None
    rows = (sample.image.min(axis=2) < 170).mean(axis=1)
    assert rows.max() > 0.9  # some rows dark from edge to edge
