"""The ledger: settled games in SQLite, players' running balances, CSV export.

Each save is one transaction (BEGIN IMMEDIATE ... COMMIT), so a crash or an
error mid-write leaves the file as it was before: no half-saved game, and every
earlier game stays. WAL mode with synchronous=FULL makes a committed game
survive a power cut. A connection per call keeps it safe across server threads.

Amounts are integer cents (scoring.money); a player's amount in a game is the
side's amount shared among its members as scoring.money.player_amounts says.
Points are whole numbers, or halves when the house rules split a tied column: SQLite
keeps a half as a REAL, which is exact, and sums of halves stay exact.

Each game keeps the house rules it was settled with (JSON, null for Generala); a
ledger from before house rules gets the column on first open, and its Escalero games
read as Piatnik's terms (or 1/2/3 for the weights-123 variant), which they were.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

from scoring.errors import EscaleroError
from scoring.house import HouseRules, default_for, from_json
from scoring.money import player_amounts, side_amounts, to_money
from scoring.report import points_from_json, signed_points
from scoring.rulesets import get_ruleset

# A game saved before this hour (local time) still belongs to the previous evening.
EVENING_ROLLOVER_HOURS = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    saved_at TEXT NOT NULL,
    evening TEXT NOT NULL,
    serial TEXT,
    game TEXT NOT NULL,
    variants TEXT NOT NULL,
    stake_cents INTEGER NOT NULL,
    currency TEXT NOT NULL,
    sheet_json TEXT NOT NULL,
    report_json TEXT NOT NULL,
    house_rules TEXT
);
CREATE INDEX IF NOT EXISTS games_serial ON games(serial);
CREATE TABLE IF NOT EXISTS results (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    player TEXT NOT NULL,
    side INTEGER NOT NULL,
    points INTEGER NOT NULL,
    cents INTEGER NOT NULL,
    PRIMARY KEY (game_id, player)
);
"""


class LedgerError(EscaleroError):
    """The ledger file cannot be opened or written."""

    exit_code = 3


class DuplicateSerialError(EscaleroError):
    """A sheet with this serial was settled before; saving again needs a confirmation."""

    exit_code = 3

    def __init__(self, serial: str, earlier: Sequence[str]) -> None:
        self.serial = serial
        self.earlier = tuple(earlier)
        super().__init__(
            f"sheet {serial} was already settled ({', '.join(self.earlier)}); "
            "confirm to count it again"
        )


@dataclass(frozen=True)
class PlayerResult:
    name: str
    side: int
    points: int | Fraction
    cents: int


@dataclass(frozen=True)
class GameRecord:
    """One settled game, ready to store."""

    saved_at: datetime  # local time, timezone-aware
    serial: str | None
    game: str
    variants: tuple[str, ...]
    stake_cents: int
    currency: str
    sheet: dict[str, Any]
    report: dict[str, Any]
    players: tuple[PlayerResult, ...]
    house_rules: HouseRules | None = None  # the terms it was settled with (Escalero)

    @property
    def evening(self) -> str:
        return (self.saved_at - timedelta(hours=EVENING_ROLLOVER_HOURS)).date().isoformat()


def build_record(
    sheet: dict[str, Any], report: dict[str, Any], stake_cents: int, currency: str,
    saved_at: datetime | None = None,
) -> GameRecord:
    """A record from a checked sheet JSON and its settle_report: points and cents per player."""
    points = [points_from_json(p) for p in report["settlement"]["points"]]
    members = [side.get("members") or [side["name"]] for side in sheet["sides"]]
    cents = player_amounts(members, side_amounts(points, stake_cents))
    players = tuple(
        PlayerResult(name, s, points[s], cents[name])
        for s, names in enumerate(members) for name in names
    )
    serial = sheet.get("serial")
    terms = report["settlement"].get("house_rules")
    return GameRecord(
        saved_at=saved_at or datetime.now().astimezone(),
        serial=None if serial in (None, "") else str(serial),
        game=sheet.get("game", "escalero"),
        variants=tuple(sheet.get("variant") or ()),
        stake_cents=stake_cents, currency=currency, sheet=sheet, report=report,
        players=players, house_rules=None if terms is None else from_json(terms),
    )


@dataclass(frozen=True)
class Balance:
    player: str
    games: int
    points: int | float  # float only for halves (exact)
    cents: int
    currency: str

    @property
    def points_text(self) -> str:
        return signed_points(self.points)

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "games": self.games, "points": self.points,
                "amount": str(to_money(self.cents)), "cents": self.cents,
                "currency": self.currency}


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._read() as conn:
                conn.executescript(_SCHEMA)
                columns = {r[1] for r in conn.execute("PRAGMA table_info(games)")}
                if "house_rules" not in columns:  # a ledger from before house rules
                    conn.execute("ALTER TABLE games ADD COLUMN house_rules TEXT")
        except (OSError, sqlite3.Error) as err:
            raise LedgerError(f"cannot open the ledger {self.path} ({err}); "
                              "choose a writable file with --db") from None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.row_factory = sqlite3.Row
        return conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        finally:
            conn.close()

    def save(self, record: GameRecord, *, allow_duplicate: bool = False) -> int:
        """Store one game atomically; DuplicateSerialError if its serial is known."""
        conn = self._connect()
        try:
            # IMMEDIATE takes the write lock first, so two saves of one serial cannot race.
            conn.execute("BEGIN IMMEDIATE")
            try:
                if record.serial and not allow_duplicate:
                    earlier = conn.execute(
                        "SELECT saved_at FROM games WHERE serial = ? ORDER BY id",
                        (record.serial,)).fetchall()
                    if earlier:
                        raise DuplicateSerialError(record.serial, [r[0][:16] for r in earlier])
                game_id = self._insert_game(conn, record)
                self._insert_results(conn, game_id, record.players)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            raise LedgerError(f"could not save the game to {self.path} ({err}); "
                              "nothing was saved, try again") from None
        finally:
            conn.close()
        return game_id

    def delete(self, game_id: int) -> bool:
        """Remove one game and its results (one transaction); False if there was none."""
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("DELETE FROM results WHERE game_id = ?", (game_id,))
                gone = conn.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            raise LedgerError(f"could not delete game {game_id} ({err}); nothing changed") \
                from None
        finally:
            conn.close()
        return gone == 1

    @staticmethod
    def _insert_game(conn: sqlite3.Connection, r: GameRecord) -> int:
        cur = conn.execute(
            "INSERT INTO games (saved_at, evening, serial, game, variants, stake_cents,"
            " currency, sheet_json, report_json, house_rules)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (r.saved_at.isoformat(timespec="seconds"), r.evening, r.serial, r.game,
             ",".join(r.variants), r.stake_cents, r.currency,
             json.dumps(r.sheet, ensure_ascii=False), json.dumps(r.report, ensure_ascii=False),
             None if r.house_rules is None else json.dumps(r.house_rules.to_json())))
        return int(cur.lastrowid)

    @staticmethod
    def _insert_results(
        conn: sqlite3.Connection, game_id: int, players: Sequence[PlayerResult]
    ) -> None:
        conn.executemany(
            "INSERT INTO results (game_id, player, side, points, cents) VALUES (?, ?, ?, ?, ?)",
            [(game_id, p.name, p.side, _stored(p.points), p.cents) for p in players])

    def games(self) -> list[dict[str, Any]]:
        """Every game, newest first, with its players' points and amounts."""
        with self._read() as conn:
            games = conn.execute(
                "SELECT id, saved_at, evening, serial, game, variants, stake_cents, currency,"
                " house_rules FROM games ORDER BY id DESC").fetchall()
            results = conn.execute(
                "SELECT game_id, player, side, points, cents FROM results"
                " ORDER BY game_id, side, rowid").fetchall()
        by_game: dict[int, list[dict[str, Any]]] = {}
        for r in results:
            by_game.setdefault(r["game_id"], []).append(
                {"player": r["player"], "side": r["side"], "points": r["points"],
                 "points_text": signed_points(r["points"]),
                 "cents": r["cents"], "amount": str(to_money(r["cents"]))})
        return [
            {"id": g["id"], "saved_at": g["saved_at"], "evening": g["evening"],
             "serial": g["serial"], "game": g["game"],
             "variants": [v for v in g["variants"].split(",") if v],
             "stake": str(to_money(g["stake_cents"])), "currency": g["currency"],
             **_terms(g["game"], g["variants"], g["house_rules"]),
             "players": by_game.get(g["id"], [])}
            for g in games
        ]

    def balances(self, evening: str | None = None) -> list[Balance]:
        """Running balance per player (and currency), over all games or one evening."""
        where, args = ("WHERE g.evening = ?", (evening,)) if evening else ("", ())
        with self._read() as conn:
            rows = conn.execute(
                "SELECT r.player, g.currency, COUNT(*) AS games, SUM(r.points) AS points,"
                " SUM(r.cents) AS cents FROM results r JOIN games g ON g.id = r.game_id "
                f"{where} GROUP BY r.player, g.currency ORDER BY cents DESC, points DESC,"
                " r.player", args).fetchall()
        return [Balance(r["player"], r["games"], r["points"], r["cents"], r["currency"])
                for r in rows]

    def evenings(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT evening FROM games ORDER BY evening DESC").fetchall()
        return [r[0] for r in rows]

    def csv_text(self) -> str:
        """One line per player per game; amounts with two decimals; the game's terms."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["game_id", "saved_at", "evening", "serial", "game", "variants",
                         "player", "side", "points", "amount", "currency", "house_rules"])
        for g in reversed(self.games()):
            for p in g["players"]:
                writer.writerow([g["id"], g["saved_at"], g["evening"], g["serial"] or "",
                                 g["game"], " ".join(g["variants"]), p["player"],
                                 p["side"] + 1, p["points"], p["amount"], g["currency"],
                                 g["terms_en"]])
        return out.getvalue()


def _stored(points: int | Fraction) -> int | float:
    """A half as a REAL (exact in binary); whole points stay INTEGER."""
    return points if isinstance(points, int) else float(points)


def _terms(game: str, variants: str, stored: str | None) -> dict[str, Any]:
    """{"house_rules": {...} or None, "terms": the one-line description (German)}."""
    if game != "escalero":
        return {"house_rules": None, "terms": "", "terms_en": ""}
    if stored:
        terms = from_json(json.loads(stored))
    else:  # saved before the ledger kept terms: settled with the variants' defaults
        rules = get_ruleset(game, [v for v in variants.split(",") if v])
        terms = default_for(rules).for_columns(rules.columns)
    return {"house_rules": terms.to_json(), "terms": terms.describe("de"),
            "terms_en": terms.describe("en")}
