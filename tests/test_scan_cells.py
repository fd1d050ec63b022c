"""scan.cells: crops per the contract, readings -> sheet values, the written-totals check."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from escalero.scan.cells import (
    CUTTING,
    TOTALS,
    CellResult,
    check_totals,
    cut_crops,
    to_results,
)
from escalero.scan.geometry import geometry_for
from escalero.scan.grid import SnappedSlot
from escalero.scan.notes import note
from escalero.scan.recognize import CellReading
from escalero.sheets.layout import LayoutSpec
from hypothesis import given, settings
from hypothesis import strategies as st

ROWS = ("nines", "tens", "jacks")


def _cell(row: str, value, conf: float, certain: bool, alts=()) -> CellResult:
    return CellResult(0, 0, row, value, conf, tuple(alts), certain, (0, 0, 10, 10))


def _by_row(results):
    return {c.row: c for c in results}


def test_crops_follow_the_contract() -> None:
    geom = geometry_for(LayoutSpec())
    page = np.full((2970, 2100, 3), 255, np.uint8)
    snapped = [SnappedSlot(s, s.box, 0.0, 4) for s in geom.slots]
    crops = cut_crops(page, snapped, geom)
    assert len(crops) == len(geom.slots)
    for crop, s in zip(crops, geom.slots, strict=True):
        x, y, w, h = crop.box_px
        assert (x, y) == (15, 15)  # 1.5 mm margin at 10 px/mm
        assert crop.image.shape[:2] == (h + 30, w + 30)
        assert abs(w - s.box[2] * 10) <= 1 and abs(h - s.box[3] * 10) <= 1
        if s.is_total:
            assert crop.allowed is None
            assert crop.total_cap == geom.ruleset.largest_column_sum + CUTTING.total_slack
        else:
            assert crop.allowed == geom.ruleset.row(s.row).allowed
            assert crop.total_cap is None


def test_the_most_a_column_can_add_up_to_follows_the_variant() -> None:
    # Every row at its most: 5 + 10 + ... + 30, then 25, 35, 45 served and a served Grande
    # (80); with Doppel-Grande, Grande counts 50 and the Doppel-Grande row 100.
    counting = 5 + 10 + 15 + 20 + 25 + 30
    assert geometry_for(LayoutSpec()).ruleset.largest_column_sum == counting + 105 + 80
    doubled = geometry_for(LayoutSpec(variants=("doppel-grande",))).ruleset
    assert doubled.largest_column_sum == counting + 105 + 50 + 100


def test_readings_become_sheet_values() -> None:
    geom = geometry_for(LayoutSpec())
    snapped = [SnappedSlot(s, s.box, 0.0, 4) for s in geom.slots[:4]]
    readings = [
        CellReading("value", 3, 0.99, ((8, 0.01),), True),
        CellReading("struck", "x", 0.97, (), True),
        CellReading("empty", None, 0.99, (), True),
        CellReading("value", 0, 0.9, ((6, 0.05), (None, 0.02)), False),  # a written 0
    ]
    out = to_results(snapped, readings)
    assert [c.value for c in out] == [3, "x", None, "x"]
    assert out[0].alternatives == ((8, 0.01),)
    assert out[3].alternatives == ((6, 0.05), (None, 0.02)) and not out[3].certain


def test_total_reranks_the_one_unsure_cell_but_never_makes_it_certain() -> None:
    cells = [
        _cell("nines", 3, 0.99, True),
        _cell("tens", 4, 0.55, False, [(10, 0.4)]),  # 4 or 10?
        _cell("jacks", 9, 0.99, True),
        _cell("total", 22, 0.99, True),  # 3 + 10 + 9
    ]
    out = _by_row(check_totals(cells))
    assert out["tens"].value == 10 and out["tens"].confidence > 0.9
    assert out["tens"].certain is False
    assert out["tens"].alternatives[0][0] == 4
    assert out["nines"] == cells[0] and out["total"] == cells[3]


def test_total_supporting_the_top_reading_raises_confidence_only() -> None:
    # Read below the confirm rule's `first` on its own: an agreeing total raises it, but
    # not to certain.
    low = TOTALS.confirm.first - 0.05
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, low, False, [(10, 0.25)]),
             _cell("total", 7, 0.95, True)]
    out = _by_row(check_totals(cells))
    assert out["tens"].value == 4 and out["tens"].confidence > 0.95
    assert not out["tens"].certain
    # From `first` on, the same agreeing total confirms it.
    cells[1] = _cell("tens", 4, 0.7, False, [(10, 0.25)])
    out = _by_row(check_totals(cells))
    assert out["tens"].value == 4 and out["tens"].certain


def test_total_that_fits_no_candidate_changes_nothing_much() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.7, False, [(10, 0.25)]),
             _cell("total", 50, 0.95, True)]
    out = _by_row(check_totals(cells))
    assert out["tens"].value == 4 and not out["tens"].certain


def test_disagreeing_total_flags_the_cell_it_points_to() -> None:
    cells = [
        _cell("nines", 3, 0.99, True),
        _cell("tens", 4, 0.995, True, [(10, 0.004)]),
        _cell("jacks", 9, 0.99, True, [(6, 0.005)]),
        _cell("total", 22, 0.99, True),  # 3 + 10 + 9: only tens = 10 explains it
    ]
    out = _by_row(check_totals(cells))
    assert out["tens"].certain is False and out["tens"].value == 4
    assert out["jacks"].certain and out["nines"].certain
    assert out["total"].certain is False


def test_unexplained_total_puts_the_whole_column_up_for_review() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
             _cell("total", 99, 0.99, True)]
    out = check_totals(cells)
    assert not any(c.certain for c in out)
    assert [c.value for c in out] == [3, 4, 99]  # values kept, only certainty taken away
    assert "Kolonne prüfen" in out[0].note


def test_unsure_unrelated_total_changes_nothing() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
             _cell("total", 99, 0.4, False, [(98, 0.3)])]
    out = check_totals(cells)
    assert [(c.value, c.certain) for c in out] == [(3, True), (4, True), (99, False)]
    assert out[2].confidence == pytest.approx(0.4)


def test_a_total_read_as_one_of_two_numbers_that_both_disagree_puts_the_column_up() -> None:
    # 155 or 135, neither surely: a legible total all the same, and the entries (a 9
    # read as struck) add up to neither. The entry that may be the reason goes to review;
    # a total spread over many numbers (a scrawl) says nothing about the column.
    entries = [_cell("nines", 3, 0.9999, True), _cell("tens", 4, 0.9999, True),
               _cell("jacks", "x", 0.9908, True, [(9, 0.0055), (6, 0.0031)]),
               _cell("queens", 119, 0.9999, True)]
    narrow = _cell("total", 155, 0.516, False, [(135, 0.482)])
    out = _by_row(check_totals([*entries, narrow]))
    assert not out["jacks"].certain and out["nines"].certain
    assert "Kolonne prüfen" in out["total"].note
    scrawl = _cell("total", 155, 0.3, False, [(135, 0.2), (133, 0.1), (153, 0.1)])
    out = _by_row(check_totals([*entries, scrawl]))
    assert out["jacks"].certain and not out["total"].certain


def test_agreeing_total_changes_nothing() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
             _cell("total", 7, 0.99, True)]
    assert check_totals(cells) == cells


def test_unsure_total_read_as_the_sum_of_certain_cells() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
             _cell("total", 1, 0.5, False, [(7, 0.45)])]
    out = _by_row(check_totals(cells))
    assert out["total"].value == 7 and not out["total"].certain


def test_several_unsure_cells_are_weighed_together() -> None:
    cells = [_cell(r, 2, 0.6, False, [(4, 0.3)]) for r in ROWS[:2]]
    cells.append(_cell("total", 8, 0.99, True))  # only 4 + 4 adds up
    out = _by_row(check_totals(cells))
    for r in ROWS[:2]:
        assert out[r].value == 4 and not out[r].certain and out[r].confidence > 0.6


def test_total_no_reading_adds_up_to_is_flagged() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.6, False, [(6, 0.3)]),
             _cell("jacks", 9, 0.7, False, [(6, 0.2)]), _cell("total", 40, 0.97, True)]
    out = _by_row(check_totals(cells))
    assert not any(c.certain for c in out.values())  # nothing adds up to 40
    assert "Kolonne prüfen" in out["total"].note
    assert out["tens"].value == 4 and out["jacks"].value == 9


def test_a_column_of_unsure_cells_is_weighed_in_full() -> None:
    rows = ("nines", "tens", "jacks", "queens", "kings", "aces")
    cells = [_cell(r, 2, 0.6, False, [(4, 0.3)]) for r in rows]
    cells.append(_cell("total", 12, 0.99, True))  # only six 2s add up to 12
    out = _by_row(check_totals(cells))
    for r in rows:  # backed by the total, but never made certain from a weak first reading
        assert out[r].value == 2 and out[r].confidence > 0.9 and not out[r].certain
        assert str(out[r].note) == "durch Summe gestützt"


def test_the_total_is_found_beyond_its_first_readings() -> None:
    # The total's first readings are wrong (a phantom hundreds digit); the column's sum is
    # far down its list, and the certain entries pick it out.
    cells = [_cell("nines", 3, 0.999, True), _cell("tens", 40, 0.999, True),
             _cell("jacks", 19, 0.999, True)]
    total = replace(_cell("total", 662, 0.4, False, [(602, 0.25), (622, 0.08)]),
                    candidates=((662, 0.4), (602, 0.25), (622, 0.08), (612, 0.05),
                                (652, 0.04), (642, 0.03), (62, 0.02)))
    out = _by_row(check_totals([*cells, total]))
    assert out["total"].value == 62 and not out["total"].certain
    assert len(out["total"].alternatives) <= 3  # the review lists a few, not all


def test_a_total_the_entries_back_up_beyond_doubt_is_certain() -> None:
    cells = [_cell("nines", 3, 0.999, True), _cell("tens", 4, 0.95, False, [(6, 0.04)]),
             _cell("jacks", 9, 0.999, True)]
    total = _cell("total", 16, 0.95, False, [(76, 0.04)])  # 76: no reading adds up to it
    out = _by_row(check_totals([*cells, total]))
    assert out["total"].value == 16 and out["total"].certain
    assert str(out["total"].note) == "durch Summe bestätigt"
    # A total read less surely on its own (below the rule's `first`) stays for review, as
    # entries do.
    low = TOTALS.confirm.first - 0.05
    cells[1] = _cell("tens", 4, low, False, [(6, 0.9 - low)])
    weak = _cell("total", 16, low, False, [(76, 0.95 - low)])
    out = _by_row(check_totals([*cells, weak]))
    assert out["total"].value == 16 and not out["total"].certain
    assert out["tens"].value == 4 and not out["tens"].certain


def _brute_force(cells: list[CellResult], total: CellResult) -> dict[tuple, float]:
    """The joint posterior by enumerating every combination (the definition)."""
    from escalero.scoring.written_total import WRITTEN_TOTAL

    TOTAL_RIGHT, WRONG_TOTAL_SHARE = WRITTEN_TOTAL.right, WRITTEN_TOTAL.wrong_share

    other = object()
    opts = [[(c.value, c.confidence), *c.alternatives] for c in cells]
    opts = [[*o, (other, 1.0 - sum(p for _, p in o))] for o in opts]
    t_opts = [(total.value, total.confidence), *total.alternatives]
    t_opts = [*t_opts, (other, 1.0 - sum(p for _, p in t_opts))]
    marg: dict[tuple, float] = {}
    norm = 0.0
    for combo in itertools.product(*opts):
        prior = math.prod(p for _, p in combo)
        clean = all(v is not other for v, _ in combo)
        s = sum(v for v, _ in combo if isinstance(v, int))
        for tv, tp in t_opts:
            w = prior * tp * (TOTAL_RIGHT if clean and tv == s else WRONG_TOTAL_SHARE)
            norm += w
            for k, (v, _) in enumerate(combo):
                marg[(k, v)] = marg.get((k, v), 0.0) + w
    return {key: w / norm for key, w in marg.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, 4, 5, "x", None]),
                          st.sampled_from([1, 2, 3, 4, 5, "x", None]),
                          st.floats(0.3, 0.8), st.floats(0.0, 0.19)),
                min_size=1, max_size=4),
       st.integers(1, 20), st.floats(0.5, 0.95))
def test_joint_check_equals_enumeration(spec, written, t_conf) -> None:
    cells = []
    for k, (first, second, p1, p2) in enumerate(spec):
        alts = [(second, p2)] if second != first else []
        cells.append(_cell(ROWS_ALL[k], first, p1, False, alts))
    total = _cell("total", written, t_conf, False, [(written + 1, (1 - t_conf) / 2)])
    want = _brute_force(cells, total)
    out = check_totals([*cells, total])
    for k, c in enumerate(out[:-1]):
        assert c.confidence == pytest.approx(want[(k, c.value)], rel=1e-6, abs=1e-9)


ROWS_ALL = ("nines", "tens", "jacks", "queens")


def test_unsure_total_and_unsure_cell_settle_on_each_other() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.6, False, [(6, 0.35)]),
             _cell("total", 10, 0.5, False, [(9, 0.4)])]  # 3 + 6 = 9
    out = _by_row(check_totals(cells))
    assert out["tens"].value == 6 and out["total"].value == 9
    assert not out["tens"].certain and not out["total"].certain


def test_cells_too_small_in_the_photo_are_never_certain() -> None:
    from escalero.scan.cells import flag_small

    cells = [_cell("nines", 3, 0.999, True), _cell("tens", 4, 0.999, True),
             _cell("jacks", 6, 0.5, False)]
    out = flag_small(cells, [4.2, 2.6, 2.6], 3.0)
    assert [c.certain for c in out] == [True, False, False]
    assert "zu klein" in out[1].note and out[2] == cells[2]


def test_agreeing_confident_total_confirms_the_first_reading() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.97, False, [(10, 0.02)]),
             _cell("total", 7, 0.99, True)]
    out = _by_row(check_totals(cells))
    assert out["tens"].value == 4 and out["tens"].certain
    assert out["tens"].confidence >= 0.995


def test_a_total_confirms_a_strike_only_as_surely_as_it_could_be_a_forgotten_entry() -> None:
    # A 1 read as struck adds up exactly when the player left that 1 out of the total, so
    # the total that backs a strike read with 0.85 does not make it certain; a number read
    # as surely and backed as well is.
    cells = [_cell("nines", "x", 0.85, False, [(1, 0.15)]), _cell("tens", 4, 0.999, True),
             _cell("total", 4, 0.999, True)]
    out = _by_row(check_totals(cells))
    assert out["nines"].value == "x" and out["nines"].confidence > 0.995
    assert not out["nines"].certain
    cells[0] = _cell("nines", 2, 0.85, False, [(1, 0.15)])
    cells[2] = _cell("total", 6, 0.999, True)
    out = _by_row(check_totals(cells))
    assert out["nines"].value == 2 and out["nines"].certain


def test_a_total_that_adds_up_only_with_an_unsure_strike_is_confirmed_as_surely() -> None:
    # Jacks read struck (0.91, 9 at 0.089), the total 130 (0.93, 139 at 0.022): a 9 read as
    # struck and 139 read as 130 agree with each other. The total is confirmed only as
    # surely as the strike would be; with an unsure *number* in the column it is confirmed.
    def column(jacks: CellResult, total: int, other: int) -> list[CellResult]:
        return [_cell("nines", "x", 0.9999, True), _cell("tens", 4, 0.9999, True), jacks,
                _cell("queens", 126, 0.9999, True),
                _cell("total", total, 0.93, False, [(other, 0.022), (total + 1, 0.012)])]

    out = _by_row(check_totals(column(_cell("jacks", "x", 0.91, False, [(9, 0.089)]),
                                      130, 139)))
    assert out["total"].value == 130 and out["total"].confidence > 0.995
    assert not out["total"].certain and not out["jacks"].certain
    out = _by_row(check_totals(column(_cell("jacks", 3, 0.91, False, [(9, 0.089)]),
                                      133, 139)))
    assert out["total"].value == 133 and out["total"].certain


def test_a_total_read_unsurely_confirms_only_beyond_doubt() -> None:
    # Tens 4 (0.97) or 10 (0.005); the total 7 or 13. Read at 0.75 / 0.2 the total backs
    # the 4 to 0.998 and confirms it; read at 0.6 / 0.3 it backs it to 0.997, which a
    # total read below TOTALS.confident_total may not confirm (it needs 0.999).
    def column(total: float, rival: float) -> list[CellResult]:
        return [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.97, False, [(10, 0.005)]),
                _cell("total", 7, total, False, [(13, rival)])]

    strong = _by_row(check_totals(column(0.75, 0.2)))["tens"]
    assert strong.certain and 0.995 < strong.confidence < 0.999
    weak = _by_row(check_totals(column(0.6, 0.3)))["tens"]
    assert not weak.certain and 0.995 < weak.confidence < 0.999
    # With no reading of the total that backs a rival, the weak total backs the 4 beyond
    # 0.999 and confirms it.
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.97, False, [(10, 0.02)]),
             _cell("total", 7, 0.6, False, [(1, 0.3)])]
    backed = _by_row(check_totals(cells))["tens"]
    assert backed.certain and backed.confidence > 0.999


def test_mis_added_total_never_makes_the_alternative_certain() -> None:
    # The player wrote 13 (3 + 10) but the cell shows 4 fairly clearly: the total pulls
    # the reading towards 10, which must stay up for review.
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.9, False, [(10, 0.09)]),
             _cell("total", 13, 0.99, True)]
    out = _by_row(check_totals(cells))
    assert not out["tens"].certain


def test_total_read_as_the_exact_sum_of_certain_entries_is_certain() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
             _cell("total", 7, 0.35, False, [(1, 0.3), (71, 0.2)])]
    out = _by_row(check_totals(cells))
    assert out["total"].value == 7 and out["total"].certain


def test_total_is_not_confirmed_by_unsure_entries_or_another_sum() -> None:
    unsure_entry = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.5, False, [(2, 0.4)]),
                    _cell("total", 7, 0.35, False, [(5, 0.3)])]
    assert not _by_row(check_totals(unsure_entry))["total"].certain
    other_sum = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
                 _cell("total", 9, 0.35, False, [(7, 0.3)])]
    assert not _by_row(check_totals(other_sum))["total"].certain


def test_an_empty_total_stays_empty() -> None:
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.99, True),
             _cell("total", None, 0.6, False, [(7, 0.01)])]
    out = _by_row(check_totals(cells))
    assert out["total"].value is None


def test_a_column_that_adds_up_as_read_is_not_put_up_for_review() -> None:
    # A Zehner 4 the network sees as a 9 (a number the row does not allow): its reading 4
    # is unlikely, so the column agrees with its total only in probability. But read as
    # read it adds up to the total exactly: the 4 goes to review, the certain entries and
    # the total's reading do not become suspect.
    entries = [_cell("nines", 3, 0.995, True), _cell("tens", 4, 0.005, False, [(8, 0.001)]),
               _cell("jacks", 9, 0.997, True)]
    total = _cell("total", 16, 0.999, True)
    out = _by_row(check_totals([*entries, total]))
    assert out["nines"].certain and out["jacks"].certain
    assert not out["tens"].certain and out["tens"].value == 4
    assert out["total"].note is None or "Kolonne prüfen" not in out["total"].note
    # The same column with a total it does not add up to goes up as before.
    out = _by_row(check_totals([*entries, replace(total, value=17)]))
    assert not out["nines"].certain and not out["jacks"].certain
    assert "Kolonne prüfen" in out["total"].note


def test_mis_added_column_flags_the_total_and_only_the_doubtful_entries() -> None:
    cells = [_cell("nines", 3, 0.99999, True), _cell("tens", 4, 0.995, True),
             _cell("jacks", 9, 0.9999, True), _cell("total", 99, 0.99, True)]
    out = _by_row(check_totals(cells))
    assert out["nines"].certain and out["jacks"].certain  # read far above TOTALS.doubt
    assert not out["tens"].certain and not out["total"].certain
    assert "Kolonne prüfen" in out["total"].note



def test_a_mis_added_column_leaves_entries_certain_that_could_not_explain_it() -> None:
    # The total is 30 more than the entries: no reading of the nines (3, or 2 at 0.002) or
    # of the tens (4, or 10 at 0.002) adds up to it, so a mis-added total is far likelier
    # than either misread: both stay certain. The jacks (9 at 0.997) leave 0.003 their
    # readings do not account for, which might be the very number: it goes up with the
    # total.
    cells = [_cell("nines", 3, 0.998, True, [(2, 0.002)]),
             _cell("tens", 4, 0.998, True, [(10, 0.002)]),
             _cell("jacks", 9, 0.997, True), _cell("total", 46, 0.99, True)]
    out = _by_row(check_totals(cells, replace(TOTALS, suspect=0.003)))
    assert out["nines"].certain and out["tens"].certain
    assert not out["jacks"].certain and out["jacks"].note.key == "check_column"
    assert not out["total"].certain and "Kolonne prüfen" in out["total"].note
    every = _by_row(check_totals(cells))  # the default: every entry below TOTALS.doubt
    assert not every["nines"].certain and not every["tens"].certain


def test_a_number_the_row_does_not_allow_may_explain_a_mis_added_column() -> None:
    # Read 4 (0.998); the network saw a 34 besides, which the row does not allow. With a
    # total that 34 makes add up, the cell may hold that very number and goes to review;
    # with a total it does not, the cell stays certain.
    def column(total: int) -> list[CellResult]:
        tens = replace(_cell("tens", 4, 0.998, True), candidates=((4, 0.998), (None, 0.0009)),
                       outside=((34, 0.0011),))
        return [_cell("nines", 3, 0.9995, True), tens, _cell("total", total, 0.99, True)]

    spare = replace(TOTALS, suspect=0.003)
    assert not _by_row(check_totals(column(37), spare))["tens"].certain  # 3 + 34
    assert _by_row(check_totals(column(50), spare))["tens"].certain


def test_a_total_the_column_disagrees_with_is_not_called_confirmed() -> None:
    # Read surely enough on its own to pass the confirmation rule, but no reading of the
    # entries adds up to it: the column goes to review, and the total's note says so.
    cells = [_cell("nines", 3, 0.99, True), _cell("tens", 4, 0.995, True),
             _cell("jacks", 9, 0.6, False, [(6, 0.3)])]
    total = _cell("total", 20, 0.997, False, [(26, 0.002)])
    out = _by_row(check_totals([*cells, total]))
    assert not out["total"].certain
    assert out["total"].note is not None and out["total"].note.key == "check_column"
    assert out["nines"].note is not None and out["nines"].note.key == "check_column"


def _aces_column(aces_confidence: float, rival: float) -> list[CellResult]:
    """Certain entries adding up to 201 with the Asse read as 12 (18 its rival), under a
    total read as 207 at 0.86, with 201 among its readings."""
    entries = [("nines", 2), ("tens", 6), ("jacks", 9), ("queens", 12), ("kings", 15),
               ("straight", 25), ("full_house", 30), ("poker", 40), ("grande", 50)]
    return [*(_cell(row, v, 0.9999, True) for row, v in entries),
            _cell("aces", 12, aces_confidence, True, [(18, rival)]),
            _cell("total", 207, 0.86, False, [(209, 0.07), (201, 0.033)])]


def test_a_certain_entry_the_total_contradicts_goes_to_review() -> None:
    # Such a column agrees with its total only as a mis-added one (0.75), so the
    # disagreement alone flags nothing; weighed with the total, the 12 is misread w.p. 0.09.
    out = _by_row(check_totals(_aces_column(0.995, 0.0026)))
    assert not out["aces"].certain and out["aces"].value == 12
    assert out["aces"].note == note("total_fits", written=207, value=18)
    assert not out["total"].certain
    assert all(c.certain for c in out.values() if c.row not in ("aces", "total"))
    # Read beyond TOTALS.doubt, the entry stays certain.
    assert _by_row(check_totals(_aces_column(0.9995, 0.0004)))["aces"].certain


def test_a_total_misread_like_its_unsure_entry_is_not_confirmed() -> None:
    # The Zehner is 8 or 2, the total 98 or 92: the same writer's 2 read as 8 twice. The
    # total backs the 8 to 0.991 (not enough to confirm it), and the 8 backs the 98 to
    # 0.998, which would confirm a total whose misreading is the entry's own.
    def column(tens_rival: int, total_rival: int) -> list[CellResult]:
        entries = [("nines", 2), ("jacks", 3), ("queens", 4), ("kings", 5), ("aces", 6),
                   ("full_house", 30), ("poker", 40)]
        return [*(_cell(row, v, 0.9999, True) for row, v in entries),
                _cell("tens", 8, 0.6, False, [(tens_rival, 0.4)]),
                _cell("total", 98, 0.995, False, [(total_rival, 0.003)])]

    alike = _by_row(check_totals(column(2, 92)))
    assert not alike["tens"].certain and not alike["total"].certain
    # Nor is it evidence for the payout (scan.payout mutes it): taken for a second
    # opinion, the two readings of one misread digit made a payout certain and wrong
    # (an 18 beside 12 under 138 beside 132, mild photo 11700000-107).
    assert alike["total"].total_alike
    # A rival that is no swap of the same digit (4, making 94, which the total is not
    # read as) leaves the total a second opinion: it is confirmed.
    other = _by_row(check_totals(column(4, 92)))
    assert other["total"].certain and other["total"].value == 98
    assert not other["total"].total_alike
    # An alike reading the entry all but rules out (below TOTALS.alike_mute_from) leaves
    # the total its say: it could not change the payout anyway.
    entries = [_cell(row, v, 0.9999, True) for row, v in (
        ("nines", 2), ("jacks", 3), ("queens", 4), ("kings", 5), ("aces", 6),
        ("full_house", 30), ("poker", 40))]
    faint = _by_row(check_totals([*entries, _cell("tens", 8, 0.9995, False, [(2, 0.0002)]),
                                  _cell("total", 98, 0.995, False, [(92, 0.003)])]))
    assert not faint["total"].total_alike


def test_an_entry_misread_like_its_total_is_confirmed_only_beyond_doubt() -> None:
    # An Asse 12 or 18 (a writer's 8 read as 2) under a total read as 182 alone: 188 would
    # be the same 8 read as 2 again, so the total backs the 12 to 0.9989 but cannot
    # confirm it (it needs 0.999, as a strike would). A Könige 15 or 10 under 195 (a 5
    # and a 0: digits the network does not mistake for each other) is confirmed.
    def column(row: str, read: int, other: int, total: int) -> list[CellResult]:
        entries = [("nines", 2), ("queens", 8), ("straight", 20), ("full_house", 30),
                   ("poker", 40), ("grande", 50), ("kings", 20) if row == "aces" else ("aces", 30)]
        return [*(_cell(r, v, 0.9999, True) for r, v in entries),
                _cell(row, read, 0.9, False, [(other, 0.09)]),
                _cell("total", total, 0.997, False)]

    aces = _by_row(check_totals(column("aces", 12, 18, 182)))
    assert aces["aces"].value == 12 and 0.995 < aces["aces"].confidence < 0.999
    assert not aces["aces"].certain
    kings = _by_row(check_totals(column("kings", 15, 10, 195)))
    assert kings["kings"].certain and 0.995 < kings["kings"].confidence < 0.999


def _jacks_column(queens: int, total: int, alt: int) -> list[CellResult]:
    return [_cell("nines", "x", 0.9999, True), _cell("tens", 4, 0.9999, True),
            _cell("jacks", "x", 0.9958, False, [(9, 0.004)]),
            _cell("queens", queens, 0.9999, True),
            _cell("total", total, 0.9943, False, [(alt, 0.002)])]


def test_an_open_9_read_as_struck_is_not_confirmed_by_a_total_misread_alike() -> None:
    """An open 9 reads as a written 0 (struck), and the total's 9 as a 0 alike: 199 read
    as 190 adds up with the strike (mild photo 9800000-037). Neither confirms the other;
    the strike says which total would fit a 9, and both are marked for the payout."""
    out = _by_row(check_totals(_jacks_column(186, 190, 199)))
    assert not out["jacks"].certain and not out["total"].certain
    assert out["jacks"].total_alike and out["total"].total_alike
    assert out["jacks"].note == note("total_fits", written=199, value=9)
    # A total whose other reading is no 0 -> 9 swap backs the strike as before.
    out = _by_row(check_totals(_jacks_column(181, 185, 194)))
    assert out["jacks"].certain and not out["jacks"].total_alike


def test_a_reading_the_hand_doubts_is_confirmed_only_by_a_total_read_as_it_adds_up() -> None:
    """A Neuner 2 read as 1 at 0.9998 where this sheet writes its 2 like that (scan.
    same_hand), in a column whose total 138 was read right: the total, taken for misread,
    left the 1 as sure as it was, which confirmed it (fresh pub photo 10100000-038). It is
    confirmed only by a total that agrees with its column."""
    def column(total: int) -> list[CellResult]:
        nines = replace(_cell("nines", 1, 0.99984, False), written_like=("1", "2"))
        return [nines, _cell("tens", 4, 0.99997, True), _cell("queens", 132, 0.9999, True),
                _cell("total", total, 0.9976, False, [(total + 20, 0.0012)])]

    assert not _by_row(check_totals(column(138)))["nines"].certain
    assert _by_row(check_totals(column(137)))["nines"].certain
