"""Small image measures the scan stages share."""

from __future__ import annotations

import cv2
import numpy as np

# The median absolute deviation times this estimates a Gaussian's sigma.
MAD_TO_SIGMA = 1.4826


def shrink(image: np.ndarray, long_side: int, rough: bool = False
           ) -> tuple[np.ndarray, float]:
    """`image` scaled down so its longer side is at most `long_side` px, and the scale used;
    an image already small enough comes back as it is, with scale 1.0.

    INTER_AREA in two steps: whole blocks of k x k px first (OpenCV's INTER_AREA for a
    whole factor is several times faster than for any other), then the rest (a factor
    above 1/2) on the smaller copy; nearly the same picture for a third of the time.
    `rough`: the rest bilinear, in a fifth of that time again.
    """
    h, w = image.shape[:2]
    scale = min(1.0, long_side / max(h, w))
    if scale >= 1.0:
        return image, 1.0
    k = int(1.0 / scale)
    if k >= 2:
        image = cv2.resize(image[:h - h % k, :w - w % k], (w // k, h // k),
                           interpolation=cv2.INTER_AREA)
    rest = scale * k
    if rest >= 1.0:
        return image, scale
    rest_interpolation = cv2.INTER_LINEAR if rough else cv2.INTER_AREA
    return cv2.resize(image, None, fx=rest, fy=rest, interpolation=rest_interpolation), scale


def median_and_sigma(values: np.ndarray) -> tuple[float, float]:
    """The median of `values` and their robust spread (the MAD scaled to a Gaussian
    sigma): outliers such as ink on paper or a grid line in a profile barely move either."""
    median = float(np.median(values))
    return median, MAD_TO_SIGMA * float(np.median(np.abs(values - median)))
