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


def quantile_last(values: np.ndarray, percent: float) -> np.ndarray:
    """np.percentile(values, percent, axis=-1) (linear, as float32 for float32 values),
    the same numbers: one partition at the two order statistics it interpolates, where
    numpy partitions at the ends as well."""
    n = values.shape[-1]
    at = (n - 1) * (percent / 100)
    below = int(at)
    above = min(below + 1, n - 1)
    part = np.partition(values, [below, above] if above != below else below, axis=-1)
    low, high = part[..., below], part[..., above]
    t = at - below
    step = high - low
    return high - step * (1 - t) if t >= 0.5 else low + step * t


def median_last(values: np.ndarray) -> np.ndarray:
    """np.median(values, axis=-1), the same numbers (the middle two's mean)."""
    n = values.shape[-1]
    if n % 2:
        return np.partition(values, n // 2, axis=-1)[..., n // 2]
    part = np.partition(values, [n // 2 - 1, n // 2], axis=-1)
    return (part[..., n // 2 - 1] + part[..., n // 2]) / 2


def darkness(channel: np.ndarray, paper_px: int, sigma: float) -> np.ndarray:
    """1 - channel / local paper, in [0, 1] (0 = paper, 1 = black), as float32.

    The paper estimate is the channel's brightest value within `paper_px` (wider than a
    stroke, so a stroke's middle is not taken for paper), blurred by `sigma`: dividing by
    it flattens shadows and the light's falloff. `channel`: one (N, h, w) stack or (h, w)
    image of any number type; +1 keeps a black pixel's ratio finite.
    """
    channel = np.asarray(channel)
    work = channel.astype(np.float32) + 1.0
    kernel = np.ones((paper_px, paper_px), np.uint8)
    # The brightest value is the same before and after +1: 8-bit pixels are dilated as
    # they are, several times faster than as floats.
    lift = channel.dtype == np.uint8
    source = channel if lift else work
    if work.ndim == 3:
        paper = np.stack([cv2.GaussianBlur(_brightest(x, kernel, lift), (0, 0), sigma)
                          for x in source])
    else:
        paper = cv2.GaussianBlur(_brightest(source, kernel, lift), (0, 0), sigma)
    return np.clip(1.0 - work / paper, 0.0, 1.0)


def _brightest(image: np.ndarray, kernel: np.ndarray, lift: bool) -> np.ndarray:
    """The brightest value within the kernel, as float32; `lift`: plus 1 (an 8-bit image)."""
    top = cv2.dilate(image, kernel)
    return top.astype(np.float32) + 1.0 if lift else top
