"""The phone app as players meet it: a game saved once, names that stick, one language,
forbidden values that count nothing (HTTP API; the browser flows are in test_web_browser)."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from escalero.scoring.errors import UsageError  # noqa: E402
from escalero.web import scanning  # noqa: E402
from escalero.web.app import create_app  # noqa: E402
from escalero.web.config import WebConfig  # noqa: E402
from escalero.web.i18n import LANGS, catalog, translate  # noqa: E402
from escalero.web.messages import keyed  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    with TestClient(create_app(WebConfig(db_path=tmp_path / "ledger.sqlite3"))) as c:
        yield c


def sheet(names: tuple[str, ...] = ("Anna", "Ben"), serial: str | None = None) -> dict:
    obj = {"game": "escalero", "sides": [
        {"name": n, "columns": [{"nines": 3 - i}, {}, {}]} for i, n in enumerate(names)]}
    if serial:
        obj["serial"] = serial
    return obj


def games(client: TestClient) -> list[dict]:
    return client.get("/api/ledger").json()["games"]


def test_every_catalog_key_has_every_language_with_the_same_placeholders() -> None:
    fields = string.Formatter()

    def wanted(text: str) -> set[str]:
        return {f for _, f, _, _ in fields.parse(text) if f}

    catalogs = {lang: catalog(lang) for lang in LANGS}
    assert catalogs["es"].keys() == catalogs["de"].keys() == catalogs["en"].keys()
    for key, english in catalogs["en"].items():
        for lang, texts in catalogs.items():
            assert texts[key].strip(), f"{key}: an empty text"
            if key.endswith("_one"):
                # A plural text's "other" has every placeholder of its "one" (a text for one
                # sheet names its serial, not a range).
                other = texts[key.removesuffix("_one") + "_other"]
                assert wanted(texts[key]) <= wanted(other), (key, lang)
            else:
                assert wanted(texts[key]) == wanted(english), (key, lang)
    # Plural texts come as their two forms.
    assert sum(key.endswith("_one") for key in catalogs["de"]) == \
        sum(key.endswith("_other") for key in catalogs["de"]) >= 8


def test_a_tafel_game_saved_twice_asks_first(client: TestClient) -> None:
    body = {"sheet": sheet(), "stake": "0.50", "game_id": "tafel-0123abcd"}
    assert client.post("/api/ledger", json=body).status_code == 201
    again = client.post("/api/ledger?lang=de", json=body)
    assert again.status_code == 409 and again.json()["duplicate"] is True
    assert again.json()["error"].startswith("Dieses Spiel ist schon in der Kassa")
    assert len(games(client)) == 1
    assert client.post("/api/ledger", json={**body, "confirm": True}).status_code == 201
    other = {**body, "game_id": "tafel-ffff0000"}  # the next game of the same table
    assert client.post("/api/ledger", json=other).status_code == 201
    assert len(games(client)) == 3


def test_unnamed_sides_need_names_or_guests_and_guests_never_merge(client: TestClient) -> None:
    first = {"sheet": sheet(("Spieler 1", "Otto"), serial="S-001"), "stake": "0.50"}
    refused = client.post("/api/ledger", json=first)
    assert refused.status_code == 422 and refused.json()["unnamed"] == ["Spieler 1"]
    assert "Spieler 1 hat noch keinen Namen" in refused.json()["error"]
    assert games(client) == []
    assert client.post("/api/ledger", json={**first, "guests": True}).status_code == 201
    second = {"sheet": sheet(("Spieler 1", "Maria"), serial="S-002"), "guests": True}
    assert client.post("/api/ledger", json=second).status_code == 201
    players = {b["player"] for b in client.get("/api/ledger").json()["balances"]}
    assert players == {"Gast 1 (S-001)", "Gast 1 (S-002)", "Otto", "Maria"}
    assert client.get("/api/roster").json()["players"] == ["Maria", "Otto"]


def test_names_printed_on_a_sheet_come_back_with_its_scan(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    r = client.post("/api/print", data={"players": "3", "names": "Maria\nOtto\nResi",
                                        "serial": "PUB"})
    assert r.status_code == 200
    scanned = {**sheet(("Spieler 1", "Spieler 2", "Spieler 3"), serial="PUB-001"),
               "review": []}
    for i, side in enumerate(scanned["sides"]):
        side["members"] = [f"Spieler {i + 1}"]
    monkeypatch.setattr(scanning, "scan_bytes",
                        lambda data, lang, layout=None, recognizer=None: scanned)
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    back = client.post("/api/scan", content=png).json()
    assert [s["name"] for s in back["sides"]] == ["Maria", "Otto", "Resi"]
    assert [s["members"] for s in back["sides"]] == [["Maria"], ["Otto"], ["Resi"]]
    saved = client.post("/api/ledger", json={"sheet": back, "stake": "0.50"})
    assert saved.status_code == 201
    assert {p["player"] for p in saved.json()["players"]} == {"Maria", "Otto", "Resi"}
    # A sheet printed without names keeps the scanner's placeholders.
    scanned["serial"] = "OTHER-001"
    assert client.post("/api/scan", content=png).json()["sides"][0]["name"] == "Spieler 1"


def test_a_value_the_row_forbids_counts_nothing_and_is_named(client: TestClient) -> None:
    bad = sheet()
    bad["sides"][0]["columns"][0]["nines"] = 9
    r = client.post("/api/settle?lang=de", json={"sheet": bad}).json()
    assert r["settlement"]["totals"][0][0] == 0 and r["settlement"]["complete"] is False
    assert any("9 ist in Neuner nicht erlaubt" in p["message"] for p in r["validation"])
    assert r["sheet"]["sides"][0]["columns"][0]["nines"] == 9  # kept as written


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_server_messages_follow_the_page_language(client: TestClient, lang: str) -> None:
    client.cookies.set("escalero_lang", lang)
    r = client.post("/api/scan", content=b"%PDF-1.4 not a photo")
    assert r.json()["error"] == translate("err_not_photo", lang)
    r = client.post("/api/print", data={"players": "2", "names": "Anna\nBen\nCleo"})
    assert r.json()["error"] == translate("err_names_count", lang, players=2, names=3)
    assert "--" not in r.json()["error"]


def test_scanner_refusals_are_in_the_catalog() -> None:
    from escalero.scan import locate, rectify
    from escalero.scoring.errors import Reason, SheetNotFoundError, UnreadableSheetError
    from escalero.web.i18n import LANGS, catalog
    from escalero.web.messages import REASON_KEYS, localize

    no_sheet = SheetNotFoundError(locate.NO_SHEET, reason=Reason.NO_SHEET)
    assert localize(no_sheet, "es").startswith("No se encontró")
    blurred = UnreadableSheetError(rectify.TOO_BLURRED, reason=Reason.TOO_BLURRED)
    assert localize(blurred, "de").startswith("Tabelle zu")
    # By the reason code, not the text: a refusal worded otherwise is still translated.
    assert localize(UnreadableSheetError("blurry", reason=Reason.TOO_BLURRED), "de") == \
        localize(blurred, "de")
    assert all(key in catalog(lang) for key in REASON_KEYS.values() for lang in LANGS)
    assert re.search("kein Foto", localize(keyed(UsageError, "err_not_photo"),
                                           "de"))


def test_origin_null_is_the_apps_own_only_when_the_browser_says_same_origin() -> None:
    from escalero.web.security import CROSS_SITE, cross_site_reason

    assert cross_site_reason("POST", {"origin": "null",
                                      "sec-fetch-site": "same-origin"}) is None
    for site in (None, "cross-site", "same-site", "none"):
        headers = {"origin": "null", **({"sec-fetch-site": site} if site else {})}
        assert cross_site_reason("POST", headers) == CROSS_SITE, site
    assert cross_site_reason("POST", {"origin": "http://evil.example", "host": "a:1",
                                      "sec-fetch-site": "same-origin"}) == CROSS_SITE
    assert cross_site_reason("POST", {"origin": "http://a:1", "host": "a:1"}) is None


def test_refusals_are_in_the_pages_language_and_a_page_for_a_page(client: TestClient) -> None:
    evil = {"Origin": "http://evil.example"}
    r = client.post("/api/settle?lang=es", json={"sheet": sheet()}, headers=evil)
    assert r.status_code == 403 and r.json()["error"] == translate("err_cross_site", "es")
    r = client.post("/pin?lang=en", data={"pin": "4711"}, headers=evil)
    assert r.status_code == 403 and r.headers["content-type"].startswith("text/html")
    assert translate("err_cross_site", "en") in r.text and '<html lang="en">' in r.text
    assert client.get("/").headers["Referrer-Policy"] == "same-origin"


def test_a_deleted_game_comes_back_once_as_it_was(client: TestClient) -> None:
    assert client.post("/api/ledger", json={"sheet": sheet(), "stake": "0.50"}).status_code \
        == 201
    before = games(client)
    gone = client.delete(f"/api/ledger/{before[0]['id']}").json()
    assert games(client) == []
    assert client.post("/api/ledger/undo", json={"undo": gone["undo"]}).json() == \
        {"restored": before[0]["id"]}
    assert games(client) == before
    again = client.post("/api/ledger/undo?lang=de", json={"undo": gone["undo"]})
    assert again.status_code == 400
    assert again.json()["error"] == translate("err_undo_gone", "de")


def test_numbers_follow_the_pages_language() -> None:
    from escalero.web import locale_format as fmt

    nbsp = "\u00a0"
    assert fmt.money("-4.50", "EUR", "de") == f"-€{nbsp}4,50"
    assert fmt.money("-4.50", "EUR", "es") == f"-4,50{nbsp}€"
    assert fmt.money("4.50", "EUR", "en", signed=True) == "+€4.50"
    assert fmt.money("1.00", "Bier", "de") == "1,00 Bier"
    assert fmt.points(0.5, "de") == "+0,5" and fmt.points(-2, "en") == "-2"
    assert fmt.when("2026-12-03T07:49:12+00:00", "de") == "3. Dez. 2026, 07:49"
    assert fmt.evening("2026-12-03", "es").startswith("jue")
    # A stored value beyond what rounds is shown as stored, never a failing page.
    assert fmt.money("1e30", "EUR", "de") == "1e30 EUR" and fmt.points(1e30, "de") == "1e+30"
    from escalero.web.i18n import translate_n

    assert translate_n("payout_hangs", "de", 1) == "Auszahlung hängt an 1 Feld"
    assert translate_n("payout_hangs", "de", 2) == "Auszahlung hängt an 2 Feldern"
    assert translate_n("payout_hangs", "es", 1_000_000).endswith("casillas")  # CLDR "many"
