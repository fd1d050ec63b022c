"""The FastAPI app: server-rendered pages, a JSON API, and the ledger.

Pages: / (start), /tafel (keep score live), /scan (photo), /print (PDF), /ledger.
API:   GET /api/rules, POST /api/settle, POST /api/scan (raw image body),
       POST /api/print (form -> PDF), GET/POST /api/ledger, GET /ledger.csv.
"""

from __future__ import annotations

import json
import math
import sys
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from escalero.scoring.errors import EscaleroError, InputFileError, internal_error
from escalero.scoring.model import parse_json
from escalero.web import printing, services
from escalero.web.config import WebConfig
from escalero.web.i18n import LANGS, catalog, pick_lang, translate
from escalero.web.ledger import Ledger
from escalero.web.messages import keyed, localize
from escalero.web.security import (
    COOKIE,
    FORM_TYPES,
    SECURITY_HEADERS,
    PinGuard,
    content_type,
    cross_site_reason,
    host_is_loopback_name,
)
from escalero.web.uploads import NotAnImage, read_photo, too_large
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

HERE = Path(__file__).parent
# A 16-side sheet with long names is ~20 kB of JSON, a scan's readings (sent back for the
# payout review) ~4 kB per side: 256 kB covers the largest sheet with room to spare.
MAX_JSON_BYTES = 256 * 1024
LANG_COOKIE = "escalero_lang"
# Reachable without the PIN: the PIN page itself and what it needs to render.
PIN_FREE = ("/pin", "/static/", "/lang/", "/favicon.ico")


def create_app(config: WebConfig) -> FastAPI:
    app = FastAPI(title="Escalero", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.config = config
    app.state.ledger = Ledger(config.db_path)
    app.state.guard = PinGuard(config.pin) if config.pin else None
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    def lang_of(request: Request) -> str:
        return pick_lang(request.query_params.get("lang") or request.cookies.get(LANG_COOKIE))

    def page(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        lang = lang_of(request)
        ctx.update(request=request, lang=lang, langs=LANGS,
                   t=lambda key: translate(key, lang),
                   i18n_json=json.dumps(catalog(lang), ensure_ascii=False),
                   path=request.url.path)
        response = templates.TemplateResponse(request, name, ctx, status_code=status)
        if request.query_params.get("lang") in LANGS:
            response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
        return response

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        try:
            response = await _guarded(request, call_next)
        except Exception as err:  # noqa: BLE001 - the one catch-all: a bug, never plain text
            print(f"escalero serve: {request.method} {request.url.path}: "
                  f"{internal_error(err)}", file=sys.stderr)
            response = JSONResponse({"error": "internal error (a bug: please report it)"},
                                    status_code=500)
        response.headers.update(SECURITY_HEADERS)
        return response

    async def _guarded(request: Request, call_next: Any) -> Response:
        path = request.url.path
        reason = cross_site_reason(request.method, request.headers)
        if reason:
            return JSONResponse({"error": reason}, status_code=403)
        pin_guard: PinGuard | None = app.state.guard
        if pin_guard is None:
            # No PIN means loopback only: refuse other Host names (DNS rebinding).
            if not host_is_loopback_name(request.headers.get("host")):
                return JSONResponse({"error": "unknown host name; open the app via "
                                     "127.0.0.1 or localhost"}, status_code=421)
        elif not path.startswith(PIN_FREE) and not pin_guard.cookie_ok(
                request.cookies.get(COOKIE)):
            if path.startswith("/api/") or request.method != "GET":
                return JSONResponse({"error": translate("err_pin_required", lang_of(request))},
                                    status_code=401)
            return RedirectResponse(f"/pin?next={quote(path)}", status_code=303)
        return await call_next(request)

    @app.exception_handler(EscaleroError)
    async def escalero_error(request: Request, err: EscaleroError) -> Response:
        # The one place errors become responses: each class names its own HTTP status
        # (what went wrong decides 4xx vs 5xx) and any fields the API adds to its body.
        message = localize(err, lang_of(request))
        if request.url.path.startswith("/api/") or request.method != "GET":
            return JSONResponse({"error": message, **err.details()},
                                status_code=err.http_status)
        return page(request, "error.html", status=err.http_status, message=message)

    # --- pages --------------------------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request) -> Response:
        return page(request, "home.html")

    @app.get("/tafel", response_class=HTMLResponse)
    def tafel(request: Request) -> Response:
        return page(request, "tafel.html")

    @app.get("/scan", response_class=HTMLResponse)
    def scan_page(request: Request) -> Response:
        form = printing.form_spec(lang_of(request))
        return page(request, "scan.html", max_mb=config.max_upload_bytes // (1024 * 1024),
                    games=form["games"], variants=form["variants"], papers=form["papers"])

    @app.get("/print", response_class=HTMLResponse)
    def print_page(request: Request) -> Response:
        return page(request, "print.html", form=printing.form_spec(lang_of(request)))

    @app.get("/ledger", response_class=HTMLResponse)
    def ledger_page(request: Request, evening: str | None = None) -> Response:
        ledger: Ledger = app.state.ledger
        return page(request, "ledger.html", games=ledger.games(),
                    balances=ledger.balances(), evenings=ledger.evenings(),
                    evening=evening,
                    evening_balances=ledger.balances(evening) if evening else None)

    @app.get("/lang/{code}")
    def set_lang(code: str, next: str = "/") -> Response:
        target = next if next.startswith("/") and not next.startswith("//") else "/"
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(LANG_COOKIE, pick_lang(code), max_age=365 * 86400, samesite="lax")
        return response

    @app.get("/pin", response_class=HTMLResponse)
    def pin_page(request: Request, next: str = "/") -> Response:
        return page(request, "pin.html", next=next, message=None)

    @app.post("/pin")
    async def pin_submit(request: Request) -> Response:
        form = await request.form()
        target = str(form.get("next") or "/")
        if not target.startswith("/") or target.startswith("//"):
            target = "/"
        pin_guard: PinGuard | None = app.state.guard
        if pin_guard is None:
            return RedirectResponse(target, status_code=303)
        client = request.client.host if request.client else ""
        outcome = pin_guard.try_pin(str(form.get("pin") or ""), client)
        if outcome != "ok":
            key = "pin_locked" if outcome == "locked" else "pin_wrong"
            locked = outcome == "locked"
            response = page(request, "pin.html", status=429 if locked else 403,
                            next=target, message=translate(key, lang_of(request)))
            wait = pin_guard.wait_seconds(client)
            if wait:
                response.headers["Retry-After"] = str(math.ceil(wait))
            return response
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, pin_guard.token, httponly=True, samesite="strict",
                            max_age=12 * 3600)
        return response

    # --- API ----------------------------------------------------------------------------

    @app.get("/api/rules")
    def api_rules(request: Request, game: str = "escalero") -> dict[str, Any]:
        variants = request.query_params.getlist("variant")
        return services.rules_json(game, variants, lang_of(request))

    @app.post("/api/settle")
    async def api_settle(request: Request) -> dict[str, Any]:
        payload = await _json_body(request)
        # Settling is CPU work: a worker thread keeps the event loop answering others.
        return await run_in_threadpool(services.settle_payload, payload, lang_of(request))

    @app.post("/api/scan")
    async def api_scan(request: Request) -> dict[str, Any]:
        if content_type(request.headers) in FORM_TYPES:
            raise NotAnImage("send the photo itself as the request body (Content-Type "
                             "image/jpeg or similar), not a form")
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > config.max_upload_bytes:
            raise too_large(config.max_upload_bytes)
        q = request.query_params
        layout = services.layout_hint({"players": q.get("players"), "game": q.get("game"),
                                       "pairs": q.get("pairs"), "paper": q.get("paper"),
                                       "variants": q.getlist("variant")})
        data = await read_photo(request.stream(), config.max_upload_bytes)
        # The scan is CPU-bound: a worker thread keeps other requests (and uploads) going.
        ledger: Ledger = app.state.ledger
        result = await run_in_threadpool(services.scan_bytes, data, lang_of(request), layout)
        # A sheet printed here with names comes back named (the QR code holds no names).
        return services.with_printed_names(result, ledger.printed_names(result.get("serial")))

    @app.post("/api/print")
    async def api_print(request: Request) -> Response:
        form = await request.form()
        printed = await run_in_threadpool(printing.make_pdf, dict(form.multi_items()))
        pdf, filename = printed.pdf, printed.filename
        if printed.has_names:
            ledger: Ledger = app.state.ledger
            await run_in_threadpool(ledger.remember_names, printed.serials, printed.names)
        return Response(pdf, media_type="application/pdf", headers={
            "Content-Disposition": f'attachment; filename="{filename}"'})

    @app.get("/api/ledger")
    def api_ledger(evening: str | None = None) -> dict[str, Any]:
        ledger: Ledger = app.state.ledger
        return {"games": ledger.games(evening),
                "balances": [b.to_json() for b in ledger.balances(evening)],
                "evenings": ledger.evenings(), "roster": ledger.roster()}

    @app.get("/api/roster")
    def api_roster() -> dict[str, Any]:
        ledger: Ledger = app.state.ledger
        return {"players": ledger.roster()}

    @app.post("/api/ledger", status_code=201)
    async def api_ledger_save(request: Request) -> dict[str, Any]:
        payload = await _json_body(request)
        ledger: Ledger = app.state.ledger
        guest = translate("guest", lang_of(request))
        record, confirm = await run_in_threadpool(services.ledger_record, payload, guest)
        game_id = await run_in_threadpool(
            lambda: ledger.save(record, allow_duplicate=confirm))
        return {"id": game_id, "evening": record.evening,
                "players": [{"player": p.name, "points": p.points, "cents": p.cents}
                            for p in record.players]}

    @app.delete("/api/ledger/{game_id}")
    def api_ledger_delete(game_id: int) -> dict[str, Any]:
        ledger: Ledger = app.state.ledger
        if not ledger.delete(game_id):
            raise keyed(InputFileError, "err_no_game", id=game_id)
        return {"deleted": game_id}

    @app.get("/ledger.csv")
    def ledger_csv() -> Response:
        ledger: Ledger = app.state.ledger
        name = f"escalero-ledger-{date.today().isoformat()}.csv"
        return Response(ledger.csv_text(), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return app


class BodyTooLarge(InputFileError):
    http_status = 413


class NotJson(InputFileError):
    http_status = 415


async def _json_body(request: Request) -> Any:
    """The JSON body, read with a hard size cap (a sheet needs a few kB)."""
    if content_type(request.headers) != "application/json":
        raise NotJson("send the body as JSON with Content-Type: application/json")
    over = f"the request body is larger than {MAX_JSON_BYTES // 1024} kB; send one sheet"
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > MAX_JSON_BYTES:
        raise BodyTooLarge(over)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_JSON_BYTES:
            raise BodyTooLarge(over)
    try:
        return parse_json(bytes(body))
    except InputFileError as err:
        raise InputFileError(f"the request body is {err}") from None


__all__ = ["create_app"]
