"""A block of score sheets as planned from the player options, and its serials.

Library code shared by `escalero sheet` (sheets.cli), the scanner's layout options
(scan.cli) and the web app's print and scan pages (web.printing, web.scanning), so all of
them plan a block, and refuse an impossible one, the same way.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from escalero.scoring.model import MAX_NAME_LEN
from escalero.sheets.layout import LayoutSpec, SheetOptionError, build_layout

from escalero.i18n import N_

# More players than any sheet holds (Generala 8, Escalero 6 sides or 12 in pairs): a larger
# count is refused before anything is made for it.
MAX_PLAYERS = 16
SERIAL_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud safely


@dataclass(frozen=True)
class Block:
    spec: LayoutSpec
    names: tuple[tuple[str, ...], ...]  # per side, its members' names ('' when not given)
    players: tuple[str, ...]


def plan_block(game: str, players: int | None, names: str | None, pairs: bool,
               variants: tuple[str, ...], paper: str) -> Block:
    """Turn player options into sides; raises SheetOptionError for impossible requests."""
    listed = tuple(n.strip() for n in names.split(",")) if names else ()
    if listed and not all(listed):
        raise SheetOptionError.worded(N_("--names has an empty name; write e.g. --names "
                                         "\"Anna,Bert\""))
    # One limit for names everywhere: a printed name must also settle and save.
    for name in listed:
        if len(name) > MAX_NAME_LEN:
            raise SheetOptionError.worded(N_("--names: a name may be at most {most} characters "
                                             "({start!r}... has {n}); shorten it"),
                                          most=MAX_NAME_LEN, start=name[:12], n=len(name))
        if not name.isprintable():
            raise SheetOptionError.worded(N_("--names: a name holds a control character; "
                                             "drop it"))
    if players is not None and listed and players != len(listed):
        raise SheetOptionError.worded(N_("--players {players} but --names lists {n}; give "
                                         "one of the two"), players=players, n=len(listed))
    count = players if players is not None else (len(listed) or (4 if pairs else 2))
    if count > MAX_PLAYERS:  # before a name slot is made for each of them
        raise SheetOptionError.worded(N_("--players {count}: no sheet holds that many "
                                         "players; give fewer"), count=str(count)[:24])
    if pairs and game != "escalero":
        raise SheetOptionError.worded(N_("--pairs is for Escalero; Generala has one column "
                                         "per player"))
    if pairs and count < 4:
        raise SheetOptionError.worded(N_("pairs need at least 4 players, not {count}; drop "
                                         "--pairs"), count=count)
    everyone = listed or ("",) * count
    if pairs:
        sides = tuple(everyone[i:i + 2] for i in range(0, count, 2))
    else:
        sides = tuple((name,) for name in everyone)
    spec = LayoutSpec(game=game, variants=variants, sides=len(sides), pairs=pairs, paper=paper)
    build_layout(spec)  # raises a clear error when the sheet cannot be made
    return Block(spec, sides, everyone)


def make_serials(count: int, base: str | None = None) -> list[str]:
    """Serial per sheet: a random 4-character base and the sheet number, e.g. K7Q2-001."""
    base = (base or "".join(secrets.choice(SERIAL_ALPHABET) for _ in range(4))).upper()
    if not (base.isascii() and base.isalnum() and len(base) <= 8):
        raise SheetOptionError.worded(N_("--serial {base!r}: use 1-8 letters or digits, e.g. "
                                         "--serial K7Q2"), base=base)
    width = max(3, len(str(count)))
    return [f"{base}-{i:0{width}d}" for i in range(1, count + 1)]
