"""The Start-Poker tally page printed on the back of a sheet (duplex).

Not scanned: no fiducials, no QR. One column per player, five tally boxes each
(first to five round wins takes the prize), and the ranking as a reminder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from escalero.sheets.layout import Box
from escalero.sheets.style import GRID_PT, GRID_RED, INK, MUTED

from escalero.i18n import translator

if TYPE_CHECKING:
    from escalero.sheets.render import Pen


def _words(lang: str) -> dict[str, str]:
    _ = translator(lang).gettext
    return {
        "title": _("START POKER"),
        "rule": _("Best hand wins the round · tie: the tied players roll again · first to 5 "
                  "round wins takes the prize"),
        "player": _("Player"),
        "ranking": _("Ranking (high to low)"),
    }


def _ranks(lang: str) -> tuple[str, ...]:
    _ = translator(lang).gettext
    return (_("Grande (five of a kind)"), _("Poker (four of a kind)"), _("Full house"),
            _("Large straight (10-J-Q-K-A)"), _("Small straight (9-10-J-Q-K)"),
            _("Three of a kind"), _("Two pairs"), _("One pair (9 low, A high)"))


MARGIN = 12.0
TALLIES = 5


def draw_start_poker(pen: Pen, width: float, players: Sequence[str], lang: str) -> None:
    """Draw the tally page on `pen` (a render._Pen) for a sheet of width x height mm."""
    t = _words(lang)
    c = pen.c
    n = max(len(players), 2)
    c.setFillColor(INK)
    pen.text(MARGIN, MARGIN + 8, t["title"], 18, font="Helvetica-Bold")
    c.setFillColor(MUTED)
    pen.text(MARGIN, MARGIN + 14, t["rule"], 8, max_w=width - 2 * MARGIN)

    label_w = 10.0
    col_w = min(30.0, (width - 2 * MARGIN - label_w) / n)
    name_h, row_h = 9.0, 11.0
    x0, y0 = MARGIN, MARGIN + 22
    c.setStrokeColor(GRID_RED)
    c.setLineWidth(GRID_PT)
    for i in range(n):
        x = x0 + label_w + i * col_w
        pen.rect(Box(x, y0, col_w, name_h))
        name = players[i] if i < len(players) else ""
        c.setFillColor(INK)
        pen.text(x + 1, y0 + 3, name or f"{t['player']} {i + 1}", 7, max_w=col_w - 2)
        for r in range(TALLIES):
            pen.rect(Box(x, y0 + name_h + r * row_h, col_w, row_h))
    c.setFillColor(MUTED)
    for r in range(TALLIES):
        pen.text(x0 + label_w - 2, y0 + name_h + r * row_h + row_h / 2 + 1.2, str(r + 1), 9,
                 align="right")

    y = y0 + name_h + TALLIES * row_h + 12
    c.setFillColor(INK)
    pen.text(MARGIN, y, t["ranking"], 10, font="Helvetica-Bold")
    for k, rank in enumerate(_ranks(lang)):
        pen.text(MARGIN + 2, y + 6 + k * 5, f"{k + 1}. {rank}", 8.5)
