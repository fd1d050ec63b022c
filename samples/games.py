"""Random but legal games, played with real dice, as Sheet JSON truth for synthetic photos.

Each turn rolls five dice up to three times with a simple greedy strategy, so value
frequencies look like a real table's (mostly 2-3 of a kind, the odd served combo, about
one cell in seven struck). What a throw is worth comes from `scoring.dice.row_scores`;
only the strategy lives here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
from escalero.scoring.dice import Throw, faces_of, row_scores
from escalero.scoring.rulesets import Row, Ruleset, get_ruleset

FIRST_NAMES = (
    "Anna", "Bernd", "Christa", "Dieter", "Eva", "Franz", "Gerti", "Hannes", "Ilse", "Josef",
    "Karin", "Leo", "Maria", "Norbert", "Otto", "Paula", "Resi", "Sepp", "Traudl", "Ulli",
    "Vroni", "Walter", "Lena", "Max", "Sophie", "Jakob", "Hilde", "Fritz",
)  # fmt: skip

_COMBO_KIND = {
    "straight": "straight", "escalera": "straight",
    "full_house": "full", "full": "full",
    "poker": "poker",
    "grande": "five", "generala": "five",
    "double_grande": "five2", "doble_generala": "five2",
}  # fmt: skip
# What a middling turn earns in a row, as a share of the plain value (for counting rows:
# dice of that face). A result above par is worth writing; below it, striking is cheaper.
_PAR = {"count": 2.2, "straight": 0.55, "full": 0.6, "poker": 0.45, "five": 0.3, "five2": 0.12}


@dataclass(frozen=True)
class GameSpec:
    """What to play. `sides` counts sides (a pair is one side when `pairs` is set)."""

    game: str = "escalero"
    variants: tuple[str, ...] = ()
    sides: int = 2
    pairs: bool = False
    rounds: int | None = None  # turns per side; None plays the sheet full
    total_share: float = 0.85  # share of finished columns with a written total
    wrong_total_share: float = 0.03  # share of written totals that are miscounted
    illegal_values: int = 0  # cells to overwrite with values the row does not allow


@dataclass(frozen=True)
class Game:
    """A played game: the Sheet JSON truth and where it breaks the rules on purpose."""

    sheet: dict
    illegal_cells: tuple[tuple[int, int, str], ...] = ()
    wrong_totals: tuple[tuple[int, int], ...] = ()


def _kind(row: Row) -> str:
    return "count" if row.is_counting_row else _COMBO_KIND[row.id]


def _scores(rules: Ruleset, dice: list[int], served: bool) -> dict[str, int]:
    """Row id -> points the dice earn there (0: they do not make it)."""
    faces = faces_of(rules)
    ranks = tuple(sorted(int(d) for d in dice))
    return row_scores(Throw(tuple(faces[r] for r in ranks), ranks, served), rules)


@lru_cache(maxsize=8)
def _straights(rules: Ruleset) -> tuple[frozenset[int], ...]:
    """The sets of five different faces that make a straight, asked of scoring.dice."""
    straight = next(r.id for r in rules.rows if _kind(r) == "straight")
    return tuple(frozenset(c) for c in combinations(range(6), 5)
                 if _scores(rules, list(c), False)[straight])


def _par(row: Row, kind: str) -> float:
    if kind == "count":
        return _PAR["count"] * row.face_value
    return _PAR[kind] * (row.unserved[0] if row.unserved else row.allowed[0])


def _keep(dice: list[int], free_kinds: set[str], free_faces: set[int], rules: Ruleset
          ) -> list[int]:
    """Dice to keep for the next roll: chase a straight or the best face."""
    counts = Counter(dice)
    if "straight" in free_kinds:
        best = max(_straights(rules), key=lambda p: len(p & set(dice)))
        kept = sorted(p for p in best if p in counts)
        if len(kept) >= 4:
            return kept
    if "full" in free_kinds and sorted(counts.values()) == [1, 2, 2]:
        return [d for d in dice if counts[d] == 2]
    combos = bool(free_kinds & {"poker", "five", "five2", "full"})
    useful = [f for f in counts if f in free_faces or combos]
    if not useful:
        return []
    face = max(useful, key=lambda f: (counts[f], f))
    return [face] * counts[face]


class _Player:
    """One side's sheet while it is being played."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.cells: list[dict[str, int | str | None]] = [
            {r.id: None for r in rules.rows} for _ in range(rules.columns)
        ]

    def free(self) -> list[tuple[int, Row]]:
        return [(c, r) for c in range(self.rules.columns) for r in self.rules.rows
                if self.cells[c][r.id] is None]

    def may_fill(self, col: int, row: Row) -> bool:
        return row.requires is None or isinstance(self.cells[col][row.requires], int)


def _play_turn(player: _Player, rng: np.random.Generator) -> tuple[float, int, str, int | str]:
    """Roll up to three times; return (desirability, column, row id, value or "x")."""
    free = player.free()
    free_kinds = {_kind(r) for _, r in free}
    free_faces = {r.face_value - 1 for _, r in free if r.is_counting_row}
    rules = player.rules
    dice = [int(d) for d in rng.integers(0, 6, 5)]
    served = False
    for roll in range(3):
        if roll:
            kept = _keep(dice, free_kinds, free_faces, rules)
            dice = kept + [int(d) for d in rng.integers(0, 6, 5 - len(kept))]
        scores = _scores(rules, dice, False)
        made = [r for c, r in free if _kind(r) != "count" and player.may_fill(c, r)
                and scores[r.id]]
        if made and (roll == 2 or rng.random() < 0.9):
            served = roll == 0  # the table rule: only the first roll is served
            break
    scores = _scores(rules, dice, served)
    # Pick the cell: best value over par; good results go to heavy columns, strikes to light.
    weights = player.rules.column_weights
    best: tuple[float, float, int, str, int | str] | None = None
    for col, row in free:
        kind = _kind(row)
        par = _par(row, kind)
        score = scores[row.id] if player.may_fill(col, row) else 0
        value: int | str = score or "x"
        gain = score - par
        tiebreak = weights[col] if gain >= 0 else -weights[col]
        cand = (gain, tiebreak + rng.random() * 0.01, col, row.id, value)
        if best is None or cand[:2] > best[:2]:
            best = cand
    assert best is not None
    return best[0], best[2], best[3], best[4]


def _illegal_value(row: Row, rng: np.random.Generator) -> int:
    """A plausible slip of the pen that the row does not allow (7 in Neuner, 22 in Straße)."""
    while True:
        base = int(rng.choice(row.allowed))
        value = base + int(rng.choice([-3, -2, -1, 1, 2, 3, 5]))
        if 0 < value < 1000 and value not in row.allowed:
            return value


def _wrong_total(total: int, rng: np.random.Generator) -> int:
    while True:
        wrong = total + int(rng.choice([-10, -5, -2, -1, 1, 2, 5, 10]))
        if wrong > 0:
            return wrong


def side_names(rng: np.random.Generator, sides: int, pairs: bool) -> list[tuple[str, list[str]]]:
    """(side name, members) for each side; a pair is named after both partners."""
    people = [str(n) for n in rng.choice(FIRST_NAMES, size=sides * (2 if pairs else 1),
                                          replace=False)]
    if not pairs:
        return [(p, [p]) for p in people]
    return [(f"{a} + {b}", [a, b]) for a, b in zip(people[::2], people[1::2], strict=True)]


def play_game(spec: GameSpec, rng: np.random.Generator) -> Game:
    """Play `spec` with random dice; return the truth as Sheet JSON plus inking notes."""
    rules = get_ruleset(spec.game, spec.variants)
    if not rules.min_sides <= spec.sides <= rules.max_sides:
        raise ValueError(f"{spec.game} needs {rules.min_sides}-{rules.max_sides} sides")
    players = [_Player(rules) for _ in range(spec.sides)]
    cells_per_side = len(rules.rows) * rules.columns
    turns = cells_per_side if spec.rounds is None else min(spec.rounds, cells_per_side)
    for _ in range(turns):
        for player in players:
            # In pairs mode both partners roll; the better result is entered.
            tries = [_play_turn(player, rng) for _ in range(2 if spec.pairs else 1)]
            _, col, row_id, value = max(tries, key=lambda t: t[0])
            player.cells[col][row_id] = value

    illegal: list[tuple[int, int, str]] = []
    filled = [(s, c, r) for s, p in enumerate(players) for c in range(rules.columns)
              for r in rules.rows if p.cells[c][r.id] is not None]
    for idx in rng.permutation(len(filled))[: spec.illegal_values]:
        s, c, row = filled[int(idx)]
        players[s].cells[c][row.id] = _illegal_value(row, rng)
        illegal.append((s, c, row.id))

    wrong: list[tuple[int, int]] = []
    sides_json = []
    for s, ((name, members), player) in enumerate(
        zip(side_names(rng, spec.sides, spec.pairs), players, strict=True)
    ):
        totals: list[int | None] = []
        for c, column in enumerate(player.cells):
            complete = all(v is not None for v in column.values())
            total = sum(v for v in column.values() if isinstance(v, int))
            if not complete or rng.random() >= spec.total_share:
                totals.append(None)
            elif rng.random() < spec.wrong_total_share:
                totals.append(_wrong_total(total, rng))
                wrong.append((s, c))
            else:
                totals.append(total)
        sides_json.append({"name": name, "members": members,
                           "columns": [dict(col) for col in player.cells],
                           "written_totals": totals})
    sheet = {"game": rules.game, "variant": list(rules.variants), "sides": sides_json}
    return Game(sheet=sheet, illegal_cells=tuple(illegal),
                wrong_totals=tuple(wrong))


def expected_settlement(sheet: dict) -> dict:
    """What `escalero settle --json` must say about `sheet` (scoring's own settlement)."""
    from escalero.scoring.model import Sheet
    from escalero.scoring.report import settle_report

    return settle_report(Sheet.from_json(sheet))
