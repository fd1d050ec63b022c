"""Money: stakes in cents, exact fewest transfers, running balance."""

from __future__ import annotations

from decimal import Decimal
from itertools import combinations

import pytest
from escalero.scoring.errors import UsageError
from escalero.scoring.model import Sheet
from escalero.scoring.money import (
    fewest_transfers,
    parse_stake,
    player_amounts,
    running_balance,
    split_cents,
    to_money,
)
from escalero.scoring.report import balance_report
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(("text", "cents"), [
    ("0.50", 50), ("0,5", 50), ("1", 100), (2, 200), (Decimal("0.10"), 10), ("0", 0),
])
def test_parse_stake(text: object, cents: int) -> None:
    assert parse_stake(text) == cents


@pytest.mark.parametrize("text", ["abc", "-1", "0.005", "nan", "inf", ""])
def test_parse_stake_rejects(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_stake(text)
    assert info.value.exit_code == 2


def test_no_float_errors() -> None:
    # 0.10 * 3 is 0.30000000000000004 in floats; cents are exact.
    assert to_money(3 * parse_stake("0.10")) == Decimal("0.30")
    assert str(to_money(-7 * 15)) == "-1.05"


def _min_transfers_brute(balances: list[int]) -> int:
    """n - (largest number of disjoint zero-sum groups), by trying every partition."""
    items = [b for b in balances if b]

    def most_groups(rest: tuple[int, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        best = 0
        for k in range(len(others) + 1):
            for combo in combinations(range(len(others)), k):
                if first + sum(others[i] for i in combo) == 0:
                    left = tuple(o for i, o in enumerate(others) if i not in combo)
                    best = max(best, 1 + most_groups(left))
        return best

    return len(items) - most_groups(tuple(items))


def test_exact_minimum_beats_greedy() -> None:
    # Greedy largest-to-largest needs 4 here (6 -> 7 first); two groups {+6,-6}, {+4,+3,-7}.
    balances = [6, 4, 3, -6, -7]
    assert len(fewest_transfers(balances)) == 3 == _min_transfers_brute(balances)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=7).map(lambda xs: [*xs, -sum(xs)]))
def test_fewest_transfers_is_minimal(balances: list[int]) -> None:
    assert len(fewest_transfers(balances)) == _min_transfers_brute(balances)


def test_large_tables_fall_back_to_greedy() -> None:
    balances = [i * 10 for i in range(1, 20)] + [-sum(i * 10 for i in range(1, 20))]
    transfers = fewest_transfers(balances)
    assert len(transfers) == 19
    with pytest.raises(ValueError):
        fewest_transfers([1, 2])


def test_split_and_players() -> None:
    assert split_cents(101, 2) == (51, 50) and split_cents(-101, 2) == (-51, -50)
    assert player_amounts([["A", "B"], ["C"]], [150, -150]) == {"A": 150, "B": 150, "C": -300}
    assert player_amounts([["A"], ["B"]], [150, -150]) == {"A": 150, "B": -150}
    assert running_balance([{"A": 5, "B": -5}, {"B": 3, "C": -3}]) == {"A": 5, "B": -2, "C": -3}


def test_balance_report_over_games() -> None:
    def game(a: str, b: str, a_wins_all: bool) -> Sheet:
        strong = [{"grande": 80}, {"grande": 80}, {"grande": 80}]
        weak = [{"nines": 1}, {"nines": 1}, {"nines": 1}]
        return Sheet.from_json({"sides": [
            {"name": a, "columns": strong if a_wins_all else weak},
            {"name": b, "columns": weak if a_wins_all else strong}]})

    out = balance_report([game("Anna", "Ben", True), game("Ben", "Cleo", True)], "0.50")
    assert out["players"] == {"Anna": 9, "Ben": 0, "Cleo": -9}
    assert out["money"]["players"] == {"Anna": "4.50", "Ben": "0.00", "Cleo": "-4.50"}
    assert out["money"]["transfers"] == [{"from": "Cleo", "to": "Anna", "amount": "4.50"}]
    assert "money" not in balance_report([game("A", "B", False)])


def test_part_points_in_halves_and_thirds_are_shared_exactly() -> None:
    """A game can hold halves and thirds at once (hypothesis found one): sharing in the
    largest denominator (thirds) cut the halves, and the points no longer summed to 0."""
    from fractions import Fraction

    from escalero.scoring.money import player_points

    points = [Fraction(1, 2), Fraction(1, 3), Fraction(-1, 2), Fraction(-1, 3)]
    shared = player_points([["a"], ["b"], ["c"], ["d"]], points)
    assert shared == {"a": Fraction(1, 2), "b": Fraction(1, 3), "c": Fraction(-1, 2),
                      "d": Fraction(-1, 3)}
    assert sum(shared.values()) == 0
