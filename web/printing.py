"""The print page: `escalero sheet` options as a form, turned into a PDF in memory."""

from __future__ import annotations

import re
import secrets
from typing import Any

from scoring.errors import UsageError
from scoring.rulesets import ESCALERO_VARIANTS, GAMES, LANGUAGES

MAX_PAGES = 200  # a block of 200 sheets is ~1 MB; more is a typo
_SERIAL_RE = re.compile(r"^[A-Z0-9-]{1,16}$")


def form_spec(lang: str) -> dict[str, Any]:
    """Choices the print form offers (the values the sheets package accepts)."""
    from sheets.layout import PAPERS

    try:
        from sheets.render import BACKS
    except ImportError:
        BACKS = ()  # noqa: N806 - mirrors the sheets constant
    return {"games": list(GAMES), "variants": list(ESCALERO_VARIANTS), "papers": list(PAPERS),
            "backs": list(BACKS), "lang": lang, "sheet_langs": list(LANGUAGES),
            "max_pages": MAX_PAGES}


def _int(form: dict[str, Any], key: str, default: int, low: int, high: int, what: str) -> int:
    raw = str(form.get(key) or default).strip()
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise UsageError(f"{what} must be a whole number from {low} to {high}")
    return int(raw)


def serials(start: str, count: int) -> list[str]:
    """`count` serials from `start`: a trailing number counts up (A-0007, A-0008, ...)."""
    start = start.strip().upper()
    if not _SERIAL_RE.match(start):
        raise UsageError("serial: use 1-16 letters, digits or dashes, e.g. ABEND-001")
    match = re.search(r"(\d+)$", start)
    if not match:
        return [start] if count == 1 else [f"{start}-{i}"[:16] for i in range(1, count + 1)]
    head, digits = start[:match.start()], match.group(1)
    out = [f"{head}{int(digits) + i:0{len(digits)}d}" for i in range(count)]
    if any(len(s) > 16 for s in out):
        raise UsageError("serial: the numbers run past 16 characters; start lower")
    return out


def _names(text: str, pairs: bool) -> tuple[tuple[str, ...], ...]:
    """One side per line; a pair as 'Anna & Ben' (or 'Anna + Ben')."""
    sides = []
    for line in text.splitlines():
        members = tuple(m.strip() for m in re.split(r"[&+/]", line) if m.strip())
        if members:
            sides.append(members if pairs else (" ".join(members),))
    return tuple(sides)


def make_pdf(form: dict[str, Any]) -> tuple[bytes, str]:
    """The PDF for the submitted form, and a file name for the download."""
    from sheets.layout import LayoutSpec, build_layout
    from sheets.render import SheetText, render_pdf

    game = str(form.get("game") or "escalero")
    variants = tuple(v for v in str(form.get("variants") or "").split(",") if v)
    variants += tuple(k.removeprefix("variant-") for k, v in form.items()
                      if k.startswith("variant-") and v)
    pairs = bool(form.get("pairs"))
    names = _names(str(form.get("names") or ""), pairs)
    sides = _int(form, "sides", max(2, len(names)), 1, 8, "players/sides")
    if names and len(names) != sides:
        sides = len(names)
    pages = _int(form, "pages", 1, 1, MAX_PAGES, "number of sheets")
    lang = str(form.get("lang") or "de")
    first = str(form.get("serial") or "").strip() or f"S{secrets.randbelow(10**5):05d}-001"
    spec = LayoutSpec(game=game, variants=variants if game == "escalero" else (), sides=sides,
                      pairs=pairs, paper=str(form.get("paper") or "a4"))
    layout = build_layout(spec)
    back = str(form.get("back") or "") or None
    pdf = render_pdf(layout, serials(first, pages), SheetText(lang=lang, names=names),
                     two_up=bool(form.get("two_up")), back=back,
                     players=[m for side in names for m in side])
    return pdf, f"escalero-{game}-{first.lower()}.pdf"
