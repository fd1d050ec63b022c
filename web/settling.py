"""Settling for the pages: the rules as JSON for the sheet editor, a settlement whose
forbidden values count nothing, and how sure a scanned sheet's payout is.

The rules live in scoring only; the pages get them as JSON from here, so the browser
never holds a second copy of which values a row allows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from escalero.scoring.certainty import CERTAINTY
from escalero.scoring.errors import InputFileError
from escalero.scoring.house import PRESETS, default_for
from escalero.scoring.model import Sheet, column_name
from escalero.scoring.money import check_currency, parse_stake, to_money
from escalero.scoring.report import settle_report
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES, get_ruleset
from escalero.scoring.validate import INVALID_VALUE, describe_allowed, validate
from escalero.web.messages import keyed

from escalero.i18n import N_


def rules_json(game: str, variants: list[str], lang: str) -> dict[str, Any]:
    """The ruleset as the sheet editor needs it (labels in `lang`)."""
    lang = lang if lang in LANGUAGES else "de"
    rules = get_ruleset(game, variants)
    return {
        "game": rules.game,
        "variants": list(rules.variants),
        "columns": rules.columns,
        "column_names": [column_name(c) for c in range(rules.columns)],
        "column_weights": list(rules.column_weights),
        "all_columns_bonus": rules.all_columns_bonus,
        "min_sides": rules.min_sides,
        "max_sides": rules.max_sides,
        "rows": [
            {"id": r.id, "label": r.labels.get(lang), "face": r.face,
             "allowed": list(r.allowed), "served": list(r.served), "requires": r.requires,
             "describe": describe_allowed(r, lang)}
            for r in rules.rows
        ],
        "games": list(GAMES),
        "all_variants": list(ESCALERO_VARIANTS) if rules.game == "escalero" else [],
        # The Tafel's settings panel: the terms a sheet without house rules gets, and presets.
        "house_rules": default_for(rules).to_json() if rules.game == "escalero" else None,
        "house_presets": {name: terms.to_json() for name, terms in PRESETS.items()}
        if rules.game == "escalero" else {},
    }


def clean_currency(text: Any) -> str:
    return check_currency(text)


def stake_cents(stake: Any) -> int | None:
    """None when no stake was given (points only), else whole cents."""
    if stake is None or str(stake).strip() == "":
        return None
    return parse_stake(stake)


def without_forbidden(sheet: Sheet) -> Sheet:
    """The sheet with every value its row forbids taken out: such a cell counts nothing
    and stays open (the game is not finished) until a person writes a legal value."""
    bad = {(p.side, p.column, p.row) for p in validate(sheet, "en")
           if p.kind == INVALID_VALUE}
    if not bad:
        return sheet
    sides = tuple(dataclasses.replace(side, columns=tuple(
        {rid: v for rid, v in col.items() if (s, c, rid) not in bad}
        for c, col in enumerate(side.columns))) for s, side in enumerate(sheet.sides))
    return dataclasses.replace(sheet, sides=sides)


def settle_counted(sheet: Sheet, stake: Any, currency: str, lang: str) -> dict[str, Any]:
    """settle_report for the page and the ledger: forbidden values do not count in the
    sums, and the validation still names them as written."""
    report = settle_report(without_forbidden(sheet), stake, currency, lang=lang)
    report["validation"] = settle_report(sheet, None, currency, lang=lang)["validation"]
    return report


def settle_payload(payload: Any, lang: str) -> dict[str, Any]:
    """{"sheet", "stake"?, "currency"?} -> settle_report plus the normalised sheet."""
    if not isinstance(payload, dict) or "sheet" not in payload:
        raise keyed(InputFileError, "err_send_sheet")
    sheet = Sheet.from_json(payload["sheet"])
    cents = stake_cents(payload.get("stake"))
    currency = clean_currency(payload.get("currency"))
    report = settle_counted(sheet, None if cents is None else to_money(cents), currency,
                            lang if lang in LANGUAGES else "de")
    if payload.get("readings") is not None:
        report["payout"] = payout_json(sheet, payload)
        report["settlement"].update(certain=report["payout"]["certain"],
                                    confidence=report["payout"]["confidence"])
    report["sheet"] = sheet.to_json()
    return report


def _keys(raw: Any, what: str) -> list[tuple[int, int, str]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(
            isinstance(k, list) and len(k) == 3 and isinstance(k[0], int)
            and isinstance(k[1], int) and isinstance(k[2], str) for k in raw):
        raise InputFileError.worded(N_('"{what}" must be a list of [side, column, row] cells'),
                                    what=what)
    return [(k[0], k[1], k[2]) for k in raw]


def payout_json(sheet: Sheet, payload: dict[str, Any]) -> dict[str, Any]:
    """How sure the payout is, given the scan's readings ("readings"), the cells it asked
    about ("asked") and those a person has answered since ("answered", exact now)."""
    from escalero.scan.payout import beliefs_from_json, reassess

    try:
        beliefs = beliefs_from_json(payload["readings"])
    except ValueError as err:
        raise InputFileError.worded(N_("readings: {problem}"), problem=err.args[0]) from None
    asked = _keys(payload.get("asked"), "asked")
    certainty = reassess(sheet, beliefs, asked, _keys(payload.get("answered"), "answered"))
    readings = {b.key: b.distribution for b in beliefs}
    return {"certain": certainty.certain, "confidence": round(certainty.confidence, 6),
            "accept": CERTAINTY.accept,
            "finished": certainty.finished,
            "cells": [{"side": i.key[0], "column": i.key[1], "row": i.key[2],
                       "affects_payout": i.affects_payout, "gain": round(i.gain, 6),
                       "extra": i.extra,
                       "readings": [[v, round(p, 4)] for v, p in readings.get(i.key, ())[:4]]}
                      for i in certainty.impacts]}
