"""scan.imaging's quantile_last and median_last: numpy's numbers, exactly.

The network was trained on inputs made with np.percentile and np.median; the faster
partitions must give the same float32 values, not nearly the same ones."""

from __future__ import annotations

import numpy as np
from escalero.scan.imaging import darkness, median_last, quantile_last
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

_VALUES = arrays(np.float32, st.tuples(st.integers(1, 6), st.integers(1, 90)),
                 elements=st.floats(0.0, 1.0, width=32))


@settings(max_examples=200, deadline=None)
@given(values=_VALUES, percent=st.sampled_from([0.0, 12.5, 40.0, 50.0, 99.5, 100.0]))
def test_quantile_last_is_numpys_percentile(values: np.ndarray, percent: float) -> None:
    ours, numpys = quantile_last(values, percent), np.percentile(values, percent, axis=-1)
    assert ours.dtype == numpys.dtype == np.float32
    np.testing.assert_array_equal(ours, numpys)


@settings(max_examples=200, deadline=None)
@given(values=_VALUES)
def test_median_last_is_numpys_median(values: np.ndarray) -> None:
    ours, numpys = median_last(values), np.median(values, axis=-1)
    assert ours.dtype == numpys.dtype == np.float32
    np.testing.assert_array_equal(ours, numpys)


def test_darkness_of_8_bit_pixels_is_that_of_the_same_floats() -> None:
    pixels = np.random.default_rng(3).integers(0, 256, (2, 40, 60), dtype=np.uint8)
    np.testing.assert_array_equal(darkness(pixels, 11, 4.0),
                                  darkness(pixels.astype(np.float32), 11, 4.0))
