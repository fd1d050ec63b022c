"""The sheet data model: what is written on a score sheet, exactly as written.

A `Sheet` holds raw entries. Nothing is weighted, corrected or judged here:
an entry that breaks the rules (7 in Neuner) is kept as written, so that the
validator can name it and the settlement counts it as written.

JSON form (see docs/sheet-json.md):

    {"game": "escalero", "variant": ["strasse-25"], "serial": "optional",
     "house_rules": {"column_points": [1, 2, 4], "all_three_bonus": 2, "split_ties": false},
     "sides": [{"name": "Anna", "members": ["Anna"],
                "columns": [{"nines": 3, "tens": "x"}, {}, {}],
                "written_totals": [120, null, 98]}]}

A cell is an integer, "x" for struck, null (or missing) for empty. A written 0
means struck (RULES.md), so it is stored as STRUCK.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from escalero.scoring import house as house_mod
from escalero.scoring.errors import InputFileError, UnknownRulesError
from escalero.scoring.house import HouseRules
from escalero.scoring.rulesets import Ruleset, get_ruleset

from escalero.i18n import N_, Text, json_reason

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")
STRUCK_JSON = "x"
# Marks a player may use for "struck" in JSON; "x" is what we write back.
_STRUCK_MARKS = frozenset({"x", "X", "-", "/"})
# Larger than any cell or column total on a real sheet; guards against garbage input.
MAX_WRITTEN = 9999
# Hard caps on what a sheet can hold, checked before any work: the largest printed
# sheet has 8 sides of at most 2 players. Up to these caps the validator still names
# "too many sides/members" as a problem; beyond them the input is refused outright.
MAX_SIDES = 16
MAX_MEMBERS = 4
MAX_NAME_LEN = 40
# A side's name is its members' names joined ("Anna & Ben"): each is held to MAX_NAME_LEN.
MAX_SIDE_NAME_LEN = MAX_MEMBERS * MAX_NAME_LEN + len(" & ") * (MAX_MEMBERS - 1)
MAX_SERIAL_LEN = 64
# A full 16-side sheet with long names is ~20 kB of JSON; 1 MB leaves room for any
# indentation while a file of garbage is refused before parsing.
MAX_SHEET_CHARS = 1_000_000


class _Struck:
    """The struck mark (gestrichen). Distinct from 0 and from empty; counts 0."""

    _instance: _Struck | None = None

    def __new__(cls) -> _Struck:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "STRUCK"

    def __reduce__(self) -> str:
        return "STRUCK"  # pickles as the module-level singleton

    def __hash__(self) -> int:
        return hash("STRUCK")


STRUCK: Final = _Struck()
Cell = int | _Struck | None  # a cell in the model: an integer, STRUCK or None (empty)
CellValue = int | str | None  # a cell in sheet-JSON form: an integer, "x" (struck) or None
CellKey = tuple[int, int, str]  # side, column, row id (TOTAL_ROW for a written total)
TOTAL_ROW: Final = "total"  # the row id of a written column total (review, keys, layouts)


class Cells(Mapping[str, Cell]):
    """One column's cells, row id -> cell: read-only and hashable like the dataclasses."""

    __slots__ = ("_cells",)

    def __init__(self, cells: Mapping[str, Cell] | None = None) -> None:
        self._cells = dict(cells or {})

    def __getitem__(self, row_id: str) -> Cell:
        return self._cells[row_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cells)

    def __len__(self) -> int:
        return len(self._cells)

    def __hash__(self) -> int:
        return hash(tuple(self._cells.items()))

    def __repr__(self) -> str:
        return f"Cells({self._cells!r})"


def cell_points(cell: Cell | CellValue) -> int:
    """What a cell (model or sheet-JSON form) adds to its column total: struck and empty
    count 0."""
    return cell if isinstance(cell, int) else 0


def column_name(index: int) -> str:
    return ROMAN[index] if index < len(ROMAN) else str(index + 1)


@dataclass(frozen=True)
class Side:
    """One side of the sheet: a player, or a pair (two members) in pairs mode."""

    name: str
    members: tuple[str, ...]
    columns: tuple[Mapping[str, Cell], ...]
    written_totals: tuple[int | None, ...]

    def cell(self, column: int, row_id: str) -> Cell:
        return self.columns[column].get(row_id)

    def column_total(self, column: int) -> int:
        """Sum of the entries as written (invalid values count as written)."""
        return sum(cell_points(v) for v in self.columns[column].values())

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self.column_total(c) for c in range(len(self.columns)))


@dataclass(frozen=True)
class Sheet:
    game: str
    variants: tuple[str, ...]
    sides: tuple[Side, ...]
    serial: str | None = None
    house_rules: HouseRules | None = None  # the table's terms; None: Piatnik's (RULES.md)

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.game, self.variants)

    @property
    def house(self) -> HouseRules | None:
        """The terms this sheet settles with (None for Generala, which has none)."""
        if self.game != "escalero":
            return None
        rules = self.ruleset
        return (self.house_rules or house_mod.default_for(rules)).for_columns(rules.columns)

    @classmethod
    def from_json(cls, obj: Any) -> Sheet:
        """Build a sheet from parsed JSON; InputFileError names the exact problem."""
        return _parse_sheet(obj)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "variant": list(self.variants),
            **({"serial": self.serial} if self.serial is not None else {}),
            **({"house_rules": self.house_rules.to_json()}
               if self.house_rules is not None else {}),
            "sides": [
                {
                    "name": s.name,
                    "members": list(s.members),
                    "columns": [
                        {rid: cell_to_json(v) for rid, v in col.items() if v is not None}
                        for col in s.columns
                    ],
                    "written_totals": list(s.written_totals),
                }
                for s in self.sides
            ],
        }


def with_cell(sheet: Sheet, key: CellKey, value: CellValue) -> Sheet:
    """A copy of `sheet` with one cell (or, for row TOTAL_ROW, one written total) set to a
    sheet-JSON value: an int, "x" (struck) or None (empty)."""
    side_i, column, row = key
    side = sheet.sides[side_i]
    if row == TOTAL_ROW:
        totals = list(side.written_totals)
        totals[column] = value if isinstance(value, int) else None
        new_side = replace(side, written_totals=tuple(totals))
    else:
        cells = dict(side.columns[column])
        cell = STRUCK if value in ("x", 0) else value
        if cell is None:
            cells.pop(row, None)
        else:
            cells[row] = cell  # type: ignore[assignment]
        order = sheet.ruleset.row_ids
        columns = list(side.columns)
        columns[column] = Cells({r: cells[r] for r in order if r in cells})
        new_side = replace(side, columns=tuple(columns))
    sides = list(sheet.sides)
    sides[side_i] = new_side
    return replace(sheet, sides=tuple(sides))


def load_sheet(path: str | Path) -> Sheet:
    """Read a sheet JSON file (`-` reads stdin): at most MAX_SHEET_CHARS characters are
    read, so a huge file or an endless pipe is refused at once."""
    try:
        if str(path) == "-":
            text = sys.stdin.read(MAX_SHEET_CHARS + 1)
        else:
            with Path(path).open(encoding="utf-8") as f:
                text = f.read(MAX_SHEET_CHARS + 1)
    except FileNotFoundError:
        raise InputFileError.worded(N_("{path}: no such file; give the path of a sheet JSON "
                                       "file"), path=path) from None
    except IsADirectoryError:
        raise InputFileError.worded(N_("{path}: is a directory; give a sheet JSON file"),
                                    path=path) from None
    except UnicodeDecodeError:
        raise InputFileError.worded(N_("{path}: not a text file; give a sheet JSON file "
                                       "(UTF-8)"), path=path) from None
    except OSError as err:
        raise InputFileError.worded(N_("{path}: cannot read it ({why})"), path=path,
                                    why=err.strerror) from None
    if len(text) > MAX_SHEET_CHARS:
        raise InputFileError.worded(N_("{path}: far more than a sheet needs (at most {n} "
                                       "characters are read); give a sheet JSON file"),
                                    path=path, n=f"{MAX_SHEET_CHARS:,}")
    try:
        obj = parse_json(text)
    except InputFileError as err:
        raise InputFileError.worded(N_("{path}: {problem}"), path=path, problem=err) from None
    try:
        return Sheet.from_json(obj)
    except InputFileError as err:
        raise type(err).worded(N_("{path}: {problem}"), path=path, problem=err) from None


def parse_json(text: str | bytes) -> Any:
    """json.loads, with every way it can fail on hostile text as one InputFileError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputFileError.worded(N_("not valid JSON (line {line}, column {column}: {why})"),
                                    line=err.lineno, column=err.colno,
                                    why=json_reason(err.msg)) from None
    except RecursionError:
        raise InputFileError.worded(N_("not a sheet: JSON nested far too deep")) from None
    except UnicodeDecodeError:
        raise InputFileError.worded(N_("not valid JSON: the text is not UTF-8")) from None
    except ValueError as err:  # an integer of thousands of digits
        raise InputFileError.worded(N_("not valid JSON: {why}"),
                                    why=str(err).split(";")[0]) from None


# --- parsing -----------------------------------------------------------------------------


def cell_to_json(cell: Cell) -> CellValue:
    """A model cell in sheet-JSON form: STRUCK becomes "x"."""
    return STRUCK_JSON if cell is STRUCK else cell  # type: ignore[return-value]


_TYPE_NAMES = {bool: N_("true/false"), str: N_("a string"), float: N_("a decimal number"),
               list: N_("a list"), dict: N_("an object"), int: N_("an integer")}


def _type_name(value: Any) -> Text | str:
    if value is None:
        return "null"
    name = _TYPE_NAMES.get(type(value))
    return Text(name) if name else type(value).__name__


def _parse_sheet(obj: Any) -> Sheet:
    if not isinstance(obj, dict):
        raise InputFileError.worded(N_("a sheet must be a JSON object with \"game\" and "
                                       "\"sides\", not {type}"), type=_type_name(obj))
    game = obj.get("game", "escalero")
    if not isinstance(game, str):
        raise InputFileError.worded(N_("\"game\" must be a string such as \"escalero\", not "
                                       "{type}"), type=_type_name(game))
    variants = _parse_variants(obj)
    ruleset = get_ruleset(game, variants)  # UnknownRulesError names the game or variant
    serial = obj.get("serial")
    if serial is not None and not isinstance(serial, str | int):
        raise InputFileError.worded(N_("\"serial\" must be a string, not {type}"),
                                    type=_type_name(serial))
    if serial is not None and not _clean_text(str(serial), MAX_SERIAL_LEN):
        raise InputFileError.worded(N_("\"serial\" must be at most {most} printable "
                                       "characters"), most=MAX_SERIAL_LEN)
    sides_obj = obj.get("sides")
    if not isinstance(sides_obj, list) or not sides_obj:
        raise InputFileError.worded(N_("\"sides\" must be a non-empty list of sides "
                                       "({example})"), example='{"name": ..., "columns": [...]}')
    if len(sides_obj) > MAX_SIDES:
        raise InputFileError.worded(N_("\"sides\" has {n} sides; a sheet holds at most "
                                       "{most}"), n=len(sides_obj), most=MAX_SIDES)
    sides = tuple(_parse_side(s, i, ruleset) for i, s in enumerate(sides_obj))
    return Sheet(game=game, variants=ruleset.variants, sides=sides,
                 serial=None if serial is None else str(serial),
                 house_rules=_parse_house_rules(obj.get("house_rules"), ruleset))


def _parse_house_rules(obj: Any, ruleset: Ruleset) -> HouseRules | None:
    """The sheet's "house_rules" (absent or null: None, Piatnik's), checked against the game."""
    if obj is None:
        return None
    if ruleset.game != "escalero":
        raise InputFileError.worded(N_("\"house_rules\" apply to Escalero only, not {game}; "
                                       "remove them"), game=ruleset.game)
    try:
        terms = house_mod.from_json(obj)
        terms.for_columns(ruleset.columns)
    except ValueError as err:
        raise InputFileError.worded(N_("\"house_rules\": {problem}"),
                                    problem=err.args[0]) from None
    if "weights-123" in ruleset.variants and terms.column_points != ruleset.column_weights:
        raise InputFileError.worded(N_("variant weights-123 means column points 1/2/3 but "
                                       "\"house_rules\" says {points}; drop one of the two"),
                                    points="/".join(map(str, terms.column_points)))
    return terms


def _parse_variants(obj: dict[str, Any]) -> tuple[str, ...]:
    if "variant" in obj and "variants" in obj:
        raise InputFileError.worded(N_("give either \"variant\" or \"variants\", not both"))
    raw = obj.get("variant", obj.get("variants", []))
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (raw,)
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise InputFileError.worded(N_("\"variant\" must be a list of variant names, not "
                                       "{type}"), type=_type_name(raw))
    return tuple(raw)


def _parse_side(obj: Any, index: int, ruleset: Ruleset) -> Side:
    where: Text = Text(N_("side {n}"), n=index + 1)
    if not isinstance(obj, dict):
        raise InputFileError.worded(N_("{where}: must be an object with \"name\" and "
                                       "\"columns\", not {type}"), where=where,
                                    type=_type_name(obj))
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InputFileError.worded(N_("{where}: \"name\" must be a non-empty string"),
                                    where=where)
    if not _clean_text(name, MAX_SIDE_NAME_LEN if "members" in obj else MAX_NAME_LEN):
        raise InputFileError.worded(N_("{where}: \"name\" must be at most {most} printable "
                                       "characters per player (no control characters)"),
                                    where=where, most=MAX_NAME_LEN)
    where = Text(N_("side {n} ({name})"), n=index + 1, name=name.strip())
    _check_members(obj.get("members", [name]), where)
    columns_obj = obj.get("columns")
    if not isinstance(columns_obj, list):
        raise InputFileError.worded(N_("{where}: \"columns\" must be a list of {n} column "
                                       "object(s), not {type}"), where=where,
                                    n=ruleset.columns, type=_type_name(columns_obj))
    if len(columns_obj) != ruleset.columns:
        raise InputFileError.worded(N_("{where}: has {n} column(s) but {game} has {columns}; "
                                       "give exactly {columns}"), where=where,
                                    n=len(columns_obj), game=_game_name(ruleset),
                                    columns=ruleset.columns)
    columns = tuple(
        _parse_column(col, Text(N_("{where}, column {column}"), where=where,
                                column=column_name(c)), ruleset)
        for c, col in enumerate(columns_obj)
    )
    totals_obj = obj.get("written_totals", [None] * ruleset.columns)
    if totals_obj is None:
        totals_obj = [None] * ruleset.columns
    if not isinstance(totals_obj, list) or len(totals_obj) != ruleset.columns:
        raise InputFileError.worded(N_("{where}: \"written_totals\" must be a list of {n} "
                                       "numbers or nulls (one per column)"), where=where,
                                    n=ruleset.columns)
    totals = tuple(
        _parse_int(t, Text(N_("{where}, written total of column {column}"), where=where,
                           column=column_name(c)), allow_null=True,
                   hint=Text(N_("an integer or null")))
        for c, t in enumerate(totals_obj)
    )
    members = obj.get("members", [name])
    return Side(name=name.strip(), members=tuple(m.strip() for m in members),
                columns=columns, written_totals=totals)


def _check_members(members: Any, where: Text) -> None:
    """A side's "members": a short list of printable player names."""
    if (not isinstance(members, list) or not members
            or not all(isinstance(m, str) and m.strip() for m in members)):
        raise InputFileError.worded(N_("{where}: \"members\" must be a non-empty list of "
                                       "player names"), where=where)
    if len(members) > MAX_MEMBERS:
        raise InputFileError.worded(N_("{where}: \"members\" lists {n} players; a side has "
                                       "at most {most}"), where=where, n=len(members),
                                    most=MAX_MEMBERS)
    if not all(_clean_text(m, MAX_NAME_LEN) for m in members):
        raise InputFileError.worded(N_("{where}: each member must be at most {most} "
                                       "printable characters (no control characters)"),
                                    where=where, most=MAX_NAME_LEN)


def _clean_text(text: str, limit: int) -> bool:
    """Short and printable: no terminal escapes, line breaks or lone surrogates (none of
    them printable), which would garble a table, a CSV line or the UTF-8 output."""
    text = text.strip()
    return len(text) <= limit and text.isprintable()


def _game_name(ruleset: Ruleset) -> str:
    variants = f" ({', '.join(ruleset.variants)})" if ruleset.variants else ""
    return f"{ruleset.game}{variants}"


def _parse_column(obj: Any, where: Text, ruleset: Ruleset) -> Mapping[str, Cell]:
    if not isinstance(obj, dict):
        raise InputFileError.worded(N_("{where}: must be an object of row id -> value, not "
                                       "{type}"), where=where, type=_type_name(obj))
    cells: dict[str, Cell] = {}
    for row_id, raw in obj.items():
        if row_id not in ruleset.row_ids:
            raise UnknownRulesError.worded(N_("{where}: unknown row {row!r} for {game}; rows "
                                              "are {rows}"), where=where, row=row_id,
                                           game=_game_name(ruleset),
                                           rows=", ".join(ruleset.row_ids))
        cell = _parse_cell(raw, Text(N_("{where}, row {row}"), where=where, row=row_id))
        if cell is not None:
            cells[row_id] = cell
    # Keep the ruleset's row order so output and iteration are stable.
    return Cells({rid: cells[rid] for rid in ruleset.row_ids if rid in cells})


def _parse_cell(raw: Any, where: Text) -> Cell:
    if isinstance(raw, str) and raw.strip() in _STRUCK_MARKS:
        return STRUCK
    value = _parse_int(raw, where, allow_null=True,
                       hint=Text(N_("an integer, \"x\" for struck or null for empty")))
    if value == 0:
        return STRUCK  # a written 0 reads as struck
    return value


def _parse_int(raw: Any, where: Text, *, allow_null: bool, hint: Text) -> int | None:
    if raw is None and allow_null:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int):
        shown = json.dumps(raw) if isinstance(raw, str | float | list | dict | bool) else repr(raw)
        raise InputFileError.worded(N_("{where}: {shown} is not a valid entry; use {hint}"),
                                    where=where, shown=shown, hint=hint)
    if not 0 <= raw <= MAX_WRITTEN:
        raise InputFileError.worded(N_("{where}: {value} is out of range; entries are "
                                       "0-{most}"), where=where, value=raw, most=MAX_WRITTEN)
    return raw
