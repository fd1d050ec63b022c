"""Sheet model: parsing, errors that name the problem, round trip, STRUCK."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from escalero.scoring.errors import InputFileError, UnknownRulesError
from escalero.scoring.model import STRUCK, Sheet, load_sheet


def _sheet(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"game": "escalero", "sides": [
        {"name": "Anna", "columns": [{"nines": 3}, {}, {}]},
        {"name": "Ben", "columns": [{}, {}, {}]}]}
    base.update(over)
    return base


def test_cells_as_written() -> None:
    sheet = Sheet.from_json(_sheet(sides=[
        {"name": "Anna", "columns": [{"nines": 7, "tens": "x", "jacks": 0, "queens": None},
                                     {}, {}], "written_totals": [7, None, 0]},
        {"name": "Ben", "columns": [{}, {}, {}]}]))
    col = sheet.sides[0].columns[0]
    assert col["nines"] == 7  # invalid values are kept as written
    assert col["tens"] is STRUCK and col["jacks"] is STRUCK  # a written 0 reads as struck
    assert "queens" not in col  # null = empty
    assert sheet.sides[0].cell(0, "queens") is None
    assert STRUCK != 0
    assert sheet.sides[0].totals == (7, 0, 0)
    assert sheet.sides[0].written_totals == (7, None, 0)
    assert sheet.sides[0].members == ("Anna",)  # a side without members is its own player


def test_round_trip_and_frozen() -> None:
    obj = _sheet(variant=["strasse-25"], serial="A17", sides=[
        {"name": "A & B", "members": ["A", "B"], "columns": [{"straight": 30, "tens": "x"}, {}, {}],
         "written_totals": [30, None, None]},
        {"name": "C", "members": ["C"], "columns": [{}, {}, {"grande": 80}],
         "written_totals": [None, None, None]}])
    sheet = Sheet.from_json(obj)
    assert sheet.to_json() == {**obj, "sides": [
        {**obj["sides"][0], "columns": [{"tens": "x", "straight": 30}, {}, {}]}, obj["sides"][1]]}
    assert Sheet.from_json(json.loads(json.dumps(sheet.to_json()))) == sheet
    assert sheet.ruleset.row("straight").allowed == (25, 30)
    with pytest.raises(AttributeError):
        sheet.game = "generala"  # type: ignore[misc]
    with pytest.raises(TypeError):
        sheet.sides[0].columns[0]["nines"] = 3  # type: ignore[index]
    assert pickle.loads(pickle.dumps(STRUCK)) is STRUCK
    assert hash(sheet) == hash(Sheet.from_json(obj))  # usable as a cache key
    assert pickle.loads(pickle.dumps(sheet)) == sheet


def test_variants_key_and_defaults() -> None:
    sheet = Sheet.from_json(_sheet(variants=["one-column"], sides=[
        {"name": "A", "columns": [{}]}, {"name": "B", "columns": [{}]}]))
    assert sheet.variants == ("one-column",)
    assert Sheet.from_json({"sides": [{"name": "A", "columns": [{}, {}, {}]}]}).game == "escalero"


@pytest.mark.parametrize(("obj", "needle", "error"), [
    ([1, 2], "must be a JSON object", InputFileError),
    (_sheet(game="yahtzee"), "unknown game 'yahtzee'", UnknownRulesError),
    (_sheet(variant=["strasse-30"]), "unknown variant 'strasse-30'", UnknownRulesError),
    (_sheet(variant="one-column"), "side 1 (Anna): has 3 column(s) but escalero (one-column) "
     "has 1", InputFileError),
    (_sheet(sides=[]), "\"sides\" must be a non-empty list", InputFileError),
    (_sheet(sides={"Anna": {}}), "\"sides\" must be a non-empty list", InputFileError),
    (_sheet(sides=[{"columns": [{}, {}, {}]}]), "side 1: \"name\" must be", InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{}, {}]}]), "has 2 column(s)", InputFileError),
    (_sheet(sides=[{"name": "A", "columns": {"nines": 3}}]), "\"columns\" must be a list",
     InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{"nine": 3}, {}, {}]}]),
     "side 1 (A), column I: unknown row 'nine'", UnknownRulesError),
    (_sheet(sides=[{"name": "A", "columns": [{}, {"nines": "3"}, {}]}]),
     "side 1 (A), column II, row nines: \"3\" is not a valid entry", InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{}, {}, {"nines": 2.5}]}]),
     "column III, row nines: 2.5 is not a valid entry", InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{"nines": True}, {}, {}]}]),
     "true is not a valid entry", InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{"nines": -1}, {}, {}]}]), "-1 is out of range",
     InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{}, {}, {}], "written_totals": [1, 2]}]),
     "\"written_totals\" must be a list of 3", InputFileError),
    (_sheet(sides=[{"name": "A", "columns": [{}, {}, {}], "written_totals": [1, "x", None]}]),
     "written total of column II: \"x\" is not a valid entry; use an integer or null",
     InputFileError),
    (_sheet(sides=[{"name": "A", "members": [], "columns": [{}, {}, {}]}]), "\"members\" must be",
     InputFileError),
    (_sheet(sides=["A"]), "side 1: must be an object", InputFileError),
    (_sheet(variant=["strasse-25"], variants=["one-column"]), "not both", InputFileError),
    ({"game": "generala", "variant": ["strasse-25"], "sides": []}, "Generala has no house variants",
     UnknownRulesError),
])
def test_from_json_errors_name_the_problem(obj: Any, needle: str, error: type) -> None:
    with pytest.raises(error) as info:
        Sheet.from_json(obj)
    message = str(info.value)
    assert needle in message
    assert "\n" not in message
    assert info.value.exit_code == 3


def test_load_sheet(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_sheet()), encoding="utf-8")
    assert load_sheet(good).sides[0].cell(0, "nines") == 3
    bad = tmp_path / "bad.json"
    bad.write_text("{\"game\": ", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"bad.json: not valid JSON \(line 1"):
        load_sheet(bad)
    with pytest.raises(InputFileError, match="no such file"):
        load_sheet(tmp_path / "missing.json")
    with pytest.raises(InputFileError, match="is a directory"):
        load_sheet(tmp_path)
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\xff\xfe")
    with pytest.raises(InputFileError, match="not a text file"):
        load_sheet(binary)
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps(_sheet(variant=["x"])), encoding="utf-8")
    with pytest.raises(UnknownRulesError, match=r"unknown.json: unknown variant 'x'"):
        load_sheet(unknown)
