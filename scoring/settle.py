"""Settlement: column totals -> column winners -> Partiepunkte (RULES.md, Settlement).

Escalero: a column goes to the side with the single highest total (a tie for the
highest: nobody). The winner of a column receives the column's weight from EACH
other side; a side that wins every column (more than one column) also receives
the ruleset's all-columns bonus from each other side. So with weights 1-2-4 and
two sides, all three = +9/-9; with three sides +18/-9/-9.

Generala (one column per player): the highest total(s) win, a shared win when
several players have it. Points, our decision (the seed names a winner, not a
score): every winner receives 1 point from every loser. Two players: +1/-1;
winners W, losers L: each winner +L, each loser -W. Zero-sum, integer, and
monotone (a higher total never costs points). All equal: everybody 0.

A sheet with one side settles to 0 points (nobody to win from); validation says so.
Entries count as written, invalid ones included; struck and empty cells count 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.model import Sheet
from scoring.rulesets import Ruleset


@dataclass(frozen=True)
class Settlement:
    totals: tuple[tuple[int, ...], ...]  # [side][column], entries as written
    winners: tuple[int | None, ...]  # [column]: side index, None for a tie at the top
    points: tuple[int, ...]  # [side]: Partiepunkte, sum 0
    all_columns: int | None = None  # side that won every column (got the bonus)
    game_winners: tuple[int, ...] = ()  # Generala: sides sharing the highest total
    places: tuple[int, ...] = ()  # Generala: place per side, 1 = best (1, 1, 3 on a tie)


def column_winner(column_totals: Sequence[int]) -> int | None:
    """Index of the single highest total, None if the highest is shared."""
    best = max(column_totals)
    at_best = [i for i, t in enumerate(column_totals) if t == best]
    return at_best[0] if len(at_best) == 1 else None


def escalero_points(
    totals: Sequence[Sequence[int]], weights: Sequence[int], bonus: int
) -> tuple[tuple[int | None, ...], tuple[int, ...], int | None]:
    """(winners per column, points per side, side that won all) for totals[side][column]."""
    n = len(totals)
    columns = len(weights)
    winners = tuple(column_winner([totals[s][c] for s in range(n)]) for c in range(columns))
    points = [0] * n
    for c, w in enumerate(winners):
        if w is None:
            continue
        for s in range(n):
            if s != w:
                points[s] -= weights[c]
                points[w] += weights[c]
    swept = winners[0] if columns > 1 and len(set(winners)) == 1 else None
    if swept is not None and bonus:
        for s in range(n):
            if s != swept:
                points[s] -= bonus
                points[swept] += bonus
    return winners, tuple(points), swept


def generala_points(totals: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(winning sides, points per side): each winner gets 1 from each loser."""
    best = max(totals)
    winners = tuple(i for i, t in enumerate(totals) if t == best)
    losers = len(totals) - len(winners)
    points = tuple(losers if i in winners else -len(winners) for i in range(len(totals)))
    return winners, points


def places(totals: Sequence[int]) -> tuple[int, ...]:
    """Competition ranking: 1 + number of sides with a strictly higher total."""
    return tuple(1 + sum(o > t for o in totals) for t in totals)


def settle(sheet: Sheet) -> Settlement:
    return settle_totals(sheet.ruleset, tuple(side.totals for side in sheet.sides))


def settle_totals(rules: Ruleset, totals: Sequence[Sequence[int]]) -> Settlement:
    """Settle column totals[side][column] under `rules`: the one place the rules turn
    totals into points (the scanner's payout posterior calls it on hypothetical totals)."""
    totals = tuple(tuple(t) for t in totals)
    if rules.game == "generala":
        flat = [t[0] for t in totals]
        game_winners, points = generala_points(flat)
        winners = (game_winners[0] if len(game_winners) == 1 else None,)
        return Settlement(totals, winners, points, None, game_winners, places(flat))
    winners, points, swept = escalero_points(totals, rules.column_weights,
                                             rules.all_columns_bonus)
    return Settlement(totals, winners, points, swept)
