"""benchmarks.report turns benchmark JSON into the README's table."""

from __future__ import annotations

import json

from benchmarks import report
from benchmarks.scan import Outcome, summary


def test_markdown_table_from_runs(tmp_path, capsys) -> None:
    outcomes = [Outcome("a", 0.2, cells=10, correct=10, payout_right=True, payout_certain=True),
                Outcome("b", 0.4, cells=10, correct=9, flagged=1, payout_right=True, deciding=1,
                        answers=1)]
    meta = {"level": "mild", "seed": 7, "players": 2, "source": "mnist", "date": "2026-12-01",
            "commit": "abc1234", "machine": "2 cores, x"}
    path = tmp_path / "m2.json"
    path.write_text(json.dumps({"meta": meta, "summary": {"default": summary(outcomes, [0.1])}}))
    assert report.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Measured 2026-12-01 at commit abc1234 on 2 cores, x.")
    assert "| | 2 sides, mild (seed 7) |" in out
    assert "| cell accuracy (all cells) | 95.00% |" in out
    assert "| payout certain (no review needed) | 50.0% |" in out
    assert "| cells to check per sheet (can change it) | 0.50 |" in out


def test_unreadable_run_is_a_clear_error(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert report.main([str(bad)]) == 2
    assert "cannot read" in capsys.readouterr().err
