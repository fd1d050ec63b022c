"""Small image measures the scan stages share."""

from __future__ import annotations

import cv2
import numpy as np

# A fact of the normal distribution, not tuned: the median absolute deviation times this
# (1 / the quantile function at 3/4) estimates a Gaussian's sigma.
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


def darkness(channel: np.ndarray, paper_px: int, sigma: float) -> np.ndarray:
    """1 - channel / local paper, in [0, 1] (0 = paper, 1 = black), as float32.

    The paper estimate is the channel's brightest value within `paper_px` (wider than a
    stroke, so a stroke's middle is not taken for paper), blurred by `sigma`: dividing by
    it flattens shadows and the light's falloff. `channel`: one (N, h, w) stack or (h, w)
    image of any number type; +1 keeps a black pixel's ratio finite.
    """
    work = np.asarray(channel).astype(np.float32) + 1.0
    kernel = np.ones((paper_px, paper_px), np.uint8)
    if work.ndim == 3:
        paper = np.stack([cv2.GaussianBlur(cv2.dilate(x, kernel), (0, 0), sigma) for x in work])
    else:
        paper = cv2.GaussianBlur(cv2.dilate(work, kernel), (0, 0), sigma)
    return np.clip(1.0 - work / paper, 0.0, 1.0)
