"""The canonical rule cases of tests/data/rule_cases.json, run through settle_report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from escalero.scoring.model import Sheet
from escalero.scoring.report import settle_report
from escalero.scoring.rulesets import get_ruleset

CASES = json.loads((Path(__file__).parent / "data" / "rule_cases.json").read_text())["cases"]


def _filled(sheet: dict[str, Any], fill: str | None) -> dict[str, Any]:
    """Cells a case leaves out are struck when the case says fill_empty: "x"."""
    if fill is None:
        return sheet
    rows = get_ruleset(sheet["game"], sheet.get("variant", ())).row_ids
    sides = [{**side, "columns": [{r: col.get(r, fill) for r in rows} for col in side["columns"]]}
             for side in sheet["sides"]]
    return {**sheet, "sides": sides}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule_case(case: dict[str, Any]) -> None:
    sheet = Sheet.from_json(_filled(case["sheet"], case.get("fill_empty")))
    report = settle_report(sheet, case.get("stake"), case.get("currency", "EUR"))
    st, exp = report["settlement"], case["expect"]
    assert sum(st["points"]) == 0
    for key in ("totals", "winners", "points", "all_columns", "complete", "game_winners"):
        if key in exp:
            assert st[key] == exp[key], key
    if "ranking" in exp:
        assert [[r["side"], r["place"]] for r in st["ranking"]] == exp["ranking"]
    if "players" in exp:
        assert [[p["name"], p["side"], p["points"]] for p in st["players"]] == exp["players"]
    problems = [p for p in report["validation"] if p["kind"] != "empty"]
    if "validation" in exp:
        non_empty = [e for e in exp["validation"] if e["kind"] != "empty"]
        assert len(problems) == len(non_empty), problems
        for got, want in zip(problems, non_empty, strict=True):
            assert {k: got[k] for k in want} == want
        for want in (e for e in exp["validation"] if e["kind"] == "empty"):
            assert any({k: p[k] for k in want} == want for p in report["validation"])
    if "empty_cells" in exp:
        assert sum(p["kind"] == "empty" for p in report["validation"]) == exp["empty_cells"]
    if "money" in exp:
        money, want = report["money"], exp["money"]
        for key in ("stake", "currency", "amounts", "players"):
            if key in want:
                assert money[key] == want[key], key
        if "transfers" in want:
            key = lambda t: (t["from"], t["to"], t["amount"])  # noqa: E731
            assert sorted(money["transfers"], key=key) == sorted(want["transfers"], key=key)
        if "transfer_count" in want:
            assert len(money["transfers"]) == want["transfer_count"]


def test_cases_cover_every_variant_and_game() -> None:
    variants = {v for c in CASES for v in c["sheet"].get("variant", [])}
    assert variants == {"strasse-25", "doppel-grande", "one-column", "weights-123"}
    assert {c["sheet"]["game"] for c in CASES} == {"escalero", "generala"}
    assert {len(c["sheet"]["sides"]) for c in CASES} >= {1, 2, 3, 4, 5, 6}
