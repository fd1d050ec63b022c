"""The phone app as a pub table meets it (issue 37), in a real phone-sized browser:
Debian's chromium via Playwright at 390x844, against live servers (one with a PIN).

Screenshots go to pytest's tmp dir (`shots`), and are copied to /tmp/web-shots/table/ for a
person to look at; the test run prints where.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SHOTS_COPY = Path("/tmp/web-shots/table")
SAMPLES = Path(__file__).parents[1] / "samples" / "photos"
PIN = "4711"
WIDTH, HEIGHT = 390, 844

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian chromium at /usr/bin/chromium"
                       " (apt install chromium)"),
]
playwright_api = pytest.importorskip("playwright.sync_api", reason="needs playwright for Python")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Live:
    """A server in a thread: its base URL and its app (a test reaches the PIN guard)."""

    def __init__(self, db: Path, pin: str | None = None) -> None:
        import uvicorn
        from escalero.web.app import create_app
        from escalero.web.config import WebConfig

        self.app = create_app(WebConfig(db_path=db, pin=pin))
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=port,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    live = Live(tmp_path_factory.mktemp("data") / "ledger.sqlite3")
    yield live
    live.stop()


@pytest.fixture(scope="module")
def pin_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    live = Live(tmp_path_factory.mktemp("pin") / "ledger.sqlite3", pin=PIN)
    yield live
    live.stop()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shots")
    print(f"\nscreenshots: {path} (copied to {SHOTS_COPY})")
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


def phone(browser: Any, base: str) -> Any:
    """A new phone (its own cookies and storage) showing nothing yet."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT},
                                  device_scale_factor=2, is_mobile=True, has_touch=True,
                                  accept_downloads=True)
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda err: pg.errors.append(str(err)))
    # Console errors too, except the browser's note of a refused request (a 4xx answer the
    # page shows as a message).
    pg.on("console", lambda msg: pg.errors.append(msg.text) if msg.type == "error" and not
          msg.text.startswith("Failed to load resource") else None)
    pg.set_default_timeout(45000)
    pg.base = base
    return pg


@pytest.fixture
def page(browser: Any, server: Live) -> Iterator[Any]:
    pg = phone(browser, server.base)
    yield pg
    pg.context.close()
    assert not pg.errors, f"JavaScript errors: {pg.errors}"


@pytest.fixture
def pin_page(browser: Any, pin_server: Live) -> Iterator[Any]:
    pg = phone(browser, pin_server.base)
    yield pg
    pg.context.close()
    assert not pg.errors, f"JavaScript errors: {pg.errors}"


def snap(page: Any, shots: Path, name: str, full: bool = True) -> None:
    path = shots / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    SHOTS_COPY.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS_COPY / path.name)


def fits_the_phone(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= WIDTH, f"page is {width} px wide on a {WIDTH} px phone"


# --- 1. the PIN ---------------------------------------------------------------------------

WORDS = {
    "de": {"title": "PIN eingeben", "wrong": "Falsche PIN", "wait": "2 Sekunden",
           "tafel": "Tafel"},
    "en": {"title": "Enter PIN", "wrong": "Wrong PIN", "wait": "2 seconds", "tafel": "Score"},
    "es": {"title": "Ingresar PIN", "wrong": "PIN incorrecto", "wait": "2 segundos",
           "tafel": "Planilla"},
}


def enter_pin(page: Any, pin: str) -> None:
    page.fill("input[name=pin]", pin)
    with page.expect_navigation():
        page.click("form button[type=submit]")


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_the_right_pin_lets_the_table_in(pin_page: Any, shots: Path, lang: str) -> None:
    page = pin_page
    page.goto(page.base + f"/tafel?lang={lang}")
    assert page.url.startswith(page.base + "/pin")
    page.wait_for_selector(f"h1:text('{WORDS[lang]['title']}')")
    fits_the_phone(page)
    snap(page, shots, f"1-pin-{lang}")
    enter_pin(page, PIN)
    assert page.url == page.base + f"/tafel?lang={lang}", page.content()[:300]
    page.wait_for_selector("#setup-variants input")
    assert page.locator(".tabs a.on").inner_text() == WORDS[lang]["tafel"]
    # In: the page's own requests (rules, settle) pass too.
    page.fill("#players", "Anna\nBen")
    page.click("#setup button[type=submit]")
    page.wait_for_selector(".points-bar strong")
    snap(page, shots, f"1-pin-in-{lang}")


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_wrong_pins_say_how_long_to_wait_and_the_wait_is_real(
        pin_page: Any, pin_server: Live, shots: Path, lang: str) -> None:
    from escalero.web.security import FREE_TRIES

    page = pin_page
    guard = pin_server.app.state.guard
    clock = [1000.0]
    guard.clock = lambda: clock[0]  # the guard's time, moved by the test, not by sleeping
    guard._clients.clear()  # this phone's address starts with no wrong tries
    page.goto(page.base + f"/pin?next=/ledger&lang={lang}")
    for i in range(FREE_TRIES - 1):
        enter_pin(page, f"{i:04d}")
        message = page.locator("p.msg.bad").inner_text()
        assert message == WORDS[lang]["wrong"] + ".", message
    enter_pin(page, "0000")  # the last free try: the next one waits 2 s
    message = page.locator("p.msg.bad").inner_text()
    assert message.startswith(WORDS[lang]["wrong"]) and WORDS[lang]["wait"] in message
    enter_pin(page, PIN)  # even the right PIN waits its turn, and is told so
    message = page.locator("p.msg.bad").inner_text()
    assert WORDS[lang]["wait"] in message, message  # the real wait, not "eine Minute"
    assert page.url.startswith(page.base + "/pin")
    fits_the_phone(page)
    snap(page, shots, f"1-pin-locked-{lang}")
    clock[0] += 2.0  # the wait the page named is over
    enter_pin(page, PIN)
    assert page.url == page.base + "/ledger"


def test_a_form_posted_from_another_site_is_refused_with_a_page(
        pin_page: Any, shots: Path) -> None:
    """A cross-site form still gets refused, as a page in the app's words, not JSON."""
    from escalero.web.i18n import translate

    page = pin_page
    evil = "http://evil.example/"
    page.route(evil, lambda route: route.fulfill(content_type="text/html", body=(
        f'<form method="post" action="{page.base}/pin"><input name="pin" value="{PIN}">'
        '<button>go</button></form>')))
    page.goto(evil)
    with page.expect_navigation():
        page.click("button")
    assert page.url.startswith(page.base + "/pin")
    assert page.locator("p.msg.bad").inner_text() == translate("err_cross_site", "de")
    assert page.locator("html").get_attribute("lang") == "de"
    assert "escalero_pin" not in {c["name"] for c in page.context.cookies()}
    snap(page, shots, "1-cross-site-refused")


# --- 2. a scan review survives reload, back/forward and a language switch ------------------

def scanner_ready() -> str | None:
    """Why the scan flow cannot run here, or None."""
    if not (SAMPLES / "02-3-players.jpg").exists():
        return "no committed sample photo samples/photos/02-3-players.jpg"
    try:
        from escalero.scan.recognize import get_recognizer

        get_recognizer("default")
    except Exception as err:  # noqa: BLE001 - the scanner or its model is not there yet
        return f"the scanner cannot run yet: {err}"
    return None


def needs_scanner() -> None:
    reason = scanner_ready()
    if reason:
        pytest.skip(reason)


def scan_sample(page: Any, name: str = "02-3-players.jpg", lang: str = "de") -> None:
    page.goto(page.base + f"/scan?lang={lang}")
    page.set_input_files("#photo", str(SAMPLES / name))
    page.wait_for_selector("#result:not([hidden])", timeout=60000)
    page.wait_for_function("() => window.settledCount >= 1")


def settled_again(page: Any) -> None:
    """The page is back and the server has settled it (after a reload or a switch)."""
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_function("() => window.settledCount >= 1 && payout !== null")


def review_state(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => ({
        names: [...document.querySelectorAll('input.name')].map((e) => e.value),
        cells: Object.fromEntries([...document.querySelectorAll('input.cell')]
            .map((e) => [e.dataset.key, e.value])),
        checked: [...document.querySelectorAll('td.checked input')].map((e) => e.dataset.key),
        edited: [...editor.edited].sort(),
        stake: document.querySelector('#stake').value,
        asked: deciding(),
        confidence: payout.confidence,
    })""")


OTHER = {"de": "en", "en": "es", "es": "de"}
BANNER = {"de": "Auszahlung", "en": "Payout", "es": "pago"}


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_a_scan_review_survives_reload_back_forward_and_a_language_switch(
        page: Any, shots: Path, lang: str) -> None:
    needs_scanner()
    scan_sample(page, lang=lang)
    page.click("#first-flag")
    answered = page.evaluate("document.activeElement.dataset.key")
    count = page.evaluate("window.settledCount")
    page.locator("#review .chip:not(.next):not(.illegal)").first.click()
    page.wait_for_function("(n) => window.settledCount > n", arg=count)
    page.fill("input.name[data-side='0']", "Vroni")
    page.locator("input.name[data-side='0']").dispatch_event("change")
    page.fill("#stake", "1.00")
    page.wait_for_function("() => document.querySelector('#stake').value === '1.00'")
    count = page.evaluate("window.settledCount")
    page.wait_for_function("(n) => window.settledCount > n", arg=count)
    before = review_state(page)
    assert answered in before["edited"] and answered in before["checked"]
    assert before["names"][0] == "Vroni"
    snap(page, shots, f"2-review-{lang}")

    page.reload()
    settled_again(page)
    assert review_state(page) == before
    assert BANNER[lang] in page.locator("#flag-count").inner_text()
    snap(page, shots, f"2-review-reloaded-{lang}")

    page.click(".tabs a[href='/ledger']")
    page.wait_for_selector("h1")
    page.go_back()
    settled_again(page)
    assert review_state(page) == before

    other = OTHER[lang]
    page.click(f"a[hreflang={other}]")
    page.wait_for_function("(l) => document.documentElement.lang === l", arg=other)
    settled_again(page)
    after = review_state(page)
    # A side nobody named is called so in the new language ("Spieler 2" -> "Player 2").
    from escalero.web.i18n import translate

    unnamed = {translate("player", lang): translate("player", other)}
    before["names"] = [" ".join(unnamed.get(w, w) for w in n.split(" "))
                       for n in before["names"]]
    assert after == before
    assert BANNER[other] in page.locator("#flag-count").inner_text()
    fits_the_phone(page)
    snap(page, shots, f"2-review-switched-{lang}-{other}")


# --- 3. a damaged photo is told in the page's language --------------------------------------

def damaged_photos() -> dict[str, bytes]:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.effect_noise((900, 700), 60).convert("RGB").save(buf, "JPEG", quality=90)
    jpeg = buf.getvalue()
    return {"truncated.jpg": jpeg[: len(jpeg) - 20],  # the last bytes never arrived
            "garbage.jpg": jpeg[:3] + bytes(range(256)) * 40}  # a JPEG start, then no image


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_a_damaged_photo_is_told_in_the_pages_language(page: Any, shots: Path,
                                                       lang: str) -> None:
    needs_scanner()
    from escalero.web.i18n import translate

    page.goto(page.base + f"/scan?lang={lang}")
    for name, data in damaged_photos().items():
        page.evaluate("document.querySelector('#status').className = 'msg'")
        page.set_input_files("#photo", files=[{"name": name, "mimeType": "image/jpeg",
                                               "buffer": data}])
        page.wait_for_selector("#status.bad")
        message = page.locator("#status").inner_text()
        assert message == translate("err_photo_damaged", lang), (name, message)
        fits_the_phone(page)
        snap(page, shots, f"3-damaged-{name.split('.')[0]}-{lang}")


# --- 4. the payout's count is honest, in real plurals, and in view while reviewing --------

def text_of(page: Any, selector: str) -> str:
    return page.locator(selector).inner_text().replace("\u00a0", " ").replace("\u202f", " ")


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_the_payout_count_is_honest_and_shown_in_the_review_panel(
        page: Any, shots: Path, lang: str) -> None:
    needs_scanner()
    from escalero.web.i18n import translate, translate_n

    scan_sample(page, lang=lang)
    answered = 0
    for step in range(30):
        banner = text_of(page, "#flag-count")
        assert "(ern)" not in banner and "(s)" not in banner, banner
        if page.evaluate("payout.certain"):
            break
        asked = page.evaluate("deciding().length")
        assert asked >= 1
        assert banner == translate_n("payout_hangs", lang, asked), banner
        # More may be asked after each answer: the page says so, with how sure it is now.
        more = text_of(page, "#flag-more")
        assert page.locator("#flag-more").is_visible() and "%" in more
        page.click("#first-flag")
        progress = page.locator("#review-progress")
        assert progress.is_visible()
        box = progress.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, box  # on screen
        line = text_of(page, "#review-progress")
        assert line.startswith(translate_n("review_answered", lang, answered)), line
        assert "%" in line
        if step == 0:
            snap(page, shots, f"4-review-progress-{lang}", full=False)
        count = page.evaluate("window.settledCount")
        page.locator("#review .chip:not(.next):not(.illegal)").first.click()
        page.wait_for_function("(n) => window.settledCount > n", arg=count)
        answered += 1
    else:
        raise AssertionError("the payout never became certain")
    assert text_of(page, "#flag-count").startswith(translate("payout_sure", lang))
    assert page.locator("#flag-more").is_hidden()
    assert answered >= 1, "the sample asks nothing: it does not test the count"
    fits_the_phone(page)
    snap(page, shots, f"4-payout-certain-{lang}")


# --- 5. the Tafel's hints are whole ---------------------------------------------------------

def start_tafel(page: Any, names: str = "Vroni\nKarl\nFranz", lang: str = "de") -> None:
    page.goto(page.base + f"/tafel?lang={lang}")
    page.evaluate("localStorage.clear()")
    page.reload()
    page.wait_for_selector("#setup-variants input")
    page.fill("#players", names)
    page.click("#setup button[type=submit]")
    page.wait_for_selector(".points-bar strong")


RULE_BOX = """(key) => {
    const td = document.querySelector(`input[data-key='${key}']`).parentElement;
    const st = getComputedStyle(td, '::after');
    const cell = td.getBoundingClientRect();
    const wrap = document.querySelector('.sheet-wrap').getBoundingClientRect();
    const left = cell.left + parseFloat(st.left);
    return {content: st.content, left, right: left + parseFloat(st.width),
            wrapLeft: wrap.left, wrapRight: wrap.right};
}"""


@pytest.mark.parametrize("lang", ["de", "es"])
def test_the_tafel_rule_and_row_hints_are_not_cut_off(page: Any, shots: Path,
                                                     lang: str) -> None:
    start_tafel(page, lang=lang)
    for key in ("2/2/nines", "0/0/nines"):  # the right edge of the table, and the left
        page.fill(f"input[data-key='{key}']", "7")
        page.wait_for_function(f"() => document.querySelector(\"input[data-key='{key}']\")"
                               ".parentElement.classList.contains('problem')")
        page.focus(f"input[data-key='{key}']")
        box = page.evaluate(RULE_BOX, key)
        message = page.locator(f"input[data-key='{key}']").get_attribute("title")
        assert box["content"] == f'"{message}"' and "7" in message
        assert box["wrapLeft"] <= box["left"] and box["right"] <= box["wrapRight"], box
        assert box["right"] <= WIDTH
        snap(page, shots, f"5-tafel-rule-{key.replace('/', '-')}-{lang}", full=False)
    # Every row's allowed values are shown whole ("4, 8, 12, 16, 20, 24"), not cut.
    cut = page.eval_on_selector_all(
        "th.lab small", "els => els.filter((e) => e.scrollWidth > e.clientWidth + 1 ||"
        " e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent)")
    assert not cut, cut
    hints = page.eval_on_selector_all("th.lab small", "els => els.map((e) => e.textContent)")
    assert any(h.startswith("4, 8, 12, 16, 20") for h in hints), hints
    fits_the_phone(page)


# --- 6. whose column am I typing in ----------------------------------------------------------

def test_the_tafel_says_whose_cell_and_shows_every_column(page: Any, shots: Path) -> None:
    start_tafel(page)
    bar = page.locator(".points-bar")
    # Far down the table, the name header has scrolled away: the bar names the cell.
    page.evaluate("window.scrollTo(0, 420)")
    page.focus("input[data-key='2/1/aces']")
    where = page.locator(".points-bar .cell-where")
    assert where.is_visible() and where.inner_text() == "Franz · II · Asse"
    assert "on" in page.locator(".bar-side[data-side='2']").get_attribute("class")
    assert bar.bounding_box()["y"] >= 0
    snap(page, shots, "6-tafel-where", full=False)
    # A cell of the top row scrolled into view is not hidden under the sticky bars.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.focus("input[data-key='1/0/nines']")
    label = page.locator("tr[data-row='nines'] th.lab").bounding_box()
    below = bar.bounding_box()
    assert label["y"] >= below["y"] + below["height"] - 1, (label, below)
    # More columns to the right are marked; a tap on a side's name shows all its columns.
    page.evaluate("window.scrollTo(0, 0); document.activeElement.blur();"
                  "document.querySelector('.sheet-wrap').scrollLeft = 0")
    page.wait_for_selector(".more-right", state="visible")  # set on the scroll event
    page.locator(".bar-side[data-side='2']").click()
    wrap = page.locator(".sheet-wrap").bounding_box()
    labels = page.locator("tr.sums th.lab").bounding_box()
    for c in range(3):
        box = page.locator(f"td[data-sum='2/{c}']").bounding_box()
        assert box["x"] >= labels["x"] + labels["width"] - 1, (c, box, labels)
        assert box["x"] + box["width"] <= wrap["x"] + wrap["width"] + 1, (c, box, wrap)
    page.wait_for_selector(".more-right", state="hidden")
    fits_the_phone(page)
    snap(page, shots, "6-tafel-third-player", full=False)


def test_a_forbidden_keypad_answer_is_red_not_green(page: Any, shots: Path) -> None:
    needs_scanner()
    scan_sample(page, "12-unfinished-illegal.jpg")
    key = "1/0/nines"  # a written 9, which Neuner does not allow
    page.evaluate(f"editor.focusCell('{key}')")
    page.wait_for_selector("#review:not([hidden])")
    page.locator("#review .chip.illegal").click()
    page.locator("#keypad .key", has_text="9").click()
    page.locator("#keypad .key", has_text="OK").click()
    td = page.locator(f"input[data-key='{key}']").locator("xpath=..")
    assert "bad" in td.get_attribute("class") and "checked" in td.get_attribute("class")
    shadow = td.evaluate("e => getComputedStyle(e).boxShadow")
    assert "160, 24, 24" in shadow, shadow  # the red frame (--bad), not the green one
    page.evaluate(f"editor.focusCell('{key}')")
    snap(page, shots, "6-keypad-forbidden", full=False)


# --- 7. the Kassa: who pays whom, undo, repeated saves, guests, the CSV -----------------------

def three_sheet(serial: str | None = None, third: str = "Cora") -> dict[str, Any]:
    obj: dict[str, Any] = {"game": "escalero", "sides": [
        {"name": "Anna", "columns": [{"nines": 5}, {"tens": 10}, {}]},
        {"name": "Ben", "columns": [{"nines": 3}, {"tens": 4}, {}]},
        {"name": third, "columns": [{"nines": 1}, {"tens": 8}, {}]}]}
    if serial:
        obj["serial"] = serial
    return obj


def save(page: Any, sheet: dict[str, Any], lang: str = "de", **extra: Any) -> dict[str, Any]:
    r = page.request.post(page.base + f"/api/ledger?lang={lang}",
                          data={"sheet": sheet, "stake": "0.50", **extra})
    assert r.status == 201, r.text()
    return r.json()


def test_the_kassa_settles_the_evening_and_a_delete_can_be_undone(page: Any,
                                                                 shots: Path) -> None:
    import csv
    import io

    first = save(page, three_sheet("K1-001"))
    save(page, three_sheet("K1-001"), confirm=True)  # the same sheet, saved again
    save(page, three_sheet(third="Player 3"), lang="en", guests=True)  # a guest, English
    evening = first["evening"]
    page.goto(page.base + f"/ledger?lang=de&evening={evening}")
    # Who pays whom: payments that bring every balance of the evening to zero.
    night = page.request.get(page.base + f"/api/ledger?evening={evening}").json()["balances"]
    owed = {b["player"]: b["cents"] for b in night}
    pays = page.locator("ul.evening-pays li")
    assert pays.count() >= 1
    for i in range(pays.count()):
        who, amount = pays.nth(i).locator("span").inner_text(), pays.nth(i).locator(
            "strong").inner_text()
        payer, payee = who.split(" zahlt ")
        cents = int(amount.replace("€", "").replace(",", "").strip())
        payer = next(p for p in owed if p.replace("Guest", "Gast") == payer)
        payee = next(p for p in owed if p.replace("Guest", "Gast") == payee)
        owed[payer] += cents
        owed[payee] -= cents
    assert set(owed.values()) == {0}, owed
    # The evening's name does not wrap; guests are named in the page's language.
    head = page.locator("h3.evening-name")
    assert "Dez." in head.inner_text() and head.bounding_box()["height"] < 30
    assert page.locator("table.evening-balances th").first.inner_text() == "Spieler"
    text = page.locator("main").inner_text()
    assert "Gast 3 (" in text and "Guest" not in text
    # The second save of one sheet says so.
    assert page.locator("ul.games li .again").count() == 1
    assert "2. Speicherung" in page.locator("ul.games li .again").inner_text()
    fits_the_phone(page)
    snap(page, shots, "7-kassa-evening")
    # Delete, then undo: the game comes back as it was.
    before = page.request.get(page.base + "/api/ledger").json()["games"]
    gone = before[-1]
    page.once("dialog", lambda d: d.accept())
    with page.expect_navigation():
        page.locator(f"button.delete[data-game='{gone['id']}']").click()
    assert page.locator("#undo").is_visible()
    assert len(page.request.get(page.base + "/api/ledger").json()["games"]) == len(before) - 1
    snap(page, shots, "7-kassa-deleted")
    with page.expect_navigation():
        page.click("#undo-button")
    after = page.request.get(page.base + "/api/ledger").json()["games"]
    assert after == before
    assert page.locator("#undo").is_hidden()
    # The CSV from the German page: the terms in German, times without a UTC offset.
    r = page.request.get(page.base + "/ledger.csv?lang=de")
    rows = list(csv.DictReader(io.StringIO(r.text())))
    assert rows and all(row["house_rules"].startswith("Kolonnen") for row in rows)
    assert not any("+00:00" in row["saved_at"] or "T" in row["saved_at"] for row in rows)
    page.goto(page.base + "/ledger?lang=es")
    assert "Invitado 3 (" in page.locator("main").inner_text()
    snap(page, shots, "7-kassa-es")


# --- 9. numbers as the page's language writes them -----------------------------------------

LOCALE_MONEY = {"de": "€\u00a00,50", "en": "€0.50", "es": "0,50\u00a0€"}


@pytest.mark.parametrize("lang", ["de", "en", "es"])
def test_money_points_and_times_are_written_the_local_way(page: Any, shots: Path,
                                                         lang: str) -> None:
    start_tafel(page, names="Anna\nBen", lang=lang)
    page.fill("input[data-key='0/0/nines']", "3")
    page.fill("input[data-key='1/0/nines']", "2")
    page.fill("#stake", "0,50" if lang != "en" else "0.50")
    page.wait_for_selector("#summary .transfers li")
    amounts = page.locator("#summary .amounts").inner_text()
    assert LOCALE_MONEY[lang] in amounts and "EUR" not in amounts, amounts
    assert LOCALE_MONEY[lang] in page.locator("#summary .transfers").inner_text()
    # Saved twice: the question names the first save's time as the language writes it.
    page.click("#save")
    page.wait_for_selector("#status.good")
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.fill("input[data-key='0/1/nines']", "4")
    page.click("#save")
    page.wait_for_function("() => !document.querySelector('#save').disabled")
    assert asked, "no question on the second save"
    import re

    assert not re.search(r"\d{4}-\d\d-\d\dT", asked[0]), asked[0]
    assert re.search({"de": r"\d\. \w+\. \d{4}, \d\d:\d\d", "en": r"\w{3} \d+, \d{4}",
                      "es": r"\d+ \w+ \d{4}"}[lang], asked[0]), asked[0]
    fits_the_phone(page)
    snap(page, shots, f"9-tafel-money-{lang}")
    page.goto(page.base + "/ledger")
    games = page.locator("ul.games").inner_text()
    assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", games), games
    assert LOCALE_MONEY[lang] in games, games
    snap(page, shots, f"9-kassa-{lang}")
    page.goto(page.base + "/scan")
    assert page.locator("#stake").input_value() == ("0.50" if lang == "en" else "0,50")


# --- 8. print says what you got ---------------------------------------------------------------

def test_print_says_what_it_printed_and_one_message_at_a_time(page: Any, shots: Path) -> None:
    import pypdfium2
    from escalero.web.i18n import translate

    page.goto(page.base + "/print?lang=de")
    page.fill("input[name=players]", "2")
    page.fill("textarea[name=names]", "Anna\nBen\nCora")
    page.click("#print button[type=submit]")
    page.wait_for_selector("#status.bad")
    assert page.locator("#status").inner_text() == translate("err_names_count", "de",
                                                             players=2, names=3)
    page.fill("input[name=players]", "")  # the form changed: the old message goes
    page.wait_for_selector("#status.bad", state="hidden")
    page.fill("input[name=serial]", "EC EY!")  # the browser would stop this silently
    page.click("#print button[type=submit]")
    page.wait_for_selector("#status.bad")
    assert page.locator(".msg.bad").count() == 1
    assert page.locator("#status").inner_text() == translate("err_serial", "de",
                                                             serial="EC EY!")
    page.fill("input[name=serial]", "ECEY")
    page.fill("input[name=pages]", "3")
    page.select_option("select[name=lang]", "en")
    with page.expect_download() as info:
        page.click("#print button[type=submit]")
    download = info.value
    assert download.suggested_filename == "escalero-ecey-001.pdf"
    page.wait_for_selector("#status.good")
    assert page.locator("#status").inner_text() == \
        "PDF heruntergeladen: 3 Spieltabellen, Nr. ECEY-001 bis ECEY-003."
    fits_the_phone(page)
    snap(page, shots, "8-print-done")
    # The English sheet names the dice as English does: J and Q, not the German B and D.
    pdf = pypdfium2.PdfDocument(download.path())
    text = pdf[0].get_textpage().get_text_range()
    assert "J | 3" in text and "Q | 4" in text and "B | 3" not in text, text[:400]


# --- 10. scan clutter: notes that need nothing, the tab bar on top, a light answer ------------

def test_the_scan_page_is_light_and_uncluttered(page: Any, shots: Path) -> None:
    needs_scanner()
    page.goto(page.base + "/scan?lang=de")
    with page.expect_response("**/api/scan**") as answer:
        page.set_input_files("#photo", str(SAMPLES / "02-3-players.jpg"))
    size = int(answer.value.all_headers()["content-length"])
    print(f"\nscan answer for 02-3-players.jpg: {size / 1000:.0f} kB")
    assert size < 350_000, size  # was 597 kB: the overlay is most of it
    page.wait_for_selector("#result:not([hidden])", timeout=60000)
    page.wait_for_function("() => window.settledCount >= 1")
    # A written total that differs from its entries is a note, not a problem in red.
    summary = page.locator("#summary")
    assert all("Summe geschrieben" not in text
               for text in summary.locator(".problems").all_inner_texts())
    notes = summary.locator("ul.notes")
    assert "Summe geschrieben 171" in notes.inner_text()
    assert notes.locator("li").first.evaluate("e => getComputedStyle(e).color") != \
        "rgb(160, 24, 24)"
    # The review panel never covers the tab bar, wherever the page is scrolled.
    page.click("#first-flag")
    page.wait_for_selector("#review:not([hidden])")
    for y in range(0, page.evaluate("document.body.scrollHeight"), 150):
        page.evaluate(f"window.scrollTo(0, {y})")
        on_top = page.evaluate("""() => {
            const r = document.querySelector('.tabs').getBoundingClientRect();
            return [0.1, 0.5, 0.9].every((f) => !!document.elementFromPoint(
                r.left + f * r.width, r.top + r.height / 2).closest('.tabs')); }""")
        assert on_top, f"something covers the tab bar at scroll {y}"
    fits_the_phone(page)
    snap(page, shots, "10-scan-notes")
