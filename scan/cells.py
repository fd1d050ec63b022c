"""Stage 4: cut every cell from the flat sheet, read it, check it against the written totals.

The written totals are a second, independent reading of each column. They re-rank an
uncertain cell's candidates, take certainty *away* from a cell whose reading disagrees
with them, and confirm a reading only when it is the recognizer's own first choice and
the total agrees (ConfirmRule; a strike or an empty cell, or any cell under a total read
less surely than TotalsSettings.confident_total, needs more); the total itself is
confirmed by the entries under the same rule (a strike's, where it adds up only with an
unsure strike or empty cell). They never make a *changed* reading certain: a player's
mis-added total must not turn a misreading into a payout. A certain entry that a legible
total says is likelier misread than TotalsSettings.misread_given_total goes to review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import numpy as np
from escalero.scan import digit_model
from escalero.scan.geometry import SheetGeometry
from escalero.scan.grid import PLACEMENT, PlacementSettings, SnappedSlot
from escalero.scan.notes import Note, note, value_param
from escalero.scan.recognize import (
    DIGIT_LOOKALIKES,
    CellCrop,
    one_digit_swap,
    top_alternatives,
)
from escalero.scan.rectify import CELL_MARGIN_MM, PX_PER_MM, Rectified, page_px
from escalero.scoring.model import TOTAL_ROW, CellValue, cell_points
from escalero.scoring.written_total import WRITTEN_TOTAL


@dataclass(frozen=True)
class CuttingSettings:
    """How a cell is cut and when its crop is too small to be certain (ScanOptions.cutting;
    the crop itself follows the cell-reading contract, rectify.PX_PER_MM and CELL_MARGIN_MM,
    which the network was trained on). Each field says what it was fitted on."""

    # How far a mis-added total may pass the most its column can add up to; a number beyond
    # only draws mass, as a row's disallowed values do (907 under rows that add up to 290).
    # Not fitted: chosen by hand (7390b66), a generous mis-add.
    total_slack: int = 20
    # A cell shown below this many px/mm in the photo is not certain (below
    # RectifySettings.min_sheet_px_per_mm the sheet is refused). Not fitted: chosen by hand
    # (364931e) under the ~2.8 px/mm the digit model is trained down to.
    small_px_per_mm: float = 2.5

    def __post_init__(self) -> None:
        if self.total_slack < 0 or self.small_px_per_mm <= 0:
            raise ValueError("cutting: need total_slack >= 0 and small_px_per_mm > 0")


CUTTING = CuttingSettings()


@dataclass(frozen=True)
class ConfirmRule:
    """When an agreeing written total makes an unsure reading certain: its posterior with
    the total, and what the recognizer gave it on its own; for a number, and for a strike
    or an empty cell (benchmarks.totals varies them)."""

    # Fitted with benchmarks.totals on 1,999 bench sheets (70802f9, 51e83eb): from 0.5
    # instead of 0.8, 318 more readings confirmed, none wrong; a posterior of 0.99 instead
    # of 0.995 had a strike read as 6 among its 1,055.
    posterior: float = 0.995
    first: float = 0.5
    # A total cannot tell a strike (or an empty cell) from an entry the player forgot to add:
    # a 1 misread as struck, in a column whose total left out that 1, adds up exactly. Not
    # fitted: chosen by hand (4cc014e), as sure as the recognizer's own accept threshold.
    unwritten_posterior: float = 0.999
    unwritten_first: float = 0.9
    # A total read less surely than TotalsSettings.confident_total is likelier misread, and
    # misread the same way as a cell in its column (a Buben 9 read as 6, its 129 as 126:
    # posterior 0.9974). Fitted on 2,299 bench sheets (954eae9): 4.33 -> 4.23 flags per
    # sheet, no cell certain and wrong (0.995 confirmed the 9 read as 6).
    weak_total_posterior: float = 0.999

    def __post_init__(self) -> None:
        if not all(0.0 <= p <= 1.0 for p in (self.posterior, self.first,
                                             self.unwritten_posterior, self.unwritten_first,
                                             self.weak_total_posterior)):
            raise ValueError("confirm rule: every threshold is a probability in [0, 1]")

    def confirms(self, first: CellValue, first_confidence: float, posterior: float,
                 leans_on_unwritten: bool = False, weak_total: bool = False) -> bool:
        """`leans_on_unwritten`: a written total whose column holds an unsure strike or
        empty cell; it is confirmed as surely as that cell would be. `weak_total`: the
        backing total was read less surely than TotalsSettings.confident_total."""
        if isinstance(first, int) and not leans_on_unwritten:
            needed = max(self.posterior, self.weak_total_posterior) if weak_total \
                else self.posterior
            return first_confidence >= self.first and posterior >= needed
        return (first_confidence >= self.unwritten_first
                and posterior >= self.unwritten_posterior)


@dataclass(frozen=True)
class TotalsSettings:
    """The written totals check's values (ScanOptions.totals; benchmarks.totals varies them).
    Each field says what it was fitted on."""

    confirm: ConfirmRule = ConfirmRule()
    # A certain entry read less surely than this may be put up for review when its column
    # does not add up; above it a misreading is far rarer than a mis-added total. Fitted on
    # the bench (4021ac2): every confident misreading there was read below 0.999.
    doubt: float = 0.999
    # Of those entries, spare the ones that are, with the written total as evidence, at most
    # this likely misread (an entry read at 1 - suspect or more none of whose readings, in
    # the row or not, adds up to the total); None spares none (every entry below `doubt` up).
    # Fitted on 9,898 stored sheets (5498823; benchmarks.totals rule .../SUSPECT): 0.10-0.13
    # fewer flags per sheet than None with the same cells certain and wrong; 0.003 left two
    # misread entries certain on fresh sets (a Könige 20 as 10, a Neuner 2 as 1).
    suspect: float | None = 0.001
    # A total read this surely may put its whole column up for review and confirm entries.
    # Not fitted: chosen by hand (acc9e5f).
    confident_total: float = 0.7
    # So may a total read as one of at most `narrow_readings` numbers holding `narrow_mass`
    # together (155 or 135): legible, if not surely which. Fitted on 2,299 bench sheets
    # (5443de4): caught 2 of 11 silent errors for 16 more flags.
    narrow_readings: int = 3
    narrow_mass: float = 0.95
    # A certain entry which a legible total says is more likely than this misread goes to
    # review: an Asse 18 read as 12 at 0.995 in a column of certain entries adding up to 201,
    # under a total read as 207 at 0.86 (misread: 0.09). Fitted on 2,299 bench sheets
    # (10778b7): 4.06 -> 4.08 flags per sheet.
    misread_given_total: float = 0.02
    # A total misread alike with an unsure entry by a lookalike digit has no say in the
    # payout where the entry's alike reading holds at least this much of it: as
    # scoring.certainty's `plausible`, below which a reading never counts as one that could
    # change the payout. Not fitted: on fresh pub photos (seed 11500000) the alike
    # readings that muted a total without a floor cost 6 of 200 sheets their certain
    # (right) payout; five held 5e-5 to 0.001, one 0.0027. The one it is for held 0.05
    # (mild photo 11700000-107), and the mild sheets it leaves unsure 0.0024-0.15.
    alike_mute_from: float = 0.001

    def __post_init__(self) -> None:
        if not 0.0 < self.doubt <= 1.0 or not 0.0 <= self.confident_total <= 1.0:
            raise ValueError("totals: need 0 < doubt <= 1 and confident_total in [0, 1]")
        if self.suspect is not None and not 0.0 <= self.suspect <= 1.0:
            raise ValueError("totals: suspect is a probability in [0, 1], or None")
        if self.narrow_readings < 1 or not 0.0 < self.narrow_mass <= 1.0 \
                or not 0.0 <= self.misread_given_total <= 1.0 \
                or not 0.0 <= self.alike_mute_from <= 1.0:
            raise ValueError("totals: need narrow_readings >= 1, narrow_mass in (0, 1] and "
                             "misread_given_total, alike_mute_from in [0, 1]")


TOTALS = TotalsSettings()


class Pass(StrEnum):
    """The cell passes that decide whether a reading is certain, in the order they run
    (scan.pipeline.CELL_PASSES): the recognizer's verdict and cells too small in the photo,
    a second look at a lone mark's ink (scan.marks), the sheet's own hand (scan.same_hand),
    the cell's placement (grid.PlacementSettings), the written totals."""

    READING = "reading"
    SECOND_LOOK = "second look"
    SAME_HAND = "same hand"
    PLACEMENT = "placement"
    TOTALS = "totals"



@dataclass(frozen=True)
class Decision:
    """One pass's verdict on a cell: certain or not, and why (`why` the note a person
    reads; `detail` the pass's own record, for developers: the recognizer's verdict)."""

    by: Pass
    certain: bool
    why: Note | None = None
    detail: str = ""


@dataclass(frozen=True)
class CellResult:
    """One slot's reading in sheet terms."""

    side: int
    column: int
    row: str  # row id, or TOTAL_ROW
    value: CellValue
    confidence: float
    alternatives: tuple[tuple[CellValue, float], ...]  # other readings, most likely first
    certain: bool
    box_mm: tuple[float, float, float, float]
    note: Note | None = None  # why it is (un)sure, for the overlay and review
    # All readings weighed, best first (value first); empty: (value, *alternatives).
    candidates: tuple[tuple[CellValue, float], ...] = ()
    # Numbers the row does not allow that the recognizer weighed (CellReading.outside).
    outside: tuple[tuple[int, float], ...] = ()
    place_mm: float = 0.0  # how far the box may be off its printed place (grid.SnappedSlot)
    # Every pass's say on `certain`, in order (set_certainty appends to it).
    reasons: tuple[Decision, ...] = ()
    # A verdict that stands to the end of the passes (the placement's): a later pass may
    # make the cell certain on the way, never in the end (settle_held).
    held: Decision | None = None
    # (digit read, digit meant) where this sheet's hand writes one like the other
    # (scan.same_hand): the written total is no second opinion on that digit.
    written_like: tuple[str, str] | None = None
    # The written total may be misread as this reading is (an open 9 read as a 0 in both,
    # so they add up): it is no second opinion on it, and the payout holds it in doubt.
    total_alike: bool = False

    @property
    def points(self) -> int:
        return cell_points(self.value)


def alike_with_total(results: Sequence[CellResult]) -> set[tuple[int, int, str]]:
    """The cells whose written total may be misread as they are (CellResult.total_alike)."""
    return {(c.side, c.column, c.row) for c in results if c.total_alike}


def set_certainty(cell: CellResult, certain: bool, why: Note | None, by: Pass,
                  detail: str = "") -> CellResult:
    """The one way a pass makes a cell certain or not: `why` becomes its note, and the
    decision joins its reasons."""
    return replace(cell, certain=certain, note=why,
                   reasons=(*cell.reasons, Decision(by, certain, why, detail)))


def held_unsure(cell: CellResult, hold: Decision) -> CellResult:
    """The cell not certain by `hold`, a verdict that stands to the end of the passes
    (settle_held)."""
    return replace(set_certainty(cell, False, hold.why, hold.by) if cell.certain else cell,
                   held=hold)


def settle_held(results: Sequence[CellResult]) -> list[CellResult]:
    """A held cell that a later pass made certain is not: its hold stands."""
    return [set_certainty(c, False, c.held.why, c.held.by)
            if c.held is not None and c.certain else c for c in results]


@dataclass(frozen=True)
class Column:
    """One column of one side as the totals check sees it: its entries and its written
    total."""

    cells: tuple[CellResult, ...]
    total: CellResult

    @property
    def unsure(self) -> tuple[int, ...]:
        """The positions of the entries not read as certain."""
        return tuple(j for j, c in enumerate(self.cells) if not c.certain)

    @property
    def known(self) -> int:
        """What the certain entries add up to."""
        return sum(c.points for c in self.cells if c.certain)

    def with_cells(self, changed: dict[int, CellResult]) -> Column:
        """The column with the entries at the positions of `changed` replaced."""
        if not changed:
            return self
        return replace(self, cells=tuple(changed.get(j, c) for j, c in enumerate(self.cells)))


def cut_crops(page: np.ndarray | Rectified, snapped: Sequence[SnappedSlot],
              geom: SheetGeometry, settings: CuttingSettings = CUTTING) -> list[CellCrop]:
    """One CellCrop per slot, per the cell-reading contract (box + 1.5 mm, 10 px/mm, BGR).

    `page`: the flat sheet (Rectified), whose cells are warped from the photo a column at
    a time, or a flat page at PX_PER_MM. Either way a crop is the same pixels.
    """
    rules = geom.ruleset
    m = round(CELL_MARGIN_MM * PX_PER_MM)
    rects = [_crop_rect(s, m) for s in snapped]
    images = (_cut_columns(page, snapped, rects) if isinstance(page, Rectified)
              else [_cut(page, (0, 0), r) for r in rects])
    crops = []
    total_cap = rules.largest_column_sum + settings.total_slack
    for s, image, (x0, y0, x1, y1) in zip(snapped, images, rects, strict=True):
        box_px = (m, m, x1 - x0 - 2 * m, y1 - y0 - 2 * m)
        if s.slot.is_total:
            crops.append(CellCrop(image, None, box_px, total_cap))
        else:
            allowed = tuple(rules.row(s.slot.row).allowed)
            crops.append(CellCrop(image, allowed, box_px,
                                  row=digit_model.row_key(s.slot.row, allowed)))
    return crops


def _crop_rect(s: SnappedSlot, margin: int) -> tuple[int, int, int, int]:
    """The crop's page px (x0, y0, x1, y1) at PX_PER_MM: the box grown by `margin` px."""
    x, y, bw, bh = (v * PX_PER_MM for v in s.box)
    x0, y0 = round(x) - margin, round(y) - margin
    return x0, y0, x0 + round(bw) + 2 * margin, y0 + round(bh) + 2 * margin


def _cut(image: np.ndarray, origin: tuple[int, int], rect: tuple[int, int, int, int]
         ) -> np.ndarray:
    """Page px `rect` from `image` (page px `origin` at its pixel 0, 0); what lies outside
    it is paper white."""
    x0, y0, x1, y1 = rect[0] - origin[0], rect[1] - origin[1], rect[2] - origin[0], \
        rect[3] - origin[1]
    h, w = image.shape[:2]
    crop = image[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    if crop.shape[:2] != (y1 - y0, x1 - x0):  # off the page: pad with paper white
        full = np.full((y1 - y0, x1 - x0, 3), 255, np.uint8)
        full[max(0, -y0):max(0, -y0) + crop.shape[0],
             max(0, -x0):max(0, -x0) + crop.shape[1]] = crop
        crop = full
    return np.ascontiguousarray(crop)


def _cut_columns(flat: Rectified, snapped: Sequence[SnappedSlot],
                 rects: Sequence[tuple[int, int, int, int]]) -> list[np.ndarray]:
    """Each crop cut from one warp per column of cells (the page's part they cover):
    the page is never warped whole, and no cell is warped twice."""
    width, height = page_px(flat.page_mm)
    columns: dict[tuple[int, int], list[int]] = {}
    for i, s in enumerate(snapped):
        columns.setdefault((s.slot.side, s.slot.column), []).append(i)
    out: list[np.ndarray] = [np.empty(0)] * len(rects)
    for members in columns.values():
        x0 = max(0, min(rects[i][0] for i in members))
        y0 = max(0, min(rects[i][1] for i in members))
        x1 = min(width, max(rects[i][2] for i in members))
        y1 = min(height, max(rects[i][3] for i in members))
        view = flat.view(x0, y0, max(x1, x0 + 1), max(y1, y0 + 1))
        for i in members:
            out[i] = _cut(view.image, view.origin, rects[i])
    return out


def _as_value(kind: str, value: Any) -> CellValue:
    if kind == "empty":
        return None
    if kind == "struck":
        return "x"
    v = int(value)
    return "x" if v == 0 else v  # a written 0 is a strike (RULES.md)


def _alternative(alt: Any) -> tuple[CellValue, float]:
    """Alternatives come as readings, (value, p) pairs or bare values; normalise them."""
    if hasattr(alt, "kind"):
        return _as_value(alt.kind, alt.value), float(getattr(alt, "confidence", 0.0) or 0.0)
    if isinstance(alt, tuple | list) and len(alt) == 2 and isinstance(alt[1], float):
        value = alt[0]
    else:
        value, alt = alt, (alt, 0.0)
    if value in ("empty", None):
        return None, float(alt[1])
    if value in ("struck", "x"):
        return "x", float(alt[1])
    return _as_value("value", value), float(alt[1])


def to_results(snapped: Sequence[SnappedSlot], readings: Sequence[Any]) -> list[CellResult]:
    """The readings as cell results, certain where the recognizer says so: the reading
    pass records its verdict, and why (CellReading.why), through set_certainty."""
    out = []
    for s, r in zip(snapped, readings, strict=True):
        value = _as_value(r.kind, r.value)
        alts: list[tuple[CellValue, float]] = []
        for a in r.alternatives or ():
            av = _alternative(a)
            if av[0] != value and all(av[0] != b[0] for b in alts):
                alts.append(av)
        dist = tuple(_alternative(a) for a in getattr(r, "distribution", ()) or ())
        if not dist or dist[0][0] != value:
            dist = ()
        cell = CellResult(s.slot.side, s.slot.column, s.slot.row, value,
                          float(r.confidence), tuple(alts), False, s.box,
                          candidates=dist, outside=tuple(getattr(r, "outside", ())),
                          place_mm=s.uncertainty_mm)
        out.append(set_certainty(cell, bool(r.certain), None, Pass.READING,
                                 getattr(r, "why", "") or "the recognizer's verdict"))
    return out


def flag_small(results: Sequence[CellResult], px_per_mm: Sequence[float], minimum: float
               ) -> list[CellResult]:
    """A cell the photo shows below `minimum` px/mm cannot be certain, whatever was read."""
    return [set_certainty(c, False, note("too_small"), Pass.READING)
            if c.certain and res < minimum else c
            for c, res in zip(results, px_per_mm, strict=True)]


def flag_blurred(results: Sequence[CellResult], blurred: bool) -> list[CellResult]:
    """A photo more blurred than the reader was calibrated on (rectify's max_blur_mm) is
    read, but none of its cells is certain: the verdict is held, so the written totals
    may not vouch for a cell either (settle_held)."""
    if not blurred:
        return list(results)
    hold = Decision(Pass.READING, False, note("blurred"))
    return [held_unsure(c, hold) for c in results]


def flag_hidden_digits(results: Sequence[CellResult], crops: Sequence[Any]
                       ) -> list[CellResult]:
    """A strike written as a 0, or a lone digit, with faint ink before it may be "40",
    "10" or "15": not certain (scan.marks explains why the network cannot be trusted with
    these)."""
    from escalero.scan.marks import hidden_first_digit

    out = []
    for c, crop in zip(results, crops, strict=True):
        margin = crop.box_px[0] if crop.box_px else 0
        if c.certain and hidden_first_digit(crop.image, margin, c.value, crop.allowed):
            c = set_certainty(c, False, note("faint_before_zero") if c.value == "x"
                              else note("faint_before_digit", digit=c.value), Pass.SECOND_LOOK)
        out.append(c)
    return out


def flag_unplaced(results: Sequence[CellResult], settings: PlacementSettings = PLACEMENT,
                  tolerated_mm: Sequence[float] = ()) -> list[CellResult]:
    """A cell placed too loosely to cut a safe crop is not certain, whatever was read; the
    verdict is held (settle_held), so the written totals may not vouch for it either.

    `tolerated_mm`: per cell, the placement error its reading was shown to stand by
    reading it again at the far ends of its window (scan.shifted; none when empty)."""
    out = []
    for i, c in enumerate(results):
        window = max(settings.max_uncertain_mm, tolerated_mm[i] if tolerated_mm else 0.0)
        if c.place_mm > window:
            c = held_unsure(c, Decision(Pass.PLACEMENT, False,
                                        note("place_unsure", mm=f"{c.place_mm:.1f}")))
        out.append(c)
    return out


def flag_empty_on_unsure_sheet(results: Sequence[CellResult],
                               settings: PlacementSettings = PLACEMENT) -> list[CellResult]:
    """Where the reader and the placement leave more than settings.most_unsure_share of a
    sheet's cells unsure, the photo lies outside what the accept threshold was fitted on
    (writing too faint at its resolution, a grid placed far off): a cell read as empty
    there may hold writing the crop or the reader missed, and is not certain; the verdict
    is held (settle_held)."""
    if not results or sum(not c.certain for c in results) \
            <= settings.most_unsure_share * len(results):
        return list(results)
    hold = Decision(Pass.PLACEMENT, False, note("unsure_sheet"))
    return [held_unsure(c, hold) if c.certain and c.value is None else c for c in results]


def candidates(c: CellResult) -> list[tuple[CellValue, float]]:
    return list(c.candidates) if c.candidates else [(c.value, c.confidence), *c.alternatives]


def check_totals(results: Sequence[CellResult], settings: TotalsSettings = TOTALS
                 ) -> list[CellResult]:
    """Use each column's written total as a second opinion on its cells (see module doc):
    check_column on every column read with a number in its Summe cell."""
    out = list(results)
    index = {(c.side, c.column, c.row): i for i, c in enumerate(out)}
    for side, col in sorted({(c.side, c.column) for c in out}):
        ti = index.get((side, col, TOTAL_ROW))
        if ti is None:
            continue
        rows = [i for i, c in enumerate(out)
                if (c.side, c.column) == (side, col) and c.row != TOTAL_ROW]
        checked = check_column(Column(tuple(out[i] for i in rows), out[ti]), settings)
        for i, c in zip(rows, checked.cells, strict=True):
            out[i] = c
        out[ti] = checked.total
    return out


def check_column(column: Column, settings: TotalsSettings = TOTALS) -> Column:
    """One column checked against its written total."""
    total, unsure, known = column.total, column.unsure, column.known
    if not isinstance(total.value, int):
        return column  # read as no total (or a strike): nothing to compare, nothing to invent
    before = {j: (column.cells[j].value, column.cells[j].confidence) for j in unsure}
    total_read_well = _confident_total(total, settings)  # as read, before the cells lean on it
    legible = total_read_well or _narrow_total(total, settings)
    # Weighed on the column as read; put up for review once the rest is done.
    doubted = _doubted_by_total(column, settings) if legible else {}
    column, agreeing = _weigh_column(column, before, settings, total_read_well)
    column = _confirm_total(column, total.value, settings)
    # A column whose unsure cells, read as first read, add up to the total's first
    # reading exactly disagrees only in probability: their readings are unlikely (a 4
    # the network sees as a 9, which the Zehner row does not allow), not the sum. Those
    # cells go to review anyway; the certain ones are no likelier misread than in a
    # column that agrees.
    adds_up_as_read = known + sum(cell_points(v) for v, _ in before.values()) == total.value
    if agreeing < 0.5 and legible and not (unsure and adds_up_as_read):
        if unsure:
            best = known + sum(column.cells[j].points for j in unsure)
            column = _distrust_column(column, _suspects(column, unsure, settings), best)
        else:
            column = _flag_disagreement(column, known, total.value, settings)
    return column.with_cells({j: set_certainty(c, False, doubted[j], Pass.TOTALS)
                              for j, c in enumerate(column.cells) if j in doubted and c.certain})


def _weigh_column(column: Column, before: dict[int, tuple[CellValue, float]],
                  settings: TotalsSettings, total_read_well: bool) -> tuple[Column, float]:
    """A column's unsure cells (`before`: their first readings) and its total weighed
    together (_rerank_joint), and the first readings the weighing backs confirmed.
    Returns the column and the posterior that the total is the sum."""
    total, rule = column.total, settings.confirm
    # Entries the total may have been misread like: the same digit swapped in both (a
    # writer's 8 read as 2 in the Asse, 18 as 12, and in the total, 198 as 192). The
    # total is no second opinion on that digit, so it is confirmed only as surely as a
    # strike would be; so are entries where the digits are ones the network mistakes
    # for each other (all such digits: 0.07 flags per sheet on the bench; these: 0.006),
    # and entries whose digit this sheet's hand writes like another (scan.same_hand).
    alike, lookalike, alike_mass = _misread_alike(column, before)
    hand_alike = {j for j in before if column.cells[j].written_like is not None}
    cell_alike = lookalike | hand_alike
    # An entry the sheet's own hand says may be misread (scan.same_hand) is confirmed only
    # by a total that agrees with its column: a Neuner 2 read as 1 at 0.9998 (this hand
    # writes its 2 like that) stayed as sure as it was under a right total of 138 taken for
    # misread, which confirmed it (fresh pub photo 10100000-038).
    firsts = column.known + sum(cell_points(v) for v, _ in before.values())
    # An open 9 reads as a written 0, a strike, and the total's 9 as a 0 alike: a Buben 9
    # read as struck in a column whose 199 read as 190 adds up exactly (mild photo
    # 9800000-037, payout certain and wrong). Such a strike is not confirmed by that total.
    open_nines = {j for j, (read, _) in before.items() if read == "x"
                  and any(v == 9 and p > 0.0 for v, p in candidates(column.cells[j]))
                  and one_digit_swap(total.value, firsts + 9) == ("0", "9")}
    column, agreeing = _rerank_joint(column, list(before))
    unbacked = hand_alike if agreeing < 0.5 else set()
    column = column.with_cells({
        j: _confirmed(column.cells[j], first, rule, leans_on_unwritten=j in cell_alike,
                      weak_total=j not in cell_alike and not total_read_well)
        for j, first in before.items() if j not in unbacked and j not in open_nines})
    column = column.with_cells({j: replace(set_certainty(
        column.cells[j], False, note("total_fits", written=firsts + 9, value=9), Pass.TOTALS),
        total_alike=True) for j in open_nines})
    muted = any(alike_mass[j] >= settings.alike_mute_from for j in lookalike)
    if open_nines or muted:  # the total may be misread alike: no evidence either way
        # (An unsure Generala sixes 18 beside 12, under a total read 138 beside 132: both
        # the writer's 12 and 132, read with an 8 for their 2, made a payout certain and
        # wrong, the two readings taken for independent evidence; mild photo 11700000-107.)
        column = replace(column, total=replace(column.total, total_alike=True))
    elif not total.certain:  # the total: the same rule
        # A total that adds up only with an unsure strike (or empty cell) in its column
        # may have been misread the same way: a 9 read as struck and 139 read as 130
        # agree. It is confirmed only as surely as that strike would be.
        unwritten = any(not column.cells[j].certain
                        and (not isinstance(column.cells[j].value, int) or j in alike)
                        for j in before)
        column = replace(column, total=_confirmed(column.total, (total.value, total.confidence),
                                                  rule, leans_on_unwritten=unwritten))
    return column, agreeing


def _doubted_by_total(column: Column, settings: TotalsSettings) -> dict[int, Note]:
    """The column's certain entries, read less surely than `doubt`, that its legible total
    says are more likely than `misread_given_total` misread, each with why: the reading
    the total fits, if one does."""
    written, known = column.total.value, column.known
    why = {}
    for j, c in enumerate(column.cells):
        if not c.certain or c.confidence >= settings.doubt or _misread_given_total(
                column, j, column.unsure, known, WRITTEN_TOTAL.wrong_share
        ) <= settings.misread_given_total:
            continue
        fits = [v for v, _ in c.alternatives if known - c.points + cell_points(v) == written]
        why[j] = (note("total_fits", written=written, value=_fmt(fits[0])) if fits
                  else note("check_column", sum=known, written=written))
    return why


def _misread_alike(column: Column, first: dict[int, tuple[CellValue, float]]
                   ) -> tuple[set[int], set[int], dict[int, float]]:
    """The unsure entries (`first`: their first readings) with another reading that
    differs from the first by one digit swapped, where swapping the same digit in the
    total's first reading gives what the column adds up to with that other reading: where
    the total's own readings list that sum or the digits are a pair the network mistakes
    for each other (recognize.DIGIT_LOOKALIKES, read either way: a 2 read as 8 as well as
    an 8 read as 2); those of the latter kind alone; and for those, the most an alike
    reading of theirs holds."""
    total = column.total
    firsts = column.known + sum(cell_points(v) for v, _ in first.values())
    others = {v for v, _ in _total_options(total) if v != total.value}
    alike: set[int] = set()
    lookalike: set[int] = set()
    mass: dict[int, float] = {}
    for j, (read, _) in first.items():
        if not isinstance(read, int):
            continue
        for v, p in candidates(column.cells[j]):
            if not isinstance(v, int) or v == read or p <= 0.0:
                continue
            swap = one_digit_swap(read, v)
            col = firsts - read + v
            if swap is None or swap != one_digit_swap(total.value, col):
                continue
            if swap in DIGIT_LOOKALIKES or swap[::-1] in DIGIT_LOOKALIKES:
                alike.add(j)
                lookalike.add(j)
                mass[j] = max(mass.get(j, 0.0), p)
            elif col in others:
                alike.add(j)
    return alike, lookalike, mass


def _suspects(column: Column, unsure: Sequence[int], settings: TotalsSettings) -> list[int]:
    """The certain entries of a column that does not add up which may be the reason: read
    less surely than `doubt`, and, weighed with the written total, more than `suspect`
    likely misread (every one where `suspect` is None). The rest are far likelier right
    than the total is. `unsure`: the entries that were unsure before the check."""
    doubtful = [j for j in range(len(column.cells))
                if j not in unsure and column.cells[j].confidence < settings.doubt]
    if settings.suspect is None:  # every one: no posterior to work out
        return doubtful
    known = sum(column.cells[j].points for j in range(len(column.cells)) if j not in unsure)
    return [j for j in doubtful
            if _misread_given_total(column, j, unsure, known) > settings.suspect]


def _misread_given_total(column: Column, j: int, unsure: Sequence[int], known: int,
                         unlisted_fits: float = WRITTEN_TOTAL.right) -> float:
    """Posterior that certain entry j is misread, given its column's written total: the
    other certain entries as read, the unsure ones weighed by their readings, the total by
    its own (as _rerank_joint). Mass entry j's readings do not list counts as a misreading
    with likelihood `unlisted_fits`: by default one that explains the total exactly (the
    cautious side, for sparing entries); _doubted_by_total, which doubts them, weighs it as
    a wrong total would be (the total points at no reading there)."""
    cell = column.cells[j]
    opts = [(v, p) for v, p in candidates(cell) if p > 0.0]
    t_opts = _total_options(column.total)
    others = [[(v, p) for v, p in candidates(column.cells[k]) if p > 0.0] for k in unsure]
    rest = known - cell.points
    top = rest + sum(max((cell_points(v) for v, _ in o), default=0) for o in [opts, *others])
    size = max([top, *(v for v, _ in t_opts)]) + 1
    fit = np.asarray(_agreement(_total_spread(t_opts, size)))
    sums = _convolve_all([_spread(o, size) for o in others], size)
    other_else = (1.0 - float(sums.sum())) * WRITTEN_TOTAL.wrong_share  # an unsure cell unlisted

    def likelihood(v: CellValue) -> float:
        base = rest + cell_points(v)
        if base >= size:  # a sum beyond every reading of the total
            return float(sums.sum()) * WRITTEN_TOTAL.wrong_share + other_else
        return float(sums[:size - base] @ fit[base:]) + other_else

    right = sum(p for v, p in opts if v == cell.value) * likelihood(cell.value)
    wrong = sum(p * likelihood(v) for v, p in [*opts, *cell.outside] if v != cell.value)
    unlisted = 1.0 - sum(p for _, p in opts) - sum(p for _, p in cell.outside)
    wrong += max(0.0, unlisted) * unlisted_fits
    return wrong / (right + wrong) if right + wrong > 0.0 else 1.0


def _rerank_joint(column: Column, unsure: list[int]) -> tuple[Column, float]:
    """Bayes over a column's unsure entries and its written total together.

    Each unsure cell is one of its candidates or "something else"; the total is one of
    its candidates or something else. The written total is the true sum w.p. WRITTEN_TOTAL.right,
    else any number (likelihood WRITTEN_TOTAL.wrong_share); "something else" never confirms.
    The sums of the unsure cells are added up by convolution, so a column with many unsure
    cells costs no more than a few array operations.
    The unsure cells, and the total unless it is certain, get their marginal posteriors.
    Returns the new column and the posterior probability that the total is the sum.
    """
    total, known = column.total, column.known
    t_opts = _total_options(total)
    options = [[(v, p) for v, p in candidates(column.cells[j]) if p > 0.0] for j in unsure]
    top = known + sum(max((cell_points(v) for v, _ in o), default=0) for o in options)
    size = max([top, *(v for v, _ in t_opts)]) + 1
    p_total = _total_spread(t_opts, size)
    # Likelihood of the written total given the column's true sum s (a sum nobody's total
    # reading lists still fits "a wrong total" at WRITTEN_TOTAL.wrong_share).
    fit = _agreement(p_total)
    spread = [_spread(o, size) for o in options]  # points distribution of each unsure cell
    sums = _convolve_all(spread, size)
    shifted = np.zeros(size)  # sum over the whole column, known cells included
    shifted[known:] = sums[:size - known]
    p_clean = float(sums.sum())  # no unsure cell is "something else"
    norm = float(shifted @ fit) + (1.0 - p_clean) * WRITTEN_TOTAL.wrong_share
    if norm <= 0.0:
        return column, 0.0
    agreeing = float(shifted @ (WRITTEN_TOTAL.right * p_total)) / norm
    changed = {}
    for k, j in enumerate(unsure):
        others = _convolve_all(spread[:k] + spread[k + 1:], size)
        rest = 1.0 - float(others.sum())  # another cell is "something else"
        marg: dict[Any, float] = {}
        for v, p in options[k]:
            base = known + cell_points(v)
            if base >= size:
                continue
            part = np.zeros(size)
            part[base:] = others[:size - base]
            marg[v] = marg.get(v, 0.0) + p * (float(part @ fit) + rest * WRITTEN_TOTAL.wrong_share)
        changed[j] = _posterior(column.cells[j], marg, norm)
    column = column.with_cells(changed)
    if not total.certain:
        t_marg = {v: p * float(_agreement(shifted[v])) for v, p in t_opts}
        column = replace(column, total=_posterior(total, t_marg, norm))
    return column, agreeing


def _total_options(total: CellResult) -> list[tuple[int, float]]:
    """A written total's readings that are numbers."""
    return [(v, p) for v, p in candidates(total) if isinstance(v, int) and p > 0.0]


def _total_spread(t_opts: list[tuple[int, float]], size: int) -> np.ndarray:
    """The total's reading probability of each number below `size`."""
    p_total = np.zeros(size)
    for tv, tp in t_opts:
        p_total[tv] += tp
    return p_total


def _agreement(p_match: np.ndarray | float) -> np.ndarray | float:
    """Likelihood weight when the total and the column's sum agree with probability
    p_match: WRITTEN_TOTAL.right where they do, WRITTEN_TOTAL.wrong_share where they do not."""
    return WRITTEN_TOTAL.agreement(p_match)


def _spread(options: list[tuple[CellValue, float]], size: int) -> np.ndarray:
    dist = np.zeros(size)
    for v, p in options:
        if cell_points(v) < size:
            dist[cell_points(v)] += p
    return dist


def _convolve_all(dists: list[np.ndarray], size: int) -> np.ndarray:
    acc = np.zeros(size)
    acc[0] = 1.0
    for d in dists:
        acc = np.convolve(acc, d)[:size]
    return acc


def _posterior(cell: CellResult, marg: dict[Any, float], norm: float) -> CellResult:
    ranked = sorted(((v, q / norm) for v, q in marg.items()),
                    key=lambda a: -a[1])
    if not ranked:
        return cell
    best_v, best_p = ranked[0]
    why = None
    if best_v != cell.value:
        why = note("by_total", read=_fmt(best_v), first=_fmt(cell.value))
    elif best_p > cell.confidence + 0.05:
        why = note("backed_by_total")
    # Not certain here: only _confirm may say so, and only for the first reading.
    alternatives = top_alternatives(ranked)
    return replace(cell, value=best_v, confidence=best_p, alternatives=alternatives,
                   note=why, candidates=tuple(ranked))


def _confirmed(cell: CellResult, first: tuple[CellValue, float], rule: ConfirmRule,
               leans_on_unwritten: bool = False, weak_total: bool = False) -> CellResult:
    """An unsure cell whose first reading (value, confidence) the total backs up beyond
    doubt becomes certain."""
    value, confidence = first
    if cell.value == value and rule.confirms(value, confidence, cell.confidence,
                                             leans_on_unwritten, weak_total):
        return set_certainty(cell, True, note("confirmed_by_total"), Pass.TOTALS)
    return cell


def _confirm_total(column: Column, first_total: int, settings: TotalsSettings) -> Column:
    """A total whose first reading is exactly the sum of a column of certain entries is
    right: a misreading would have to land on that very sum by chance."""
    total = column.total
    if total.certain or not all(c.certain for c in column.cells):
        return column
    if first_total != sum(c.points for c in column.cells):
        return column
    summed = replace(total, value=first_total,
                     confidence=max(total.confidence, settings.confirm.posterior))
    return replace(column, total=set_certainty(summed, True, note("is_sum"), Pass.TOTALS))


def _narrow_total(total: CellResult, settings: TotalsSettings) -> bool:
    """A total read as one of a few numbers, none of them sure: legible, if not surely
    which."""
    top = sorted((p for _, p in _total_options(total)), reverse=True)
    return sum(top[:settings.narrow_readings]) >= settings.narrow_mass


def _confident_total(total: CellResult, settings: TotalsSettings) -> bool:
    return isinstance(total.value, int) and total.confidence >= settings.confident_total


def _distrust_column(column: Column, suspects: list[int], best: int) -> Column:
    """The entries do not add up to a clearly written total: the player mis-added, or an
    entry was misread. The total goes to review with the certain entries that may be the
    reason (_suspects). A certain reading that is wrong sits close to the accept threshold,
    below `doubt`, where the calibration still lets a few errors through; above it, or
    where its own readings hold little that would make the column add up, a misreading is
    far rarer than a mis-added total (a few percent of columns), so asking about it would
    cost a check and rarely find anything."""
    why = note("check_column", sum=best, written=column.total.value)

    def distrusted(c: CellResult) -> CellResult:
        # A confirmation by the total no longer holds once the column disagrees with it.
        was = c.note
        keep = was is not None and was.key != "confirmed_by_total"
        return set_certainty(c, False, was if keep else why, Pass.TOTALS)

    column = column.with_cells({j: distrusted(column.cells[j]) for j in suspects})
    return replace(column, total=distrusted(column.total))


def _flag_disagreement(column: Column, known: int, written: int, settings: TotalsSettings
                       ) -> Column:
    """All certain, yet the sum is not the written total: find the one cell that explains it."""
    explains = []
    for j, c in enumerate(column.cells):
        for v, _p in c.alternatives:
            if known - c.points + cell_points(v) == written:
                explains.append((j, v))
    cell_ids = {j for j, _ in explains}
    if len(cell_ids) != 1:
        return _distrust_column(column, _suspects(column, [], settings), known)
    j = next(iter(cell_ids))
    fits = note("total_fits", written=written, value=_fmt(explains[0][1]))
    column = column.with_cells({j: set_certainty(column.cells[j], False, fits, Pass.TOTALS)})
    differs = note("total_differs", written=written, sum=known)
    return replace(column, total=set_certainty(column.total, False, differs, Pass.TOTALS))


def _fmt(v: CellValue) -> str:
    """A value for a note: the note says "leer" / "empty" in its own language."""
    return value_param(v)
