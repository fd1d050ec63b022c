"""Small image measures the scan stages share."""

from __future__ import annotations

import cv2
import numpy as np

# The median absolute deviation times this estimates a Gaussian's sigma.
MAD_TO_SIGMA = 1.4826


def shrink(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """`image` scaled down (INTER_AREA) so its longer side is at most `long_side` px, and
    the scale used; an image already small enough comes back as it is, with scale 1.0."""
    scale = min(1.0, long_side / max(image.shape[:2]))
    if scale >= 1.0:
        return image, 1.0
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), scale


def median_and_sigma(values: np.ndarray) -> tuple[float, float]:
    """The median of `values` and their robust spread (the MAD scaled to a Gaussian
    sigma): outliers such as ink on paper or a grid line in a profile barely move either."""
    median = float(np.median(values))
    return median, MAD_TO_SIGMA * float(np.median(np.abs(values - median)))
