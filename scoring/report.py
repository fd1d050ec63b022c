"""`settle_report`: the JSON of `escalero settle --json` (and of scan/web), in one place.

Shape (docs/sheet-json.md):
    {"settlement": {"totals": [[...], ...], "winners": [...], "points": [...], ...},
     "validation": [{"side", "column", "row", "kind", "where", "message"}, ...],
     "money": {...}}                      # only when a stake is given
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from escalero.scoring import money
from escalero.scoring.model import Sheet
from escalero.scoring.settle import Points, settle
from escalero.scoring.validate import EMPTY, validate


def settle_report(
    sheet: Sheet,
    stake: str | int | Decimal | None = None,
    currency: str = "EUR",
    lang: str = "en",
) -> dict[str, Any]:
    """Validate and settle `sheet` as written; add money when a stake per point is given.

    `lang` words the validation (`where`, `message`). English by default: tools read this
    JSON, so its text stays stable; pages and tables for players pass their language.
    """
    rules = sheet.ruleset
    result = settle(sheet)
    problems = validate(sheet, lang)
    settlement: dict[str, Any] = {
        "totals": [list(t) for t in result.totals],
        "winners": list(result.winners),
        "points": [points_json(p) for p in result.points],
        "column_weights": list(result.house.column_points if result.house
                               else rules.column_weights),
        "all_columns": result.all_columns,
        "complete": not any(p.kind == EMPTY for p in problems),
        "players": [
            {"name": m, "side": s, "points": points_json(result.points[s])}
            for s, side in enumerate(sheet.sides) for m in side.members
        ],
    }
    if result.house is not None:
        settlement["house_rules"] = result.house.to_json()
        settlement["terms"] = result.house.describe(lang)
        settlement["shared"] = [list(s) for s in result.shared]
    if rules.game == "generala":
        order = sorted(range(len(sheet.sides)), key=lambda s: (result.places[s], s))
        settlement["game_winners"] = list(result.game_winners)
        settlement["ranking"] = [
            {"side": s, "name": sheet.sides[s].name, "total": result.totals[s][0],
             "place": result.places[s]}
            for s in order
        ]
    report: dict[str, Any] = {
        "settlement": settlement,
        "validation": [p.to_json() for p in problems],
    }
    if stake is not None:
        report["money"] = money_report(sheet, result.points, money.parse_stake(stake), currency)
    return report


def points_json(p: Points | Fraction) -> int | float:
    """Points for JSON: an int, or a decimal for a part point (halves are exact)."""
    return p if isinstance(p, int) else int(p) if p.denominator == 1 else float(p)


def points_from_json(p: int | float) -> Points:
    """Points read back from JSON exactly (part points are halves, or thirds at most)."""
    exact = Fraction(p).limit_denominator(1000)
    return int(exact) if exact.denominator == 1 else exact


def signed_points(p: int | float | Fraction) -> str:
    """+3, -5.5, 0; a third (four or more sides splitting) as +1/3."""
    if not p:
        return "0"
    exact = Fraction(p).limit_denominator(1000)
    if exact.denominator == 1:
        return f"{int(exact):+d}"
    if exact.denominator == 2:
        return f"{float(exact):+.1f}"
    return f"{'+' if exact > 0 else '-'}{abs(exact)}"


def money_report(
    sheet: Sheet, points: list[Points] | tuple[Points, ...], stake_cents: int, currency: str
) -> dict[str, Any]:
    """Amounts per side (what each member is shown) and per player; transfers between players."""
    amounts = money.side_amounts(points, stake_cents)
    players = money.player_amounts([s.members for s in sheet.sides], amounts)
    return {
        "stake": str(money.to_money(stake_cents)),
        "currency": currency,
        "amounts": [str(money.to_money(a)) for a in amounts],
        "players": {name: str(money.to_money(c)) for name, c in players.items()},
        "transfers": transfers_json(players),
    }


def transfers_json(players: dict[str, int]) -> list[dict[str, str]]:
    """Fewest payments that settle per-player cents, as {"from", "to", "amount"} by name."""
    names = list(players)
    return [
        {"from": names[t.payer], "to": names[t.payee], "amount": str(t.amount)}
        for t in money.fewest_transfers([players[n] for n in names])
    ]


def balance_report(
    sheets: list[Sheet], stake: str | int | Decimal | None = None, currency: str = "EUR"
) -> dict[str, Any]:
    """Running balance over several games by player name: points, and money with a stake.

    A pair's members each carry the side's result; a side of one among pairs plays
    for two (see scoring.money).
    """
    games = [settle(s) for s in sheets]
    points = money.running_balance(
        money.player_points([side.members for side in sheet.sides], g.points)
        for sheet, g in zip(sheets, games, strict=True)
    )
    ranked = sorted(points.items(), key=lambda kv: -kv[1])
    out: dict[str, Any] = {"players": {name: points_json(p) for name, p in ranked}}
    if stake is not None:
        cents = money.parse_stake(stake)
        players = {name: Fraction(p) * cents for name, p in ranked}
        if all(c.denominator == 1 for c in players.values()):
            players = {name: int(c) for name, c in players.items()}
        else:
            # Part cents: round per game as each game's money report pays, then add up.
            summed = money.running_balance(
                money.player_amounts([side.members for side in sheet.sides],
                                     money.side_amounts(g.points, cents))
                for sheet, g in zip(sheets, games, strict=True))
            players = {name: summed[name] for name, _ in ranked}
        out["money"] = {
            "stake": str(money.to_money(cents)),
            "currency": currency,
            "players": {name: str(money.to_money(c)) for name, c in players.items()},
            "transfers": transfers_json(players),
        }
    return out
