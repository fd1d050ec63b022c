"""Printed words of a sheet in German (default), English and Spanish (escalero.i18n).

Row names and values come from `scoring.rulesets` (Row.labels, allowed, served,
column weights); this module only phrases them. Nothing here affects geometry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from escalero.scoring.errors import UnknownRulesError
from escalero.scoring.house import HouseRules, default_for
from escalero.scoring.model import TOTAL_ROW
from escalero.scoring.rulesets import LANGUAGES, Ruleset

from escalero.i18n import N_, translator

if TYPE_CHECKING:
    from escalero.sheets.layout import Layout

ROMAN = ("I", "II", "III", "IV", "V", "VI")


def strings(lang: str) -> dict[str, str]:
    """The sheet's own words in `lang`, by what they label."""
    if lang not in LANGUAGES:
        raise UnknownRulesError.worded(N_("unknown language {lang!r}; choose one of "
                                          "{choices}"), lang=lang, choices=", ".join(LANGUAGES))
    t = translator(lang)
    _ = t.gettext
    return {
        "sheet": _("Score sheet"), "name": _("Name"), "names": _("Names (pair)"),
        "column": _("Column"), "columns": _("Columns"), "total": _("Total"),
        "serial": _("No."), "served": t.pgettext("abbreviation", "served"),
        "pairs": _("pairs"), "winner": _("Winner"), "from_each": _("from each opponent"),
        "terms": _("Points from each opponent"),
        "served_long": _("served = all five in one roll"),
        "struck": _("struck: a dash or 0"), "highest": _("Highest total wins"),
        "requires": _("{row} only after {req}"),
        "served_first": _("served = in the first roll"),
    }


def variant_name(variant: str, lang: str) -> str:
    """A variant as a sheet's subtitle names it ("Doppel-Grande")."""
    _ = translator(lang).gettext
    names = {"strasse-25": _("Straight 25"), "doppel-grande": _("Double Grande"),
             "one-column": _("one column"), "weights-123": _("columns 1-2-3")}
    return names.get(variant, variant)


def title(game: str) -> str:
    return "ESKALERO" if game == "escalero" else game.upper()


def subtitle(layout: Layout, lang: str) -> str:
    t = strings(lang)
    parts = [t["sheet"]]
    parts += [variant_name(v, lang) for v in layout.spec.variants]
    if layout.spec.pairs:
        parts.append(t["pairs"])
    return " · ".join(parts)


def column_heads(columns: int) -> tuple[str, ...]:
    return ROMAN[:columns] if columns > 1 else ("",)


def face_letter(face: str | None, lang: str) -> str:
    """A die face ("B") as the sheet's language writes it ("J" in English): the rules name
    the faces by Piatnik's German letters, Bube/Dame being Jack/Queen (J, Q) in English and
    Jota/Dama (J, Q, as on Latin American poker dice) in Spanish."""
    t = translator(lang)
    letters = {"B": t.pgettext("die face", "J"), "D": t.pgettext("die face", "Q")}
    return letters.get(face or "", face or "")


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
            points = translator(lang).ngettext("{n} point", "{n} points", weight)
            line = f"{t['winner']}: {points.format(n=weight)} {t['from_each']}"
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
