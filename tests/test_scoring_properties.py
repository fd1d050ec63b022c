"""Property tests: zero-sum, symmetry, monotonicity, money that settles."""

from __future__ import annotations

from decimal import Decimal
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.model import Sheet
from scoring.money import fewest_transfers, player_amounts, side_amounts
from scoring.report import settle_report
from scoring.rulesets import get_ruleset
from scoring.settle import escalero_points, generala_points

RULESETS = [get_ruleset("escalero", v) for v in ((), ("one-column",), ("weights-123",))]
TOTAL = st.integers(min_value=0, max_value=60)  # small range: ties happen often


@st.composite
def escalero_game(draw: st.DrawFn) -> tuple[list[list[int]], tuple[int, ...], int]:
    rules = draw(st.sampled_from(RULESETS))
    n = draw(st.integers(min_value=1, max_value=7))
    totals = draw(st.lists(st.lists(TOTAL, min_size=rules.columns, max_size=rules.columns),
                           min_size=n, max_size=n))
    return totals, rules.column_weights, rules.all_columns_bonus


@settings(max_examples=300, deadline=None)
@given(escalero_game())
def test_escalero_points_sum_to_zero(game: tuple) -> None:
    totals, weights, bonus = game
    _, points, _ = escalero_points(totals, weights, bonus)
    assert sum(points) == 0


@settings(max_examples=150, deadline=None)
@given(escalero_game(), st.randoms(use_true_random=False))
def test_permuting_sides_permutes_points(game: tuple, rnd) -> None:
    totals, weights, bonus = game
    order = list(range(len(totals)))
    rnd.shuffle(order)
    _, points, _ = escalero_points(totals, weights, bonus)
    _, permuted, _ = escalero_points([totals[i] for i in order], weights, bonus)
    assert list(permuted) == [points[i] for i in order]


@settings(max_examples=300, deadline=None)
@given(escalero_game(), st.data())
def test_raising_a_total_never_lowers_points(game: tuple, data: st.DataObject) -> None:
    totals, weights, bonus = game
    s = data.draw(st.integers(0, len(totals) - 1))
    c = data.draw(st.integers(0, len(weights) - 1))
    raised = [list(t) for t in totals]
    raised[s][c] += data.draw(st.integers(1, 30))
    before = escalero_points(totals, weights, bonus)[1][s]
    after = escalero_points(raised, weights, bonus)[1][s]
    assert after >= before


def test_all_permutations_small() -> None:
    totals = [[10, 20, 30], [10, 25, 5], [3, 25, 40]]
    _, base, _ = escalero_points(totals, (1, 2, 4), 2)
    for order in permutations(range(3)):
        _, points, _ = escalero_points([totals[i] for i in order], (1, 2, 4), 2)
        assert list(points) == [base[i] for i in order]


@settings(max_examples=200, deadline=None)
@given(st.lists(TOTAL, min_size=1, max_size=9), st.data())
def test_generala_zero_sum_and_monotone(totals: list[int], data: st.DataObject) -> None:
    winners, points = generala_points(totals)
    assert sum(points) == 0
    assert set(winners) == {i for i, t in enumerate(totals) if t == max(totals)}
    s = data.draw(st.integers(0, len(totals) - 1))
    raised = list(totals)
    raised[s] += data.draw(st.integers(1, 30))
    assert generala_points(raised)[1][s] >= points[s]


BALANCES = st.lists(st.integers(-5000, 5000), min_size=0, max_size=14).map(
    lambda xs: [*xs, -sum(xs)])


@settings(max_examples=300, deadline=None)
@given(BALANCES)
def test_transfers_settle_every_balance(balances: list[int]) -> None:
    transfers = fewest_transfers(balances)
    left = list(balances)
    for t in transfers:
        assert t.cents > 0 and t.payer != t.payee
        left[t.payer] += t.cents
        left[t.payee] -= t.cents
    assert left == [0] * len(balances)
    assert len(transfers) <= max(0, sum(1 for b in balances if b) - 1)


@settings(max_examples=200, deadline=None)
@given(escalero_game(), st.integers(0, 500), st.data())
def test_money_per_player_sums_to_zero(game: tuple, stake: int, data: st.DataObject) -> None:
    totals, weights, bonus = game
    _, points, _ = escalero_points(totals, weights, bonus)
    sizes = data.draw(st.lists(st.integers(1, 2), min_size=len(totals), max_size=len(totals)))
    members = [[f"p{s}_{m}" for m in range(k)] for s, k in enumerate(sizes)]
    amounts = side_amounts(points, stake)
    assert sum(amounts) == 0
    players = player_amounts(members, amounts)
    assert sum(players.values()) == 0
    if max(sizes) == 2:  # pairs: each member of a pair carries the side's amount
        for names, amount in zip(members, amounts, strict=True):
            if len(names) == 2:
                assert all(players[n] == amount for n in names)


# --- whole sheets through settle_report ------------------------------------------------------

SHEET_RULES = [get_ruleset("escalero", v) for v in ((), ("strasse-25", "doppel-grande"),
                                                    ("one-column",))] + [get_ruleset("generala")]


@st.composite
def sheets(draw: st.DrawFn) -> dict:
    rules = draw(st.sampled_from(SHEET_RULES))
    n = draw(st.integers(min_value=1, max_value=rules.max_sides))
    cell = {r.id: st.one_of(st.sampled_from(r.allowed), st.just("x"), st.none(),
                            st.integers(0, 200)) for r in rules.rows}
    sides = []
    for s in range(n):
        columns = [draw(st.fixed_dictionaries({}, optional=cell)) for _ in range(rules.columns)]
        sides.append({"name": f"S{s}", "members": [f"S{s}a", f"S{s}b"][: draw(st.integers(1, 2))],
                      "columns": columns})
    return {"game": rules.game, "variant": list(rules.variants), "sides": sides}


@settings(max_examples=120, deadline=None)
@given(sheets(), st.randoms(use_true_random=False))
def test_sheet_reports(obj: dict, rnd) -> None:
    sheet = Sheet.from_json(obj)
    assert Sheet.from_json(sheet.to_json()) == sheet
    report = settle_report(sheet, "0.30")
    st_ = report["settlement"]
    assert sum(st_["points"]) == 0
    money = report["money"]
    cents = {n: round(Decimal(a) * 100) for n, a in money["players"].items()}
    assert sum(cents.values()) == 0
    for t in money["transfers"]:
        cents[t["from"]] += round(Decimal(t["amount"]) * 100)
        cents[t["to"]] -= round(Decimal(t["amount"]) * 100)
    assert set(cents.values()) <= {0}
    # Every invalid written value is reported at its cell, and counts as written.
    rules = sheet.ruleset
    invalid = {(s, c, r.id) for s, side in enumerate(sheet.sides)
               for c, col in enumerate(side.columns) for r in rules.rows
               if isinstance(col.get(r.id), int) and not r.allows(col[r.id])}
    reported = {(p["side"], p["column"], p["row"]) for p in report["validation"]
                if p["kind"] == "invalid_value"}
    assert reported == invalid
    assert st_["totals"] == [
        [sum(v for v in col.values() if isinstance(v, int)) for col in side.columns]
        for side in sheet.sides]
    # Permuting the sides permutes totals and points.
    order = list(range(len(obj["sides"])))
    rnd.shuffle(order)
    permuted = settle_report(Sheet.from_json({**obj, "sides": [obj["sides"][i] for i in order]}))
    assert permuted["settlement"]["points"] == [st_["points"][i] for i in order]
    assert permuted["settlement"]["totals"] == [st_["totals"][i] for i in order]
