"""Printed words of a sheet in German (default), English and Spanish.

Row names and values come from `scoring.rulesets` (Row.labels, allowed, served,
column weights); this module only phrases them. Nothing here affects geometry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from escalero.scoring.errors import UnknownRulesError
from escalero.scoring.house import HouseRules, default_for
from escalero.scoring.model import TOTAL_ROW
from escalero.scoring.rulesets import LANGUAGES, Ruleset

if TYPE_CHECKING:
    from escalero.sheets.layout import Layout

_STRINGS = {
    "de": {
        "sheet": "Spieltabelle", "name": "Name", "names": "Namen (Paar)", "column": "Kolonne",
        "total": "Summe", "serial": "Nr.", "served": "serv.",
        "pairs": "Paare", "points": "Partiepunkte", "point": "Partiepunkt", "all": "alle drei",
        "winner": "Sieger",
        "columns": "Kolonnen", "from_each": "von jedem Gegner",
        "terms": "Partiepunkte von jedem Gegner",
        "served_long": "serv. = serviert (alle fünf in einem Wurf)",
        "struck": "gestrichen: Strich oder 0",
        "highest": "Höchste Summe gewinnt",
        "requires": "{row} erst nach {req}",
        "served_first": "serv. = im ersten Wurf",
    },
    "en": {
        "sheet": "Score sheet", "name": "Name", "names": "Names (pair)", "column": "Column",
        "total": "Total", "serial": "No.", "served": "served",
        "pairs": "pairs", "points": "points", "point": "point", "all": "all three",
        "winner": "Winner",
        "columns": "Columns", "from_each": "from each opponent",
        "terms": "Points from each opponent",
        "served_long": "served = all five in one roll",
        "struck": "struck: a dash or 0",
        "highest": "Highest total wins",
        "requires": "{row} only after {req}",
        "served_first": "served = in the first roll",
    },
    "es": {
        "sheet": "Planilla", "name": "Nombre", "names": "Nombres (pareja)", "column": "Columna",
        "total": "Total", "serial": "N.º", "served": "serv.",
        "pairs": "parejas", "points": "puntos", "point": "punto", "all": "las tres",
        "winner": "Ganador",
        "columns": "Columnas", "from_each": "de cada rival",
        "terms": "Puntos de cada rival",
        "served_long": "serv. = servido (los cinco en una tirada)",
        "struck": "tachado: raya o 0",
        "highest": "Gana el total más alto",
        "requires": "{row} solo después de {req}",
        "served_first": "serv. = en la primera tirada",
    },
}

_VARIANT_NAMES = {
    "de": {"strasse-25": "Straße 25", "doppel-grande": "Doppel-Grande",
           "one-column": "eine Kolonne", "weights-123": "Kolonnen 1-2-3"},
    "en": {"strasse-25": "Straight 25", "doppel-grande": "Double Grande",
           "one-column": "one column", "weights-123": "columns 1-2-3"},
    "es": {"strasse-25": "Escalera 25", "doppel-grande": "Doble Grande",
           "one-column": "una columna", "weights-123": "columnas 1-2-3"},
}

ROMAN = ("I", "II", "III", "IV", "V", "VI")


def strings(lang: str) -> dict[str, str]:
    if lang not in LANGUAGES:
        raise UnknownRulesError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    return _STRINGS[lang]


def title(game: str) -> str:
    return "ESKALERO" if game == "escalero" else game.upper()


def subtitle(layout: Layout, lang: str) -> str:
    t = strings(lang)
    parts = [t["sheet"]]
    parts += [_VARIANT_NAMES[lang].get(v, v) for v in layout.spec.variants]
    if layout.spec.pairs:
        parts.append(t["pairs"])
    return " · ".join(parts)


def column_heads(columns: int) -> tuple[str, ...]:
    return ROMAN[:columns] if columns > 1 else ("",)


# The dice's faces as each language names them: Bube/Dame are Jack/Queen (J, Q) in
# English and Jota/Dama (J, Q, as on Latin American poker dice) in Spanish.
FACE_LETTERS: dict[str, dict[str, str]] = {"en": {"B": "J", "D": "Q"},
                                           "es": {"B": "J", "D": "Q"}}


def face_letter(face: str | None, lang: str) -> str:
    """A die face ("B") as the sheet's language writes it ("J" in English)."""
    return FACE_LETTERS.get(lang, {}).get(face or "", face or "")


def row_label(rules: Ruleset, row_id: str, lang: str) -> tuple[str, str, str]:
    """(name, detail line, face note) for a row label; row_id TOTAL_ROW is the Summe row."""
    t = strings(lang)
    if row_id == TOTAL_ROW:
        return t["total"], "", ""
    row = rules.row(row_id)
    name = row.labels.get(lang)
    if row.is_counting_row:
        if rules.game == "escalero":  # Piatnik: "Neuner   9 | 1", "Jacks   J | 3"
            return name, "", f"{face_letter(row.face, lang)} | {row.face_value}"
        return name, "", ""  # Generala: the row "3" needs no explanation
    plain = " / ".join(str(v) for v in row.unserved)
    served = " / ".join(str(v) for v in row.served)
    if plain and served:
        return name, f"{plain} / {served} {t['served']}", ""
    if served:
        return name, f"{served} {t['served']}", ""
    return name, plain, ""


def legend(rules: Ruleset, lang: str, house: HouseRules | None = None) -> list[str]:
    """Two or three short lines: the terms in force (`house`, default Piatnik's for the
    variants), what served and struck mean."""
    t = strings(lang)
    lines = []
    if rules.game == "escalero":
        terms = (house or default_for(rules)).for_columns(rules.columns)
        if rules.columns > 1:
            lines.append(f"{t['terms']}: {terms.describe(lang)}")
        else:
            weight = terms.column_points[0]
            unit = t["point"] if weight == 1 else t["points"]
            line = f"{t['winner']}: {weight} {unit} {t['from_each']}"
            if terms.split_ties:
                line += " · " + terms.describe(lang).split(" · ")[-1]
            lines.append(line)
    else:
        lines.append(t["highest"])
    bonuses: dict[int, list[str]] = {}
    for row in rules.rows:
        if row.served and row.unserved:
            bonuses.setdefault(max(row.served) - max(row.unserved), []).append(
                row.labels.get(lang))
    combos = sum(1 for row in rules.rows if not row.is_counting_row)
    if len(bonuses) == 1 and len(next(iter(bonuses.values()))) == combos:  # Generala: "+5"
        bonus = f"+{next(iter(bonuses))}"
    else:
        bonus = ", ".join(f"{'/'.join(names)} +{b}" for b, names in bonuses.items())
    served = t["served_long"] if rules.game == "escalero" else t["served_first"]
    lines.append(f"{served}: {bonus}" if bonus else served)
    extra = [t["struck"]]
    for row in rules.rows:
        if row.requires:
            req = rules.row(row.requires).labels.get(lang)
            extra.append(t["requires"].format(row=row.labels.get(lang), req=req))
    lines.append(" · ".join(extra))
    return lines
