"""The one model of a written total: how a column's true sum shows in the number written
under it. The scanner's totals check (scan.cells) and the payout's certainty
(scoring.certainty) both weigh a column against its total by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WrittenTotalModel:
    """A written total is the column's true sum with probability `right` (players add up
    well, but not always); otherwise it is any number, each specific one with likelihood
    `wrong_share` (mis-added totals are rare and spread over many numbers, so this is
    small, and kept conservative). Set by hand, not fitted: benchmarks.totals measures
    the totals check that rests on it (bench sheets, seeds 42x0000-45x0000)."""

    right: float = 0.9
    wrong_share: float = 0.01

    def __post_init__(self) -> None:
        if not 0 < self.wrong_share < self.right <= 1:
            raise ValueError("written total: need 0 < wrong_share < right <= 1")

    def agreement(self, p_match: np.ndarray | float) -> np.ndarray | float:
        """Likelihood weight when the total and the column's sum agree with probability
        p_match: `right` where they do, `wrong_share` where they do not."""
        return self.wrong_share + (self.right - self.wrong_share) * p_match

    def fit(self, read: Mapping[int, float], size: int) -> np.ndarray:
        """Likelihood of the written total given each true sum 0..size-1, the total read
        as `read` (number -> probability): flat where it matches nothing."""
        out = np.full(size, self.wrong_share)
        for value, p in read.items():
            if 0 <= value < size:
                out[value] += (self.right - self.wrong_share) * p
        return out


WRITTEN_TOTAL = WrittenTotalModel()
