"""Committed layouts: any change to the geometry must be deliberate.

The scanner and every printed block depend on these numbers. After an intended change
(which must also bump LAYOUT_VERSION if old sheets would be misread), regenerate with
    UPDATE_LAYOUT_SNAPSHOTS=1 .venv/bin/python -m pytest tests/test_sheets_snapshot.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from escalero.sheets.layout import LayoutSpec, build_layout, encode_code

SNAPSHOTS = Path(__file__).parent / "data" / "layout_snapshots"
SPECS = [
    LayoutSpec(sides=2),
    LayoutSpec(sides=3, variants=("strasse-25", "doppel-grande")),
    LayoutSpec(sides=2, pairs=True),
    LayoutSpec(sides=6, paper="letter"),
    LayoutSpec(sides=2, variants=("one-column",), paper="a5"),
    LayoutSpec(game="generala", sides=8),
]
# Version 1 (fiducial ids 0-3) still builds for sheets printed before: its snapshots stay.
SPECS += [LayoutSpec(s.game, s.variants, s.sides, s.pairs, s.paper, version=1)
          for s in SPECS]


def _name(spec: LayoutSpec) -> str:
    return encode_code(spec, "X").replace("/", "_").replace("+", "-").lower()[:-2] + ".json"


@pytest.mark.parametrize("spec", SPECS, ids=_name)
def test_layout_matches_snapshot(spec):
    path = SNAPSHOTS / _name(spec)
    current = json.loads(json.dumps(build_layout(spec).to_json()))
    if os.environ.get("UPDATE_LAYOUT_SNAPSHOTS"):
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(current, indent=1) + "\n")
    assert path.exists(), f"missing snapshot {path.name}; see this module's docstring"
    assert json.loads(path.read_text()) == current, (
        f"layout {path.name} changed; if intended, regenerate (see docstring)")
