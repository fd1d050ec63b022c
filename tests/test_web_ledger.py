"""Ledger: save, list, balances, CSV, duplicate serials, and crash safety."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from escalero.scoring.model import Sheet
from escalero.scoring.report import settle_report
from escalero.web.ledger import (
    DuplicateSerialError,
    Ledger,
    LedgerError,
    build_record,
)

TZ = timezone(timedelta(hours=1))


def sheet_json(serial: str | None = "K7Q2-001", anna: int = 3, ben: int = 2,
               pair: bool = False) -> dict:
    """Anna wins column I (Neuner), Ben column II, nobody III: Anna -1, Ben +1."""
    ben_side = ({"name": "Ben & Cleo", "members": ["Ben", "Cleo"]} if pair
                else {"name": "Ben"})
    obj = {"game": "escalero", "sides": [
        {"name": "Anna", "columns": [{"nines": anna}, {}, {}]},
        {**ben_side, "columns": [{"nines": ben}, {"tens": 4}, {}]},
    ]}
    if serial:
        obj["serial"] = serial
    return obj


def record(serial: str | None = "K7Q2-001", stake_cents: int = 50, when: datetime | None = None,
           **kw):
    obj = sheet_json(serial, **kw)
    report = settle_report(Sheet.from_json(obj), f"{stake_cents / 100:.2f}")
    when = when or datetime(2026, 11, 28, 21, tzinfo=TZ)
    return build_record(obj, report, stake_cents, "EUR", when)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "data" / "ledger.sqlite3")


def test_save_list_and_balances(ledger: Ledger) -> None:
    first = ledger.save(record("A-001"))
    second = ledger.save(record("A-002", anna=4, ben=5))  # Ben wins I and II: Ben +3
    games = ledger.games()
    assert [g["id"] for g in games] == [second, first]  # newest first
    assert games[1]["serial"] == "A-001"
    assert {p["player"]: p["points"] for p in games[1]["players"]} == {"Anna": -1, "Ben": 1}
    balances = {b.player: (b.games, b.points, b.cents) for b in ledger.balances()}
    assert balances == {"Anna": (2, -4, -200), "Ben": (2, 4, 200)}
    assert sum(b.cents for b in ledger.balances()) == 0


def test_evenings_roll_over_after_midnight(ledger: Ledger) -> None:
    ledger.save(record("A-001", when=datetime(2026, 11, 28, 22, tzinfo=TZ)))
    ledger.save(record("A-002", when=datetime(2026, 11, 29, 1, 30, tzinfo=TZ)))
    ledger.save(record("B-001", when=datetime(2026, 11, 29, 20, tzinfo=TZ)))
    assert ledger.evenings() == ["2026-11-29", "2026-11-28"]
    late = {b.player: b.points for b in ledger.balances("2026-11-28")}
    assert late == {"Anna": -2, "Ben": 2}  # both games of that night, midnight or not


def test_pairs_share_the_side_amount(ledger: Ledger) -> None:
    ledger.save(record("P-001", stake_cents=100, pair=True))
    cents = {b.player: b.cents for b in ledger.balances()}
    # A side of one among pairs plays for two (scoring.money): Anna pays 2.00, 1.00 each.
    assert cents == {"Anna": -200, "Ben": 100, "Cleo": 100}


def test_csv_export(ledger: Ledger) -> None:
    ledger.save(record("A-001"))
    rows = list(csv.DictReader(io.StringIO(ledger.csv_text())))
    assert [(r["player"], r["points"], r["amount"], r["serial"]) for r in rows] == [
        ("Anna", "-1", "-0.50", "A-001"), ("Ben", "1", "0.50", "A-001")]


def test_duplicate_serial_needs_confirmation(ledger: Ledger) -> None:
    ledger.save(record("A-001"))
    with pytest.raises(DuplicateSerialError, match="A-001 was already settled"):
        ledger.save(record("A-001"))
    assert len(ledger.games()) == 1
    ledger.save(record("A-001"), allow_duplicate=True)
    assert len(ledger.games()) == 2
    ledger.save(record(None))  # no serial (typed on the Tafel): never a duplicate
    ledger.save(record(None))
    assert len(ledger.games()) == 4


def test_delete_a_game(ledger: Ledger) -> None:
    keep = ledger.save(record("A-001"))
    gone = ledger.save(record("A-002"))
    assert ledger.delete(gone) is True
    assert ledger.delete(gone) is False
    assert [g["id"] for g in ledger.games()] == [keep]
    assert {b.player: b.games for b in ledger.balances()} == {"Anna": 1, "Ben": 1}


def test_wal_mode(ledger: Ledger) -> None:
    ledger.save(record())
    conn = sqlite3.connect(ledger.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_failing_second_statement_leaves_the_ledger_unchanged(
        ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger.save(record("A-001"))
    before = (ledger.games(), ledger.balances(), ledger.csv_text())

    def fail(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Ledger, "_insert_results", staticmethod(fail))
    with pytest.raises(LedgerError, match="nothing was saved"):
        ledger.save(record("A-002"))
    monkeypatch.undo()
    assert (ledger.games(), ledger.balances(), ledger.csv_text()) == before
    ledger.save(record("A-002"))  # and the ledger still works
    assert len(ledger.games()) == 2


def test_process_killed_mid_write_loses_no_settled_game(tmp_path: Path) -> None:
    """A real crash: the process dies between the two inserts of a save."""
    db = tmp_path / "ledger.sqlite3"
    Ledger(db).save(record("A-001"))
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_web_ledger import record
        from escalero.web.ledger import Ledger
        def die(*a, **k):
            os._exit(9)  # no rollback, no cleanup: as if the power went
        Ledger._insert_results = staticmethod(die)
        Ledger({str(db)!r}).save(record("A-002"))
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parents[1],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 9, proc.stderr
    ledger = Ledger(db)
    games = ledger.games()
    assert [g["serial"] for g in games] == ["A-001"]
    assert {b.player: b.points for b in ledger.balances()} == {"Anna": -1, "Ben": 1}
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 2
    conn.close()


def test_unwritable_ledger_gives_a_clear_message(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LedgerError, match="choose a writable file with --db"):
        Ledger(blocker / "ledger.sqlite3")


def _split_game(serial: str, stake_cents: int = 1):
    """Anna and Ben tie at the top of column I, Cleo below; Cleo wins II and III."""
    obj = {"game": "escalero", "serial": serial, "house_rules": "wirtshaus", "sides": [
        {"name": "Anna", "columns": [{"nines": 5}, {}, {}]},
        {"name": "Ben", "columns": [{"nines": 5}, {}, {}]},
        {"name": "Cleo", "columns": [{"nines": 1}, {"nines": 1}, {"nines": 1}]},
    ]}
    report = settle_report(Sheet.from_json(obj), f"{stake_cents / 100:.2f}")
    return build_record(Sheet.from_json(obj).to_json(), report, stake_cents, "EUR",
                        datetime(2026, 11, 28, 21, tzinfo=TZ))


def test_ledger_keeps_the_terms_and_half_points(ledger: Ledger) -> None:
    ledger.save(record("A-001"))
    ledger.save(_split_game("H-001"))
    ledger.save(_split_game("H-002"))
    newest, _, oldest = ledger.games()
    assert newest["house_rules"] == {"column_points": [1, 2, 4], "all_three_bonus": 3,
                                     "split_ties": True}
    assert newest["terms"] == "Kolonnen 1/2/4 · alle drei +3 · Gleichstand oben geteilt"
    assert oldest["terms"].startswith("Kolonnen 1/2/4 · alle drei +2")
    # Column I: Anna and Ben +0.5 each; II and III: Cleo +12, Anna and Ben -6 each.
    assert {p["player"]: p["points_text"] for p in newest["players"]} == {
        "Anna": "-5.5", "Ben": "-5.5", "Cleo": "+11"}
    balances = {b.player: (b.points, b.points_text, b.cents) for b in ledger.balances()}
    # One cent per point: the first -5.5 pays 5 cents, the second 6 (the sum stays 0).
    assert balances["Anna"][:2] == (-12, "-12") and balances["Ben"][:2] == (-10, "-10")
    assert balances["Cleo"][:2] == (22, "+22")
    assert sum(b.cents for b in ledger.balances()) == 0
    assert ",Columns 1/2/4 · all three +3 · ties at the top split" in ledger.csv_text()


def test_a_ledger_from_before_house_rules_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY, saved_at TEXT NOT NULL,
            evening TEXT NOT NULL, serial TEXT, game TEXT NOT NULL, variants TEXT NOT NULL,
            stake_cents INTEGER NOT NULL, currency TEXT NOT NULL, sheet_json TEXT NOT NULL,
            report_json TEXT NOT NULL);
        CREATE TABLE results (game_id INTEGER NOT NULL, player TEXT NOT NULL,
            side INTEGER NOT NULL, points INTEGER NOT NULL, cents INTEGER NOT NULL,
            PRIMARY KEY (game_id, player));
        INSERT INTO games VALUES (1, '2026-11-01T21:00:00+01:00', '2026-11-01', NULL,
            'escalero', 'weights-123', 50, 'EUR', '{}', '{}');
        INSERT INTO results VALUES (1, 'Anna', 0, 8, 400), (1, 'Ben', 1, -8, -400);
    """)
    conn.commit()
    conn.close()
    ledger = Ledger(path)
    (old,) = ledger.games()
    assert old["house_rules"]["column_points"] == [1, 2, 3]
    assert old["terms"] == "Kolonnen 1/2/3 · alle drei +2 · Gleichstand oben: niemand"
    ledger.save(_split_game("N-001"))
    assert len(ledger.games()) == 2
