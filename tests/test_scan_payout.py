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


def test_a_total_misread_alike_has_no_say_and_the_strike_leans_to_the_9() -> None:
    """An open 9 read as struck under a total misread alike (CellResult.total_alike): the
    total's belief lists no number (the payout model gives it no say), and the strike
    keeps doubted_weight of its mass, the rest going to the 9."""
    strike = CellResult(0, 2, "jacks", "x", 0.9958, ((9, 0.004),), False,
                        (0.0, 0.0, 10.0, 8.0), candidates=(("x", 0.9958), (9, 0.004)))
    total = CellResult(0, 2, "total", 190, 0.9943, ((199, 0.002),), False,
                       (0.0, 0.0, 10.0, 8.0), candidates=((190, 0.9943), (199, 0.002)))
    plain = beliefs([strike, total], (), 1e-3, 1e-2)
    assert dict(plain[0].distribution)["x"] > 0.99 and 190 in dict(plain[1].distribution)
    held = beliefs([strike, total], (), 1e-3, 1e-2, mute_totals={(0, 2, "total")},
                   open_nines={(0, 2, "jacks")})
    was = dict(plain[0].distribution)
    struck, nine = dict(held[0].distribution)["x"], dict(held[0].distribution)[9]
    assert struck == pytest.approx(was["x"] * PAYOUT.doubted_weight)
    assert nine == pytest.approx(was[9] + was["x"] * (1 - PAYOUT.doubted_weight))
    assert held[1].distribution == ((None, 1.0),)
