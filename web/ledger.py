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
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

from escalero.scoring.errors import EscaleroError, ExitCode
from escalero.scoring.house import HouseRules, default_for, from_json
from escalero.scoring.money import player_amounts, side_amounts, to_money
from escalero.scoring.report import points_from_json, signed_points
from escalero.scoring.rulesets import get_ruleset
from escalero.web.messages import keyed

# SQLite integers are 64-bit: a larger id names no game, a larger amount cannot be stored.
SQLITE_MAX_INT = 2**63 - 1
# No real game moves more than this (cents per player); stakes are capped far below it
# (scoring.money.MAX_STAKE_CENTS), so this only guards the store itself.
MAX_GAME_CENTS = 10**15
# A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

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
    house_rules TEXT,
    game_uid TEXT
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
CREATE TABLE IF NOT EXISTS printed (
    serial TEXT PRIMARY KEY,
    names TEXT NOT NULL
);
"""
# Guests count in their own game only: their names carry the game and stay off the roster.
GUEST_NAME = re.compile(r"^\S+ \d+ \(.+\)$")


class LedgerError(EscaleroError):
    """The ledger file cannot be opened or written."""

    exit_code = ExitCode.INPUT_FILE
    http_status = 503  # the server's storage, not the request, is at fault


class DuplicateSerialError(EscaleroError):
    """A sheet with this serial (or a Tafel game with this id) was saved before; saving
    again needs a confirmation. `key`/`params` give the message in the page's language."""

    exit_code = ExitCode.INPUT_FILE
    http_status = 409

    def __init__(self, serial: str, earlier: Sequence[str], *, tafel: bool = False) -> None:
        self.serial = serial
        self.earlier = tuple(earlier)
        self.key = "err_duplicate_game" if tafel else "err_duplicate_serial"
        self.params = {"serial": serial, "earlier_when": self.earlier}
        what = "this game was already saved" if tafel else f"sheet {serial} was already settled"
        super().__init__(f"{what} ({', '.join(self.earlier)}); confirm to count it again")

    def details(self) -> dict[str, Any]:
        return {"duplicate": True, "serial": self.serial, "earlier": list(self.earlier)}


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
    # A Tafel game's id (made by the phone when the game starts): catches a second save
    # of a game that has no printed serial.
    game_uid: str | None = None

    @property
    def evening(self) -> str:
        return (self.saved_at - timedelta(hours=EVENING_ROLLOVER_HOURS)).date().isoformat()


def build_record(
    sheet: dict[str, Any], report: dict[str, Any], stake_cents: int, currency: str,
    saved_at: datetime | None = None, game_uid: str | None = None,
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
        game_uid=game_uid or None,
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
            conn = self._connect(create=True)
        except (OSError, LedgerError) as err:
            raise LedgerError(f"cannot open the ledger {self.path} ({err}); "
                              "choose a writable file with --db") from None
        try:
            with conn:
                conn.executescript(_SCHEMA)
                columns = {r[1] for r in conn.execute("PRAGMA table_info(games)")}
                if "house_rules" not in columns:  # a ledger from before house rules
                    conn.execute("ALTER TABLE games ADD COLUMN house_rules TEXT")
                if "game_uid" not in columns:  # a ledger from before Tafel game ids
                    conn.execute("ALTER TABLE games ADD COLUMN game_uid TEXT")
                conn.execute("CREATE INDEX IF NOT EXISTS games_uid ON games(game_uid)")
        except (OSError, sqlite3.Error) as err:
            raise LedgerError(f"cannot open the ledger {self.path} ({err}); "
                              "choose a writable file with --db") from None
        finally:
            conn.close()

    def _connect(self, create: bool = False) -> sqlite3.Connection:
        """A connection to the ledger file; LedgerError (503, one line) when the file is
        gone, or is no ledger, while the server runs (only the first open creates it)."""
        if not create and not self.path.exists():
            raise keyed(LedgerError, "err_ledger_gone")
        uri = f"{self.path.absolute().as_uri()}?mode={'rwc' if create else 'rw'}"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=10, isolation_level=None)
        except sqlite3.Error as err:
            raise self.unavailable(err) from None
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as err:
            conn.close()
            raise self.unavailable(err) from None
        conn.row_factory = sqlite3.Row
        return conn

    def unavailable(self, err: sqlite3.Error) -> LedgerError:
        """The one-line 503 for a ledger file that cannot be used (no path: the phone
        needs what to do, the server's owner knows where the file is)."""
        if not self.path.exists():
            return keyed(LedgerError, "err_ledger_gone")
        return keyed(LedgerError, "err_ledger_broken", reason=str(err).splitlines()[0][:80])

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        try:
            yield conn
        except sqlite3.Error as err:
            raise self.unavailable(err) from None
        finally:
            conn.close()

    def save(self, record: GameRecord, *, allow_duplicate: bool = False) -> int:
        """Store one game atomically; DuplicateSerialError if its serial or id is known."""
        if not 0 <= record.stake_cents <= MAX_GAME_CENTS or any(
                abs(p.cents) > MAX_GAME_CENTS or abs(Fraction(p.points)) > MAX_GAME_CENTS
                for p in record.players):
            raise LedgerError("the amounts of this game are too large to keep; "
                              "check the stake")
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
                if record.game_uid and not allow_duplicate:
                    earlier = conn.execute(
                        "SELECT saved_at FROM games WHERE game_uid = ? ORDER BY id",
                        (record.game_uid,)).fetchall()
                    if earlier:
                        raise DuplicateSerialError(record.game_uid,
                                                   [r[0][:16] for r in earlier], tafel=True)
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
        return self.take_out(game_id) is not None

    def take_out(self, game_id: int) -> dict[str, Any] | None:
        """Remove one game like `delete`, and hand back its rows exactly as stored, so
        that `put_back` can undo the deletion; None if there was no such game."""
        if not 0 < game_id <= SQLITE_MAX_INT:
            return None
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                game = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
                results = conn.execute("SELECT * FROM results WHERE game_id = ? ORDER BY rowid",
                                       (game_id,)).fetchall()
                conn.execute("DELETE FROM results WHERE game_id = ?", (game_id,))
                conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            raise LedgerError(f"could not delete game {game_id} ({err}); nothing changed") \
                from None
        finally:
            conn.close()
        if game is None:
            return None
        return {"game": dict(game), "results": [dict(r) for r in results]}

    def put_back(self, rows: dict[str, Any]) -> int:
        """Store a game taken out by `take_out` again, under its old id (one transaction)."""
        game, results = dict(rows["game"]), rows["results"]
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                columns = ", ".join(game)
                conn.execute(f"INSERT INTO games ({columns}) VALUES "
                             f"({', '.join('?' * len(game))})", tuple(game.values()))
                for r in results:
                    conn.execute(f"INSERT INTO results ({', '.join(r)}) VALUES "
                                 f"({', '.join('?' * len(r))})", tuple(r.values()))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            raise LedgerError(f"could not restore game {game.get('id')} ({err}); "
                              "nothing changed") from None
        finally:
            conn.close()
        return int(game["id"])

    @staticmethod
    def _insert_game(conn: sqlite3.Connection, r: GameRecord) -> int:
        cur = conn.execute(
            "INSERT INTO games (saved_at, evening, serial, game, variants, stake_cents,"
            " currency, sheet_json, report_json, house_rules, game_uid)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (r.saved_at.isoformat(timespec="seconds"), r.evening, r.serial, r.game,
             ",".join(r.variants), r.stake_cents, r.currency,
             json.dumps(r.sheet, ensure_ascii=False), json.dumps(r.report, ensure_ascii=False),
             None if r.house_rules is None else json.dumps(r.house_rules.to_json()),
             r.game_uid))
        game_id = cur.lastrowid
        assert game_id is not None  # every INSERT sets it
        return game_id

    @staticmethod
    def _insert_results(
        conn: sqlite3.Connection, game_id: int, players: Sequence[PlayerResult]
    ) -> None:
        conn.executemany(
            "INSERT INTO results (game_id, player, side, points, cents) VALUES (?, ?, ?, ?, ?)",
            [(game_id, p.name, p.side, _stored(p.points), p.cents) for p in players])

    def games(self, evening: str | None = None) -> list[dict[str, Any]]:
        """Every game (or one evening's), newest first, with its players' points and amounts.

        Stored values are read defensively (see _int): no row, however it got into the
        file, can make the ledger page fail.
        """
        where, args = ("WHERE evening = ?", (evening,)) if evening else ("", ())
        with self._read() as conn:
            games = conn.execute(
                "SELECT id, saved_at, evening, serial, game, variants, stake_cents, currency,"
                f" house_rules, game_uid FROM games {where} ORDER BY id DESC", args).fetchall()
            results = conn.execute(
                "SELECT game_id, player, side, points, cents FROM results"
                " ORDER BY game_id, side, rowid").fetchall()
        by_game: dict[int, list[dict[str, Any]]] = {}
        for r in results:
            by_game.setdefault(r["game_id"], []).append(
                {"player": str(r["player"]), "side": _int(r["side"]),
                 "points": _points(r["points"]),
                 "points_text": signed_points(_points(r["points"])),
                 "cents": _int(r["cents"]), "amount": str(to_money(_int(r["cents"])))})
        return [
            {"id": g["id"], "saved_at": str(g["saved_at"]), "evening": str(g["evening"]),
             "serial": g["serial"], "game": str(g["game"]), "game_uid": g["game_uid"],
             "variants": [v for v in str(g["variants"] or "").split(",") if v],
             "stake": str(to_money(_int(g["stake_cents"]))), "currency": str(g["currency"]),
             **_terms(str(g["game"]), str(g["variants"] or ""), g["house_rules"]),
             "players": by_game.get(g["id"], [])}
            for g in games
        ]

    def balances(self, evening: str | None = None) -> list[Balance]:
        """Running balance per player (and currency), over all games or one evening.

        Summed in Python, not SQL: SQLite's SUM() fails on 64-bit overflow, and one
        such row would break every page that shows a balance.
        """
        where, args = ("WHERE g.evening = ?", (evening,)) if evening else ("", ())
        with self._read() as conn:
            rows = conn.execute(
                "SELECT r.player, g.currency, r.points, r.cents FROM results r"
                f" JOIN games g ON g.id = r.game_id {where}", args).fetchall()
        totals: dict[tuple[str, str], list[Any]] = {}
        for r in rows:
            t = totals.setdefault((str(r["player"]), str(r["currency"])), [0, 0, 0])
            t[0] += 1
            t[1] += _points(r["points"])
            t[2] += _int(r["cents"])
        out = [Balance(player, n, int(points) if points == int(points) else float(points),
                       cents, currency)
               for (player, currency), (n, points, cents) in totals.items()]
        return sorted(out, key=lambda b: (-b.cents, -b.points, b.player))

    def roster(self) -> list[str]:
        """Every player the ledger knows (guests left out), most recently seen first."""
        with self._read() as conn:
            rows = conn.execute("SELECT player, MAX(game_id) AS last FROM results"
                                " GROUP BY player ORDER BY last DESC, player").fetchall()
        return [r["player"] for r in rows if not GUEST_NAME.match(r["player"])]

    def remember_names(self, serials: Sequence[str], names: Sequence[Sequence[str]]) -> None:
        """The names printed on these sheets, so that a scan of one comes back named."""
        text = json.dumps([list(side) for side in names], ensure_ascii=False)
        try:
            with self._read() as conn:
                conn.executemany("INSERT OR REPLACE INTO printed (serial, names) VALUES (?, ?)",
                                 [(serial, text) for serial in serials])
        except sqlite3.Error as err:
            raise LedgerError(f"could not note the printed names in {self.path} ({err}); "
                              "print again") from None

    def printed_names(self, serial: str | None) -> list[list[str]] | None:
        """Per side, the members' names printed on the sheet with this serial, or None."""
        if not serial:
            return None
        with self._read() as conn:
            row = conn.execute("SELECT names FROM printed WHERE serial = ?",
                               (serial,)).fetchone()
        try:
            names = json.loads(row["names"]) if row is not None else None
        except (TypeError, ValueError):  # a damaged row names nothing
            return None
        return names if isinstance(names, list) else None

    def evenings(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT evening FROM games ORDER BY evening DESC").fetchall()
        return [r[0] for r in rows]

    def csv_text(self, lang: str = "en") -> str:
        """One line per player per game; amounts with two decimals; the game's terms in
        `lang`; the time it was saved as the server's clock showed it (no UTC offset)."""
        terms = "terms" if lang == "de" else f"terms_{lang if lang in ('en', 'es') else 'en'}"
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["game_id", "saved_at", "evening", "serial", "game", "variants",
                         "player", "side", "points", "amount", "currency", "house_rules"])
        for g in reversed(self.games()):
            for p in g["players"]:
                writer.writerow([g["id"], g["saved_at"][:19].replace("T", " "), g["evening"],
                                 _csv_text(g["serial"] or ""), _csv_text(g["game"]),
                                 _csv_text(" ".join(g["variants"])), _csv_text(p["player"]),
                                 p["side"] + 1, p["points"], p["amount"],
                                 _csv_text(g["currency"]), g[terms]])
        return out.getvalue()


def _stored(points: int | Fraction) -> int | float:
    """A half as a REAL (exact in binary); whole points stay INTEGER."""
    return points if isinstance(points, int) else float(points)


def _terms(game: str, variants: str, stored: str | None) -> dict[str, Any]:
    """{"house_rules": {...} or None, "terms": the one-line description (German)}."""
    if game != "escalero":
        return {"house_rules": None, "terms": "", "terms_en": "", "terms_es": ""}
    try:
        if stored:
            terms = from_json(json.loads(stored))
        else:  # saved before the ledger kept terms: settled with the variants' defaults
            rules = get_ruleset(game, [v for v in variants.split(",") if v])
            terms = default_for(rules).for_columns(rules.columns)
    except (EscaleroError, ValueError, TypeError):  # a damaged row must not break the page
        return {"house_rules": None, "terms": "?", "terms_en": "?", "terms_es": "?"}
    return {"house_rules": terms.to_json(), "terms": terms.describe("de"),
            "terms_en": terms.describe("en"), "terms_es": terms.describe("es")}


def _int(value: Any) -> int:
    """A stored integer as int. The schema says INTEGER, but SQLite keeps whatever a
    writer put there: text or a real becomes its integer value, anything else 0."""
    if isinstance(value, int):
        return value
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return 0
    return int(number) if number.is_finite() and abs(number) <= SQLITE_MAX_INT else 0


def _csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text, never runs as a formula (OWASP advice)."""
    text = str(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _points(value: Any) -> int | Fraction:
    """Stored points: whole points as int, a split column's half as an exact Fraction;
    anything else a writer left there reads as its integer value (see _int)."""
    if isinstance(value, float) and value == value and abs(value) <= SQLITE_MAX_INT:
        half = Fraction(value).limit_denominator(6)
        return int(half) if half.denominator == 1 else half
    return _int(value)
