"""The web API through FastAPI's TestClient: rules, settle, print, scan, ledger, PIN."""

from __future__ import annotations

import io
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from escalero.scan import pipeline
from escalero.scoring.errors import LayoutUnknownError, SheetNotFoundError
from escalero.web import recognizer, scanning
from escalero.web.app import create_app
from escalero.web.cli import settings
from escalero.web.config import WebConfig, is_loopback
from fastapi.testclient import TestClient
from PIL import Image

SAMPLES = Path(__file__).parents[1] / "samples" / "photos"


def sheet(serial: str | None = "K7Q2-001", nines: int = 3) -> dict:
    obj = {"game": "escalero", "sides": [
        {"name": "Anna", "columns": [{"nines": nines}, {}, {}]},
        {"name": "Ben", "columns": [{"nines": 2}, {"tens": 4}, {}]},
    ]}
    if serial:
        obj["serial"] = serial
    return obj


def png_bytes(size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, "white").save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    with TestClient(create_app(WebConfig(db_path=tmp_path / "ledger.sqlite3"))) as c:
        yield c


def english(client: TestClient) -> None:
    """Messages in English, as a phone set to EN gets them (the default is German)."""
    client.cookies.set("escalero_lang", "en")


def test_pages_render_in_german_by_default_and_switch_to_english(client: TestClient) -> None:
    for path in ("/", "/tafel", "/scan", "/print", "/ledger"):
        r = client.get(path)
        assert r.status_code == 200, path
        assert 'lang="de"' in r.text and 'name="viewport"' in r.text
    assert 'capture="environment"' in client.get("/scan").text
    r = client.get("/lang/en?next=/tafel", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/tafel"
    client.cookies.set("escalero_lang", "en")
    assert "Keep score live" in client.get("/").text
    # An open redirect is refused.
    r = client.get("/lang/de?next=//evil.example", follow_redirects=False)
    assert r.headers["location"] == "/"


def test_rules_endpoint_serves_the_ruleset(client: TestClient) -> None:
    r = client.get("/api/rules", params={"variant": "strasse-25"})
    assert r.status_code == 200
    rules = r.json()
    straight = next(row for row in rules["rows"] if row["id"] == "straight")
    assert straight["allowed"] == [25, 30] and straight["label"] == "Straße"
    assert rules["columns"] == 3 and rules["column_weights"] == [1, 2, 4]
    en = client.get("/api/rules", params={"game": "generala", "lang": "en"}).json()
    assert en["columns"] == 1 and en["rows"][-1]["label"] == "Double Generala"
    bad = client.get("/api/rules", params={"variant": "no-such"})
    # In the page's language (German by default), as the command line says it in --lang.
    assert bad.status_code == 400 and "unbekannte Variante 'no-such'" in bad.json()["error"]


def test_settle_endpoint(client: TestClient) -> None:
    r = client.post("/api/settle", json={"sheet": sheet(), "stake": "0,50", "currency": "EUR"})
    assert r.status_code == 200
    report = r.json()
    assert report["settlement"]["totals"] == [[3, 0, 0], [2, 4, 0]]
    assert report["settlement"]["points"] == [-1, 1]
    assert report["money"]["transfers"] == [{"from": "Anna", "to": "Ben", "amount": "0.50"}]
    # A value the row forbids counts nothing on the page and is named by the validator.
    r = client.post("/api/settle", json={"sheet": sheet(nines=7)})
    assert r.json()["settlement"]["totals"][0][0] == 0
    assert any(p["kind"] == "invalid_value" and p["row"] == "nines"
               for p in r.json()["validation"])
    assert "money" not in r.json()


@pytest.mark.parametrize(("body", "message"), [
    (b"not json", "not valid JSON"),
    (b'{"sheet": {"game": "escalero", "sides": []}}', "non-empty list of sides"),
    (b'{"sheet": {"sides": [{"name": "A", "columns": [{}, {}, {}]}]}, "stake": "0.001"}',
     "fractions of a cent"),
])
def test_settle_rejects_bad_input_with_a_message(client: TestClient, body: bytes,
                                                 message: str) -> None:
    english(client)
    r = client.post("/api/settle", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert message in r.json()["error"]


def test_print_endpoint_returns_a_pdf(client: TestClient) -> None:
    r = client.post("/api/print", data={"game": "escalero", "names": "Anna\nBen\nCora",
                                        "variant-strasse-25": "1", "pages": "2",
                                        "serial": "ABEND"})
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/pdf"
    assert r.content.startswith(b"%PDF")
    assert "escalero-abend-001.pdf" in r.headers["content-disposition"]
    assert len(pdfium.PdfDocument(r.content)) == 2


def test_print_refuses_impossible_sheets_with_a_message(client: TestClient) -> None:
    english(client)
    r = client.post("/api/print", data={"game": "generala", "pairs": "1", "players": "4"})
    assert r.status_code == 400 and "Pairs are for Escalero" in r.json()["error"]
    r = client.post("/api/print", data={"pages": "9999"})
    assert r.status_code == 400 and "Number of sheets" in r.json()["error"]


def test_scan_rejects_what_is_not_a_photo(client: TestClient) -> None:
    english(client)
    r = client.post("/api/scan", content=b"%PDF-1.4 not a photo")
    assert r.status_code == 415
    assert r.json()["error"] == ("This file is not a photo; "
                                 "upload a JPEG, PNG, HEIC or WebP image.")
    r = client.post("/api/scan", content=b"")
    assert r.status_code == 415 and "No photo received" in r.json()["error"]


def test_scan_refuses_large_uploads(tmp_path: Path) -> None:
    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3", max_upload_bytes=1000))
    with TestClient(app) as c:
        english(c)
        r = c.post("/api/scan", content=png_bytes((400, 400)) + b"\0" * 2000)
        assert r.status_code == 413 and "larger than" in r.json()["error"]


def test_scanner_errors_reach_the_page_as_4xx(client: TestClient,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def no_sheet(data: bytes, lang: str, layout=None, recognizer=None) -> dict:
        raise SheetNotFoundError("no score sheet found: photograph the whole sheet with all "
                                 "four corner markers")

    monkeypatch.setattr(scanning, "scan_bytes", no_sheet)
    r = client.post("/api/scan", content=png_bytes())
    assert r.status_code == 422
    assert r.json()["error"].startswith("no score sheet found")


@pytest.mark.parametrize("lang", ["de", "es"])
def test_every_refusal_reaches_the_page_in_its_language_with_its_reason(
        client: TestClient, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    from escalero.scoring.errors import Reason, UnreadableSheetError
    from escalero.web.i18n import translate
    from escalero.web.messages import REASON_KEYS

    assert set(REASON_KEYS) == set(Reason)  # a new reason needs its page text
    for reason in Reason:
        def refuse(data: bytes, lang: str, layout=None, recognizer=None,
                   reason: Reason = reason) -> dict:
            raise UnreadableSheetError("refused in English", reason=reason)

        monkeypatch.setattr(scanning, "scan_bytes", refuse)
        r = client.post("/api/scan", params={"lang": lang}, content=png_bytes())
        body = r.json()
        assert r.status_code == 422 and body["reason"] == reason.value, reason
        english = translate(REASON_KEYS[reason], "en")
        assert body["error"] == translate(REASON_KEYS[reason], lang) != english, reason


def test_concurrent_scans_run_in_parallel(client: TestClient,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan runs in a worker thread: three uploads are inside the scanner at once.

    Each fake scan blocks until all three have arrived; run one after another, the first
    would wait forever (the barrier's timeout only ends a broken run, it measures nothing).
    """
    together = threading.Barrier(3, timeout=60)

    def blocking_scan(data: bytes, lang: str, layout=None, recognizer=None) -> dict:
        together.wait()
        return {"bytes": len(data)}

    monkeypatch.setattr(scanning, "scan_bytes", blocking_scan)
    photos = [png_bytes((64 + i, 48)) for i in range(3)]
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda p: client.post("/api/scan", content=p), photos))
    assert [r.json()["bytes"] for r in results] == [len(p) for p in photos]


def sample(name: str) -> Path:
    """A committed sample photo: a missing one is a failure, never a skip."""
    path = SAMPLES / name
    assert path.exists(), f"sample photo {name} is not committed in samples/photos/"
    return path


def test_scan_of_a_sample_photo(client: TestClient) -> None:
    photo = sample("01-easy-2-players.jpg")
    truth = json.loads(photo.with_suffix(".json").read_text())
    r = client.post("/api/scan", content=photo.read_bytes())
    assert r.status_code == 200, r.text
    result = r.json()
    assert result["game"] == "escalero" and len(result["sides"]) == 2
    assert result["image"].startswith("data:image/jpeg;base64,")
    assert "settlement" in result and "review" in result
    # The scanner does not read names: the page gets each name box's ink to show.
    assert set(result["name_crops"]) == {"0/0", "1/0"}
    assert all(v.startswith("data:image/jpeg;base64,") for v in result["name_crops"].values())
    # Every cell the scanner reports as certain is right (it never guesses silently).
    flagged = {(f["side"], f["column"], f["row"]) for f in result["review"]}
    for s, side in enumerate(truth["sheet"]["sides"]):
        for c, column in enumerate(side["columns"]):
            for row, value in column.items():
                if (s, c, row) not in flagged:
                    assert result["sides"][s]["columns"][c].get(row) == value, (s, c, row)
    # What the scanner read settles the same through /api/settle.
    obj = {k: result[k] for k in ("game", "variant", "sides") if k in result}
    settled = client.post("/api/settle", json={"sheet": obj}).json()
    assert settled["settlement"]["totals"] == result["settlement"]["totals"]


@pytest.mark.parametrize(("name", "message"), [
    ("14-no-sheet.jpg", "No score sheet found"),
    ("13-tiny-far-away.jpg", "move closer"),
])
def test_bad_photos_get_the_scanners_message(client: TestClient, name: str,
                                             message: str) -> None:
    english(client)
    r = client.post("/api/scan", content=sample(name).read_bytes())
    assert r.status_code == 422
    assert message in r.json()["error"]


def test_real_scans_in_parallel_give_the_same_results(client: TestClient) -> None:
    photos = [sample(n).read_bytes() for n in ("01-easy-2-players.jpg", "02-3-players.jpg",
                                               "04-generala-4-players.jpg")]
    alone = [client.post("/api/scan", content=p).json() for p in photos]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(lambda p: client.post("/api/scan", content=p).json(), photos))
    for a, b in zip(alone, together, strict=True):
        assert {k: v for k, v in a.items() if k != "image"} == {
            k: v for k, v in b.items() if k != "image"}


def test_ledger_save_list_balances_csv_and_duplicates(client: TestClient) -> None:
    english(client)
    r = client.post("/api/ledger", json={"sheet": sheet("A-001"), "stake": "0.50"})
    assert r.status_code == 201
    assert r.json()["players"] == [{"player": "Anna", "points": -1, "cents": -50},
                                   {"player": "Ben", "points": 1, "cents": 50}]
    again = client.post("/api/ledger", json={"sheet": sheet("A-001"), "stake": "0.50"})
    assert again.status_code == 409
    assert again.json()["duplicate"] is True and "already settled" in again.json()["error"]
    assert len(client.get("/api/ledger").json()["games"]) == 1
    confirmed = client.post("/api/ledger", json={"sheet": sheet("A-001"), "stake": "0.50",
                                                 "confirm": True})
    assert confirmed.status_code == 201
    data = client.get("/api/ledger").json()
    assert len(data["games"]) == 2
    assert {b["player"]: b["amount"] for b in data["balances"]} == {"Anna": "-1.00",
                                                                    "Ben": "1.00"}
    csv_text = client.get("/ledger.csv")
    assert csv_text.headers["content-type"].startswith("text/csv")
    assert csv_text.text.count("\nAnna,") == 0 and csv_text.text.count(",Anna,") == 2
    page = client.get("/ledger").text
    assert "Anna" in page and "A-001" in page and "-€1.00" in page  # as English writes it
    first = data["games"][-1]["id"]
    assert client.delete(f"/api/ledger/{first}").json()["deleted"] == first
    assert client.delete(f"/api/ledger/{first}").status_code == 400
    assert len(client.get("/api/ledger").json()["games"]) == 1


def test_ledger_rejects_an_ill_formed_sheet(client: TestClient) -> None:
    r = client.post("/api/ledger", json={"sheet": {"game": "poker", "sides": []}})
    assert r.status_code == 400 and "unbekanntes Spiel 'poker'" in r.json()["error"]
    assert client.get("/api/ledger").json()["games"] == []


def test_pin_required_when_not_on_loopback(tmp_path: Path) -> None:
    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3", pin="4711"))
    with TestClient(app, base_url="http://192.168.1.20:8000") as c:
        r = c.get("/tafel", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/pin?next=/tafel"
        assert c.get("/api/rules").status_code == 401
        assert c.post("/api/settle", json={"sheet": sheet()}).status_code == 401
        assert c.get("/ledger.csv", follow_redirects=False).status_code == 303
        assert c.get("/static/style.css").status_code == 200  # the PIN page needs it
        wrong = c.post("/pin", data={"pin": "1234", "next": "/tafel"}, follow_redirects=False)
        assert wrong.status_code == 403 and "Falsche PIN" in wrong.text
        assert "escalero_pin" not in c.cookies
        ok = c.post("/pin", data={"pin": "4711", "next": "/tafel"}, follow_redirects=False)
        assert ok.status_code == 303 and ok.headers["location"] == "/tafel"
        assert c.cookies["escalero_pin"] != "4711"  # a token, not the PIN itself
        assert c.get("/api/rules").status_code == 200
        assert c.get("/tafel").status_code == 200


def test_pin_guesses_are_rate_limited_per_client(tmp_path: Path) -> None:
    app = create_app(WebConfig(db_path=tmp_path / "l.sqlite3", pin="4711"))
    with TestClient(app, client=("10.0.0.66", 5000)) as guesser:
        codes = [guesser.post("/pin", data={"pin": f"{i:04d}"}).status_code for i in range(7)]
        assert codes[:5] == [403] * 5 and codes[5:] == [429, 429]
        locked = guesser.post("/pin", data={"pin": "4711"})
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1
    # Another phone at the table is not locked out by the guesser.
    with TestClient(app, client=("10.0.0.7", 5000)) as player:
        ok = player.post("/pin", data={"pin": "4711"}, follow_redirects=False)
        assert ok.status_code == 303


def test_loopback_server_refuses_foreign_host_names(client: TestClient) -> None:
    r = client.get("/api/rules", headers={"Host": "attacker.example"})
    assert r.status_code == 421
    assert client.get("/api/rules", headers={"Host": "127.0.0.1:8000"}).status_code == 200


def test_serve_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    args = argparse.Namespace(host="127.0.0.1", port=8000, db=None, pin=None)
    config, generated = settings(args)
    assert config.pin is None and not generated
    assert config.db_path == tmp_path / "xdg" / "escalero" / "ledger.sqlite3"
    config, generated = settings(argparse.Namespace(host="0.0.0.0", port=8000, db=None,
                                                    pin=None))
    assert generated and config.pin and config.pin.isdigit() and len(config.pin) == 6
    config, generated = settings(argparse.Namespace(host="0.0.0.0", port=8000,
                                                    db=str(tmp_path / "x.db"), pin="1234"))
    assert config.pin == "1234" and not generated and config.data_dir == tmp_path
    assert is_loopback("::1") and is_loopback("localhost") and not is_loopback("0.0.0.0")


def test_scan_layout_form_reaches_the_scanner(client: TestClient,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    english(client)
    seen = []

    def fake_scan(data: bytes, lang: str, layout=None, recognizer=None) -> dict:
        seen.append(layout)
        return {"ok": True}

    monkeypatch.setattr(scanning, "scan_bytes", fake_scan)
    assert client.post("/api/scan", content=png_bytes()).status_code == 200
    r = client.post("/api/scan?game=escalero&players=4&pairs=1&variant=strasse-25&paper=a4",
                    content=png_bytes())
    assert r.status_code == 200
    assert seen[0] is None  # nothing chosen: the QR code decides
    spec = seen[1]
    assert (spec.game, spec.sides, spec.pairs, spec.variants) == ("escalero", 2, True,
                                                                  ("strasse-25",))
    bad = client.post("/api/scan?players=zwei", content=png_bytes())
    assert bad.status_code == 400 and "number of players" in bad.json()["error"]


def test_unreadable_qr_message_points_to_the_layout_form(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_layout(data, options, recognizer=None):
        raise LayoutUnknownError(pipeline.NO_LAYOUT)

    monkeypatch.setattr(pipeline, "scan_photo", no_layout)
    monkeypatch.setattr(recognizer, "shared_recognizer", lambda: None)
    with pytest.raises(SheetNotFoundError, match="under “Layout”") as refused:
        scanning.scan_bytes(png_bytes(), "de")
    assert refused.value.reason == "no_layout"  # the API's body says it beside the text


def test_escalero_serve_runs_and_answers(tmp_path: Path) -> None:
    """The real command: starts uvicorn, prints where, serves pages, keeps data in --db."""
    import os
    import socket
    import subprocess
    import sys

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "evening" / "ledger.sqlite3"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "escalero", "serve", "--port", str(port), "--db", str(db)],
        cwd=Path(__file__).parents[1], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/tafel", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "escalero serve did not start"
                time.sleep(0.2)
        assert r.status_code == 200 and "Tafel" in r.text
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}/" in out and str(db) in out
    assert "PIN" not in out  # loopback: no PIN
    assert db.exists() and not (tmp_path / "xdg").exists()  # nothing outside the data dir


def test_names_are_escaped_on_pages(client: TestClient) -> None:
    evil = {"game": "escalero", "sides": [
        {"name": "<script>alert(1)</script>", "columns": [{"nines": 3}, {}, {}]},
        {"name": "Ben", "columns": [{"nines": 2}, {}, {}]}]}
    assert client.post("/api/ledger", json={"sheet": evil}).status_code == 201
    page = client.get("/ledger").text
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


def test_house_rules_settle_save_and_show(client: TestClient) -> None:
    rules = client.get("/api/rules").json()
    assert rules["house_rules"] == {"column_points": [1, 2, 4], "all_three_bonus": 2,
                                    "split_ties": False}
    assert set(rules["house_presets"]) == {"piatnik", "wirtshaus"}
    assert client.get("/api/rules?game=generala").json()["house_rules"] is None
    tie = sheet(nines=2)  # Anna and Ben tie column I; Ben wins II
    plain = client.post("/api/settle", json={"sheet": tie}).json()["settlement"]
    split = client.post("/api/settle", json={"sheet": {**tie, "house_rules": {
        "split_ties": True}}}).json()["settlement"]
    assert plain["points"] == [-2, 2] and split["points"] == [-2, 2]  # two sides: no change
    assert split["terms"].endswith("Gleichstand oben geteilt")
    bad = client.post("/api/settle", json={"sheet": {**tie, "house_rules": {
        "column_points": [4, 2, 1]}}})
    assert bad.status_code == 400 and "müssen steigen" in bad.json()["error"]  # page: German
    saved = client.post("/api/ledger", json={"sheet": {**sheet("H-1"), "house_rules": {
        "all_three_bonus": 5}}, "stake": "0.50"})
    assert saved.status_code == 201
    (game,) = client.get("/api/ledger").json()["games"]
    assert game["house_rules"]["all_three_bonus"] == 5
    assert "Kolonnen 1/2/4 · alle drei +5" in client.get("/ledger").text
