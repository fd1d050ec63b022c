"""samples.handwriting sources: stroke writers use disjoint pools, one style, thin strokes."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.samples import handwriting as hw


def test_stroke_pools_are_disjoint_between_splits() -> None:
    for d in (1, 4, 7):
        train = {g.tobytes() for g in hw._stroke_pools("train")[d]}
        assert hw.pool_size("train", d, "strokes") == hw._STROKE_PER_DIGIT["train"]
        assert not any(g.tobytes() in train for g in hw._stroke_pools("eval")[d])


def test_stroke_writer_keeps_to_one_style() -> None:
    styles = hw._STROKE_PER_DIGIT["eval"] // hw._STROKE_PER_STYLE
    for seed in range(5):
        w = hw.make_writer(np.random.default_rng(seed), "eval", source="strokes")
        assert w.source == "strokes"
        assert len({i % styles for g in w.glyphs for i in g}) == 1


def test_default_source_is_mnist_and_unchanged() -> None:
    a = hw.make_writer(np.random.default_rng(3), "eval")
    b = hw.make_writer(np.random.default_rng(3), "eval", source="mnist")
    assert a == b and a.source == "mnist"
    with pytest.raises(ValueError):
        hw.make_writer(np.random.default_rng(0), "eval", source="pens")


def test_mixed_draws_both_sources() -> None:
    rng = np.random.default_rng(0)
    sources = {hw.make_writer(rng, "train", source="mixed").source for _ in range(20)}
    assert sources == {"mnist", "strokes"}


def test_stroke_ink_is_ballpoint_thin() -> None:
    # Ink share of the number's bounding box: thin pen strokes cover less than MNIST's
    # (the median of 60 writers: of 12, which of them write a 1 with a long upstroke,
    # wide and inky, decides it).
    def coverage(source: str) -> float:
        rng = np.random.default_rng(11)
        shares = []
        for _ in range(60):
            w = hw.make_writer(rng, "eval", source=source)
            mask = hw._number_mask(48, w, 110, rng)
            shares.append(float((mask > 0.5).mean()))
        return float(np.median(shares))

    assert 0.05 < coverage("strokes") < coverage("mnist")
