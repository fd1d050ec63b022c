"""The print page: the `escalero sheet` options as a form, turned into a PDF in memory.

The form mirrors sheets.cli option by option and goes through the same steps
(sheets.block's plan_block and make_serials, render_pdf), so the web and the command line print
identical sheets and refuse the same impossible requests with the same messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, overload

from escalero.scoring.errors import UsageError
from escalero.scoring.model import MAX_NAME_LEN
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES
from escalero.web.forms import form_flag
from escalero.web.messages import keyed

from escalero.i18n import N_

MAX_WEB_PAGES = 200  # a block of 200 sheets is ~1 MB; more from a phone is a typo


@dataclass(frozen=True)
class Printed:
    pdf: bytes
    filename: str
    serials: tuple[str, ...]
    names: tuple[tuple[str, ...], ...]  # per side, its members' names ('' when not given)

    @property
    def has_names(self) -> bool:
        return any(n for side in self.names for n in side)


def form_spec(lang: str) -> dict[str, Any]:
    """Choices the print form offers (exactly the values `escalero sheet` accepts)."""
    from escalero.sheets.layout import PAPERS
    from escalero.sheets.render import BACKS

    return {"games": list(GAMES), "variants": list(ESCALERO_VARIANTS), "papers": list(PAPERS),
            "backs": list(BACKS), "lang": lang, "sheet_langs": list(LANGUAGES),
            "max_pages": MAX_WEB_PAGES}


def _int(form: Mapping[str, Any], key: str, low: int, high: int, what: str) -> int | None:
    """`what`: the catalog key of the field's label."""
    raw = str(form.get(key) or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise keyed(UsageError, "err_number", what_key=what, low=low, high=high)
    return int(raw)


@overload
def _choice(form: Mapping[str, Any], key: str, choices: tuple[str, ...] | list[str],
            default: str) -> str: ...


@overload
def _choice(form: Mapping[str, Any], key: str, choices: tuple[str, ...] | list[str],
            default: None) -> str | None: ...


def _choice(form: Mapping[str, Any], key: str, choices: tuple[str, ...] | list[str],
            default: str | None) -> str | None:
    value = str(form.get(key) or "").strip() or default
    if value is not None and value not in choices:
        raise UsageError.worded(N_("{key} {value!r}: choose one of {choices}"), key=key,
                                value=value, choices=", ".join(choices))
    return value


def _check_players(game: str, players: int | None, names: str | None, pairs: bool) -> None:
    """The planner's refusals that name command-line options, as the form's own words."""
    from escalero.sheets.layout import SheetOptionError

    listed = names.split(",") if names else []
    if players is not None and listed and players != len(listed):
        raise keyed(SheetOptionError, "err_names_count", players=players, names=len(listed))
    if pairs and game != "escalero":
        raise keyed(SheetOptionError, "err_pairs_game")
    count = players if players is not None else (len(listed) or 4)
    if pairs and count < 4:
        raise keyed(SheetOptionError, "err_pairs_min", n=count)


def make_pdf(form: Mapping[str, Any]) -> Printed:
    """The PDF for the submitted form, a file name for the download, its serials and names."""
    from escalero.sheets.block import make_serials, plan_block
    from escalero.sheets.layout import PAPERS, SheetOptionError, build_layout
    from escalero.sheets.render import BACKS, SheetText, page_geometry, render_pdf

    game = _choice(form, "game", GAMES, "escalero")
    pairs = form_flag(form.get("pairs"), "pairs")
    two_up = form_flag(form.get("two_up"), "two_up")
    paper = _choice(form, "paper", list(PAPERS), "a4")
    lang = _choice(form, "lang", LANGUAGES, "de")
    back = _choice(form, "back", BACKS, None)
    pages = _int(form, "pages", 1, MAX_WEB_PAGES, "pages") or 1
    players = _int(form, "players", 1, 16, "players")
    # One name a line (or comma-separated, as on the command line).
    listed = [n.strip() for n in str(form.get("names") or "").replace("\n", ",").split(",")]
    for name in listed:
        # The limit a settled sheet and the ledger hold names to: a printed name scans back.
        if len(name) > MAX_NAME_LEN or not name.isprintable():
            shown = "".join(c for c in name if c.isprintable())
            raise keyed(UsageError, "err_name_long", n=MAX_NAME_LEN,
                        name=shown[:20] + ("..." if len(shown) > 20 else ""))
    names = ",".join(n for n in listed if n) or None
    variants = tuple(v for v in ESCALERO_VARIANTS if form.get(f"variant-{v}"))
    if game != "escalero":
        variants = ()
    if back and game != "escalero":
        raise keyed(SheetOptionError, "err_back_game")
    if two_up:
        if paper not in ("a4", "a5"):
            raise keyed(SheetOptionError, "err_two_up")
        paper = "a5"
    _check_players(str(game), players, names, pairs)
    block = plan_block(game, players, names, pairs, variants, paper)
    layout = build_layout(block.spec)
    _, _, offsets = page_geometry(layout, two_up)
    base = str(form.get("serial") or "").strip() or None
    if base is not None and not (base.isascii() and base.isalnum() and len(base) <= 8):
        raise keyed(SheetOptionError, "err_serial", serial=base[:20])
    serials = make_serials(pages * len(offsets), base)
    pdf = render_pdf(layout, serials, SheetText(lang, block.names), two_up=two_up, back=back,
                     players=block.players)
    return Printed(pdf, f"{game}-{serials[0].lower()}.pdf", tuple(serials),
                   tuple(block.names))
