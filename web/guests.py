"""Unnamed sides: a side still called "Spieler 2" is refused for the ledger until it is
named, or confirmed as guests, who are named for one game only; two players of one game
must not share a name.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from escalero.scoring.errors import UsageError
from escalero.scoring.model import Sheet
from escalero.web.i18n import LANGS, translate
from escalero.web.messages import keyed

# The name a side gets when nobody typed one: "Spieler 2" (scanner, web), in any language.
_PLAYER_WORDS = "|".join(re.escape(translate("player", lang)) for lang in LANGS)
PLACEHOLDER = re.compile(rf"^({_PLAYER_WORDS}) \d+$")


class UnnamedSidesError(UsageError):
    """A side still carries a placeholder name; the page asks for names or guests."""

    http_status = 422

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.key = "err_unnamed"
        self.params = {"names": ", ".join(self.names)}
        super().__init__(translate(self.key, "en", **self.params))

    def details(self) -> dict[str, Any]:
        return {"unnamed": list(self.names)}


def named_or_guests(sheet: Sheet, guests: bool, guest_word: str) -> Sheet:
    """The sheet to store: refused while a side is an unnamed "Spieler N", unless the
    player confirmed guests; a guest is then named for this game only ("Gast 1 (K7Q2-001)"),
    so two games' "Spieler 1" never share a balance."""
    unnamed = [i for i, side in enumerate(sheet.sides)
               if any(PLACEHOLDER.match(m) for m in side.members)]
    if not unnamed:
        return sheet
    if not guests:
        raise UnnamedSidesError([sheet.sides[i].name for i in unnamed])
    tag = sheet.serial or datetime.now().strftime("%d.%m. %H:%M")
    sides = list(sheet.sides)
    for i in unnamed:
        members = tuple(f"{guest_word} {m.rsplit(' ', 1)[1]} ({tag})" if PLACEHOLDER.match(m)
                        else m for m in sides[i].members)
        sides[i] = dataclasses.replace(sides[i], members=members, name=" & ".join(members))
    return dataclasses.replace(sheet, sides=tuple(sides))


def check_names_differ(sheet: Sheet) -> None:
    """The ledger keeps a balance per name: two players of one game named alike would be
    one player (400 before anything is stored)."""
    seen: set[str] = set()
    for side in sheet.sides:
        for name in side.members:
            if name in seen:
                raise keyed(UsageError, "err_names_differ", name=name)
            seen.add(name)
