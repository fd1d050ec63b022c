"""The sheet's own hand: digits the rows rule out tell how this writer's digits read."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from escalero.scan.cells import TOTAL_ROW, CellResult, check_totals
from escalero.scan.recognize import CellCrop
from escalero.scan.same_hand import doubt_same_hand, swaps_shown

NINES, STRAIGHT, KINGS = (1, 2, 3, 4, 5), (20, 25), (5, 10, 15, 20, 25)


def _cell(row: str, value: object, conf: float, certain: bool, column: int = 0,
          outside: tuple[tuple[int, float], ...] = ()) -> CellResult:
    return CellResult(0, column, row, value, conf, (), certain, (0, 0, 10, 10),
                      outside=outside)


def _crop(allowed: tuple[int, ...] | None) -> CellCrop:
    return CellCrop(np.zeros((1, 1, 3), np.uint8), allowed)


def _sheet(straights_read_as_10: int) -> tuple[list[CellResult], list[CellCrop]]:
    """Straße 20s this writer writes so that they read as 10 (a number the row does not
    allow), and a Neuner 1 and a Könige 10 read with certainty."""
    cells = [_cell("straight", 20, 0.02, False, column=k, outside=((10, 0.95),))
             for k in range(straights_read_as_10)]
    cells += [_cell("nines", 1, 0.998, True), _cell("kings", 10, 0.998, True),
              _cell("kings", 15, 0.998, True, column=1)]
    crops = [_crop(STRAIGHT)] * straights_read_as_10 + [_crop(NINES), _crop(KINGS),
                                                        _crop(KINGS)]
    return cells, crops


def test_a_swap_the_sheet_shows_twice_puts_the_same_digit_up_for_review() -> None:
    cells, crops = _sheet(2)
    assert swaps_shown(cells, crops)[("1", "2")] == 2
    out = {(c.row, c.column): c for c in doubt_same_hand(cells, crops)}
    # The 1, the 10 and the 15 may be this writer's 2, 20 and 25.
    assert not out[("nines", 0)].certain and out[("nines", 0)].note.key == "same_hand"
    assert not out[("kings", 0)].certain and not out[("kings", 1)].certain
    assert "eine 2 wie eine 1" in out[("nines", 0)].note


def test_one_such_cell_is_not_enough_and_other_digits_stay_certain() -> None:
    cells, crops = _sheet(1)
    assert all(c.certain for c in doubt_same_hand(cells, crops) if c.row != "straight")
    # A 4 read as 9 says nothing about the writer's 1s.
    cells = [_cell("poker", 40, 0.01, False, column=k, outside=((90, 0.97),)) for k in (0, 1)]
    cells.append(_cell("nines", 1, 0.998, True))
    crops = [_crop((40, 45)), _crop((40, 45)), _crop(NINES)]
    assert doubt_same_hand(cells, crops)[-1].certain


def test_a_total_confirms_a_doubted_cell_only_as_surely_as_a_strike() -> None:
    # A Neuner 1 (0.9976, or 2) under a total read as 1 (0.7) or 2 (0.29): backed to
    # 0.9990, which confirms an ordinary reading (0.995) but not one this hand casts
    # doubt on (0.999).
    def column(doubted: bool) -> list[CellResult]:
        cells, crops = _sheet(2)
        nines = replace(doubt_same_hand(cells, crops)[2], confidence=0.9976,
                        alternatives=((2, 0.0024),))
        assert nines.row == "nines" and not nines.certain
        if not doubted:
            nines = replace(nines, note=None, written_like=None)
        total = CellResult(0, 0, TOTAL_ROW, 1, 0.7, ((2, 0.29),), False, (0, 0, 10, 10))
        return [nines, total]

    out = {c.row: c for c in check_totals(column(doubted=True))}
    assert out["nines"].value == 1 and 0.995 < out["nines"].confidence < 0.999
    assert not out["nines"].certain
    assert {c.row: c for c in check_totals(column(doubted=False))}["nines"].certain
