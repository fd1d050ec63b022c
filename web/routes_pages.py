"""The server-rendered pages: /, /tafel, /scan, /print, /ledger, the language switch and
the PIN page."""

from __future__ import annotations

import math

from escalero.web import ledger_view, printing
from escalero.web.deps import LANG_COOKIE, Config, Guard, Lang, LedgerDep, page, safe_target
from escalero.web.i18n import pick_lang, translate, wait_text
from escalero.web.limits import capped_form
from escalero.web.security import COOKIE
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    return page(request, "home.html")


@router.get("/tafel", response_class=HTMLResponse)
def tafel(request: Request) -> Response:
    return page(request, "tafel.html")


@router.get("/scan", response_class=HTMLResponse)
def scan_page(request: Request, config: Config, lang: Lang) -> Response:
    form = printing.form_spec(lang)
    return page(request, "scan.html", max_mb=config.max_upload_bytes // (1024 * 1024),
                games=form["games"], variants=form["variants"], papers=form["papers"])


@router.get("/print", response_class=HTMLResponse)
def print_page(request: Request, lang: Lang) -> Response:
    return page(request, "print.html", form=printing.form_spec(lang))


@router.get("/ledger", response_class=HTMLResponse)
def ledger_page(request: Request, ledger: LedgerDep, lang: Lang,
                evening: str | None = None) -> Response:
    """Balances, the chosen evening (else the latest) with who pays whom, every game."""
    evenings = ledger.evenings()
    shown = evening if evening in evenings else (evenings[0] if evenings else None)
    night = ledger.balances(shown) if shown else None
    games = ledger.games()
    return page(request, "ledger.html", games=games, balances=ledger.balances(),
                evenings=evenings, evening=shown, evening_balances=night,
                evening_transfers=ledger_view.evening_transfers(night or []),
                saves=ledger_view.save_counts(games),
                person=lambda n: ledger_view.shown_name(n, lang))


@router.get("/lang/{code}")
def set_lang(code: str, next: str = "/") -> Response:
    response = RedirectResponse(safe_target(next), status_code=303)
    response.set_cookie(LANG_COOKIE, pick_lang(code), max_age=365 * 86400, samesite="lax")
    return response


@router.get("/pin", response_class=HTMLResponse)
def pin_page(request: Request, next: str = "/") -> Response:
    return page(request, "pin.html", next=next, message=None)


@router.post("/pin")
async def pin_submit(request: Request, pin_guard: Guard, lang: Lang) -> Response:
    form = await capped_form(request)
    target = safe_target(str(form.get("next") or "/"))
    if pin_guard is None:
        return RedirectResponse(target, status_code=303)
    client = request.client.host if request.client else ""
    outcome = pin_guard.try_pin(str(form.get("pin") or ""), client)
    if outcome != "ok":
        locked = outcome == "locked"
        # The message names the wait the guard really imposes (the first is 2 s).
        wait = pin_guard.wait_seconds(client)
        if locked:
            message = translate("pin_locked", lang, wait=wait_text(wait, lang))
        elif wait:
            message = translate("pin_wrong_wait", lang, wait=wait_text(wait, lang))
        else:
            message = translate("pin_wrong", lang)
        refused = page(request, "pin.html", status=429 if locked else 403,
                       next=target, message=message)
        if wait:
            refused.headers["Retry-After"] = str(math.ceil(wait))
        return refused
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, pin_guard.token, httponly=True, samesite="strict",
                        max_age=12 * 3600)
    return response
