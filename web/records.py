"""POST /api/ledger's body checked and turned into the GameRecord the ledger stores."""

from __future__ import annotations

from typing import Any

from escalero.scoring.errors import InputFileError, UsageError
from escalero.scoring.model import Sheet
from escalero.scoring.money import to_money
from escalero.web.guests import check_names_differ, named_or_guests
from escalero.web.messages import keyed
from escalero.web.settling import clean_currency, settle_counted, stake_cents

from escalero.i18n import N_

MAX_GAME_UID = 64


def clean_game_uid(raw: Any) -> str | None:
    """A Tafel game's id as the phone made it (None when the page sent none)."""
    if raw is None or raw == "":
        return None
    uid = str(raw)
    if len(uid) > MAX_GAME_UID or not uid.isprintable():
        raise InputFileError.worded(N_('"game_id" must be a short text, at most {most} '
                                       "characters"), most=MAX_GAME_UID)
    return uid


def ledger_record(payload: Any, guest_word: str = "Gast") -> tuple[Any, bool]:
    """POST /api/ledger's body -> (the GameRecord to save, whether a repeat is confirmed).

    "Spieler 1" of one game is not "Spieler 1" of the next: unnamed sides need names, or
    the player's word ("guests": true) that they are guests, who count in this game only."""
    from escalero.web.ledger import build_record

    if not isinstance(payload, dict) or "sheet" not in payload:
        raise keyed(InputFileError, "err_send_sheet")
    confirm = payload.get("confirm", False)
    guests = payload.get("guests", False)
    for name, flag in (("confirm", confirm), ("guests", guests)):
        if not isinstance(flag, bool):
            raise UsageError.worded(N_('"{name}" must be true or false'), name=name)
    sheet = Sheet.from_json(payload["sheet"])
    cents = stake_cents(payload.get("stake")) or 0
    currency = clean_currency(payload.get("currency"))
    game_uid = clean_game_uid(payload.get("game_id"))
    sheet = named_or_guests(sheet, guests, guest_word)
    check_names_differ(sheet)
    report = settle_counted(sheet, to_money(cents), currency, "en")
    return build_record(sheet.to_json(), report, cents, currency, game_uid=game_uid), confirm
