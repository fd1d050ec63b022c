"""Property tests: zero-sum, symmetry, monotonicity, money that settles."""

from __future__ import annotations

from decimal import Decimal
from itertools import permutations

from escalero.scoring.house import PIATNIK, HouseRules, default_for
from escalero.scoring.model import Sheet
from escalero.scoring.money import fewest_transfers, player_amounts, player_points, side_amounts
from escalero.scoring.report import points_from_json, settle_report
from escalero.scoring.rulesets import get_ruleset
from escalero.scoring.settle import escalero_points, generala_points, settle_totals
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- house rules -----------------------------------------------------------------------------

HOUSE = st.builds(
    HouseRules,
    column_points=st.lists(st.integers(1, 100), min_size=3, max_size=3, unique=True).map(
        lambda xs: tuple(sorted(xs))),
    all_three_bonus=st.integers(0, 10),
    split_ties=st.booleans(),
)


def classic_points(totals: list[list[int]], weights: tuple[int, ...], bonus: int) -> list[int]:
    """RULES.md's settlement as written there, independently of scoring.settle."""
    n = len(totals)
    points = [0] * n
    won: list[int | None] = []
    for c, w in enumerate(weights):
        column = [t[c] for t in totals]
        top = [s for s in range(n) if column[s] == max(column)]
        won.append(top[0] if len(top) == 1 else None)
        if len(top) == 1:
            points = [p + w * (n - 1) if s == top[0] else p - w for s, p in enumerate(points)]
    if len(weights) > 1 and won[0] is not None and won.count(won[0]) == len(won):
        points = [p + bonus * (n - 1) if s == won[0] else p - bonus
                  for s, p in enumerate(points)]
    return points


@settings(max_examples=300, deadline=None)
@given(escalero_game())
def test_default_terms_give_todays_results(game: tuple) -> None:
    totals, weights, bonus = game
    rules = next(r for r in RULESETS if r.column_weights == weights)
    today = settle_totals(rules, totals)
    assert list(today.points) == classic_points(totals, weights, bonus)
    assert all(type(p) is int for p in today.points)
    assert settle_totals(rules, totals, default_for(rules)) == today
    if weights == (1, 2, 4):
        assert settle_totals(rules, totals, PIATNIK) == today


@settings(max_examples=300, deadline=None)
@given(escalero_game(), HOUSE, st.randoms(use_true_random=False))
def test_any_terms_sum_to_zero_and_ignore_side_order(game: tuple, house: HouseRules,
                                                    rnd) -> None:
    totals, weights, _ = game
    rules = next(r for r in RULESETS if r.column_weights == weights)
    result = settle_totals(rules, totals, house)
    assert sum(result.points) == 0
    assert all(type(p) is int or p.denominator > 1 for p in result.points)
    order = list(range(len(totals)))
    rnd.shuffle(order)
    permuted = settle_totals(rules, [totals[i] for i in order], house)
    assert list(permuted.points) == [result.points[i] for i in order]
    if not house.split_ties:  # without splitting, the bonus and points are the classic ones
        cp = house.for_columns(rules.columns).column_points
        assert list(result.points) == classic_points(totals, cp, house.all_three_bonus)


@settings(max_examples=200, deadline=None)
@given(escalero_game(), HOUSE, st.integers(0, 500), st.data())
def test_part_points_pay_whole_cents_summing_to_zero(game: tuple, house: HouseRules,
                                                     stake: int, data: st.DataObject) -> None:
    totals, weights, _ = game
    rules = next(r for r in RULESETS if r.column_weights == weights)
    points = settle_totals(rules, totals, house).points
    amounts = side_amounts(points, stake)
    assert sum(amounts) == 0
    assert all(abs(a - p * stake) < 1 for a, p in zip(amounts, points, strict=True))
    sizes = data.draw(st.lists(st.integers(1, 2), min_size=len(totals), max_size=len(totals)))
    members = [[f"p{s}_{m}" for m in range(k)] for s, k in enumerate(sizes)]
    assert sum(player_amounts(members, amounts).values()) == 0
    assert sum(player_points(members, points).values()) == 0


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
    out = {"game": rules.game, "variant": list(rules.variants), "sides": sides}
    if rules.game == "escalero" and draw(st.booleans()):
        out["house_rules"] = draw(HOUSE).to_json()
    return out


@settings(max_examples=120, deadline=None)
@given(sheets(), st.randoms(use_true_random=False))
def test_sheet_reports(obj: dict, rnd) -> None:
    sheet = Sheet.from_json(obj)
    assert Sheet.from_json(sheet.to_json()) == sheet
    report = settle_report(sheet, "0.30")
    st_ = report["settlement"]
    assert sum(points_from_json(p) for p in st_["points"]) == 0
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
