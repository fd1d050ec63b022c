"""Settlement: column totals -> column winners -> Partiepunkte (RULES.md, Settlement).

Escalero: a column goes to the side with the single highest total. The winner of
a column receives the column's points from EACH other side; a side that wins every
column outright (more than one column) also receives the all-three bonus from each
other side. So with Piatnik's terms (1/2/4, bonus 2) and two sides, all three =
+9/-9; with three sides +18/-9/-9. The terms are the sheet's house rules
(scoring.house). A tie for the highest: nobody wins the column, unless the house
rules split ties: then every side below the top pays the column's points, shared
equally by the tied sides (halves with three sides; thirds are possible with four or
more). A shared column never counts towards the all-three bonus.

Points are ints, or Fractions where a split leaves a part point: exact, so that two
settlements compare equal exactly when they pay the same.

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
from fractions import Fraction

from escalero.scoring.house import HouseRules, default_for
from escalero.scoring.model import Sheet
from escalero.scoring.rulesets import Ruleset

Points = int | Fraction


@dataclass(frozen=True)
class Settlement:
    totals: tuple[tuple[int, ...], ...]  # [side][column], entries as written
    winners: tuple[int | None, ...]  # [column]: side index, None for a tie at the top
    points: tuple[Points, ...]  # [side]: Partiepunkte, sum 0 (Fractions only when split)
    all_columns: int | None = None  # side that won every column (got the bonus)
    game_winners: tuple[int, ...] = ()  # Generala: sides sharing the highest total
    places: tuple[int, ...] = ()  # Generala: place per side, 1 = best (1, 1, 3 on a tie)
    shared: tuple[tuple[int, ...], ...] = ()  # [column]: sides that split it (split_ties)
    house: HouseRules | None = None  # the terms it was settled with (Escalero)


def column_winner(column_totals: Sequence[int]) -> int | None:
    """Index of the single highest total, None if the highest is shared."""
    best = max(column_totals)
    at_best = [i for i, t in enumerate(column_totals) if t == best]
    return at_best[0] if len(at_best) == 1 else None


def exact(value: Fraction) -> Points:
    """A whole Fraction as an int, so default results stay plain ints."""
    return int(value) if value.denominator == 1 else value


def escalero_points(
    totals: Sequence[Sequence[int]], weights: Sequence[int], bonus: int,
    split_ties: bool = False,
) -> tuple[tuple[int | None, ...], tuple[Points, ...], int | None]:
    """(winners per column, points per side, side that won all) for totals[side][column]."""
    n = len(totals)
    columns = len(weights)
    winners = tuple(column_winner([totals[s][c] for s in range(n)]) for c in range(columns))
    points = [Fraction(0)] * n
    for c, w in enumerate(winners):
        tied = [w] if w is not None else (top_sides([totals[s][c] for s in range(n)])
                                          if split_ties else [])
        if not tied or len(tied) == n:
            continue
        share = Fraction(weights[c], len(tied))  # each side below pays weights[c] in all
        for s in range(n):
            if s not in tied:
                points[s] -= weights[c]
                for t in tied:
                    points[t] += share
    swept = winners[0] if columns > 1 and len(set(winners)) == 1 else None
    if swept is not None and bonus:
        for s in range(n):
            if s != swept:
                points[s] -= bonus
                points[swept] += bonus
    return winners, tuple(exact(p) for p in points), swept


def _shared(column_totals: Sequence[int]) -> tuple[int, ...]:
    """The sides that split a tied column; none when every side tied (nobody paid)."""
    top = top_sides(column_totals)
    return tuple(top) if len(top) < len(column_totals) else ()


def top_sides(column_totals: Sequence[int]) -> list[int]:
    best = max(column_totals)
    return [i for i, t in enumerate(column_totals) if t == best]


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
    """Settle a sheet with the house rules it carries (Piatnik's when it names none)."""
    return settle_totals(sheet.ruleset, tuple(side.totals for side in sheet.sides),
                         sheet.house)


def settle_totals(rules: Ruleset, totals: Sequence[Sequence[int]],
                  house: HouseRules | None = None) -> Settlement:
    """Settle column totals[side][column] under `rules` and the `house` terms (None: the
    ruleset's defaults): the one place totals become points (the scanner's payout
    posterior calls it on hypothetical totals). Generala has no house rules."""
    totals = tuple(tuple(t) for t in totals)
    if rules.game == "generala":
        flat = [t[0] for t in totals]
        game_winners, points = generala_points(flat)
        winners = (game_winners[0] if len(game_winners) == 1 else None,)
        return Settlement(totals, winners, points, None, game_winners, places(flat))
    house = (house or default_for(rules)).for_columns(rules.columns)
    winners, points, swept = escalero_points(totals, house.column_points,
                                             house.all_three_bonus, house.split_ties)
    shared = tuple(_shared([t[c] for t in totals]) if w is None and house.split_ties else ()
                   for c, w in enumerate(winners))
    return Settlement(totals, winners, points, swept, shared=shared, house=house)
