"""samples.games: random games are legal, realistic and reproducible."""

from __future__ import annotations

import numpy as np
import pytest
from escalero.samples.games import GameSpec, expected_settlement, play_game
from escalero.scoring.model import Sheet
from escalero.scoring.rulesets import get_ruleset

SPECS = [
    GameSpec(),
    GameSpec(sides=3),
    GameSpec(sides=6),
    GameSpec(sides=2, pairs=True),
    GameSpec(variants=("strasse-25", "doppel-grande")),
    GameSpec(variants=("one-column",), sides=4),
    GameSpec(variants=("weights-123",)),
    GameSpec(game="generala", sides=5),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.game}-{s.variants}-{s.sides}")
def test_full_games_are_legal_and_validate_cleanly(spec: GameSpec) -> None:
    rng = np.random.default_rng(11)
    rules = get_ruleset(spec.game, spec.variants)
    for _ in range(5):
        game = play_game(spec, rng)
        sheet = game.sheet
        assert len(sheet["sides"]) == spec.sides
        for side in sheet["sides"]:
            assert len(side["columns"]) == rules.columns
            assert len(side["members"]) == (2 if spec.pairs else 1)
            for column in side["columns"]:
                for row in rules.rows:
                    value = column[row.id]
                    assert value == "x" or value in row.allowed, (row.id, value)
        report = expected_settlement(sheet)
        problems = report["validation"]
        # Only the deliberately miscounted written totals may be reported.
        assert len(problems) == len(game.wrong_totals), problems
        assert sum(report["settlement"]["points"]) == 0
        Sheet.from_json(sheet)  # the truth is valid Sheet JSON


def test_value_frequencies_look_like_real_play() -> None:
    rng = np.random.default_rng(3)
    values = [v for _ in range(40) for side in play_game(GameSpec(sides=3), rng).sheet["sides"]
              for column in side["columns"] for v in column.values()]
    struck = values.count("x") / len(values)
    assert 0.06 < struck < 0.25  # about one cell in seven or eight
    assert 25 in values and 35 in values and 45 in values  # served combos happen
    assert values.count(40) > values.count(45)  # ... but less often than plain ones


def test_illegal_values_and_partial_games_on_request() -> None:
    rng = np.random.default_rng(5)
    game = play_game(GameSpec(illegal_values=3, total_share=0.0), rng)
    kinds = [p["kind"] for p in expected_settlement(game.sheet)["validation"]]
    assert kinds.count("invalid_value") == 3 and len(game.illegal_cells) == 3
    partial = play_game(GameSpec(rounds=5), rng).sheet
    filled = [v for side in partial["sides"] for c in side["columns"] for v in c.values()
              if v is not None]
    assert len(filled) == 2 * 5
    assert all(t is None for side in partial["sides"] for t in side["written_totals"])


def test_same_seed_same_game() -> None:
    a = play_game(GameSpec(sides=4), np.random.default_rng(9)).sheet
    b = play_game(GameSpec(sides=4), np.random.default_rng(9)).sheet
    c = play_game(GameSpec(sides=4), np.random.default_rng(10)).sheet
    assert a == b and a != c


def test_too_many_sides_is_refused() -> None:
    with pytest.raises(ValueError):
        play_game(GameSpec(sides=7), np.random.default_rng(0))
