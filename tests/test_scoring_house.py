"""House rules: rule-table cases per term and preset, the app's examples, the CLI."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from escalero.scoring.house import PIATNIK, PRESETS, HouseRules, from_json
from escalero.scoring.model import Sheet
from escalero.scoring.money import side_amounts
from escalero.scoring.report import settle_report
from escalero.scoring.rulesets import get_ruleset
from escalero.scoring.settle import settle, settle_totals

from escalero_cli import main

ESC = get_ruleset("escalero")
WIRTSHAUS = PRESETS["wirtshaus"]

# The examples, compared with c4akarl/Escalero's settlement (EscaleroData.kt).
SPLIT_EXAMPLE = ((50, 40, 30), (50, 20, 20), (40, 20, 40))
BONUS_EXAMPLE = ((50, 50, 50), (40, 40, 40))
DOUBLE_BONUS_EXAMPLE = ((50, 50, 50), (50, 50, 50), (40, 40, 40))

CASES = [
    # (totals, house rules, points)
    (BONUS_EXAMPLE, PIATNIK, (9, -9)),
    (BONUS_EXAMPLE, WIRTSHAUS, (10, -10)),  # the app: +10 with bonus 3
    (BONUS_EXAMPLE, HouseRules(all_three_bonus=0), (7, -7)),
    (BONUS_EXAMPLE, HouseRules(column_points=(1, 2, 3)), (8, -8)),
    (BONUS_EXAMPLE, HouseRules(column_points=(2, 4, 8), all_three_bonus=10), (24, -24)),
    (SPLIT_EXAMPLE, PIATNIK, (0, -6, 6)),
    (SPLIT_EXAMPLE, WIRTSHAUS, (Fraction(1, 2), Fraction(-11, 2), 5)),  # the app's numbers
    (SPLIT_EXAMPLE, HouseRules(split_ties=True), (Fraction(1, 2), Fraction(-11, 2), 5)),
    # Split columns never earn the all-three bonus: +3.5/+3.5/-7, not the app's 5.5/5.5/-11.
    (DOUBLE_BONUS_EXAMPLE, WIRTSHAUS, (Fraction(7, 2), Fraction(7, 2), -7)),
    (DOUBLE_BONUS_EXAMPLE, PIATNIK, (0, 0, 0)),
    # Two sides tied: nothing to split, with or without the term.
    (((50, 10, 10), (50, 20, 20)), WIRTSHAUS, (-6, 6)),
    # All three tied at the top of column I: nobody pays it.
    (((50, 30, 30), (50, 20, 20), (50, 20, 20)), WIRTSHAUS, (12, -6, -6)),
    # Four sides, three tied: the fourth pays 1, a third to each.
    (((9, 1, 1), (9, 0, 0), (9, 0, 0), (1, 0, 0)), WIRTSHAUS,
     (Fraction(1, 3) + 18, Fraction(1, 3) - 6, Fraction(1, 3) - 6, -7)),
]


@pytest.mark.parametrize(("totals", "house", "points"), CASES)
def test_rule_table(totals, house, points):
    result = settle_totals(ESC, totals, house)
    assert result.points == points
    assert sum(result.points) == 0
    assert all(isinstance(p, int | Fraction) and not isinstance(p, bool)
               for p in result.points)


def test_points_stay_ints_unless_a_column_is_split():
    result = settle_totals(ESC, SPLIT_EXAMPLE, WIRTSHAUS)
    assert [type(p) for p in result.points] == [Fraction, Fraction, int]
    assert result.winners == (None, 0, 2) and result.shared == ((0, 1), (), ())
    assert all(type(p) is int for p in settle_totals(ESC, SPLIT_EXAMPLE).points)


def test_presets_and_defaults():
    assert PIATNIK == HouseRules((1, 2, 4), 2, False) == PRESETS["piatnik"]
    assert HouseRules((1, 2, 4), 3, True) == WIRTSHAUS
    assert WIRTSHAUS.preset == "wirtshaus" and HouseRules(all_three_bonus=5).preset is None
    assert settle_totals(get_ruleset("escalero", ("weights-123",)), BONUS_EXAMPLE).points \
        == (8, -8)
    one = get_ruleset("escalero", ("one-column",))
    assert settle_totals(one, ((5,), (5,), (1,)), WIRTSHAUS).points \
        == (Fraction(1, 2), Fraction(1, 2), -1)
    assert PIATNIK.describe("de") == "Kolonnen 1/2/4 · alle drei +2 · Gleichstand oben: niemand"


@pytest.mark.parametrize(("obj", "message"), [
    ({"column_points": [1, 2]}, "three whole numbers"),
    ({"column_points": [4, 2, 1]}, "must ascend"),
    ({"column_points": [0, 2, 4]}, "1-100"),
    ({"column_points": [1, 2.5, 4]}, "whole numbers"),
    ({"all_three_bonus": 11}, "0-10"),
    ({"all_three_bonus": True}, "0-10"),
    ({"split_ties": "yes"}, "true or false"),
    ({"bonus": 3}, "unknown field 'bonus'"),
    ("kneipe", "presets are piatnik, wirtshaus"),
    ([1, 2, 4], "must be an object"),
])
def test_bad_terms_are_named(obj, message):
    with pytest.raises(ValueError, match=message):
        from_json(obj)


def _sheet(totals, house_rules=None, game_extra=None):
    """A sheet whose column totals are `totals` (values from the combination rows)."""
    sides = []
    for i, side in enumerate(totals):
        columns = []
        for total in side:
            cells, left = {}, total
            for row, value in (("grande", 50), ("poker", 40), ("full_house", 30),
                               ("straight", 20)):
                if left >= value:
                    cells[row], left = value, left - value
            assert left == 0
            columns.append(cells)
        sides.append({"name": "ABC"[i], "columns": columns})
    obj = {"game": "escalero", "sides": sides, **(game_extra or {})}
    if house_rules is not None:
        obj["house_rules"] = house_rules
    return obj


def test_sheet_json_carries_the_terms():
    sheet = Sheet.from_json(_sheet(SPLIT_EXAMPLE, {"split_ties": True, "all_three_bonus": 3}))
    assert sheet.house_rules == WIRTSHAUS
    assert sheet.to_json()["house_rules"] == WIRTSHAUS.to_json()
    assert settle(sheet).points == (Fraction(1, 2), Fraction(-11, 2), 5)
    plain = Sheet.from_json(_sheet(SPLIT_EXAMPLE))
    assert plain.house_rules is None and "house_rules" not in plain.to_json()
    assert Sheet.from_json(_sheet(SPLIT_EXAMPLE, "wirtshaus")).house_rules == WIRTSHAUS


def test_sheet_json_errors_exit_3(tmp_path: Path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_sheet(BONUS_EXAMPLE, {"column_points": [1, 2, 2]})))
    assert main(["settle", str(bad)]) == 3
    assert "house_rules" in capsys.readouterr().err
    clash = tmp_path / "clash.json"
    clash.write_text(json.dumps(_sheet(BONUS_EXAMPLE, {"column_points": [1, 2, 4]},
                                       {"variant": ["weights-123"]})))
    assert main(["settle", str(clash)]) == 3
    assert "weights-123" in capsys.readouterr().err
    generala = {"game": "generala", "house_rules": "piatnik",
                "sides": [{"name": "A", "columns": [{}]}, {"name": "B", "columns": [{}]}]}
    gen = tmp_path / "gen.json"
    gen.write_text(json.dumps(generala))
    assert main(["settle", str(gen)]) == 3
    assert "Escalero only" in capsys.readouterr().err


def test_money_rounds_part_cents_to_a_zero_sum():
    points = (Fraction(1, 2), Fraction(-11, 2), 5)
    assert side_amounts(points, 50) == (25, -275, 250)
    assert side_amounts(points, 1) == (1, -6, 5)  # 0.5 up (first), -5.5 down: sum 0
    assert side_amounts((Fraction(7, 2), Fraction(7, 2), -7), 1) == (4, 3, -7)
    assert side_amounts((3, -3), 50) == (150, -150)


def _settle_cli(capsys, *args: str) -> tuple[int, dict]:
    code = main(["settle", "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out) if code == 0 else {}


def test_cli_reproduces_the_app_with_the_preset(tmp_path: Path, capsys):
    files = {}
    for name, totals in (("split", SPLIT_EXAMPLE), ("bonus", BONUS_EXAMPLE),
                         ("double", DOUBLE_BONUS_EXAMPLE)):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(_sheet(totals)))
    _, out = _settle_cli(capsys, str(files["split"]), "--house-rules", "wirtshaus")
    assert out["settlement"]["points"] == [0.5, -5.5, 5]
    assert out["settlement"]["house_rules"] == WIRTSHAUS.to_json()
    _, out = _settle_cli(capsys, str(files["bonus"]), "--house-rules", "wirtshaus")
    assert out["settlement"]["points"] == [10, -10]
    _, out = _settle_cli(capsys, str(files["double"]), "--house-rules", "wirtshaus",
                         "--stake", "0.50")
    assert out["settlement"]["points"] == [3.5, 3.5, -7]
    assert out["money"]["amounts"] == ["1.75", "1.75", "-3.50"]
    # Default terms: today's numbers.
    _, out = _settle_cli(capsys, str(files["split"]))
    assert out["settlement"]["points"] == [0, -6, 6]


def test_cli_flags_and_files(tmp_path: Path, capsys):
    sheet = tmp_path / "s.json"
    sheet.write_text(json.dumps(_sheet(BONUS_EXAMPLE, "wirtshaus")))
    _, out = _settle_cli(capsys, str(sheet))
    assert out["settlement"]["points"] == [10, -10]  # the sheet's own terms
    _, out = _settle_cli(capsys, str(sheet), "--all-three-bonus", "0")  # flag over the sheet
    assert out["settlement"]["points"] == [7, -7]
    _, out = _settle_cli(capsys, str(sheet), "--house-rules", "piatnik", "--column-points",
                         "1/2/3")
    assert out["settlement"]["points"] == [8, -8]
    terms = tmp_path / "terms.json"
    terms.write_text(json.dumps({"column_points": [1, 3, 5], "all_three_bonus": 1}))
    _, out = _settle_cli(capsys, str(sheet), "--house-rules", str(terms))
    assert out["settlement"]["points"] == [10, -10]
    assert out["settlement"]["house_rules"]["split_ties"] is False


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--column-points", "1/2"], 2, "three whole numbers"),
    (["--column-points", "a/b/c"], 2, "whole numbers like 1/2/4"),
    (["--all-three-bonus", "11"], 2, "0-10"),
    (["--house-rules", "kneipe"], 2, "neither a preset"),
])
def test_cli_bad_flags_exit_2(tmp_path: Path, capsys, args, code, message):
    sheet = tmp_path / "s.json"
    sheet.write_text(json.dumps(_sheet(BONUS_EXAMPLE)))
    assert main(["settle", str(sheet), *args]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_bad_file_exits_3(tmp_path: Path, capsys):
    sheet = tmp_path / "s.json"
    sheet.write_text(json.dumps(_sheet(BONUS_EXAMPLE)))
    terms = tmp_path / "terms.json"
    terms.write_text('{"column_points": [1, 2, 4], "split_ties": "ja"}')
    assert main(["settle", str(sheet), "--house-rules", str(terms)]) == 3
    assert "split_ties must be true or false" in capsys.readouterr().err
    terms.write_text("{not json")
    assert main(["settle", str(sheet), "--house-rules", str(terms)]) == 3
    assert "not valid JSON" in capsys.readouterr().err


def test_settle_table_and_rules_print_the_terms(tmp_path: Path, capsys):
    sheet = tmp_path / "s.json"
    sheet.write_text(json.dumps(_sheet(SPLIT_EXAMPLE)))
    assert main(["settle", str(sheet), "--house-rules", "wirtshaus"]) == 0
    out = capsys.readouterr().out
    assert "Kolonnensieger: I A+B (geteilt), II A, III C" in out
    assert "Partiepunkte: A +0.5, B -5.5, C +5" in out
    assert "Hausregeln: Kolonnen 1/2/4 · alle drei +3 · Gleichstand oben geteilt" in out
    assert main(["rules", "--house-rules", "wirtshaus"]) == 0
    assert "Hausregeln (wirtshaus): Kolonnen 1/2/4 · alle drei +3" in capsys.readouterr().out
    assert main(["rules", "--json", "--column-points", "1/2/3", "--lang", "en"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert rules["house_rules"] == {"column_points": [1, 2, 3], "all_three_bonus": 2,
                                    "split_ties": False}
    assert rules["column_weights"] == [1, 2, 3] and rules["preset"] is None
    assert main(["rules", "--game", "generala", "--split-ties"]) == 2


def test_report_names_the_terms_it_settled_with():
    report = settle_report(Sheet.from_json(_sheet(SPLIT_EXAMPLE, "wirtshaus")), "0.01",
                           lang="en")
    st = report["settlement"]
    assert st["house_rules"] == WIRTSHAUS.to_json() and st["shared"] == [[0, 1], [], []]
    assert st["terms"] == "Columns 1/2/4 · all three +3 · ties at the top split"
    assert report["money"]["amounts"] == ["0.01", "-0.06", "0.05"]
