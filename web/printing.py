"""The print page: the `escalero sheet` options as a form, turned into a PDF in memory.

The form mirrors sheets.cli option by option and goes through the same steps
(plan_block, make_serials, render_pdf), so the web and the command line print
identical sheets and refuse the same impossible requests with the same messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring.errors import UsageError
from scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES
from web.services import form_flag

MAX_WEB_PAGES = 200  # a block of 200 sheets is ~1 MB; more from a phone is a typo


def form_spec(lang: str) -> dict[str, Any]:
    """Choices the print form offers (exactly the values `escalero sheet` accepts)."""
    from sheets.layout import PAPERS
    from sheets.render import BACKS

    return {"games": list(GAMES), "variants": list(ESCALERO_VARIANTS), "papers": list(PAPERS),
            "backs": list(BACKS), "lang": lang, "sheet_langs": list(LANGUAGES),
            "max_pages": MAX_WEB_PAGES}


def _int(form: Mapping[str, Any], key: str, low: int, high: int, what: str) -> int | None:
    raw = str(form.get(key) or "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise UsageError(f"{what} must be a whole number from {low} to {high}")
    return int(raw)


def _choice(form: Mapping[str, Any], key: str, choices: tuple[str, ...] | list[str],
            default: str | None) -> str | None:
    value = str(form.get(key) or "").strip() or default
    if value is not None and value not in choices:
        raise UsageError(f"{key} {value!r}: choose one of {', '.join(choices)}")
    return value


def make_pdf(form: Mapping[str, Any]) -> tuple[bytes, str]:
    """The PDF for the submitted form, and a file name for the download."""
    from sheets.cli import make_serials, plan_block
    from sheets.layout import PAPERS, SheetOptionError, build_layout
    from sheets.render import BACKS, SheetText, page_geometry, render_pdf

    game = _choice(form, "game", GAMES, "escalero")
    pairs = form_flag(form.get("pairs"), "pairs")
    two_up = form_flag(form.get("two_up"), "two_up")
    paper = _choice(form, "paper", list(PAPERS), "a4")
    lang = _choice(form, "lang", LANGUAGES, "de")
    back = _choice(form, "back", BACKS, None)
    pages = _int(form, "pages", 1, MAX_WEB_PAGES, "number of sheets") or 1
    players = _int(form, "players", 1, 16, "number of players")
    # One name a line (or comma-separated, as on the command line).
    names = ",".join(n.strip() for n in str(form.get("names") or "").replace("\n", ",")
                     .split(",") if n.strip()) or None
    variants = tuple(v for v in ESCALERO_VARIANTS if form.get(f"variant-{v}"))
    if game != "escalero":
        variants = ()
    if back and game != "escalero":
        raise SheetOptionError("the start-poker back is Escalero's side game; choose no back")
    if two_up:
        if paper not in ("a4", "a5"):
            raise SheetOptionError("two sheets per page prints A5 sheets on A4 paper; "
                                   "choose A4 paper")
        paper = "a5"
    block = plan_block(game, players, names, pairs, variants, paper)
    layout = build_layout(block.spec)
    _, _, offsets = page_geometry(layout, two_up)
    serials = make_serials(pages * len(offsets), str(form.get("serial") or "").strip() or None)
    pdf = render_pdf(layout, serials, SheetText(lang, block.names), two_up=two_up, back=back,
                     players=block.players)
    return pdf, f"escalero-{game}-{serials[0].lower()}.pdf"
