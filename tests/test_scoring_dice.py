"""Dice helper: row values for a throw, Start-Poker ranking."""

from __future__ import annotations

import pytest
from escalero.scoring.dice import compare_hands, parse_throw, poker_hand, row_scores
from escalero.scoring.errors import UsageError
from escalero.scoring.rulesets import get_ruleset

ESC = get_ruleset("escalero")
GEN = get_ruleset("generala")


def _scores(faces: str, served: bool = False, rules=ESC) -> dict[str, int]:
    return row_scores(parse_throw(faces.split(), rules, served), rules)


def test_counting_rows() -> None:
    s = _scores("9 9 K K K")
    assert (s["nines"], s["kings"], s["tens"], s["aces"]) == (2, 15, 0, 0)
    assert _scores("A A A A 10")["aces"] == 24


@pytest.mark.parametrize(("faces", "served", "row", "value"), [
    ("9 9 K K K", False, "full_house", 30),
    ("9 9 K K K", True, "full_house", 35),
    ("9 10 B D K", False, "straight", 20),
    ("A K D B 10", True, "straight", 25),
    ("9 10 B D A", True, "straight", 0),
    ("D D D D 9", False, "poker", 40),
    ("D D D D 9", True, "poker", 45),
    ("D D D D D", False, "poker", 40),  # five of a kind contains a poker
    ("D D D D D", False, "full_house", 0),  # but is not a full house
    ("B B B B B", False, "grande", 50),
    ("B B B B B", True, "grande", 80),
    ("9 9 K K 10", True, "full_house", 0),
])
def test_combination_rows(faces: str, served: bool, row: str, value: int) -> None:
    assert _scores(faces, served)[row] == value


def test_variants_change_values() -> None:
    s25 = get_ruleset("escalero", ["strasse-25"])
    assert _scores("9 10 B D K", False, s25)["straight"] == 25
    assert _scores("9 10 B D K", True, s25)["straight"] == 30
    dg = get_ruleset("escalero", ["doppel-grande"])
    assert _scores("K K K K K", True, dg)["double_grande"] == 100
    assert _scores("K K K K K", True, dg)["grande"] == 50
    assert _scores("K K K K K", False, dg)["double_grande"] == 0


def test_every_score_is_allowed_in_its_row() -> None:
    for rules in (ESC, GEN, get_ruleset("escalero", ["doppel-grande", "strasse-25"])):
        faces = [r.face for r in rules.rows if r.face]
        for hand in (faces[:5], faces[1:6], [faces[0]] * 5, [faces[2]] * 3 + [faces[4]] * 2):
            for served in (False, True):
                for rid, v in row_scores(parse_throw(hand, rules, served), rules).items():
                    assert v == 0 or rules.row(rid).allows(v), (hand, rid, v)


@pytest.mark.parametrize("faces", ["1 2 3 4 5", "2 3 4 5 6", "3 4 5 6 1"])
def test_generala_escalera(faces: str) -> None:
    assert _scores(faces, False, GEN)["escalera"] == 20
    assert _scores(faces, True, GEN)["escalera"] == 25


def test_generala_rows() -> None:
    assert _scores("4 5 6 1 2", False, GEN)["escalera"] == 0
    s = _scores("6 6 6 6 6", True, GEN)
    assert (s["generala"], s["doble_generala"], s["poker"], s["sixes"]) == (55, 105, 45, 30)


def test_parse_errors() -> None:
    with pytest.raises(UsageError, match="exactly 5 dice"):
        parse_throw(["9", "9"], ESC)
    with pytest.raises(UsageError, match="unknown face '7'; escalero dice show 9 10 B D K A"):
        parse_throw(["9", "9", "9", "9", "7"], ESC)
    assert parse_throw(["j", "q", "k", "a", "t"], ESC).faces == ("10", "B", "D", "K", "A")


ORDER = ["9 10 B D A", "9 9 10 B D", "A A 10 B D", "9 9 10 10 B", "A A 9 9 B", "A A K K 9",
         "9 9 9 10 B", "A A A 10 B", "9 10 B D K", "10 B D K A", "9 9 9 10 10", "9 9 9 A A",
         "10 10 10 9 9", "K K K K 9", "A A A A 9", "9 9 9 9 9", "A A A A A"]


def test_start_poker_order() -> None:
    hands = [parse_throw(h.split(), ESC) for h in ORDER]
    for low, high in zip(hands, hands[1:], strict=False):
        assert compare_hands(high, low) == 1, (high.faces, low.faces)
        assert compare_hands(low, high) == -1
    assert poker_hand(hands[0]).name == "nothing"
    assert poker_hand(hands[-1]).name == "grande"


@pytest.mark.parametrize(("a", "b"), [
    ("K K 9 10 B", "K K 9 10 D"),  # same pair: the other dice do not count
    ("9 10 B D K", "K D B 10 9"),
    ("A A D D 9", "A A D D K"),
])
def test_start_poker_ties(a: str, b: str) -> None:
    assert compare_hands(parse_throw(a.split(), ESC), parse_throw(b.split(), ESC)) == 0
