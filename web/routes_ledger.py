"""The ledger: GET/POST /api/ledger, DELETE /api/ledger/{id} (and POST /api/ledger/undo
to bring it back), GET /api/roster and the CSV export /ledger.csv."""

from __future__ import annotations

from datetime import date
from typing import Any

from escalero.scoring.errors import InputFileError
from escalero.web import records
from escalero.web.deps import Lang, LedgerDep, json_body
from escalero.web.i18n import translate
from escalero.web.ledger_view import Trash
from escalero.web.messages import keyed
from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

router = APIRouter()


@router.get("/api/ledger")
def api_ledger(ledger: LedgerDep, evening: str | None = None) -> dict[str, Any]:
    return {"games": ledger.games(evening),
            "balances": [b.to_json() for b in ledger.balances(evening)],
            "evenings": ledger.evenings(), "roster": ledger.roster()}


@router.get("/api/roster")
def api_roster(ledger: LedgerDep) -> dict[str, Any]:
    return {"players": ledger.roster()}


@router.post("/api/ledger", status_code=201)
async def api_ledger_save(request: Request, ledger: LedgerDep, lang: Lang) -> dict[str, Any]:
    payload = await json_body(request)
    guest = translate("guest", lang)
    record, confirm = await run_in_threadpool(records.ledger_record, payload, guest)
    game_id = await run_in_threadpool(
        lambda: ledger.save(record, allow_duplicate=confirm))
    return {"id": game_id, "evening": record.evening,
            "players": [{"player": p.name, "points": p.points, "cents": p.cents}
                        for p in record.players]}


def trash(request: Request) -> Trash:
    """The app's recently deleted games (made on the first delete)."""
    state = request.app.state
    if getattr(state, "trash", None) is None:
        state.trash = Trash()
    kept: Trash = state.trash
    return kept


@router.delete("/api/ledger/{game_id}")
def api_ledger_delete(game_id: int, request: Request, ledger: LedgerDep) -> dict[str, Any]:
    rows = ledger.take_out(game_id)
    if rows is None:
        raise keyed(InputFileError, "err_no_game", id=game_id)
    return {"deleted": game_id, "undo": trash(request).keep(rows)}


@router.post("/api/ledger/undo")
async def api_ledger_undo(request: Request, ledger: LedgerDep) -> dict[str, Any]:
    """A deleted game back, as it was (its id, time and evening)."""
    payload = await json_body(request)
    token = payload.get("undo") if isinstance(payload, dict) else None
    rows = trash(request).take(token) if isinstance(token, str) else None
    if rows is None:
        raise keyed(InputFileError, "err_undo_gone")
    return {"restored": await run_in_threadpool(ledger.put_back, rows)}


@router.get("/ledger.csv")
def ledger_csv(ledger: LedgerDep, lang: Lang) -> Response:
    name = f"escalero-ledger-{date.today().isoformat()}.csv"
    return Response(ledger.csv_text(lang), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
