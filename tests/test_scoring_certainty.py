"""The payout's certainty (scoring.certainty): exact against brute force, and the cases a
player meets (one cell decides, many cells cannot matter, a tie, an unfinished sheet)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from escalero.scoring.certainty import (
    CERTAINTY,
    CellBelief,
    payout_certainty,
    top_sets,
)
from escalero.scoring.house import PRESETS
from escalero.scoring.model import Sheet, cell_points, with_cell
from escalero.scoring.rulesets import get_ruleset
from escalero.scoring.settle import settle
from escalero.scoring.written_total import WRITTEN_TOTAL, WrittenTotalModel
from hypothesis import given, settings
from hypothesis import strategies as st

ESCALERO_ROWS = get_ruleset().row_ids


def _sheet(columns_per_side: list[list[dict]], game: str = "escalero",
           totals: list[list[int | None]] | None = None) -> Sheet:
    return Sheet.from_json({
        "game": game,
        "sides": [{"name": f"S{i}", "columns": cols,
                   **({"written_totals": totals[i]} if totals else {})}
                  for i, cols in enumerate(columns_per_side)]})


def _full(rng: np.random.Generator, game: str = "escalero") -> dict:
    rules = get_ruleset(game)
    out = {}
    for row in rules.rows:
        if row.requires:
            out[row.id] = "x"
            continue
        choice = rng.integers(0, len(row.allowed) + 1)
        out[row.id] = "x" if choice == len(row.allowed) else int(row.allowed[choice])
    return out


# --- brute force -----------------------------------------------------------------------


def _brute(sheet: Sheet, beliefs: list[CellBelief]) -> float:
    """P(points as shown) by enumerating every combination of the unsure cells' readings,
    weighting each written total by its likelihood (the model in the module doc)."""
    shown = settle(sheet).points
    written = {(s, c): t for s, side in enumerate(sheet.sides)
               for c, t in enumerate(side.written_totals) if t is not None}
    good = 0.0
    total = 0.0
    for combo in itertools.product(*(b.distribution for b in beliefs)):
        weight = 1.0
        variant = sheet
        for b, (v, p) in zip(beliefs, combo, strict=True):
            weight *= p
            variant = with_cell(variant, b.key, v)
        for (s, c), t in written.items():
            right = variant.sides[s].column_total(c) == t
            weight *= WRITTEN_TOTAL.right if right else WRITTEN_TOTAL.wrong_share
        total += weight
        if settle(variant).points == shown:
            good += weight
    return good / total


def _random_case(seed: int, sides: int, unsure: int, game: str = "escalero"
                 ) -> tuple[Sheet, list[CellBelief]]:
    rng = np.random.default_rng(seed)
    rules = get_ruleset(game)
    cols = [[_full(rng, game) for _ in range(rules.columns)] for _ in range(sides)]
    totals = []
    for side in cols:
        row = []
        for col in side:
            s = sum(cell_points(v if v != "x" else None) for v in col.values())
            row.append(int(rng.choice([s, s, s + 5])) if rng.random() < 0.6 else None)
        totals.append(row)
    sheet = _sheet(cols, game, totals)
    keys = list(itertools.product(range(sides), range(rules.columns),
                                  [r.id for r in rules.rows if not r.requires]))
    picked = rng.choice(len(keys), size=min(unsure, len(keys)), replace=False)
    beliefs = []
    for i in picked:
        s, c, row = keys[int(i)]
        allowed = [*rules.row(row).allowed, "x", None]
        k = int(rng.integers(2, 4))
        values = [allowed[j] for j in rng.choice(len(allowed), size=k, replace=False)]
        shown = cols[s][c].get(row)
        values = [shown, *[v for v in values if v != shown]][:k]
        probs = rng.dirichlet(np.ones(len(values)))
        beliefs.append(CellBelief(s, c, row, tuple(zip(values, probs.tolist(), strict=True))))
    return sheet, beliefs


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), sides=st.integers(2, 3), unsure=st.integers(0, 4))
def test_confidence_equals_brute_force_escalero(seed: int, sides: int, unsure: int) -> None:
    sheet, beliefs = _random_case(seed, sides, unsure)
    got = payout_certainty(sheet, beliefs).confidence
    assert got == pytest.approx(_brute(sheet, beliefs), abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), unsure=st.integers(1, 4))
def test_confidence_equals_brute_force_with_split_ties(seed: int, unsure: int) -> None:
    """House rules that split tied columns: the payout hangs on the same top sets."""
    sheet, beliefs = _random_case(seed, 3, unsure)
    sheet = replace(sheet, house_rules=PRESETS["wirtshaus"])
    got = payout_certainty(sheet, beliefs).confidence
    assert got == pytest.approx(_brute(sheet, beliefs), abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), sides=st.integers(2, 4), unsure=st.integers(1, 4))
def test_confidence_equals_brute_force_generala(seed: int, sides: int, unsure: int) -> None:
    sheet, beliefs = _random_case(seed, sides, unsure, game="generala")
    got = payout_certainty(sheet, beliefs).confidence
    assert got == pytest.approx(_brute(sheet, beliefs), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6), min_size=2, max_size=4))
def test_top_sets_equal_enumeration(weights: list[list[float]]) -> None:
    pmfs = [np.array(w) / sum(w) if sum(w) > 0 else np.eye(1, len(w))[0] for w in weights]
    got = top_sets(pmfs)
    want: dict[frozenset[int], float] = {}
    for values in itertools.product(*(range(len(p)) for p in pmfs)):
        p = float(np.prod([pm[v] for pm, v in zip(pmfs, values, strict=True)]))
        top = max(values)
        group = frozenset(i for i, v in enumerate(values) if v == top)
        want[group] = want.get(group, 0.0) + p
    # top_sets leaves out sums whose mass is at most 1e-9 (documented): each can cost a
    # group that much.
    pruned = sum(len(p) for p in pmfs) * 1e-9
    for group in set(got) | set(want):
        assert got.get(group, 0.0) == pytest.approx(want.get(group, 0.0), abs=pruned)


# --- the cases a player meets ------------------------------------------------------------

A = dict(zip(ESCALERO_ROWS, [3, 6, 9, 12, 15, 18, 20, 30, 40, 50], strict=True))  # 203
B = dict(zip(ESCALERO_ROWS, [2, 4, 6, 8, 10, 12, 20, 30, 40, 50], strict=True))  # 182


def test_one_unsure_cell_decides_a_column() -> None:
    sheet = _sheet([[A, A, A], [B, B, B]])
    # A's Grande in column I: 50, or empty (A 153 < B 182: B would win column I)
    grande = CellBelief(0, 0, "grande", ((50, 0.95), (None, 0.05)))
    result = payout_certainty(sheet, [grande], [grande.key])
    assert result.confidence == pytest.approx(0.95)
    assert not result.certain
    assert result.deciding == ((0, 0, "grande"),)
    assert result.impacts[0].gain == pytest.approx(0.05)


def test_only_the_cells_the_certainty_needs_are_asked() -> None:
    sheet = _sheet([[A, A, A], [B, B, B]])
    # Both can change the payout (empty Grande: B wins column I; struck Poker: B wins II),
    # but confirming the Grande alone lifts the confidence to 0.998.
    grande = CellBelief(0, 0, "grande", ((50, 0.9), (None, 0.1)))
    poker = CellBelief(0, 1, "poker", ((40, 0.998), ("x", 0.002)))
    result = payout_certainty(sheet, [grande, poker], [grande.key, poker.key])
    assert result.deciding == (grande.key,)
    assert result.impact(poker.key).could_change and not result.impact(poker.key).affects_payout
    # Once the Grande is answered, the Poker alone stands between the payout and certainty
    # only if the threshold asks for more than it leaves.
    after = payout_certainty(sheet, [poker], [poker.key])
    assert after.certain and after.deciding == ()
    strict = payout_certainty(sheet, [poker], [poker.key], replace(CERTAINTY, accept=0.999))
    assert strict.deciding == (poker.key,)


def test_a_doubted_reading_whose_lost_mass_decides_a_column_is_asked_first() -> None:
    struck = dict(zip(ESCALERO_ROWS, [3, 6, 9, 12, 15, 18, 25, 35, 45, "x"], strict=True))
    sheet = _sheet([[A, A, A], [struck, B, B]])  # column I: 203 against 168
    # Side 1's struck Grande is doubted (a faint digit before a 0): it keeps half its mass,
    # and the row's other readings share the rest, 50 among them, which takes column I.
    grande = CellBelief(1, 0, "grande", (("x", 0.5),))
    # A cell read almost surely, whose rare alternative would also move a column.
    poker = CellBelief(0, 1, "poker", ((40, 0.995), ("x", 0.005)))
    result = payout_certainty(sheet, [grande, poker], [grande.key, poker.key])
    assert not result.certain
    assert result.impact(grande.key).affects_payout
    assert result.deciding[0] == grande.key


def test_an_entry_read_as_empty_for_sure_is_asked_on_an_otherwise_finished_sheet() -> None:
    gap = {**A, "kings": None}
    sheet = _sheet([[A, A, A], [B, gap, B]])
    # Read as empty with 0.997: the confidence alone would call the payout certain, but an
    # unfinished sheet is not, and only an answer about that entry can finish it.
    kings = CellBelief(1, 1, "kings", ((None, 0.997), (15, 0.003)))
    result = payout_certainty(sheet, [kings], [])
    assert not result.certain and result.confidence >= CERTAINTY.accept
    assert result.deciding == (kings.key,)
    # A game in progress (many empty entries) is not turned into questions.
    started = _sheet([[A, {}, {}], [B, {}, {}]])
    assert payout_certainty(started, []).deciding == ()


def test_ten_unsure_cells_that_cannot_matter_leave_the_payout_certain() -> None:
    sheet = _sheet([[A, A, A], [B, B, B]])
    rows = ("nines", "tens", "jacks", "queens", "kings")
    beliefs = [CellBelief(1, c, r, ((B[r], 0.8), ("x", 0.2))) for c in range(2) for r in rows]
    result = payout_certainty(sheet, beliefs, [b.key for b in beliefs])
    assert len(result.impacts) == 10
    assert result.certain and result.confidence == pytest.approx(1.0)
    assert not any(i.affects_payout for i in result.impacts)
    assert result.deciding == ()


def test_a_tie_is_certain_when_nothing_can_break_it() -> None:
    sheet = _sheet([[A, A, A], [A, B, B]])  # column I tied at 203: nobody wins it
    assert settle(sheet).winners == (None, 0, 0)
    assert payout_certainty(sheet, []).certain


def test_a_tie_one_cell_can_break_is_not_certain() -> None:
    sheet = _sheet([[A, A, A], [A, B, B]])
    nines = CellBelief(1, 0, "nines", ((3, 0.9), (4, 0.1)))  # 4: side 1 takes column I
    result = payout_certainty(sheet, [nines], [nines.key])
    assert result.confidence == pytest.approx(0.9)
    assert result.deciding == (nines.key,)


def test_an_unfinished_sheet_is_never_certain() -> None:
    sheet = _sheet([[{k: v for k, v in A.items() if k != "nines"}, A, A], [B, B, B]])
    result = payout_certainty(sheet, [])
    assert result.confidence == pytest.approx(1.0)
    assert not result.finished and not result.certain


def test_an_agreeing_total_raises_confidence_a_disagreeing_one_lowers_it() -> None:
    beliefs = [CellBelief(0, 0, "grande", ((50, 0.7), (None, 0.3)))]

    def confidence(total: int | None) -> float:
        sheet = _sheet([[A, A, A], [B, B, B]], totals=[[total, None, None], [None] * 3])
        return payout_certainty(sheet, beliefs).confidence

    assert confidence(None) == pytest.approx(0.7)
    assert confidence(203) > 0.99  # the column as shown
    assert confidence(140) == pytest.approx(0.7)  # mis-added, matching nothing: no say
    # Matching the other reading (grande empty), it speaks for that one: the sheet as
    # shown (50) is then the unlikely one, so the payout is asked about, not taken.
    assert confidence(153) == pytest.approx(0.7 * 0.01 / (0.7 * 0.01 + 0.3 * 0.9))


def test_a_total_read_unsurely_agrees_when_it_may_be_read_as_the_sum() -> None:
    beliefs = [CellBelief(0, 0, "grande", ((50, 0.7), (None, 0.3))),
               CellBelief(0, 0, "total", ((208, 0.6), (203, 0.3), (153, 0.1)))]
    sheet = _sheet([[A, A, A], [B, B, B]], totals=[[208, None, None], [None] * 3])
    got = payout_certainty(sheet, beliefs).confidence
    # Likelihood of the sum s: 0.01 + 0.89 * P(total read as s); the prior 0.7 / 0.3.
    right, wrong = 0.7 * (0.01 + 0.89 * 0.3), 0.3 * (0.01 + 0.89 * 0.1)
    assert got == pytest.approx(right / (right + wrong))


def test_a_weak_certain_reading_in_a_close_column_is_asked_about() -> None:
    close = dict(B, grande=80)  # 212 against A's 203 in column I
    sheet = _sheet([[A, A, A], [close, B, B]])
    weak = CellBelief(1, 0, "kings", ((10, 0.998), (5, 0.002)))  # 5: 207, still ahead
    decisive = CellBelief(1, 0, "grande", ((80, 0.98), (50, 0.02)))  # 50: A wins
    result = payout_certainty(sheet, [weak, decisive], asked=[])
    assert not result.certain
    assert [i.key for i in result.impacts if i.extra] == [decisive.key]


def test_points_depend_on_the_all_three_bonus() -> None:
    # A wins all three only if its column-III Grande stands: the bonus is in the points.
    b3 = dict(A, grande=80)
    sheet = _sheet([[A, A, A], [B, B, b3]])  # B wins III (212 > 203)
    belief = CellBelief(1, 2, "grande", ((80, 0.6), (50, 0.4)))  # 50: B 182, A sweeps
    result = payout_certainty(sheet, [belief], [belief.key])
    assert result.confidence == pytest.approx(0.6)
    assert result.impacts[0].affects_payout


def test_answers_count_as_written() -> None:
    sheet = _sheet([[A, A, A], [B, B, B]])
    grande = CellBelief(0, 0, "grande", ((50, 0.5), (None, 0.5)))
    assert not payout_certainty(sheet, [grande]).certain
    assert payout_certainty(sheet, []).certain  # the belief gone: a person confirmed it
    assert CERTAINTY.accept < 1.0


def test_a_total_that_adds_up_with_another_reading_keeps_the_payout_open() -> None:
    # A strike read as 80 with 0.98 (a benchmark photo): the written total adds up with
    # the strike, and the 80 alone takes column I from side 1. Certain before, wrong.
    misread = dict(B, grande=80)  # 212 against A's 203; struck it is 132
    written = 132
    grande = CellBelief(1, 0, "grande", ((80, 0.979), (50, 0.019), ("x", 0.002)))
    sheet = _sheet([[A, A, A], [misread, B, B]], totals=[[None] * 3, [written, None, None]])
    assert settle(sheet).winners[0] == 1  # as shown; with the strike side 0 takes it
    result = payout_certainty(sheet, [grande], [grande.key])
    assert not result.certain
    assert result.deciding == (grande.key,)
    assert result.confidence == pytest.approx(_brute(sheet, [grande]))


def test_a_cell_that_fits_none_of_its_readings_keeps_the_payout_open() -> None:
    # A's Grande in column I lists all four readings the row has (50, 80, struck, empty),
    # and together they hold 2% of the mass: the ink looks like no Grande entry. 50 is the
    # likeliest of them, but the 98% they leave is spread over all four, so the payout
    # stays open (struck or empty: B wins column I).
    sheet = _sheet([[A, A, A], [B, B, B]])
    grande = CellBelief(0, 0, "grande",
                        ((50, 0.017), (80, 0.001), ("x", 0.001), (None, 0.001)))
    result = payout_certainty(sheet, [grande], [grande.key])
    assert not result.certain
    assert result.confidence == pytest.approx(0.018 + 0.98 / 2)  # 50 or 80: A takes I


def test_one_model_of_a_written_total() -> None:
    """The scanner's totals check and the payout weigh a total by the same model, and the
    model refuses numbers that would make a wrong total as likely as a right one."""
    from escalero.scan import cells

    assert cells.WRITTEN_TOTAL is WRITTEN_TOTAL
    fit = WRITTEN_TOTAL.fit({12: 0.5, 13: 0.5}, 20)
    assert fit[12] == pytest.approx(WRITTEN_TOTAL.agreement(0.5)) and fit[0] == 0.01
    with pytest.raises(ValueError):
        WrittenTotalModel(right=0.01, wrong_share=0.01)
