"""scan.payout: the recognizer's readings as beliefs for the payout's certainty."""

from __future__ import annotations

import pytest
from escalero.scan.cells import CellResult
from escalero.scan.payout import PAYOUT, beliefs


def _cell(candidates: tuple, certain: bool = False) -> CellResult:
    value, confidence = candidates[0]
    return CellResult(0, 0, "poker", value, confidence, candidates[1:], certain,
                      (0.0, 0.0, 10.0, 8.0), candidates=candidates)


def test_mass_outside_the_row_stays_partly_unheld() -> None:
    # A 40 written with a closed 4 reads as 90 (no Poker value): the row's readings hold
    # 2% of the mass. Scaled up to 100% it would be a sure 40; PAYOUT.unheld of it stays doubt.
    belief = beliefs([_cell(((40, 0.019), (45, 0.0005), ("x", 0.0005)))], (), 1e-3, 1e-2)[0]
    assert dict(belief.distribution)[40] == pytest.approx(0.95 * (1 - PAYOUT.unheld))
    assert sum(p for _, p in belief.distribution) == pytest.approx(1 - PAYOUT.unheld)
    # A cell whose readings hold nearly all of it leaves only what they leave.
    nearly = beliefs([_cell(((40, 0.97), (45, 0.02)))], (), 1e-3, 1e-2)[0]
    assert sum(p for _, p in nearly.distribution) == pytest.approx(0.99)
    # A certain reading's doubt is the error measured for certain readings, nothing more.
    sure = beliefs([_cell(((40, 0.99), (46, 0.0)), certain=True)], (), 1e-3, 1e-2)[0]
    assert dict(sure.distribution)[40] == pytest.approx(1 - 1e-3)


def test_a_certain_reading_keeps_the_measured_error() -> None:
    belief = beliefs([_cell(((40, 0.9999), (45, 0.0001)), certain=True)], (), 1e-3, 1e-2)[0]
    assert dict(belief.distribution)[40] == pytest.approx(1 - 1e-3)
    assert dict(belief.distribution)[45] == pytest.approx(1e-3)
