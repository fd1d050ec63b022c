"""Stage 6: how sure is the payout? Every cell's reading distribution becomes a belief for
`scoring.certainty`, which weighs the settlement as a whole.

The beliefs are the recognizer's own distributions, taken *before* the totals check: the
written totals weigh in inside the payout model, once, and only where they agree with
their column. A reading called certain keeps the error rate measured for certain readings
at calibration (never zero), and a cell doubted by a rule outside the recognizer (too
small in the photo, a faint digit before a 0) keeps only half of its reading's weight.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from escalero.scan.cells import CellResult, candidates
from escalero.scoring.certainty import (
    CERTAINTY,
    CellBelief,
    CertaintySettings,
    PayoutCertainty,
    payout_certainty,
)
from escalero.scoring.model import TOTAL_ROW, Sheet


@dataclass(frozen=True)
class PayoutSettings:
    """How the cells' readings become beliefs, and when the payout they give is certain
    (ScanOptions.payout). Each field says what it was fitted on."""

    # What a reading doubted by a rule outside the recognizer keeps of its probability.
    # Not fitted: chosen by hand (0ac3665).
    doubted_weight: float = 0.5
    # The most of an unsure cell's mass outside its row's readings that stays doubt: fitted
    # on 360 bench sheets (seeds 3810000 / 3830000 / 3840000; 7494b98), where the likeliest
    # of the row's readings was wrong on 10 of the 207 cells whose row readings held under
    # 80% of the mass.
    unheld: float = 0.05
    certainty: CertaintySettings = CERTAINTY

    def __post_init__(self) -> None:
        if not 0.0 < self.doubted_weight <= 1.0 or not 0.0 <= self.unheld < 1.0:
            raise ValueError("payout: need doubted_weight in (0, 1] and unheld in [0, 1)")


PAYOUT = PayoutSettings()
LEAST: Final = 1e-6  # readings below this are left to the even spread over the rest
SHOWN_READINGS: Final = 6  # readings per cell in the scan JSON ("readings")


def beliefs(raw: Sequence[CellResult], doubted: Collection[tuple[int, int, str]],
            certain_error: float, certain_error_total: float,
            settings: PayoutSettings = PAYOUT,
            mute_totals: Collection[tuple[int, int, str]] = (),
            open_nines: Collection[tuple[int, int, str]] = ()) -> list[CellBelief]:
    """One belief per cell from the readings as the recognizer gave them. `mute_totals`:
    written totals that are no evidence on their column (misread as a cell in it is:
    CellResult.total_alike); their belief lists no number, so the model gives them no say.
    `open_nines`: strikes that may be an open 9 (their total misread alike); they keep
    doubted_weight of the strike's mass, the rest goes to the 9."""
    out = []
    for c in raw:
        key = (c.side, c.column, c.row)
        if key in mute_totals:
            out.append(CellBelief(c.side, c.column, c.row, ((None, 1.0),)))
            continue
        eps = certain_error_total if c.row == TOTAL_ROW else certain_error
        # A certain reading's doubt is the error measured for certain readings (eps).
        dist = _floored(candidates(c), eps, 0.0 if c.certain else settings.unheld)
        if key in doubted:
            dist = [(v, p * settings.doubted_weight) for v, p in dist]
        if key in open_nines:
            moved = sum(p for v, p in dist if v == "x") * (1.0 - settings.doubted_weight)
            nine = sum(p for v, p in dist if v == 9) + moved
            dist = sorted([*((v, p - moved if v == "x" else p) for v, p in dist if v != 9),
                           (9, nine)], key=lambda a: -a[1])
        out.append(CellBelief(c.side, c.column, c.row,
                              tuple((v, p) for v, p in dist if p >= LEAST)))
    return out


def _floored(dist: list[tuple[Any, float]], eps: float, most_unheld: float
             ) -> list[tuple[Any, float]]:
    """The best reading keeps at most 1 - eps; the others share the rest as they stand
    (or, when they hold nothing, the rest is left to the row's other readings). Of the
    mass the readings do not hold (numbers the row does not allow), up to `most_unheld`
    stays unheld, left to all of the row's readings alike: a 40 whose closed 4 reads as 90
    in the Poker row is most likely a 40, but not a sure one."""
    total = sum(p for _, p in dist)
    if total <= 0:
        return []
    unheld = min(max(0.0, 1.0 - total), most_unheld)
    dist = sorted(((v, p / total * (1.0 - unheld)) for v, p in dist), key=lambda a: -a[1])
    top_v, top_p = dist[0]
    if top_p <= 1.0 - eps:
        return dist
    others = sum(p for _, p in dist[1:])
    scale = eps / others if others > 0 else 0.0
    return [(top_v, 1.0 - eps), *((v, p * scale) for v, p in dist[1:])]


def assess(sheet: Sheet, cells: Sequence[CellResult], cell_beliefs: Sequence[CellBelief],
           settings: PayoutSettings = PAYOUT) -> PayoutCertainty:
    """The payout's certainty; the unsure cells (review items) are the ones weighed."""
    asked = [(c.side, c.column, c.row) for c in cells if not c.certain]
    return payout_certainty(sheet, cell_beliefs, asked, settings.certainty)


def reassess(sheet: Sheet, cell_beliefs: Sequence[CellBelief],
             asked: Sequence[tuple[int, int, str]],
             answered: Collection[tuple[int, int, str]]) -> PayoutCertainty:
    """The payout's certainty once a person has answered some cells: `sheet` holds their
    answers, which count as written (no belief), and they are no longer asked."""
    done = set(answered)
    return payout_certainty(sheet, [b for b in cell_beliefs if b.key not in done],
                            [k for k in asked if k not in done])


def readings_json(cell_beliefs: Sequence[CellBelief]) -> list[dict[str, Any]]:
    """Each cell's likeliest readings, for a front end that recomputes after answers."""
    return [{"side": b.side, "column": b.column, "row": b.row,
             "readings": [[v, round(p, 7)] for v, p in b.distribution[:SHOWN_READINGS]]}
            for b in cell_beliefs]


def beliefs_from_json(items: Any) -> list[CellBelief]:
    """`readings_json` read back (the web app's review sends it with every answer).
    Raises ValueError on anything else."""
    if not isinstance(items, list):
        raise ValueError("\"readings\" must be a list")
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise ValueError("each reading must be an object")
        side, column, row = item.get("side"), item.get("column"), item.get("row")
        pairs = item.get("readings")
        if (not isinstance(side, int) or not isinstance(column, int)
                or not isinstance(row, str) or not isinstance(pairs, list)):
            raise ValueError("a reading needs side, column, row and readings")
        dist = []
        for pair in pairs:
            if (not isinstance(pair, list) or len(pair) != 2
                    or not isinstance(pair[1], int | float) or isinstance(pair[1], bool)
                    or not 0.0 <= float(pair[1]) <= 1.0):
                raise ValueError("readings are [value, probability] pairs")
            value = pair[0]
            if value is not None and value != "x" and (
                    not isinstance(value, int) or isinstance(value, bool)
                    or not 0 <= value <= 9999):
                raise ValueError("a reading's value is a number, \"x\" or null")
            dist.append((value, float(pair[1])))
        out.append(CellBelief(side, column, row, tuple(dist)))
    return out
