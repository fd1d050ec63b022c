"""Check a sheet against its ruleset; every problem names its cell and what is allowed.

Validation never changes the sheet: the settlement counts entries as written.
Problems are data (`Problem`), not exceptions, so a sheet with mistakes can still
be shown, corrected and settled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from scoring.model import STRUCK, Sheet, column_name
from scoring.rulesets import Ruleset

# Problem kinds (stable codes for the web front end and tests).
INVALID_VALUE = "invalid_value"
REQUIRES = "requires"
EMPTY = "empty"
TOTAL = "total"
SHAPE = "shape"

TOTAL_ROW = "total"  # row id used for a written column total
TOTAL_LABEL = {"de": "Summe", "en": "Total", "es": "Total"}


@dataclass(frozen=True)
class Problem:
    """One finding. side/column are 0-based indices; None where it concerns more."""

    kind: str
    side: int | None
    column: int | None
    row: str | None
    message: str
    where: str = ""  # human-readable place, e.g. "Anna, column II, Neuner"

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "column": self.column, "row": self.row,
                "kind": self.kind, "where": self.where, "message": self.message}

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def validate(sheet: Sheet, lang: str = "de") -> tuple[Problem, ...]:
    """All problems of `sheet`, in sheet order (shape first, then side by side)."""
    rules = sheet.ruleset
    problems = list(_shape_problems(sheet, rules))
    for s, side in enumerate(sheet.sides):
        for c, column in enumerate(side.columns):
            place = f"{side.name}, column {column_name(c)}" if rules.columns > 1 else side.name
            for row in rules.rows:
                cell = column.get(row.id)
                label = row.labels.get(lang)
                where = f"{place}, {label}"
                if cell is None:
                    problems.append(Problem(
                        EMPTY, s, c, row.id,
                        f"{label} is empty; write a value or strike it (x)", where))
                elif cell is not STRUCK and not row.allows(cell):
                    problems.append(Problem(
                        INVALID_VALUE, s, c, row.id,
                        f"{cell} is not allowed in {label} ({row.describe_allowed()})", where))
                if row.requires and isinstance(cell, int):
                    needed = rules.row(row.requires)
                    needed_label = needed.labels.get(lang)
                    if not isinstance(column.get(needed.id), int):
                        state = "struck" if column.get(needed.id) is STRUCK else "empty"
                        problems.append(Problem(
                            REQUIRES, s, c, row.id,
                            f"{label} {cell} needs a {needed_label} first, but {needed_label} "
                            f"is {state}; strike {label} or correct {needed_label}", where))
            written = side.written_totals[c]
            total = side.column_total(c)
            if written is not None and written != total:
                problems.append(Problem(
                    TOTAL, s, c, TOTAL_ROW,
                    f"written total {written} differs from the sum of the entries {total}; "
                    "the entries count", f"{place}, {TOTAL_LABEL[lang]}"))
    return tuple(problems)


def _shape_problems(sheet: Sheet, rules: Ruleset) -> list[Problem]:
    problems = []
    n = len(sheet.sides)
    if n < rules.min_sides:
        problems.append(Problem(
            SHAPE, None, None, None,
            f"{n} side(s): {rules.game} needs at least {rules.min_sides}; "
            "with nobody to play against every side gets 0 points", "sheet"))
    if n > rules.max_sides:
        problems.append(Problem(
            SHAPE, None, None, None,
            f"{n} sides: {rules.game} is played by at most {rules.max_sides}; "
            "settled anyway, every side against every other", "sheet"))
    for s, side in enumerate(sheet.sides):
        if len(side.members) > 2:
            problems.append(Problem(
                SHAPE, s, None, None,
                f"{len(side.members)} members; a side is one player or a pair", side.name))
    names = Counter(m for side in sheet.sides for m in side.members)
    reported: set[str] = set()
    for s, side in enumerate(sheet.sides):
        for m in side.members:
            if names[m] > 1 and m not in reported:
                reported.add(m)
                problems.append(Problem(
                    SHAPE, s, None, None,
                    f"player {m!r} appears {names[m]} times; give every player "
                    "a distinct name so the money balance is right", side.name))
    return problems
