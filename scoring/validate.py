"""Check a sheet against its ruleset; every problem names its cell and what is allowed.

Validation never changes the sheet: the settlement counts entries as written.
Problems are data (`Problem`), not exceptions, so a sheet with mistakes can still
be shown, corrected and settled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from gettext import NullTranslations
from typing import Any

from escalero.scoring.errors import UnknownRulesError
from escalero.scoring.model import STRUCK, TOTAL_ROW, Sheet, column_name
from escalero.scoring.rulesets import Row, Ruleset

from escalero.i18n import LANGUAGES, N_, translator

# Problem kinds (stable codes for the web front end and tests).
INVALID_VALUE = "invalid_value"
REQUIRES = "requires"
EMPTY = "empty"
TOTAL = "total"  # a written total that is not the column's sum
SHAPE = "shape"

# Every sentence a player reads comes from the catalog (escalero.i18n). The English
# sentences are what tools parse from `settle --json`: change them only on purpose.
# Placeholders: label/needed are row labels, allowed is describe_allowed(row, lang).


def _translator(lang: str) -> NullTranslations:
    if lang not in LANGUAGES:
        raise UnknownRulesError.worded(N_("unknown language {lang!r}; choose one of "
                                          "{choices}"), lang=lang, choices=", ".join(LANGUAGES))
    return translator(lang)


def game_name(game: str, lang: str) -> str:
    """The game as players call it: Piatnik spells it Eskalero."""
    return _translator(lang).pgettext("game", "Escalero") if game == "escalero" \
        else game.capitalize()


def column_place(index: int, lang: str) -> str:
    """E.g. 'Kolonne II', 'column II'."""
    return _translator(lang).gettext("column {name}").format(name=column_name(index))


def describe_allowed(row: Row, lang: str) -> str:
    """Row.describe_allowed in `lang`: '1-5', '20, serviert 25', '100 (serviert)'."""
    return row.describe_allowed(_translator(lang).gettext("served"))


@dataclass(frozen=True)
class Problem:
    """One finding. side/column are 0-based indices; None where it concerns more."""

    kind: str
    side: int | None
    column: int | None
    row: str | None
    message: str
    where: str = ""  # place in words, e.g. "Anna, Kolonne II, Neuner"

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "column": self.column, "row": self.row,
                "kind": self.kind, "where": self.where, "message": self.message}

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def validate(sheet: Sheet, lang: str = "de") -> tuple[Problem, ...]:
    """All problems of `sheet`, in sheet order (shape first, then side by side).

    Labels, places and messages are in `lang`; `kind` and the indices are the stable part.
    """
    _ = _translator(lang).gettext
    rules = sheet.ruleset
    problems = list(_shape_problems(sheet, rules, lang))
    for s, side in enumerate(sheet.sides):
        for c, column in enumerate(side.columns):
            place = f"{side.name}, {column_place(c, lang)}" if rules.columns > 1 else side.name
            for row in rules.rows:
                cell = column.get(row.id)
                label = row.labels.get(lang)
                where = f"{place}, {label}"
                if cell is None:
                    problems.append(Problem(
                        EMPTY, s, c, row.id,
                        _("{label} is empty; write a value or strike it (x)").format(
                            label=label), where))
                elif isinstance(cell, int) and not row.allows(cell):  # STRUCK is allowed
                    problems.append(Problem(
                        INVALID_VALUE, s, c, row.id,
                        _("{value} is not allowed in {label} ({allowed})").format(
                            value=cell, label=label, allowed=describe_allowed(row, lang)),
                        where))
                if row.requires and isinstance(cell, int):
                    needed = rules.row(row.requires)
                    if not isinstance(column.get(needed.id), int):
                        state = _("struck") if column.get(needed.id) is STRUCK else _("empty")
                        problems.append(Problem(
                            REQUIRES, s, c, row.id,
                            _("{label} {value} needs a {needed} first, but {needed} is "
                              "{state}; strike {label} or correct {needed}").format(
                                label=label, value=cell, state=state,
                                needed=needed.labels.get(lang)), where))
            written = side.written_totals[c]
            total = side.column_total(c)
            if written is not None and written != total:
                problems.append(Problem(
                    TOTAL, s, c, TOTAL_ROW,
                    _("written total {written} differs from the sum of the entries "
                      "{total}; the entries count").format(written=written, total=total),
                    f"{place}, " + _("Total")))
    return tuple(problems)


def _shape_problems(sheet: Sheet, rules: Ruleset, lang: str) -> list[Problem]:
    t = _translator(lang)
    sheet_word = t.gettext("sheet")
    game = game_name(rules.game, lang)
    problems = []
    n = len(sheet.sides)
    if n < rules.min_sides:
        problems.append(Problem(SHAPE, None, None, None, t.ngettext(
            "only {n} side: {game} needs at least {min} players or pairs; with nobody to "
            "play against everyone gets 0 points",
            "only {n} sides: {game} needs at least {min} players or pairs; with nobody to "
            "play against everyone gets 0 points", n).format(
                n=n, game=game, min=rules.min_sides), sheet_word))
    if n > rules.max_sides:
        problems.append(Problem(SHAPE, None, None, None, t.gettext(
            "{n} sides: {game} is played by at most {max} players or pairs; settled anyway, "
            "everyone against everyone").format(n=n, game=game, max=rules.max_sides),
            sheet_word))
    for s, side in enumerate(sheet.sides):
        if len(side.members) > 2:
            problems.append(Problem(SHAPE, s, None, None,
                                    t.gettext("{n} members; a side is one player or a pair")
                                    .format(n=len(side.members)), side.name))
    names = Counter(member for side in sheet.sides for member in side.members)
    reported: set[str] = set()
    for s, side in enumerate(sheet.sides):
        for member in side.members:
            if names[member] > 1 and member not in reported:
                reported.add(member)
                problems.append(Problem(SHAPE, s, None, None,
                                        t.gettext(
                                            "player {name!r} appears {n} times; give every "
                                            "player a distinct name so the money balance is "
                                            "right").format(name=member, n=names[member]),
                                        side.name))
    return problems
