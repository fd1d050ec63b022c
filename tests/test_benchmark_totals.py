"""benchmarks.totals: a rule's confirmations are counted against the truth."""

from __future__ import annotations

import argparse

import pytest
from escalero.scan.cells import TOTALS, CellResult, ConfirmRule

from benchmarks import totals


def _cell(row: str, value, conf: float, certain: bool, alts=()) -> CellResult:
    return CellResult(0, 0, row, value, conf, tuple(alts), certain, (0, 0, 10, 10))


def _column(tens: int) -> tuple[CellResult, ...]:
    # Tens read 4 with 0.85 (6 runner-up), a clear total of 7 agrees: a loose rule
    # confirms the 4, a strict one does not.
    return (_cell("nines", 3, 0.999, True), _cell("tens", tens, 0.85, False, [(6, 0.1)]),
            _cell("total", 7, 0.999, True))


def test_confirmations_beyond_the_first_rule_are_counted_and_judged() -> None:
    strict, loose = totals.STRICT, totals.Rule(ConfirmRule(0.99, 0.8))
    right = {(0, 0, "nines"): 3, (0, 0, "tens"): 4, (0, 0, "total"): 7}
    wrong = {**right, (0, 0, "tens"): 6}  # the truth says 6: confirming 4 is an error
    a, b = totals.measure([(_column(4), right)], [strict, loose])
    assert a["certain_beyond_first_rule"] == 0 and a["flagged_per_sheet"] == 1
    assert b["certain_beyond_first_rule"] == 1 and b["of_those_wrong"] == 0
    assert b["flagged_per_sheet"] == 0 and b["silent_cells"] == 0
    _, b = totals.measure([(_column(4), wrong)], [strict, loose])
    assert b["of_those_wrong"] == 1 and b["silent_cells"] == 1


def test_specs_are_parsed_or_explained() -> None:
    assert totals.PhotoSet.parse("mild:6:3940000") == totals.PhotoSet("mild", 6, 3940000)
    assert totals.PhotoSet.parse("mild:3:1:fonts").source == "fonts"
    assert totals.parse_rule("0.995:0.8") == totals.Rule(ConfirmRule(0.995, 0.8, 0.995, 0.8))
    assert totals.parse_rule("0.995:0.5:0.999:0.9") == totals.Rule(ConfirmRule(), TOTALS.suspect)
    assert totals.parse_rule("0.995:0.5:0.999:0.9/0.003") == totals.Rule(ConfirmRule(), 0.003)
    assert totals.parse_rule("0.995:0.5:0.999:0.9/none") == totals.Rule(ConfirmRule(), None)
    for bad in ("mild:6", "blurry:2:1", "mild:two:1"):
        with pytest.raises(argparse.ArgumentTypeError, match="LEVEL|number"):
            totals.PhotoSet.parse(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="POSTERIOR:FIRST"):
        totals.parse_rule("0.995")
    with pytest.raises(argparse.ArgumentTypeError, match="POSTERIOR:FIRST"):
        totals.parse_rule("0.995:high")
    with pytest.raises(argparse.ArgumentTypeError, match="SUSPECT"):
        totals.parse_rule("0.995:0.8/often")


def test_a_mis_added_total_is_counted_against_the_entries_it_puts_up() -> None:
    # All certain; the total (99) fits no reading: by default the tens (0.998) goes to review
    # with the total, at a suspicion of 0.003 only the total does, since the tens'
    # readings list nothing that would add up to 99.
    column = (_cell("nines", 3, 0.9995, True), _cell("tens", 4, 0.998, True, [(6, 0.002)]),
              _cell("total", 99, 0.99, True))
    truth = {(0, 0, "nines"): 3, (0, 0, "tens"): 4, (0, 0, "total"): 99}
    every, own = totals.measure([(column, truth)], [totals.parse_rule("0.995:0.5"),
                                                     totals.parse_rule("0.995:0.5/0.003")])
    assert every["flagged_per_sheet"] == 2 and own["flagged_per_sheet"] == 1
    assert own["certain_beyond_first_rule"] == 1 and own["of_those_wrong"] == 0
