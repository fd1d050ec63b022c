"""What the routes share: the app's settings, ledger and recognizer as FastAPI
dependencies, the page language, page rendering and the size-capped JSON body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from escalero.scoring.errors import InputFileError
from escalero.scoring.model import parse_json
from escalero.web import recognizer as scanner_parts
from escalero.web.config import WebConfig
from escalero.web.i18n import LANGS, catalog, pick_lang, translate
from escalero.web.ledger import Ledger
from escalero.web.limits import BodyTooLarge, read_capped
from escalero.web.locale_format import Formats
from escalero.web.messages import keyed
from escalero.web.security import PinGuard, content_type
from fastapi import Depends, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from escalero.i18n import N_

if TYPE_CHECKING:
    from escalero.scan.recognize import Recognizer

HERE = Path(__file__).parent
# A 16-side sheet with long names is ~20 kB of JSON, a scan's readings (sent back for the
# payout review) ~4 kB per side: 256 kB covers the largest sheet with room to spare.
MAX_JSON_BYTES = 256 * 1024
LANG_COOKIE = "escalero_lang"
templates = Jinja2Templates(directory=str(HERE / "templates"))


def lang_of(request: Request) -> str:
    """The page's language: ?lang=, else the language cookie, else German."""
    return pick_lang(request.query_params.get("lang") or request.cookies.get(LANG_COOKIE))


async def get_config(request: Request) -> WebConfig:
    config: WebConfig = request.app.state.config
    return config


async def get_ledger(request: Request) -> Ledger:
    ledger: Ledger = request.app.state.ledger
    return ledger


async def get_guard(request: Request) -> PinGuard | None:
    guard: PinGuard | None = request.app.state.guard
    return guard


def get_recognizer(request: Request) -> Recognizer:
    """The app's cell recognizer, made on the first scan and shared by all (a sync
    dependency: loading it reads the model files, so it runs in a worker thread)."""
    state = request.app.state
    if state.recognizer is None:
        state.recognizer = scanner_parts.shared_recognizer()
    recognizer: Recognizer = state.recognizer
    return recognizer


Lang = Annotated[str, Depends(lang_of)]
Config = Annotated[WebConfig, Depends(get_config)]
LedgerDep = Annotated[Ledger, Depends(get_ledger)]
Guard = Annotated[PinGuard | None, Depends(get_guard)]
# Any at run time: the scanner (and its imports) loads only when a photo comes in.
RecognizerDep = Annotated[Any, Depends(get_recognizer)]


def page(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    """A server-rendered page in the request's language (and its cookie, when chosen)."""
    lang = lang_of(request)
    ctx.update(request=request, lang=lang, langs=LANGS,
               t=lambda key: translate(key, lang),
               i18n_json=json.dumps(catalog(lang), ensure_ascii=False),
               fmt=Formats(lang), path=request.url.path)
    response = templates.TemplateResponse(request, name, ctx, status_code=status)
    if request.query_params.get("lang") in LANGS:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    return response


def safe_target(target: str) -> str:
    """A redirect target on this site ("/..."), else "/" (never "//host")."""
    return target if target.startswith("/") and not target.startswith("//") else "/"


class NotJson(InputFileError):
    http_status = 415


async def json_body(request: Request) -> Any:
    """The JSON body, read with a hard size cap (a sheet needs a few kB)."""
    if content_type(request.headers) != "application/json":
        raise NotJson.worded(N_("send the body as JSON with Content-Type: application/json"))
    over = keyed(BodyTooLarge, "err_json_over", kb=MAX_JSON_BYTES // 1024)
    body = await read_capped(request, MAX_JSON_BYTES, over)
    try:
        return parse_json(bytes(body))
    except InputFileError as err:
        raise InputFileError.worded(N_("the request body is {problem}"), problem=err) from None
