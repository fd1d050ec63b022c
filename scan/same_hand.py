"""The sheet's own hand, from the cells its rows rule out: a digit it writes so that the
network reads another.

A cell read mostly as a number its row does not allow, one digit away from a number it
does (a Poker 40 read as 90, a Straße 20 read as 10), shows how this sheet's writer draws
that digit: their 4 reads as a 9, their 2 as a 1. The row keeps such a cell unsure anyway.
But where a sheet shows the same swap at least SameHandSettings.min_shown times, a
*certain* reading on it that the swap would turn into another value its row allows (a
Neuner 1 that may be this writer's 2, a Könige 10 their 20) is not certain either: the
network is sure of it only because it does not know the hand. Such a cell goes to review
(CellResult.written_like), and a written total confirms it only as surely as a strike
(scan.cells.check_totals).

Replayed on 9,898 stored sheets (2,299 bench sheets and 7,599 of earlier fresh sets), with
the written totals checked after it: 0.02 more flags per sheet, and 29 instead of 38 cells
certain and wrong, most of the 9 Neuner 2s read as 1 at 0.997-0.999.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from escalero.scan.cells import CellResult, Pass, set_certainty
from escalero.scan.notes import note
from escalero.scan.recognize import CellCrop, one_digit_swap


@dataclass(frozen=True)
class SameHandSettings:
    """When a sheet shows its writer's hand (ScanOptions.same_hand). Each field says what
    it was fitted on."""

    # A cell shows a swap where at least this share of its reading lies on one number its
    # row does not allow. Set by hand, not fitted (5498823).
    min_outside: float = 0.5
    # Cells on the sheet that must show the same swap. Set by hand (5498823) and measured
    # with it: replayed on 9,898 stored sheets, 38 -> 29 cells certain and wrong for 0.02
    # more flags per sheet.
    min_shown: int = 2

    def __post_init__(self) -> None:
        if not 0.0 < self.min_outside <= 1.0 or self.min_shown < 1:
            raise ValueError("same hand: need min_outside in (0, 1] and min_shown >= 1")


SAME_HAND = SameHandSettings()


def swaps_shown(results: Sequence[CellResult], crops: Sequence[CellCrop],
                settings: SameHandSettings = SAME_HAND) -> Counter[tuple[str, str]]:
    """(digit as read, digit as written) for each cell read mostly as a number its row
    does not allow, one digit away from one it does; counted per cell and allowed value."""
    shown: Counter[tuple[str, str]] = Counter()
    for c, crop in zip(results, crops, strict=True):
        if crop.allowed is None or not c.outside:
            continue
        number, share = c.outside[0]
        if share < settings.min_outside:
            continue
        for value in crop.allowed:
            swap = one_digit_swap(number, value)
            if swap is not None:
                shown[swap] += 1
    return shown


def doubt_same_hand(results: Sequence[CellResult], crops: Sequence[CellCrop],
                    settings: SameHandSettings = SAME_HAND) -> list[CellResult]:
    """Certain row cells whose reading this sheet's hand may have written as another
    allowed value become unsure (module doc)."""
    seen = {swap for swap, n in swaps_shown(results, crops, settings).items()
            if n >= settings.min_shown}
    if not seen:
        return list(results)
    out = []
    for c, crop in zip(results, crops, strict=True):
        if c.certain and crop.allowed is not None and isinstance(c.value, int):
            for value in crop.allowed:
                swap = one_digit_swap(c.value, value)
                if swap in seen:
                    c = replace(set_certainty(c, False, note("same_hand", read=swap[0],
                                                             written=swap[1]), Pass.SAME_HAND),
                                written_like=swap)
                    break
        out.append(c)
    return out
