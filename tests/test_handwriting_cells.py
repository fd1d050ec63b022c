"""samples.cell_crops: crops follow the cell reading contract and carry their truth."""

from __future__ import annotations

import numpy as np
from escalero.samples.cell_crops import (
    MARGIN_PX,
    random_box,
    random_entry,
    row_value_sets,
    synth_cell,
)
from escalero.samples.handwriting import make_writer
from escalero.scan.digit_model import INPUT_H, INPUT_W, ink_map, ink_window, preprocess
from escalero.scoring.rulesets import get_ruleset


def test_crop_is_box_plus_margin_and_deterministic() -> None:
    crops = []
    for _ in range(2):
        rng = np.random.default_rng(4)
        s = synth_cell(rng, make_writer(rng, "eval"), 25, harsh=True, box_size=(260, 140))
        crops.append(s.image)
    assert crops[0].shape == (140 + 2 * MARGIN_PX, 260 + 2 * MARGIN_PX, 3)
    assert crops[0].dtype == np.uint8
    assert np.array_equal(crops[0], crops[1])


def test_boxes_cover_the_layout_range() -> None:
    rng = np.random.default_rng(0)
    boxes = np.array([random_box(rng) for _ in range(500)])
    assert boxes[:, 0].min() >= 115 and boxes[:, 0].max() <= 290
    assert boxes[:, 1].min() >= 80 and boxes[:, 1].max() <= 140


def test_row_values_come_from_the_rulesets() -> None:
    sets = row_value_sets()
    assert get_ruleset("escalero").row("aces").allowed in sets
    assert get_ruleset("generala").row("doble_generala").allowed in sets
    rng = np.random.default_rng(1)
    for _ in range(200):
        entry, allowed = random_entry(rng)
        assert entry is None or entry == "x" or 0 <= entry <= 999
        assert allowed is None or allowed in sets


def test_preprocess_finds_the_ink_and_drops_the_grid() -> None:
    rng = np.random.default_rng(2)
    writer = make_writer(rng, "eval")
    empty = preprocess(synth_cell(rng, writer, None, box_size=(260, 140)).image)
    full = preprocess(synth_cell(rng, writer, 105, box_size=(260, 140)).image)
    assert empty.shape == full.shape == (INPUT_H, INPUT_W)
    assert empty.mean() < 0.08 < full.mean()
    # Ink written at the right of a wide cell: the window follows it.
    page = np.full((170, 320, 3), 235, np.uint8)
    page[70:100, 250:262] = (150, 60, 20)  # a blue stroke
    x0, x1 = ink_window(ink_map(page))
    scale = 80 / 170
    assert x0 <= 250 * scale and 262 * scale <= x1


def _pencil_cell(line_red: int) -> np.ndarray:
    """A 6-side cell crop (10 px/mm, 15 px margin): pencil strokes, grid lines whose red
    channel is `line_red` (a photo keeps a thin red line's darkness, not its hue)."""
    page = np.full((144, 155, 3), 225, np.uint8)
    line = (130, 130, line_red)
    for y in (9, 134):
        page[y:y + 2, :] = line
    for x in (9, 145):
        page[:, x:x + 2] = line
    page[30:110, 40:46] = 150  # a pencil 1, pressed lightly
    page[60:66, 60:120] = 150  # and a bar that reaches over the right line
    page[60:66, 120:155] = 130
    return page


def test_grid_lines_that_kept_their_darkness_are_dropped_and_strokes_over_them_kept() -> None:
    from escalero.scan.digit_model import drop_grid_lines

    kept = ink_map(_pencil_cell(line_red=170))  # as dark as the pencil in the red channel
    plain = ink_map(_pencil_cell(line_red=225))  # no line at all in the red channel
    h, w = kept.shape
    s = h / 144
    border = np.zeros_like(kept, bool)
    border[:round(14 * s)] = border[-round(14 * s):] = True
    border[:, :round(14 * s)] = border[:, -round(14 * s):] = True
    stroke = plain > 0.2
    assert kept[border & ~stroke].max() < 0.05  # the lines are gone
    # The strokes stay, where they cross a line too (less the line's own level there).
    assert (kept[stroke] > 0.15).all() and np.median(np.abs(kept - plain)[stroke]) < 0.02
    assert kept[round(63 * s), w - 2] > 0.2  # the bar outside the line
    # Without the dropping, the lines would stand as strong as the pencil.
    raw = np.clip(1.0 - (_pencil_cell(170)[:, :, 2] + 1.0) / 226.0, 0, 1)
    assert raw[10, 77] > 0.2 and drop_grid_lines(raw, 144)[10, 77] < 0.05


def test_faint_digit_lightens_one_end_of_the_number_only() -> None:
    from escalero.samples.cell_crops import _fade_one_end

    before = np.full((40, 100, 3), 230, np.uint8)
    after = before.copy()
    after[10:30, 10:40] = 20  # first digit
    after[10:30, 60:90] = 20  # second digit
    for seed in range(6):
        out = _fade_one_end(before, after, (10, 10, 90, 30), np.random.default_rng(seed))
        left, right = out[10:30, 10:40].mean(), out[10:30, 60:90].mean()
        assert (left > 60 and right == 20) or (right > 60 and left == 20)
    writer = make_writer(np.random.default_rng(5), "train")
    plain = synth_cell(np.random.default_rng(6), writer, 40, box_size=(260, 140)).image
    again = synth_cell(np.random.default_rng(6), writer, 40, box_size=(260, 140), faint=0.0)
    assert np.array_equal(plain, again.image)  # faint=0 draws nothing extra from the rng
