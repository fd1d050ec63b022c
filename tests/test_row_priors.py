"""The row priors: the training cells' mix as the digit model learned it, and the table
tools/row_priors.py makes from played games (scan/models/row_priors.json)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from escalero.samples.cell_crops import training_entry, training_entry_share
from escalero.scan.digit_model import ROW_PRIORS_PATH

ROOT = Path(__file__).resolve().parents[1]


def test_training_share_is_how_often_training_entry_draws_a_reading() -> None:
    rng = np.random.default_rng(3)
    n = 200_000
    drawn = Counter(training_entry(rng) for _ in range(n))
    for entry in (None, "x", 1, 2, 6, 12, 18, 30, 50, 100, 7, 77):
        share = training_entry_share(entry)
        sigma = (share * (1 - share) / n) ** 0.5
        assert abs(drawn[entry] / n - share) < 5 * sigma + 1e-4, entry
    assert sum(training_entry_share(v) for v in [None, "x", *range(1, 1000)]) == \
        pytest.approx(1.0)
    assert training_entry_share(0) == 0.0 and training_entry_share(1000) == 0.0


def test_the_tool_writes_a_weight_for_every_reading_of_every_row(tmp_path: Path) -> None:
    out = tmp_path / "priors.json"
    subprocess.run([sys.executable, str(ROOT / "tools" / "row_priors.py"), "--games", "3",
                    "--out", str(out)], check=True, capture_output=True)
    made = json.loads(out.read_text())["weights"]
    committed = json.loads(ROW_PRIORS_PATH.read_text())["weights"]
    assert made.keys() == committed.keys()
    for key, weights in made.items():
        values = key.split(":")[1].split(",")
        assert set(weights) == {"x", *values}
        assert max(weights.values()) == 1.0 and min(weights.values()) > 0.0


def test_in_the_neuner_row_a_lone_1_outweighs_a_strike() -> None:
    # The reason for the table: the training cells hold 7 strikes per lone 1, a played
    # Neuner row about one strike per three 1s.
    nines = json.loads(ROW_PRIORS_PATH.read_text())["weights"]["nines:1,2,3,4,5"]
    assert nines["1"] > 5 * nines["x"]
