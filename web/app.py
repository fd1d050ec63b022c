"""The FastAPI app: server-rendered pages, a JSON API, and the ledger.

Pages: / (start), /tafel (keep score live), /scan (photo), /print (PDF), /ledger
(web.routes_pages). API: GET /api/rules, POST /api/settle, POST /api/scan (raw image
body), POST /api/print (form -> PDF) (web.routes_api); GET/POST /api/ledger,
GET /ledger.csv (web.routes_ledger). What the routes share (settings, ledger, recognizer,
language, rendering) is in web.deps.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from urllib.parse import quote

from escalero.scoring.errors import EscaleroError, internal_error
from escalero.web import routes_api, routes_ledger, routes_pages
from escalero.web.config import WebConfig
from escalero.web.deps import HERE, MAX_JSON_BYTES, BodyTooLarge, NotJson, lang_of, page
from escalero.web.i18n import LANGS, translate
from escalero.web.ledger import Ledger
from escalero.web.limits import RequestLimits
from escalero.web.messages import localize
from escalero.web.security import (
    COOKIE,
    SECURITY_HEADERS,
    PinGuard,
    cross_site_reason,
    host_is_loopback_name,
)
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.requests import ClientDisconnect

# Reachable without the PIN: the PIN page itself and what it needs to render.
PIN_FREE = ("/pin", "/static/", "/lang/", "/favicon.ico")

CallNext = Callable[[Request], Awaitable[Response]]


def create_app(config: WebConfig) -> FastAPI:
    app = FastAPI(title="Escalero", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.config = config
    app.state.ledger = Ledger(config.db_path)
    app.state.guard = PinGuard(config.pin) if config.pin else None
    app.state.recognizer = None  # made on the first scan (web.deps.get_recognizer)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.middleware("http")(guard)
    # Outermost: a body too large by its Content-Length, or too slow, is answered here.
    app.add_middleware(RequestLimits, max_body=config.max_upload_bytes)
    app.add_exception_handler(EscaleroError, escalero_error)  # type: ignore[arg-type]
    for routes in (routes_pages, routes_api, routes_ledger):
        app.include_router(routes.router)
    return app


async def guard(request: Request, call_next: CallNext) -> Response:
    """Every response: the security headers; a bug becomes a one-line 500, never a trace."""
    try:
        response = await _guarded(request, call_next)
    except ClientDisconnect:  # the phone went away mid-upload: nobody to answer, no bug
        return Response(status_code=400)
    except Exception as err:  # noqa: BLE001 - the one catch-all: a bug, never plain text
        print(f"escalero serve: {request.method} {request.url.path}: "
              f"{internal_error(err)}", file=sys.stderr)
        response = JSONResponse({"error": "internal error (a bug: please report it)"},
                                status_code=500)
    response.headers.update(SECURITY_HEADERS)
    return response


async def _guarded(request: Request, call_next: CallNext) -> Response:
    """Cross-site requests refused; without a PIN loopback host names only; with one, the
    PIN cookie (or the PIN page) first."""
    path = request.url.path
    reason = cross_site_reason(request.method, request.headers)
    if reason:
        return refusal(request, reason, 403)
    pin_guard: PinGuard | None = request.app.state.guard
    if pin_guard is None:
        # No PIN means loopback only: refuse other Host names (DNS rebinding).
        if not host_is_loopback_name(request.headers.get("host")):
            return refusal(request, "err_unknown_host", 421)
    elif not path.startswith(PIN_FREE) and not pin_guard.cookie_ok(
            request.cookies.get(COOKIE)):
        if path.startswith("/api/") or request.method != "GET":
            return JSONResponse({"error": translate("err_pin_required", lang_of(request))},
                                status_code=401)
        # Back to the page asked for, with its query; the PIN page in its language.
        query = request.url.query
        target = quote(path + (f"?{query}" if query else ""), safe="/")
        lang = request.query_params.get("lang")
        chosen = f"&lang={lang}" if lang in LANGS else ""
        return RedirectResponse(f"/pin?next={target}{chosen}", status_code=303)
    return await call_next(request)


def refusal(request: Request, key: str, status: int) -> Response:
    """A refused request in the page's language: JSON for the API, a page for a page
    (a form posted from elsewhere shows a page, not raw JSON)."""
    message = translate(key, lang_of(request))
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    return page(request, "error.html", status=status, message=message)


async def escalero_error(request: Request, err: EscaleroError) -> Response:
    """The one place errors become responses: each class names its own HTTP status
    (what went wrong decides 4xx vs 5xx) and any fields the API adds to its body."""
    message = localize(err, lang_of(request))
    if request.url.path.startswith("/api/") or request.method != "GET":
        # A refusal's reason code beside its text, for a client to act on.
        reason = {"reason": str(err.reason)} if err.reason else {}
        return JSONResponse({"error": message, **reason, **err.details()},
                            status_code=err.http_status)
    return page(request, "error.html", status=err.http_status, message=message)


__all__ = ["MAX_JSON_BYTES", "BodyTooLarge", "NotJson", "create_app"]
