"""Plain-text output for the terminal: the settled sheet, the rules, a dice throw.

Pure functions from data to a string; German words by default (`lang`), money as the
language's Babel locale writes it ("Anna +€ 1,50" in German).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from escalero.scoring.house import HouseRules, default_for
from escalero.scoring.model import STRUCK, Sheet, column_name
from escalero.scoring.report import signed_points as _signed
from escalero.scoring.rulesets import Ruleset
from escalero.scoring.validate import EMPTY, column_place, describe_allowed, game_name

from escalero.i18n import money, translator


# Piatnik's words (escalero.i18n's German catalog): Kolonne (not Spalte), Partiepunkte,
# gestrichen, serviert; a side is a Spieler or, in pairs mode, a Paar (Partei when both occur).
def words(lang: str) -> dict[str, str]:
    """The table's words in `lang`, by what they label."""
    _ = translator(lang).gettext
    return {
        "total": _("Total"), "written": _("written"), "winners": _("Column winners"),
        "nobody": _("nobody (tie)"), "points": _("Game points"), "money": _("Money"),
        "per_point": _("per game point"), "transfers": _("Payments"), "none": _("none"),
        "problems": _("Problems"), "empty": _("{place}: not filled in: {rows}"),
        "all": _("all columns"), "columns": _("Columns"), "weights": _("game points"),
        "bonus": _("extra for all columns"), "players": _("players"),
        "players_or_pairs": _("players or pairs"), "ranking": _("Ranking"),
        "balance": _("Running balance"), "served": _("served"), "hand": _("Start poker"),
        "wins": _("wins"), "tie": _("tie: roll again"), "requires": _("only after"),
        "house": _("House rules"), "shared": _("split"),
    }


def hand_name(hand: str, lang: str) -> str:
    """A Start-Poker hand by its id (dice.POKER_CATEGORIES, what --json prints); de as
    Piatnik."""
    _ = translator(lang).gettext
    names = {
        "nothing": _("nothing"),
        "pair": _("pair"),
        "two pairs": _("two pairs"),
        "three of a kind": _("three of a kind"),
        "small straight": _("small straight"),
        "large straight": _("large straight"),
        "full house": _("full house"),
        "poker": _("poker"),
        "grande": _("grande"),
    }
    return names[hand]


CELL_W = 5


def _cell_text(cell: object) -> str:
    if cell is None:
        return "."
    if cell is STRUCK:
        return "x"
    return str(cell)


def format_report(sheet: Sheet, report: Mapping[str, Any], lang: str = "de") -> str:
    """The sheet as a grid, then winners, points, money and the problems found."""
    w = words(lang)
    rules = sheet.ruleset
    st = report["settlement"]
    label_w = max(len(w["written"]), len(w["total"]),
                  *(len(r.labels.get(lang)) for r in rules.rows)) + 1
    side_w = CELL_W * rules.columns
    lines = [_title(sheet, lang)]
    lines.append(" " * label_w + "".join(f"{s.name[:side_w - 1]:>{side_w}}" for s in sheet.sides))
    if rules.columns > 1:
        lines.append(" " * label_w + "".join(
            f"{column_name(c):>{CELL_W}}" for _ in sheet.sides for c in range(rules.columns)))
    for row in rules.rows:
        cells = "".join(f"{_cell_text(side.cell(c, row.id)):>{CELL_W}}"
                        for side in sheet.sides for c in range(rules.columns))
        lines.append(f"{row.labels.get(lang):<{label_w}}{cells}")
    totals = "".join(f"{t:>{CELL_W}}" for side_totals in st["totals"] for t in side_totals)
    lines.append(f"{w['total']:<{label_w}}{totals}")
    if any(t is not None for s in sheet.sides for t in s.written_totals):
        written = "".join(f"{'' if t is None else t:>{CELL_W}}"
                          for s in sheet.sides for t in s.written_totals)
        lines.append(f"{w['written']:<{label_w}}{written}")
    lines.append("")
    names = [s.name for s in sheet.sides]
    if "ranking" in st:
        lines.append(f"{w['ranking']}: " + ", ".join(
            f"{r['place']}. {r['name']} ({r['total']})" for r in st["ranking"]))
    elif rules.columns > 1:
        shared = st.get("shared") or [[] for _ in st["winners"]]
        lines.append(f"{w['winners']}: " + ", ".join(
            f"{column_name(c)} " + (names[v] if v is not None else
                                    "+".join(names[i] for i in sh) + f" ({w['shared']})"
                                    if sh else w["nobody"])
            for c, (v, sh) in enumerate(zip(st["winners"], shared, strict=True))))
        if st["all_columns"] is not None:
            lines[-1] += f" ({w['all']}: {names[st['all_columns']]})"
    lines.append(f"{w['points']}: " + ", ".join(
        f"{n} {_signed(p)}" for n, p in zip(names, st["points"], strict=True)))
    if "house_rules" in st:
        terms = HouseRules(**{**st["house_rules"],
                              "column_points": tuple(st["house_rules"]["column_points"])})
        lines.append(f"{w['house']}: {terms.describe(lang)}")
    if "money" in report:
        m = report["money"]
        cur = m["currency"]
        lines.append(f"{w['money']} ({money(m['stake'], cur, lang)} {w['per_point']}): "
                     + ", ".join(f"{n} {money(a, cur, lang, signed=True)}"
                                 for n, a in m["players"].items()))
        lines.append(f"{w['transfers']}: " + (", ".join(
            f"{t['from']} -> {t['to']} {money(t['amount'], cur, lang)}" for t in m["transfers"])
            or w["none"]))
    lines.extend(format_problems(report["validation"], sheet, lang))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _game(rules: Ruleset, lang: str) -> str:
    variants = f" ({', '.join(rules.variants)})" if rules.variants else ""
    return game_name(rules.game, lang) + variants


def _title(sheet: Sheet, lang: str) -> str:
    """E.g. 'Eskalero, 2 Spieler'; 'Paare' when every side is a pair, else 'Parteien'."""
    t = translator(lang)
    sizes, n = {len(side.members) for side in sheet.sides}, len(sheet.sides)
    who = t.ngettext("{n} player", "{n} players", n) if sizes == {1} else \
        t.ngettext("{n} pair", "{n} pairs", n) if sizes == {2} else \
        t.ngettext("{n} side", "{n} sides", n)
    return f"{_game(sheet.ruleset, lang)}, {who.format(n=n)}"


def format_problems(problems: Sequence[Mapping[str, Any]], sheet: Sheet, lang: str) -> list[str]:
    """Problems one per line; empty cells grouped per column so a blank sheet stays short."""
    if not problems:
        return []
    w = words(lang)
    rules = sheet.ruleset
    lines = ["", f"{w['problems']} ({len(problems)}):"]
    empty: dict[tuple[int, int], list[str]] = {}
    for p in problems:
        if p["kind"] == EMPTY:
            empty.setdefault((p["side"], p["column"]), []).append(
                rules.row(p["row"]).labels.get(lang))
        else:
            lines.append(f"  {p['where']}: {p['message']}" if p["where"] else f"  {p['message']}")
    for (s, c), labels in empty.items():
        place = sheet.sides[s].name + (f", {column_place(c, lang)}" if rules.columns > 1 else "")
        lines.append("  " + w["empty"].format(place=place, rows=", ".join(labels)))
    return lines


def format_rules(rules: Ruleset, lang: str = "de", house: HouseRules | None = None) -> str:
    """The rows and allowed values; for Escalero the settlement terms (`house`, default
    Piatnik's for the variants) on the second and third lines."""
    w = words(lang)
    width = max(len(r.labels.get(lang)) for r in rules.rows) + 2
    who = w["players_or_pairs"] if rules.game == "escalero" else w["players"]
    terms = (house or default_for(rules)).for_columns(rules.columns) \
        if rules.game == "escalero" else None
    weights = terms.column_points if terms else rules.column_weights
    bonus = terms.all_three_bonus if terms and rules.columns > 1 else 0
    lines = [_game(rules, lang),
             f"{w['columns']}: {rules.columns}, {w['weights']} "
             f"{'-'.join(map(str, weights))}"
             + (f", {w['bonus']} +{bonus}" if bonus else "")
             + f"; {rules.min_sides}-{rules.max_sides} {who}"]
    if terms:
        name = f" ({terms.preset})" if terms.preset else ""
        lines.append(f"{w['house']}{name}: {terms.describe(lang)}")
    lines.append("")
    for r in rules.rows:
        face = f" ({r.face})" if r.face and r.face != r.labels.get(lang) else ""
        label = r.labels.get(lang) + face
        needs = ""
        if r.requires:
            needs = f"  ({w['requires']} {rules.row(r.requires).labels.get(lang)})"
        lines.append(f"  {r.id:<16}{label:<{width + 4}}{describe_allowed(r, lang)}{needs}")
    return "\n".join(lines) + "\n"


def format_scores(scores: Mapping[str, int], rules: Ruleset, lang: str = "de") -> str:
    width = max(len(r.labels.get(lang)) for r in rules.rows) + 2
    return "\n".join(f"  {rules.row(rid).labels.get(lang):<{width}}{v:>4}"
                     for rid, v in scores.items()) + "\n"


def format_balance(balance: Mapping[str, Any], transfers: Sequence[Mapping[str, str]],
                   unit: str, lang: str = "de") -> str:
    """Per-player balance: money strings with a currency `unit`, else integer points."""
    w = words(lang)
    if unit:
        shown = ", ".join(f"{n} {money(a, unit, lang, signed=True)}" for n, a in balance.items())
    else:
        shown = ", ".join(f"{n} {_signed(c)}" for n, c in balance.items())
    lines = [f"{w['balance']}: {shown}"]
    if unit:
        lines.append(f"{w['transfers']}: " + (", ".join(
            f"{t['from']} -> {t['to']} {money(t['amount'], unit, lang)}" for t in transfers)
            or w["none"]))
    return "\n".join(lines) + "\n"
