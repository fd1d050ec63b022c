"""The JSON API: GET /api/rules, POST /api/settle, POST /api/scan (raw image body),
POST /api/print (form -> PDF)."""

from __future__ import annotations

from typing import Any

from escalero.web import printing, scanning, settling
from escalero.web.deps import Config, Lang, LedgerDep, RecognizerDep, json_body
from escalero.web.limits import capped_form, declared_length
from escalero.web.security import FORM_TYPES, content_type
from escalero.web.uploads import NotAnImage, read_photo, too_large
from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from escalero.i18n import N_

router = APIRouter(prefix="/api")


@router.get("/rules")
def api_rules(request: Request, lang: Lang, game: str = "escalero") -> dict[str, Any]:
    variants = request.query_params.getlist("variant")
    return settling.rules_json(game, variants, lang)


@router.post("/settle")
async def api_settle(request: Request, lang: Lang) -> dict[str, Any]:
    payload = await json_body(request)
    # Settling is CPU work: a worker thread keeps the event loop answering others.
    return await run_in_threadpool(settling.settle_payload, payload, lang)


@router.post("/scan")
async def api_scan(request: Request, config: Config, ledger: LedgerDep, lang: Lang,
                   recognizer: RecognizerDep) -> dict[str, Any]:
    if content_type(request.headers) in FORM_TYPES:
        raise NotAnImage.worded(N_("send the photo itself as the request body (Content-Type "
                                   "image/jpeg or similar), not a form"))
    length = declared_length(request.headers)
    if length is not None and length > config.max_upload_bytes:
        raise too_large(config.max_upload_bytes)
    q = request.query_params
    layout = scanning.layout_hint({"players": q.get("players"), "game": q.get("game"),
                                   "pairs": q.get("pairs"), "paper": q.get("paper"),
                                   "variants": q.getlist("variant")})
    data = await read_photo(request.stream(), config.max_upload_bytes)
    # The scan is CPU-bound: a worker thread keeps other requests (and uploads) going.
    result = await run_in_threadpool(scanning.scan_bytes, data, lang, layout, recognizer)
    # A sheet printed here with names comes back named (the QR code holds no names).
    return scanning.with_printed_names(result, ledger.printed_names(result.get("serial")))


@router.post("/print")
async def api_print(request: Request, ledger: LedgerDep) -> Response:
    form = await capped_form(request)
    printed = await run_in_threadpool(printing.make_pdf, dict(form.multi_items()))
    if printed.has_names:
        await run_in_threadpool(ledger.remember_names, printed.serials, printed.names)
    # The page says what it got: how many sheets, their first and last serial.
    return Response(printed.pdf, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="{printed.filename}"',
        "X-Escalero-Sheets": str(len(printed.serials)),
        "X-Escalero-Serials": f"{printed.serials[0]} {printed.serials[-1]}"})
