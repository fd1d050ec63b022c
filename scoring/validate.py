"""Check a sheet against its ruleset; every problem names its cell and what is allowed.

Validation never changes the sheet: the settlement counts entries as written.
Problems are data (`Problem`), not exceptions, so a sheet with mistakes can still
be shown, corrected and settled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from escalero.scoring.errors import UnknownRulesError
from escalero.scoring.model import STRUCK, Sheet, column_name
from escalero.scoring.rulesets import Row, Ruleset

# Problem kinds (stable codes for the web front end and tests).
INVALID_VALUE = "invalid_value"
REQUIRES = "requires"
EMPTY = "empty"
TOTAL = "total"
SHAPE = "shape"

TOTAL_ROW = "total"  # row id used for a written column total

# Every sentence a player reads, one table per language (same keys in each; a test checks).
# The English sentences are what tools parse from `settle --json`: change them only on purpose.
# Placeholders: label/needed are row labels, allowed is describe_allowed(row, lang).
MESSAGES: dict[str, dict[str, str]] = {
    "de": {
        "column": "Kolonne {name}", "sheet": "Spieltabelle", "total": "Summe",
        "served": "serviert",
        "invalid": "{value} ist in {label} nicht erlaubt ({allowed})",
        "empty": "{label} ist leer; Wert eintragen oder streichen (x)",
        "requires": "{label} {value} ohne {needed} ({needed} ist {state}); "
                    "{label} streichen oder {needed} berichtigen",
        "struck": "gestrichen", "blank": "leer",
        "total_differs": "Summe geschrieben {written}, die Einträge ergeben {total}; "
                         "es zählen die Einträge",
        "too_few": "nur {n} Partei: {game} braucht mindestens {min} Spieler oder Paare; "
                   "ohne Gegner gibt es 0 Partiepunkte",
        "too_many": "{n} Parteien: {game} spielen höchstens {max} Spieler oder Paare; "
                    "trotzdem abgerechnet, jeder gegen jeden",
        "members": "{n} Mitspieler; eine Partei ist ein Spieler oder ein Paar",
        "duplicate": "Spieler {name!r} steht {n}-mal auf der Tabelle; jedem Spieler "
                     "einen eigenen Namen geben, sonst stimmt die Geldrechnung nicht",
    },
    "en": {
        "column": "column {name}", "sheet": "sheet", "total": "Total",
        "served": "served",
        "invalid": "{value} is not allowed in {label} ({allowed})",
        "empty": "{label} is empty; write a value or strike it (x)",
        "requires": "{label} {value} needs a {needed} first, but {needed} is {state}; "
                    "strike {label} or correct {needed}",
        "struck": "struck", "blank": "empty",
        "total_differs": "written total {written} differs from the sum of the entries "
                         "{total}; the entries count",
        "too_few": "only {n} side: {game} needs at least {min} players or pairs; "
                   "with nobody to play against everyone gets 0 points",
        "too_many": "{n} sides: {game} is played by at most {max} players or pairs; "
                    "settled anyway, everyone against everyone",
        "members": "{n} members; a side is one player or a pair",
        "duplicate": "player {name!r} appears {n} times; give every player "
                     "a distinct name so the money balance is right",
    },
    "es": {
        "column": "columna {name}", "sheet": "planilla", "total": "Total",
        "served": "servido",
        "invalid": "{value} no está permitido en {label} ({allowed})",
        "empty": "{label} sin anotar; anote un valor o tache la casilla (x)",
        "requires": "{label} {value} sin {needed} ({needed}: {state}); "
                    "tache {label} o corrija {needed}",
        "struck": "tachado", "blank": "vacío",
        "total_differs": "total escrito {written}, las anotaciones suman {total}; "
                         "cuentan las anotaciones",
        "too_few": "solo {n} equipo: {game} necesita al menos {min} jugadores o parejas; "
                   "sin rivales todos reciben 0 puntos",
        "too_many": "{n} equipos: {game} se juega como máximo entre {max} jugadores o "
                    "parejas; se liquida igual, todos contra todos",
        "members": "{n} integrantes; un equipo es un jugador o una pareja",
        "duplicate": "el jugador {name!r} aparece {n} veces; dé a cada jugador "
                     "un nombre distinto para que cuadre el dinero",
    },
}
GAME_NAMES = {"de": {"escalero": "Eskalero"}, "en": {}, "es": {}}


def messages(lang: str) -> dict[str, str]:
    if lang not in MESSAGES:
        raise UnknownRulesError(
            f"unknown language {lang!r}; choose one of {', '.join(MESSAGES)}")
    return MESSAGES[lang]


def game_name(game: str, lang: str) -> str:
    """The game as players call it: Piatnik spells it Eskalero."""
    return GAME_NAMES[lang].get(game, game.capitalize())


def column_place(index: int, lang: str) -> str:
    """E.g. 'Kolonne II', 'column II'."""
    return messages(lang)["column"].format(name=column_name(index))


def describe_allowed(row: Row, lang: str) -> str:
    """Row.describe_allowed in `lang`: '1-5', '20, serviert 25', '100 (serviert)'."""
    return row.describe_allowed(messages(lang)["served"])


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
    m = messages(lang)
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
                        EMPTY, s, c, row.id, m["empty"].format(label=label), where))
                elif cell is not STRUCK and not row.allows(cell):
                    problems.append(Problem(
                        INVALID_VALUE, s, c, row.id,
                        m["invalid"].format(value=cell, label=label,
                                            allowed=describe_allowed(row, lang)), where))
                if row.requires and isinstance(cell, int):
                    needed = rules.row(row.requires)
                    if not isinstance(column.get(needed.id), int):
                        state = m["struck"] if column.get(needed.id) is STRUCK else m["blank"]
                        problems.append(Problem(
                            REQUIRES, s, c, row.id,
                            m["requires"].format(label=label, value=cell, state=state,
                                                 needed=needed.labels.get(lang)), where))
            written = side.written_totals[c]
            total = side.column_total(c)
            if written is not None and written != total:
                problems.append(Problem(
                    TOTAL, s, c, TOTAL_ROW,
                    m["total_differs"].format(written=written, total=total),
                    f"{place}, {m['total']}"))
    return tuple(problems)


def _shape_problems(sheet: Sheet, rules: Ruleset, lang: str) -> list[Problem]:
    m = messages(lang)
    game = game_name(rules.game, lang)
    problems = []
    n = len(sheet.sides)
    if n < rules.min_sides:
        problems.append(Problem(SHAPE, None, None, None,
                                m["too_few"].format(n=n, game=game, min=rules.min_sides),
                                m["sheet"]))
    if n > rules.max_sides:
        problems.append(Problem(SHAPE, None, None, None,
                                m["too_many"].format(n=n, game=game, max=rules.max_sides),
                                m["sheet"]))
    for s, side in enumerate(sheet.sides):
        if len(side.members) > 2:
            problems.append(Problem(SHAPE, s, None, None,
                                    m["members"].format(n=len(side.members)), side.name))
    names = Counter(member for side in sheet.sides for member in side.members)
    reported: set[str] = set()
    for s, side in enumerate(sheet.sides):
        for member in side.members:
            if names[member] > 1 and member not in reported:
                reported.add(member)
                problems.append(Problem(SHAPE, s, None, None,
                                        m["duplicate"].format(name=member, n=names[member]),
                                        side.name))
    return problems
