"""samples.strokes: glyph masks are well-formed, deterministic per seed, and fast."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from escalero.samples import strokes as st


def _check_mask(g: np.ndarray, height: int) -> None:
    assert g.dtype == np.float32
    assert g.shape[0] == height
    assert g.min() >= 0.0 and g.max() <= 1.0
    assert g.max() > 0.9  # solid ink somewhere, not just anti-aliasing haze
    # Cropped to the ink, like samples.handwriting's MNIST glyph masks.
    assert g[0].max() > 0 and g[-1].max() > 0
    assert g[:, 0].max() > 0 and g[:, -1].max() > 0


@pytest.mark.parametrize("digit", range(10))
def test_every_variant_renders(digit: int) -> None:
    rng = np.random.default_rng(digit)
    style = st.make_stroke_style(rng)
    assert st.VARIANTS[digit] >= 2
    for v in range(st.VARIANTS[digit]):
        for h in (16, 32, 48):
            _check_mask(st.stroke_glyph(digit, style, rng, h, variant=v), h)


def test_style_fields_in_range() -> None:
    rng = np.random.default_rng(3)
    styles = [st.make_stroke_style(rng) for _ in range(200)]
    for s in styles:
        assert len(s.variants) == 10
        assert all(0 <= v < n for v, n in zip(s.variants, st.VARIANTS, strict=True))
        assert 0.03 <= s.width <= 0.16
    widths = np.array([s.width for s in styles])
    assert (widths <= 0.08).mean() > 0.6  # mostly ballpoints
    # Every variant of every digit gets picked by somebody.
    for d, n in enumerate(st.VARIANTS):
        assert {s.variants[d] for s in styles} == set(range(n))


def test_glyph_is_deterministic_and_varies_per_call() -> None:
    style = st.make_stroke_style(np.random.default_rng(1))
    a = st.stroke_glyph(5, style, np.random.default_rng(7))
    b = st.stroke_glyph(5, style, np.random.default_rng(7))
    assert a.shape == b.shape and np.array_equal(a, b)
    rng = np.random.default_rng(7)
    c, d = st.stroke_glyph(5, style, rng), st.stroke_glyph(5, style, rng)
    assert c.shape != d.shape or not np.array_equal(c, d)


def test_stroke_width_follows_style() -> None:
    def ink(width: float) -> float:
        base = st.make_stroke_style(np.random.default_rng(2))
        style = st.StrokeStyle(**{**base.__dict__, "width": width})
        rng = np.random.default_rng(0)
        return float(np.mean([st.stroke_glyph(0, style, rng, 32).sum() for _ in range(10)]))

    assert ink(0.14) > 1.6 * ink(0.05)


def test_pool_deterministic_and_seed_dependent() -> None:
    a, b, c = st.stroke_pool(11, 4), st.stroke_pool(11, 4), st.stroke_pool(12, 4)
    assert len(a) == 10 and all(len(p) == 4 for p in a)
    for d in range(10):
        for g in a[d]:
            _check_mask(g, 32)
        assert all(np.array_equal(x, y) for x, y in zip(a[d], b[d], strict=True))
    same = sum(x.shape == y.shape and np.array_equal(x, y)
               for d in range(10) for x, y in zip(a[d], c[d], strict=True))
    assert same == 0


def test_bad_digit_raises() -> None:
    with pytest.raises(ValueError):
        st.stroke_glyph(10, st.make_stroke_style(np.random.default_rng(0)),
                        np.random.default_rng(0))


def test_a_pool_of_a_thousand_glyphs_is_complete_and_repeatable() -> None:
    pool = st.stroke_pool(5, 100)
    assert [len(glyphs) for glyphs in pool] == [100] * 10
    assert all(g.any() for glyphs in pool for g in glyphs)  # every glyph has ink
    again = st.stroke_pool(5, 100)
    assert all(np.array_equal(a, b) for a, b in zip(pool[3], again[3], strict=True))


def _has_hole(g: np.ndarray) -> bool:
    """Whether the ink encloses paper (a closed loop), at 48 px."""
    ink = (g > 0.5).astype(np.uint8)
    ink = np.pad(ink, 2)
    n, _ = cv2.connectedComponents(1 - ink, connectivity=4)
    return n > 2  # the outside plus at least one enclosed region


def test_nines_come_closed_and_open() -> None:
    """Variants 0-2 of the 9 close their bowl, 3 (arch) and 4 (open bowl) leave it open:
    writers whose 9 has no loop exist, and the network must see them labelled 9."""
    rng = np.random.default_rng(21)
    closed = {v: 0 for v in range(st.VARIANTS[9])}
    for _ in range(12):
        style = st.make_stroke_style(rng)
        for v in closed:
            closed[v] += _has_hole(st.stroke_glyph(9, style, rng, 48, variant=v))
    assert st.VARIANTS[9] == 5
    assert all(closed[v] >= 9 for v in (0, 1, 2)), closed
    assert all(closed[v] <= 3 for v in (3, 4)), closed
