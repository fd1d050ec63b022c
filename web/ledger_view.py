"""What the Kassa page shows beyond the stored rows: who pays whom for an evening, which
save of a sheet a game is, guests named in the page's language, and undo for a delete."""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from escalero.scoring.money import fewest_transfers, to_money
from escalero.web.i18n import LANGS, translate
from escalero.web.ledger import Balance

# "Gast 2 (S1-001)": a guest named for one game (web.guests.named_or_guests), in the
# language of the page that saved it.
_GUEST_WORDS = "|".join(re.escape(translate("guest", lang)) for lang in LANGS)
GUEST = re.compile(rf"^({_GUEST_WORDS}) (\d+) (\(.+\))$")
TRASH_SIZE = 50  # deleted games kept for undo (in memory, until the server stops)


@dataclass(frozen=True)
class Payment:
    payer: str
    payee: str
    amount: str  # "1.50"
    currency: str


def evening_transfers(balances: Sequence[Balance]) -> list[Payment]:
    """The fewest payments that settle an evening's balances, per currency."""
    out: list[Payment] = []
    for currency in sorted({b.currency for b in balances}):
        side = [b for b in balances if b.currency == currency]
        cents = [b.cents for b in side]
        if sum(cents) != 0:  # not one evening's games alone (a damaged row): no advice
            continue
        for t in fewest_transfers(cents):
            out.append(Payment(side[t.payer].player, side[t.payee].player,
                               str(to_money(t.cents)), currency))
    return out


def shown_name(name: str, lang: str) -> str:
    """A player's name on the page: a guest in the page's language ("Invitado 2 (S1-001)")."""
    m = GUEST.match(name)
    return f"{translate('guest', lang)} {m.group(2)} {m.group(3)}" if m else name


def save_counts(games: Sequence[dict[str, Any]]) -> dict[int, int]:
    """Game id -> which save of its sheet (serial) or Tafel game it is: 2 for the second."""
    seen: dict[str, int] = {}
    out: dict[int, int] = {}
    for g in sorted(games, key=lambda g: g["id"]):
        mark = g.get("game_uid") or g.get("serial")
        if not mark:
            continue
        seen[mark] = seen.get(mark, 0) + 1
        out[g["id"]] = seen[mark]
    return out


class Trash:
    """Recently deleted games (their stored rows) under a random token, for undo."""

    def __init__(self, size: int = TRASH_SIZE) -> None:
        self._rows: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def keep(self, rows: dict[str, Any]) -> str:
        token = secrets.token_urlsafe(12)
        with self._lock:
            self._rows[token] = rows
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)
        return token

    def take(self, token: str) -> dict[str, Any] | None:
        with self._lock:
            return self._rows.pop(token, None)
