"""samples.handwriting: pools are disjoint, rendering is deterministic, ink lands in the box."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from escalero.samples import handwriting as hw


def _page() -> np.ndarray:
    return np.full((300, 400, 3), 240, np.uint8)


def test_pools_are_disjoint_and_complete() -> None:
    pools = hw._pools()
    for d in range(10):
        assert hw.pool_size("train", d) == 350
        assert hw.pool_size("eval", d) == 150
        train = {g.tobytes() for g in pools["train"][d]}
        assert not any(g.tobytes() in train for g in pools["eval"][d])


def test_writer_uses_its_split() -> None:
    w = hw.make_writer(np.random.default_rng(0), "eval")
    assert w.split == "eval"
    for d in range(10):
        assert all(0 <= i < hw.pool_size("eval", d) for i in w.glyphs[d])
    with pytest.raises(ValueError):
        hw.make_writer(np.random.default_rng(0), "test")


def test_render_is_deterministic_for_a_seed() -> None:
    pages = []
    for _ in range(2):
        rng = np.random.default_rng(7)
        w = hw.make_writer(rng, "train")
        page = _page()
        hw.render_entry(page, (100, 100, 140, 90), 105, w, rng)
        pages.append(page)
    assert np.array_equal(pages[0], pages[1])


@pytest.mark.parametrize("entry", [3, 25, 105, 999, 0, "x"])
def test_ink_lands_near_the_box(entry: int | str) -> None:
    box = (120, 100, 140, 90)
    for seed in range(10):
        rng = np.random.default_rng(seed)
        w = hw.make_writer(rng, "eval")
        page = _page()
        ink = hw.render_entry(page, box, entry, w, rng)
        assert ink is not None
        x0, y0, x1, y1 = ink
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        assert 120 + 20 < cx < 260 - 20 and 100 + 15 < cy < 190 - 15
        changed = np.any(page != 240, axis=2)
        assert changed[y0:y1, x0:x1].sum() > 20
        # Ink darkens (multiplicative): nothing gets brighter than the paper.
        assert page.max() <= 240


def test_long_numbers_are_squeezed_into_the_cell() -> None:
    rng = np.random.default_rng(3)
    w = hw.make_writer(rng, "train")
    page = _page()
    x0, _, x1, _ = hw.render_entry(page, (150, 100, 100, 80), 888, w, rng)
    assert x1 - x0 <= 100 * w.overflow + 25


def test_rejects_bad_entries() -> None:
    rng = np.random.default_rng(0)
    w = hw.make_writer(rng)
    with pytest.raises(ValueError):
        hw.render_entry(_page(), (10, 10, 100, 60), 1000, w, rng)
    with pytest.raises(ValueError):
        hw.render_entry(_page(), (10, 10, 100, 60), "y", w, rng)


def test_text_and_clipping_at_page_edge() -> None:
    rng = np.random.default_rng(1)
    w = hw.make_writer(rng)
    page = _page()
    assert hw.render_text(page, (10, 10, 200, 50), "Anna", w, rng) is not None
    # A box partly off the page must not fail.
    hw.render_entry(page, (350, 260, 140, 90), 42, w, rng)


def test_a_sheet_of_entries_lands_in_its_boxes() -> None:
    rng = np.random.default_rng(2)
    writers = [hw.make_writer(rng, "eval") for _ in range(4)]
    page = np.full((1400, 1000, 3), 240, np.uint8)
    # Its speed is measured by benchmarks/scan.py (photo generation), not asserted here.
    for i in range(90):
        box = (20 + (i % 6) * 160, 20 + (i // 6) * 90, 140, 80)
        ink = hw.render_entry(page, box, int(rng.integers(0, 300)) if i % 7 else "x",
                              writers[i % 4], rng)
        assert ink is not None, i
        x0, y0, x1, y1 = ink
        assert x0 < x1 and y0 < y1
        assert box[0] - box[2] < x0 and x1 < box[0] + 2 * box[2], (i, ink, box)


def test_elastic_warp_bends_the_digits_but_keeps_them_in_the_box() -> None:
    def written(elastic: float) -> np.ndarray:
        rng = np.random.default_rng(3)
        w = replace(hw.make_writer(rng, "train"), elastic=elastic)
        page = _page()
        hw.render_entry(page, (120, 100, 140, 90), 47, w, np.random.default_rng(4))
        return 255 - page.min(axis=2).astype(np.float32)

    plain, bent = written(0.0), written(0.2)
    assert not np.array_equal(plain, bent)  # the shapes changed...
    ys, xs = np.nonzero(plain > 60)
    yb, xb = np.nonzero(bent > 60)
    # ...but about as much ink is written, inside the box (120-260, 100-190).
    assert 0.6 < len(xb) / len(xs) < 1.6
    assert 140 < xb.mean() < 240 and 115 < yb.mean() < 175
