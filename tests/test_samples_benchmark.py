"""benchmarks.scan: the comparison with the truth counts what it claims to count."""

from __future__ import annotations

import copy
import math

import numpy as np
from escalero.samples.games import GameSpec, expected_settlement, play_game

from benchmarks import scan as bench


def _truth() -> dict:
    game = play_game(GameSpec(sides=2, total_share=1.0, wrong_total_share=0.0),
                     np.random.default_rng(2))
    return {"sheet": game.sheet, "expected": expected_settlement(game.sheet)}


def _scanned(sheet: dict, review: list | None = None) -> dict:
    return {**copy.deepcopy(sheet), "review": review or [], **expected_settlement(sheet)}


def test_a_perfect_scan_is_clean() -> None:
    truth = _truth()
    out = bench.compare("p", 0.1, truth, _scanned(truth["sheet"]))
    assert out.cells == 2 * 3 * 11 and out.correct == out.cells and not out.silent
    assert out.flagged == 0 and out.payout_right and out.clean


def test_wrong_cells_are_silent_unless_flagged() -> None:
    truth = _truth()
    wrong = copy.deepcopy(truth["sheet"])
    wrong["sides"][0]["columns"][2]["poker"] = 0 if truth["sheet"]["sides"][0]["columns"][2][
        "poker"] != "x" else 45  # a written 0 means struck, so 0 vs "x" is not an error
    wrong["sides"][1]["columns"][0]["nines"] = 9
    flag = [{"side": 1, "column": 0, "row": "nines", "read": 9}]
    out = bench.compare("p", 0.1, truth, _scanned(wrong, flag))
    assert out.correct == out.cells - 2 and out.flagged == 1
    assert [s["cell"] for s in out.silent] == [[0, 2, "poker"]]
    assert not out.clean


def test_wrong_cells_by_kind_and_flags_by_reason() -> None:
    truth = _truth()
    columns = truth["sheet"]["sides"][0]["columns"]
    written = next(r for r, v in columns[1].items() if isinstance(v, int) and v >= 10)
    wrong = copy.deepcopy(truth["sheet"])
    wrong["sides"][0]["columns"][1][written] = None  # a number read as empty
    total = truth["sheet"]["sides"][1]["written_totals"][2]
    wrong["sides"][1]["written_totals"][2] = total // 10  # a digit dropped
    flag = [{"side": 0, "column": 1, "row": written, "read": None}]
    reasons = [(0, 1, written, "reading"), (1, 0, "nines", "place_unsure"),
               (1, 1, "nines", "place_unsure"), (9, 9, "nines", "reading")]  # not a cell
    out = bench.compare("p", 0.1, truth, _scanned(wrong, flag), reasons)
    assert out.wrong == {"entry: number -> empty": 1, "total: number -> digits": 1}
    assert out.flag_reasons == {"reading": [1, 0], "place_unsure": [2, 2]}
    assert bench.wrong_kind((0, 0, "total"), 128, 188) == "total: number -> number"
    assert bench.wrong_kind((0, 0, "aces"), "x", 4) == "entry: struck -> number"
    failed = bench.Outcome("b", 3.0, failure="refused: too blurred")
    table = "\n".join(bench.flag_table([out, failed]))
    assert "place_unsure" in table and "2.00" in table and "100.0%" in table
    assert "reading" in table and "1.00" in table and "0.0%" in table
    kinds = "\n".join(bench.wrong_table([out, failed]))
    assert kinds.startswith("wrong cells by kind: 2") and "50.0%" in kinds
    assert bench.wrong_table([failed]) == [] and bench.flag_table([failed]) == []


def test_zero_reads_as_struck_and_missing_sides_count_as_wrong() -> None:
    truth = _truth()
    sheet = copy.deepcopy(truth["sheet"])
    for side in sheet["sides"]:
        for column in side["columns"]:
            for row, value in column.items():
                if value == "x":
                    column[row] = 0
    assert bench.compare("p", 0.1, truth, _scanned(sheet)).silent == []
    half = {**_scanned(truth["sheet"]), "sides": truth["sheet"]["sides"][:1]}
    out = bench.compare("p", 0.1, truth, half)
    assert out.correct == out.cells // 2 + sum(
        1 for c in bench.truth_cells(truth["sheet"]).items() if c[0][0] == 1 and c[1] is None)


def test_summary_and_table() -> None:
    truth = _truth()
    good = bench.compare("a", 1.0, truth, _scanned(truth["sheet"]))
    failed = bench.Outcome("b", 3.0, failure="refused: too blurred")
    s = bench.summary([good, failed], [0.1, 0.1])
    assert s["failed"] == 1 and s["cell_accuracy"] == 1.0
    assert s["payout_right_nothing_to_review"] == 0.5
    assert math.isclose(s["scan_over_decode"], 20.0)
    table = bench.format_table({"default": s})
    assert "silent errors / sheet" in table and "50.0%" in table


def test_scan_all_sorts_refusals_crashes_and_expected_refusals(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from escalero.scoring.errors import SheetNotFoundError, UnreadableSheetError

    truth = _truth()
    cases = {"good": truth, "blurred": truth, "broken": truth,
             "empty-table": {"sheet": None, "expected": None}}
    for name, t in cases.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(t), encoding="utf-8")

    def scanner(path):  # type: ignore[no-untyped-def]
        if path.stem == "blurred":
            raise UnreadableSheetError("too blurred")
        if path.stem == "broken":
            raise RuntimeError("bug")
        if path.stem == "empty-table":
            raise SheetNotFoundError("no sheet")
        return _scanned(truth["sheet"])

    outs = {o.name: o for o in bench.scan_all(
        [tmp_path / f"{n}.jpg" for n in cases], scanner, "fake")}
    assert outs["good"].clean and outs["empty-table"].failure is None
    assert outs["empty-table"].no_sheet and not outs["empty-table"].clean
    assert outs["blurred"].failure == "refused: too blurred"
    assert outs["broken"].failure.startswith("crashed: RuntimeError")
    s = bench.summary(list(outs.values()), [0.1] * 4)
    assert s["failed"] == 2 and s["scanned"] == 1 and s["flagged_per_sheet"] == 0
    assert s["no_sheet_refused"] == "1/1" and s["payout_right_nothing_to_review"] == 1 / 3


def test_time_per_stage_and_registration_share() -> None:
    """The stage table and registration's share come from the pipeline's timings (made up
    here: only the arithmetic is checked, no time is measured)."""
    truth = _truth()
    outs = []
    for seconds, grid in ((1.0, 0.1), (2.0, 0.4), (1.0, 0.3)):
        o = bench.compare("a", seconds, truth, _scanned(truth["sheet"]))
        o.timings = {"load": 0.2, "markers": 0.1, "grid": grid, "read": 0.3, "total": 0.6 + grid}
        outs.append(o)
    outs.append(bench.Outcome("b", 3.0, failure="refused: too blurred"))  # no timings
    s = bench.summary(outs, [0.1] * 4)
    assert s["registration_median_s"] == 0.4  # markers + grid: 0.2, 0.5, 0.4
    assert s["registration_share"] == 0.25  # per photo 0.2, 0.25, 0.4
    lines = bench.stage_lines(outs, "default")
    assert [line.split()[0] for line in lines[1:6]] == ["load", "markers", "grid", "read",
                                                       "untimed"]
    assert "*" in lines[2] and "*" not in lines[1]  # registration stages are marked
    assert bench.stage_lines([outs[-1]], "default") == []


def test_flag_reasons_name_the_last_doubt() -> None:
    from types import SimpleNamespace

    from escalero.scan.cells import Decision, Pass
    from escalero.scan.notes import note

    def cell(row: str, certain: bool, *reasons: Decision) -> SimpleNamespace:
        return SimpleNamespace(side=0, column=1, row=row, certain=certain, reasons=reasons)

    unsure = Decision(Pass.READING, False)
    placed = Decision(Pass.PLACEMENT, False, note("place_unsure", mm="2.1"))
    result = SimpleNamespace(cells=[
        cell("nines", False, unsure), cell("tens", False, unsure, placed),
        cell("jacks", True, unsure, Decision(Pass.TOTALS, True)), cell("kings", False)])
    assert bench.flag_reasons(result) == [(0, 1, "nines", "reading"),
                                          (0, 1, "tens", "place_unsure"),
                                          (0, 1, "kings", "unsure")]
