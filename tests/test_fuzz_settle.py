"""Fuzzing sheet JSON: `escalero settle` ends with exit 0 or 3 and /api/settle answers 200
or 4xx, whatever the JSON holds, and neither holds more than a bounded amount of memory.

The inputs mix well-formed sheets with every kind of wrong value in every place (names
with control characters and lone surrogates, huge and negative numbers, wrong types,
too many sides), so both the happy path and each refusal are reached.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

from escalero.cli import main as escalero_main
from escalero.scoring.rulesets import ESCALERO_VARIANTS
from escalero.web.app import create_app
from escalero.web.config import WebConfig
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROWS = ("nines", "tens", "jacks", "queens", "kings", "aces", "straight", "full_house", "poker",
        "grande", "generala", "no-such-row")
# Peak Python allocations while settling one fuzzed sheet; a real sheet needs well under 1 MB.
MEMORY_BOUND = 32 * 1024 * 1024

junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)
name = st.one_of(
    st.text(min_size=1, max_size=12),
    st.sampled_from(["Anna", "\ud800", "A\x1b[2J", "A\rB", "=cmd", "  ", "N" * 41]),
    junk,
)
cell = st.one_of(
    st.sampled_from([None, "x", "-", "/", 0, 1, 3, 20, 25, 30, 45, 80, 7, 9999, 10000, -1]),
    st.integers(min_value=-(10**30), max_value=10**30),
    junk,
)
column = st.one_of(st.dictionaries(st.sampled_from(ROWS), cell, max_size=6), junk)
side = st.fixed_dictionaries(
    {"name": name, "columns": st.one_of(st.lists(column, min_size=3, max_size=3),
                                        st.lists(column, min_size=1, max_size=1), junk)},
    optional={"members": st.one_of(st.lists(name, max_size=6), junk),
              "written_totals": st.one_of(st.lists(cell, min_size=3, max_size=3), junk)},
)
sheet = st.one_of(
    st.fixed_dictionaries(
        {"sides": st.one_of(st.lists(side, min_size=1, max_size=20), junk)},
        optional={"game": st.sampled_from(["escalero", "generala", "poker", 3]),
                  "variant": st.one_of(st.lists(st.sampled_from(ESCALERO_VARIANTS + ("x",)),
                                                max_size=2), junk),
                  "serial": st.one_of(st.text(max_size=70), st.integers(), junk)}),
    junk,
)
stake = st.one_of(st.none(), st.sampled_from(["0.50", "1", "1e30", "0.005", "abc", "-1"]),
                  junk)


def bounded(call: Any) -> Any:
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"{peak / 1e6:.0f} MB"
    return result


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=sheet)
def test_settle_command_exits_0_or_3(obj: Any) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "sheet.json"
        path.write_text(json.dumps(obj), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = bounded(lambda: escalero_main(["settle", str(path), "--json"]))
    assert code in (0, 3), err.getvalue()
    if code == 0:
        assert json.loads(out.getvalue())["settlement"]
    else:
        assert len(err.getvalue().splitlines()) == 1 and "Traceback" not in err.getvalue()


_client: TestClient | None = None


def api() -> TestClient:
    """One app for all examples (hypothesis re-runs the body, not the fixtures)."""
    global _client
    if _client is None:
        db = Path(tempfile.mkdtemp()) / "ledger.sqlite3"
        _client = TestClient(create_app(WebConfig(db_path=db)),
                             raise_server_exceptions=False)
    return _client


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=sheet, stake=stake)
def test_api_settle_answers_200_or_4xx(obj: Any, stake: Any) -> None:
    body: dict[str, Any] = {"sheet": obj}
    if stake is not None:
        body["stake"] = stake
    # json.dumps as a browser would not: lone surrogates escaped, Infinity/NaN allowed.
    text = json.dumps(body)
    r = bounded(lambda: api().post("/api/settle", content=text,
                                   headers={"Content-Type": "application/json"}))
    assert r.status_code == 200 or 400 <= r.status_code < 500, r.text[:300]
    assert ("settlement" in r.json()) if r.status_code == 200 else r.json()["error"]
