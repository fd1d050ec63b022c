"""The cell passes that decide whether a reading is certain, run as one ordered list.

Each pass takes every cell's result and may only make a cell certain or not through
scan.cells.set_certainty, which records the pass and why in the cell's `reasons`:

    reading (the recognizer's verdict and why it gave it, CellReading.why, recorded by
             cells.to_results; cells too small in the photo; a blurred photo)
      -> second look (a faint digit before a lone mark: scan.marks)
      -> same hand (this sheet's writer draws a digit like another: scan.same_hand)
      -> placement (a box placed too loosely: grid.PlacementSettings, unless its reading
         stands at the far ends of its window: scan.shifted; and no empty cell certain
         where most of the sheet is unsure; held to the end)
      -> totals (the written totals: scan.cells.check_totals)

The placement runs before the totals so that they weigh such a cell as unsure, and its
verdict is held: where the totals confirm such a cell, it is not certain in the end
(scan.cells.settle_held).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from escalero.scan import cells
from escalero.scan.cells import CellResult, CuttingSettings, Pass, TotalsSettings
from escalero.scan.grid import PlacementSettings
from escalero.scan.recognize import CellCrop
from escalero.scan.same_hand import SAME_HAND, SameHandSettings, doubt_same_hand


@dataclass(frozen=True)
class PassContext:
    """What the passes look at besides the cells: their crops, how large the photo shows
    each (px/mm), and the stages' settings."""

    crops: Sequence[CellCrop]
    px_per_mm: Sequence[float]
    cutting: CuttingSettings
    placement: PlacementSettings
    totals: TotalsSettings
    # Per cell, the placement error its reading stands (scan.shifted); empty: none shown.
    tolerated_mm: Sequence[float] = ()
    same_hand: SameHandSettings = SAME_HAND
    blurred: bool = False  # the photo is more blurred than the reader was calibrated on


@dataclass(frozen=True)
class CellPass:
    name: Pass
    run: Callable[[Sequence[CellResult], PassContext], list[CellResult]]


CELL_PASSES: tuple[CellPass, ...] = (
    CellPass(Pass.READING, lambda results, ctx: cells.flag_blurred(cells.flag_small(
        results, ctx.px_per_mm, ctx.cutting.small_px_per_mm), ctx.blurred)),
    CellPass(Pass.SECOND_LOOK, lambda results, ctx: cells.flag_hidden_digits(results, ctx.crops)),
    CellPass(Pass.SAME_HAND, lambda results, ctx: doubt_same_hand(results, ctx.crops,
                                                                  ctx.same_hand)),
    CellPass(Pass.PLACEMENT, lambda results, ctx: cells.flag_empty_on_unsure_sheet(
        cells.flag_unplaced(results, ctx.placement, ctx.tolerated_mm), ctx.placement)),
    CellPass(Pass.TOTALS, lambda results, ctx: cells.check_totals(results, ctx.totals)),
)


@dataclass(frozen=True)
class PassRun:
    """The cells after each pass (by its name), and in the end."""

    after: dict[Pass, tuple[CellResult, ...]]
    cells: tuple[CellResult, ...]

    @property
    def unchecked(self) -> tuple[CellResult, ...]:
        """The cells before the written totals weighed in."""
        return self.after[Pass.PLACEMENT]


def run_passes(results: Sequence[CellResult], ctx: PassContext,
               passes: Sequence[CellPass] = CELL_PASSES) -> PassRun:
    """Every pass in order over the cells as read; held verdicts stand in the end."""
    after: dict[Pass, tuple[CellResult, ...]] = {}
    current = list(results)
    for p in passes:
        current = p.run(current, ctx)
        after[p.name] = tuple(current)
    return PassRun(after, tuple(cells.settle_held(current)))
