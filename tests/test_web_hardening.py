"""Hostile and careless requests to the web app: each answered with a clear 4xx (or one
JSON 500 for a bug), never a plain-text 500, a broken ledger or a blocked server."""

from __future__ import annotations

import asyncio
import csv
import io
import socket
import sqlite3
from pathlib import Path

import pytest
from escalero.scoring.errors import UsageError
from escalero.web import app as web_app
from escalero.web import pixel_budget, records, scanning, settling
from escalero.web.app import MAX_JSON_BYTES, create_app
from escalero.web.cli import check_port_free, settings
from escalero.web.config import WebConfig
from escalero.web.security import BASE_LOCK_SECONDS, FREE_TRIES, MAX_LOCK_SECONDS, PinGuard
from fastapi.testclient import TestClient


def sheet(a: str = "Anna", b: str = "Ben", serial: str | None = None) -> dict:
    obj: dict = {"sides": [{"name": a, "columns": [{"nines": 3}, {}, {}]},
                           {"name": b, "columns": [{"nines": 4}, {}, {}]}]}
    if serial:
        obj["serial"] = serial
    return obj


def post_json(c: TestClient, url: str, body: str | bytes, **headers: str):
    return c.post(url, content=body, headers={"Content-Type": "application/json", **headers})


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    with TestClient(create_app(WebConfig(db_path=tmp_path / "ledger.sqlite3"))) as c:
        yield c


# --- 1. stakes and the ledger -------------------------------------------------------------

@pytest.mark.parametrize("stake", ["50000000000000000", "1e20", "1e308", "1000000.01"])
def test_huge_stakes_are_refused_and_the_ledger_stays_readable(client: TestClient,
                                                               stake: str) -> None:
    for _ in range(2):
        r = client.post("/api/ledger", json={"sheet": sheet(), "stake": stake})
        assert r.status_code == 400 and "zu groß" in r.json()["error"]  # the page's German
    assert client.post("/api/settle", json={"sheet": sheet(), "stake": stake}).status_code == 400
    assert client.get("/ledger").status_code == 200
    assert client.get("/api/ledger").json()["games"] == []


def test_the_largest_stake_is_kept_exactly(client: TestClient) -> None:
    r = client.post("/api/ledger", json={"sheet": sheet(), "stake": "1000000.00"})
    assert r.status_code == 201
    amounts = {p["player"]: p["cents"] for p in r.json()["players"]}
    assert amounts["Ben"] == -amounts["Anna"] and abs(amounts["Anna"]) >= 100_000_000


def test_no_stored_row_breaks_a_page(client: TestClient, tmp_path: Path) -> None:
    """Rows another program wrote (or an older version let in): sums past 64 bits, text in
    integer columns. Every page still answers 200, and the sums are exact."""
    saved = client.post("/api/ledger", json={"sheet": sheet(), "stake": "1"})
    first = {p["player"]: p["cents"] for p in saved.json()["players"]}["Anna"]
    big = 2**63 - 1
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as conn:
        for _ in range(2):
            cur = conn.execute(
                "INSERT INTO games (saved_at, evening, serial, game, variants, stake_cents,"
                " currency, sheet_json, report_json) VALUES ('2026-01-01T20:00:00+01:00',"
                " '2026-01-01', NULL, 'escalero', '', ?, 'EUR', '{}', '{}')", (big,))
            conn.execute("INSERT INTO results VALUES (?, 'Anna', 0, 1, ?)", (cur.lastrowid, big))
            conn.execute("INSERT INTO results VALUES (?, 'Ben', 1, 'x', 'junk')",
                         (cur.lastrowid,))
    for path in ("/ledger", "/api/ledger", "/ledger.csv", "/api/ledger?evening=2026-01-01"):
        assert client.get(path).status_code == 200, path
    anna = next(b for b in client.get("/api/ledger").json()["balances"] if b["player"] == "Anna")
    assert anna["cents"] == 2 * big + first and anna["games"] == 3


def test_deleting_an_id_past_64_bits_is_a_clear_400(client: TestClient) -> None:
    client.cookies.set("escalero_lang", "en")  # the message in English (German by default)
    r = client.delete("/api/ledger/99999999999999999999999")
    assert r.status_code == 400 and "no game" in r.json()["error"]


# --- 2. body size, sheet size and the event loop ------------------------------------------

def test_large_bodies_are_refused_before_parsing(client: TestClient) -> None:
    body = b'{"sheet": {"sides": [' + b'{"name": "A"},' * (MAX_JSON_BYTES // 10) + b"]}}"
    for url in ("/api/settle", "/api/ledger"):
        r = post_json(client, url, body)  # in the page's language (German by default)
        assert r.status_code == 413 and "größer als 256 kB" in r.json()["error"]


@pytest.mark.parametrize(("obj", "needle"), [
    ({"sides": [{"name": f"P{i}", "columns": [{}, {}, {}]} for i in range(17)]},
     "at most 16"),
    (sheet(a="A" * 41), "at most 40"),
    ({"sides": [{"name": "A", "members": [f"M{i}" for i in range(5)],
                 "columns": [{}, {}, {}]}, sheet()["sides"][1]]}, "at most 4"),
    (sheet(serial="S" * 65), "at most 64"),
])
def test_sheets_larger_than_any_sheet_are_refused(client: TestClient, obj: dict,
                                                  needle: str) -> None:
    client.cookies.set("escalero_lang", "en")  # the message in English (German by default)
    r = client.post("/api/settle", json={"sheet": obj})
    assert r.status_code == 400 and needle in r.json()["error"]


def test_settling_runs_off_the_event_loop(client: TestClient,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def where(*_args: object) -> dict:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return {"on_event_loop": False}
        return {"on_event_loop": True}

    monkeypatch.setattr(settling, "settle_payload", where)
    assert client.post("/api/settle", json={"sheet": {}}).json() == {"on_event_loop": False}
    seen: list[bool] = []

    def record(*_args: object) -> tuple:
        seen.append(where()["on_event_loop"])
        raise UsageError("stop here")

    monkeypatch.setattr(records, "ledger_record", record)
    assert client.post("/api/ledger", json={"sheet": {}}).status_code == 400
    assert seen == [False]


# --- 3. cross-site requests and headers ---------------------------------------------------

def test_cross_site_requests_are_refused(client: TestClient) -> None:
    body = '{"sheet": ' + str(sheet()).replace("'", '"') + ', "stake": "5.00"}'
    evil = {"Origin": "http://evil.example"}
    assert post_json(client, "/api/ledger", body, **evil).status_code == 403
    r = client.post("/api/ledger", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    assert client.post("/api/scan", content=b"\xff\xd8\xff", headers=evil).status_code == 403
    r = client.post("/api/scan", content=b"\xff\xd8\xff",
                    headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415
    assert client.post("/api/print", data={"game": "escalero"}, headers=evil).status_code == 403
    assert client.delete("/api/ledger/1", headers={"Origin": "null"}).status_code == 403
    assert client.post("/api/settle", json={"sheet": sheet()},
                       headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert client.get("/api/ledger").json()["games"] == []  # nothing was saved
    # The app's own pages send their own origin and are served.
    ok = post_json(client, "/api/ledger", body, Origin="http://testserver")
    assert ok.status_code == 201


def test_security_headers_on_pages_and_api(client: TestClient) -> None:
    for path in ("/", "/api/rules", "/no-such-page"):
        h = client.get(path).headers
        assert h["X-Frame-Options"] == "DENY", path
        assert "frame-ancestors 'none'" in h["Content-Security-Policy"]
        assert h["X-Content-Type-Options"] == "nosniff"


# --- 4. unexpected errors -----------------------------------------------------------------

@pytest.mark.parametrize("body", [
    b"[" * 50_000 + b"]" * 50_000,
    b'{"sheet": {"sides": [{"name": "A", "columns": [{"nines": ' + b"9" * 5000 + b"}]}]}}",
    b'{"sheet": {"sides": [{"name": "\\ud800", "columns": [{}, {}, {}]}]}}',
    b'{"sheet": {"sides": [{"name": "A\\u001b[2J", "columns": [{}, {}, {}]}]}}',
    b'{"sheet": {"sides": [{"name": "A", "columns": [{}, {}, {}]}]}, "stake": "1e30"}',
    b'\xff\xfe',
])
def test_hostile_json_gets_a_json_400(client: TestClient, body: bytes) -> None:
    for url in ("/api/settle", "/api/ledger"):
        r = post_json(client, url, body)
        assert r.status_code in (400, 413), (url, r.text[:200])
        assert r.json()["error"]


def test_a_bug_is_one_json_500(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*_args: object) -> dict:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(settling, "settle_payload", broken)
    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3"))
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.post("/api/settle", json={"sheet": sheet()})
        assert r.status_code == 500
        assert r.json() == {"error": "internal error (a bug: please report it)"}
        assert r.headers["X-Frame-Options"] == "DENY"
        assert c.get("/api/rules").status_code == 200  # the server goes on
    err = capsys.readouterr().err
    assert "internal error (a bug" in err and "Traceback" not in err


# --- 5. the PIN ---------------------------------------------------------------------------

def test_pin_backoff_doubles_per_client_and_resets_on_success() -> None:
    guard = PinGuard("4711")
    t = 1000.0
    for _ in range(FREE_TRIES - 1):
        assert guard.try_pin("0000", "a", now=t) == "wrong"
    assert guard.wait_seconds("a", now=t) == 0
    assert guard.try_pin("0000", "a", now=t) == "wrong"  # the last free try starts a wait
    waits = [guard.wait_seconds("a", now=t)]
    for _ in range(12):
        t += waits[-1]
        assert guard.try_pin("0000", "a", now=t) == "wrong"
        waits.append(guard.wait_seconds("a", now=t))
    assert waits[:3] == [BASE_LOCK_SECONDS, 2 * BASE_LOCK_SECONDS, 4 * BASE_LOCK_SECONDS]
    assert max(waits) == MAX_LOCK_SECONDS
    assert guard.try_pin("4711", "a", now=t) == "locked"  # even the right PIN waits
    assert guard.try_pin("4711", "b", now=t) == "ok"  # another client does not
    assert guard.try_pin("4711", "a", now=t + MAX_LOCK_SECONDS) == "ok"
    assert guard.wait_seconds("a", now=t + MAX_LOCK_SECONDS) == 0  # forgotten on success


@pytest.mark.parametrize("pin", ["1", "12", "123", " 12 "])
def test_short_pins_are_refused(pin: str) -> None:
    import argparse

    args = argparse.Namespace(host="0.0.0.0", port=8000, db=None, pin=pin)
    with pytest.raises(UsageError, match="at least 4"):
        settings(args)


# --- 7. smaller ones ----------------------------------------------------------------------

def test_csv_cells_never_start_a_formula(client: TestClient) -> None:
    names = ["=HYPERLINK(1)", "+1", "-2", "@SUM(A1)"]
    for i in range(0, 4, 2):
        obj = sheet(a=names[i], b=names[i + 1])
        assert client.post("/api/ledger", json={"sheet": obj, "currency": "=X"}).status_code \
            == 201
    rows = list(csv.DictReader(io.StringIO(client.get("/ledger.csv").text)))
    assert sorted(r["player"] for r in rows) == sorted("'" + n for n in names)
    assert {r["currency"] for r in rows} == {"'=X"}
    assert {r["amount"] for r in rows} == {"0.00"}  # numbers stay numbers


@pytest.mark.parametrize(("extra", "needle"), [
    ({"confirm": "no"}, '"confirm" must be true or false'),
    ({"currency": [1, 2]}, "currency"),
])
def test_ledger_fields_of_the_wrong_type_are_refused(client: TestClient, extra: dict,
                                                     needle: str) -> None:
    client.cookies.set("escalero_lang", "en")  # the message in English (German by default)
    r = client.post("/api/ledger", json={"sheet": sheet(serial="K-1"), **extra})
    assert r.status_code == 400 and needle in r.json()["error"]
    assert client.get("/api/ledger").json()["games"] == []


def test_confirm_must_be_true_to_count_a_sheet_twice(client: TestClient) -> None:
    assert client.post("/api/ledger", json={"sheet": sheet(serial="K-1")}).status_code == 201
    assert client.post("/api/ledger", json={"sheet": sheet(serial="K-1"),
                                            "confirm": False}).status_code == 409
    assert client.post("/api/ledger", json={"sheet": sheet(serial="K-1"),
                                            "confirm": True}).status_code == 201


def test_pairs_flag_is_read_not_guessed() -> None:
    assert scanning.layout_hint({"players": "4", "pairs": "0"}).pairs is False
    assert scanning.layout_hint({"players": "4", "pairs": "1"}).pairs is True
    with pytest.raises(UsageError, match="pairs"):
        scanning.layout_hint({"players": "4", "pairs": "maybe"})


def test_evening_filter_applies_to_games_too(client: TestClient, tmp_path: Path) -> None:
    assert client.post("/api/ledger", json={"sheet": sheet()}).status_code == 201
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as conn:
        conn.execute("UPDATE games SET evening = '2020-01-01'")
    assert client.post("/api/ledger", json={"sheet": sheet()}).status_code == 201
    old = client.get("/api/ledger", params={"evening": "2020-01-01"}).json()
    assert len(old["games"]) == 1 and old["games"][0]["evening"] == "2020-01-01"
    assert {b["games"] for b in old["balances"]} == {1}
    assert len(client.get("/api/ledger").json()["games"]) == 2


def test_a_busy_port_is_a_usage_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match="already in use") as info:
            check_port_free("127.0.0.1", port)
    assert info.value.exit_code == 2


def test_json_cap_is_far_above_a_full_sheet() -> None:
    full = {"sheet": {"serial": "K7Q2-001", "sides": [
        {"name": "N" * 40, "members": ["M" * 40, "P" * 40],
         "columns": [{r: 30 for r in ("nines", "tens", "jacks", "queens", "kings", "aces",
                                      "straight", "full_house", "poker", "grande")}] * 3,
         "written_totals": [999, 999, 999]} for _ in range(16)]}, "stake": "0.50"}
    assert len(str(full).encode()) * 2 < web_app.MAX_JSON_BYTES


# --- 6. pixels ----------------------------------------------------------------------------

def image_bytes(size: tuple[int, int], fmt: str) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", size, 255).save(buf, fmt)
    return buf.getvalue()


def test_a_small_file_of_many_pixels_is_refused_before_decoding(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from escalero.scan import pipeline

    def never(*_args: object, **_kw: object) -> None:
        raise AssertionError("decoded a photo over the pixel budget")

    monkeypatch.setattr(pipeline, "scan_photo", never)
    bomb = image_bytes((7100, 7100), "PNG")  # 50.4 MP in well under 1 MB
    assert len(bomb) < 1_000_000
    r = client.post("/api/scan", content=bomb, headers={"Content-Type": "image/png"})
    assert r.status_code == 413 and "7100x7100 groß: 51 Millionen Pixel" in r.json()["error"]


def test_large_jpegs_cost_their_reduced_decoding_size() -> None:
    from escalero.scan.load import WORK_MAX_SIDE

    wide = WORK_MAX_SIDE * 2 + 200
    assert pixel_budget.decoded_pixels(image_bytes((wide, 300), "JPEG")) == (wide // 2) * 150
    assert pixel_budget.decoded_pixels(image_bytes((wide, 300), "PNG")) == wide * 300
    assert pixel_budget.decoded_pixels(b"\xff\xd8\xff garbage") == 0  # scan.load names it


def test_the_pixel_budget_makes_big_photos_wait() -> None:
    import threading

    budget = pixel_budget.PixelBudget(100)
    entered = threading.Event()

    def second() -> None:
        with budget.hold(60):
            entered.set()

    with budget.hold(60):
        worker = threading.Thread(target=second)
        worker.start()
        assert not entered.wait(0.2)  # 60 + 60 > 100: it waits for the first
    worker.join(60)
    assert entered.is_set()
    with budget.hold(40), budget.hold(60):  # within the budget: no wait
        pass
