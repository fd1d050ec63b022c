"""House rules: the settlement terms a table agrees on (RULES.md, House rules).

Three terms, Piatnik's by default (they give the classic settlement):
  column_points    what each column pays, I < II < III (one number for `one-column`);
  all_three_bonus  extra points from each opponent for winning every column outright;
  split_ties       two (or more) sides tied at the top of a column share it: every side
                   below pays the column's points, shared equally by the tied sides.
                   Off (Piatnik): nobody wins a tied column.

Presets: `piatnik` and `wirtshaus`, the common terms of the Android app
c4akarl/Escalero (bonus 3, split ties). Sheet JSON form:
    "house_rules": {"column_points": [1, 2, 4], "all_three_bonus": 2, "split_ties": false}
A file or flag may name a preset: "house_rules": "wirtshaus".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from escalero.scoring.errors import InputFileError, UsageError
from escalero.scoring.rulesets import Ruleset

from escalero.i18n import LANGUAGES, N_, Text, json_reason, os_reason, translator

MAX_COLUMN_POINTS = 100
MAX_BONUS = 10
FIELDS = ("column_points", "all_three_bonus", "split_ties")


@dataclass(frozen=True)
class HouseRules:
    column_points: tuple[int, ...] = (1, 2, 4)
    all_three_bonus: int = 2
    split_ties: bool = False

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem:
            raise ValueError(problem)

    def to_json(self) -> dict[str, Any]:
        return {"column_points": list(self.column_points),
                "all_three_bonus": self.all_three_bonus, "split_ties": self.split_ties}

    @property
    def preset(self) -> str | None:
        """The preset's name when these terms are exactly one, else None."""
        for name, terms in PRESETS.items():
            if terms == self or (len(self.column_points) == 1
                                 and terms.for_columns(1) == self):
                return name
        return None

    def for_columns(self, columns: int) -> HouseRules:
        """These terms on a sheet of `columns` columns: a one-column sheet pays 1, no bonus."""
        if columns == len(self.column_points):
            return self
        if columns == 1:
            return replace(self, column_points=(1,))
        raise ValueError(Text(N_("column_points {points} do not fit a sheet with {columns} "
                                 "columns; give {columns} numbers"),
                              points=_slash(self.column_points), columns=columns))

    def describe(self, lang: str = "de") -> str:
        """One line for a sheet footer or a table, e.g. 'Kolonnen 1/2/4 · alle drei +2'."""
        _ = translator(lang if lang in LANGUAGES else "en").gettext
        if len(self.column_points) == 1:
            parts = [_("Winner") + f" {self.column_points[0]}"]
        else:
            parts = [_("Columns") + f" {_slash(self.column_points)}",
                     _("all three") + f" +{self.all_three_bonus}"]
        parts.append(_("ties at the top split") if self.split_ties else
                     _("tie at the top: nobody"))
        return " · ".join(parts)


def _slash(values: tuple[int, ...]) -> str:
    return "/".join(str(v) for v in values)


def _problem(h: HouseRules) -> Text | None:
    cp = h.column_points
    if not isinstance(cp, tuple) or len(cp) not in (1, 3) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in cp):
        return Text(N_("column_points must be three whole numbers (or one for one-column), "
                       "e.g. 1/2/4"))
    if not all(1 <= v <= MAX_COLUMN_POINTS for v in cp):
        return Text(N_("column_points must be 1-{most}, not {points}"),
                    most=MAX_COLUMN_POINTS, points=_slash(cp))
    if any(b <= a for a, b in zip(cp, cp[1:], strict=False)):
        return Text(N_("column_points must ascend (I < II < III), not {points}"),
                    points=_slash(cp))
    bonus = h.all_three_bonus
    if isinstance(bonus, bool) or not isinstance(bonus, int) or not 0 <= bonus <= MAX_BONUS:
        return Text(N_("all_three_bonus must be a whole number 0-{most}, not {bonus!r}"),
                    most=MAX_BONUS, bonus=bonus)
    if not isinstance(h.split_ties, bool):
        return Text(N_("split_ties must be true or false, not {value!r}"), value=h.split_ties)
    return None


PIATNIK = HouseRules()
PRESETS: dict[str, HouseRules] = {
    "piatnik": PIATNIK,
    "wirtshaus": HouseRules(column_points=(1, 2, 4), all_three_bonus=3, split_ties=True),
}

def default_for(rules: Ruleset) -> HouseRules:
    """The terms a sheet without "house_rules" is settled with: Piatnik's, shaped by its
    variants (`weights-123` pays 1/2/3; `one-column` pays 1 and has no bonus)."""
    return HouseRules(column_points=rules.column_weights,
                      all_three_bonus=rules.all_columns_bonus or PIATNIK.all_three_bonus)


def preset(name: str) -> HouseRules:
    """A named preset; ValueError lists the names."""
    try:
        return PRESETS[name.strip().lower()]
    except KeyError:
        raise ValueError(Text(N_("unknown house rules {name!r}; presets are {presets} (or a "
                                 "JSON file)"), name=name, presets=", ".join(PRESETS))) from None


def from_json(obj: Any) -> HouseRules:
    """House rules from JSON: a preset name, or an object whose missing fields keep
    Piatnik's. ValueError names the field and what it must be."""
    if isinstance(obj, str):
        return preset(obj)
    if not isinstance(obj, Mapping):
        raise ValueError(Text(N_("house_rules must be an object such as {example} or a preset "
                                 "name"), example='{"column_points": [1, 2, 4], '
                              '"all_three_bonus": 2, "split_ties": false}'))
    unknown = [k for k in obj if k not in FIELDS]
    if unknown:
        raise ValueError(Text(N_("house_rules has an unknown field {field!r}; fields are "
                                 "{fields}"), field=unknown[0], fields=", ".join(FIELDS)))
    base = PIATNIK
    cp = obj.get("column_points", list(base.column_points))
    if isinstance(cp, int) and not isinstance(cp, bool):
        cp = [cp]
    if not isinstance(cp, list):
        raise ValueError(Text(N_("column_points must be a list of three whole numbers, e.g. "
                                 "[1, 2, 4]")))
    return HouseRules(column_points=tuple(cp),
                      all_three_bonus=obj.get("all_three_bonus", base.all_three_bonus),
                      split_ties=obj.get("split_ties", base.split_ties))


def parse_column_points(text: str) -> tuple[int, ...]:
    """'1/2/4', '1,2,4', '1-2-4' or '1' -> a tuple of ints; ValueError otherwise."""
    parts = [p for p in text.replace(",", "/").replace("-", "/").split("/") if p.strip()]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(Text(N_("column points {text!r}: give whole numbers like 1/2/4"),
                              text=text)) from None


def load(spec: str) -> HouseRules:
    """A preset name, or a JSON file holding house rules (or a sheet with "house_rules").

    InputFileError (exit 3) for a file that cannot be read or holds bad terms; a name that
    is neither a preset nor a file is a usage error (exit 2).
    """
    if spec.strip().lower() in PRESETS:
        return PRESETS[spec.strip().lower()]
    path = Path(spec)
    if not path.exists():
        raise UsageError.worded(N_("--house-rules {spec!r}: neither a preset ({presets}) nor "
                                   "an existing JSON file"), spec=spec,
                                presets=", ".join(PRESETS))
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise InputFileError.worded(N_("{spec}: cannot read house rules ({why})"), spec=spec,
                                    why=os_reason(err)) from None
    except json.JSONDecodeError as err:
        raise InputFileError.worded(N_("{spec}: not valid JSON (line {line}, column "
                                       "{column}: {why})"), spec=spec, line=err.lineno,
                                    column=err.colno, why=json_reason(err.msg)) from None
    if isinstance(obj, dict) and "house_rules" in obj:
        obj = obj["house_rules"]
    try:
        return from_json(obj)
    except ValueError as err:
        raise InputFileError.worded(N_("{spec}: {problem}"), spec=spec,
                                    problem=err.args[0]) from None


def with_flags(base: HouseRules, column_points: str | None, bonus: int | None,
               split_ties: bool | None) -> HouseRules:
    """`base` with the per-field flags applied; a bad value is a usage error (exit 2)."""
    try:
        cp = parse_column_points(column_points) if column_points is not None \
            else base.column_points
        return HouseRules(column_points=cp,
                          all_three_bonus=base.all_three_bonus if bonus is None else bonus,
                          split_ties=base.split_ties if split_ties is None else split_ties)
    except ValueError as err:
        raise UsageError.saying(err.args[0]) from None


@dataclass(frozen=True)
class Override:
    """What --house-rules and the per-term flags do to a sheet's own terms: `base` (a preset
    or file) replaces them, then each given flag replaces one term. Picklable, so scan
    workers get it too."""

    base: HouseRules | None = None
    column_points: str | None = None
    all_three_bonus: int | None = None
    split_ties: bool | None = None

    def check(self) -> None:
        """A usage error (exit 2) now for a bad flag, before any sheet is read."""
        with_flags(self.base or PIATNIK, self.column_points, self.all_three_bonus,
                   self.split_ties)

    def apply(self, own: HouseRules, columns: int) -> HouseRules:
        start = self.base or own
        if self.column_points is None:
            start = start.for_columns(columns)
        terms = with_flags(start, self.column_points, self.all_three_bonus, self.split_ties)
        try:
            return terms.for_columns(columns)
        except ValueError as err:
            raise UsageError.worded(N_("--column-points: {problem}"),
                                    problem=err.args[0]) from None
