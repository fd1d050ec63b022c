"""Plain-text output for the terminal: the settled sheet, the rules, a dice throw.

Pure functions from data to a string; German words by default (`lang`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from escalero.scoring.dice import POKER_CATEGORIES
from escalero.scoring.house import HouseRules, default_for
from escalero.scoring.model import STRUCK, Sheet, column_name
from escalero.scoring.report import signed_points as _signed
from escalero.scoring.rulesets import Ruleset
from escalero.scoring.validate import EMPTY, column_place, describe_allowed, game_name

# Piatnik's words: Kolonne (not Spalte), Partiepunkte, gestrichen, serviert; a side is a
# Spieler or, in pairs mode, a Paar (Partei when both occur).
WORDS: dict[str, dict[str, str]] = {
    "de": {"total": "Summe", "written": "geschrieben", "winners": "Kolonnensieger",
           "nobody": "niemand (Gleichstand)", "points": "Partiepunkte", "money": "Geld",
           "per_point": "pro Partiepunkt", "transfers": "Zahlungen", "none": "keine",
           "problems": "Probleme", "empty": "{place}: nicht eingetragen: {rows}",
           "all": "alle Kolonnen", "columns": "Kolonnen", "weights": "Partiepunkte",
           "bonus": "für alle Kolonnen zusätzlich", "players": "Spieler", "pairs": "Paare",
           "sides": "Parteien", "players_or_pairs": "Spieler oder Paare",
           "ranking": "Rangliste", "balance": "Gesamtstand", "served": "serviert",
           "hand": "Start-Poker", "wins": "gewinnt", "tie": "Gleichstand: neu würfeln",
           "requires": "erst nach", "house": "Hausregeln", "shared": "geteilt"},
    "en": {"total": "Total", "written": "written", "winners": "Column winners",
           "nobody": "nobody (tie)", "points": "Game points", "money": "Money",
           "per_point": "per game point", "transfers": "Payments", "none": "none",
           "problems": "Problems", "empty": "{place}: not filled in: {rows}",
           "all": "all columns", "columns": "Columns", "weights": "game points",
           "bonus": "extra for all columns", "players": "players", "pairs": "pairs",
           "sides": "sides", "players_or_pairs": "players or pairs",
           "ranking": "Ranking", "balance": "Running balance", "served": "served",
           "hand": "Start poker", "wins": "wins", "tie": "tie: roll again",
           "requires": "only after", "house": "House rules", "shared": "split"},
    "es": {"total": "Total", "written": "escrito", "winners": "Ganadores de columna",
           "nobody": "nadie (empate)", "points": "Puntos de partida", "money": "Dinero",
           "per_point": "por punto", "transfers": "Pagos", "none": "ninguno",
           "problems": "Problemas", "empty": "{place}: sin anotar: {rows}",
           "all": "todas las columnas", "columns": "Columnas", "weights": "puntos",
           "bonus": "extra por todas las columnas", "players": "jugadores",
           "pairs": "parejas", "sides": "equipos", "players_or_pairs": "jugadores o parejas",
           "ranking": "Clasificación", "balance": "Saldo acumulado", "served": "servido",
           "hand": "Start-Poker", "wins": "gana", "tie": "empate: tirar de nuevo",
           "requires": "solo después de", "house": "Reglas de la casa",
           "shared": "repartida"},
}

# Start-Poker hands by their id (dice.POKER_CATEGORIES, what --json prints); de as Piatnik.
HANDS: dict[str, dict[str, str]] = {
    "de": {"nothing": "nichts", "pair": "ein Paar", "two pairs": "zwei Paare",
           "three of a kind": "drei gleiche", "small straight": "kleine Straße",
           "large straight": "große Straße", "full house": "Full", "poker": "Poker",
           "grande": "Grande"},
    "en": {c: c for c in POKER_CATEGORIES},
    "es": {"nothing": "nada", "pair": "un par", "two pairs": "doble par",
           "three of a kind": "trío", "small straight": "escalera menor",
           "large straight": "escalera mayor", "full house": "full", "poker": "póker",
           "grande": "grande"},
}

CELL_W = 5


def _cell_text(cell: object) -> str:
    if cell is None:
        return "."
    if cell is STRUCK:
        return "x"
    return str(cell)


def format_report(sheet: Sheet, report: Mapping[str, Any], lang: str = "de") -> str:
    """The sheet as a grid, then winners, points, money and the problems found."""
    w = WORDS[lang]
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
        lines.append(f"{w['money']} ({m['stake']} {cur} {w['per_point']}): " + ", ".join(
            f"{n} {_money(a)} {cur}" for n, a in m["players"].items()))
        lines.append(f"{w['transfers']}: " + (", ".join(
            f"{t['from']} -> {t['to']} {t['amount']} {cur}" for t in m["transfers"])
            or w["none"]))
    lines.extend(format_problems(report["validation"], sheet, lang))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _money(text: str) -> str:
    return text if text.startswith("-") or text == "0.00" else f"+{text}"


def _game(rules: Ruleset, lang: str) -> str:
    variants = f" ({', '.join(rules.variants)})" if rules.variants else ""
    return game_name(rules.game, lang) + variants


def _title(sheet: Sheet, lang: str) -> str:
    """E.g. 'Eskalero, 2 Spieler'; 'Paare' when every side is a pair, else 'Parteien'."""
    w = WORDS[lang]
    sizes = {len(side.members) for side in sheet.sides}
    who = w["players"] if sizes == {1} else w["pairs"] if sizes == {2} else w["sides"]
    return f"{_game(sheet.ruleset, lang)}, {len(sheet.sides)} {who}"


def format_problems(problems: Sequence[Mapping[str, Any]], sheet: Sheet, lang: str) -> list[str]:
    """Problems one per line; empty cells grouped per column so a blank sheet stays short."""
    if not problems:
        return []
    w = WORDS[lang]
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
    w = WORDS[lang]
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
    w = WORDS[lang]
    if unit:
        shown = ", ".join(f"{n} {_money(a)} {unit}" for n, a in balance.items())
    else:
        shown = ", ".join(f"{n} {_signed(c)}" for n, c in balance.items())
    lines = [f"{w['balance']}: {shown}"]
    if unit:
        lines.append(f"{w['transfers']}: " + (", ".join(
            f"{t['from']} -> {t['to']} {t['amount']} {unit}" for t in transfers) or w["none"]))
    return "\n".join(lines) + "\n"
