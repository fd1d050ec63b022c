"""scan.passes: the one ordered list of cell passes that decides "certain", each decision
recorded, and the settings objects the stages read their tuned values from."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from escalero.scan.cells import (
    CUTTING,
    TOTALS,
    CellResult,
    Column,
    ConfirmRule,
    CuttingSettings,
    Decision,
    Pass,
    TotalsSettings,
    check_column,
)
from escalero.scan.grid import PLACEMENT
from escalero.scan.passes import CELL_PASSES, PassContext, run_passes
from escalero.scan.payout import PAYOUT, PayoutSettings
from escalero.scan.pipeline import ScanOptions, read_cells
from escalero.scan.recognize import (
    READING,
    Capability,
    CellCrop,
    DigitModelRecognizer,
    ReadingSettings,
)
from escalero.scan.tesseract_reader import TesseractRecognizer
from escalero.scoring.certainty import CERTAINTY, CertaintySettings
from escalero.scoring.model import TOTAL_ROW
from scan_support import InkRecognizer

ORDER = [Pass.READING, Pass.SECOND_LOOK, Pass.SAME_HAND, Pass.PLACEMENT, Pass.TOTALS]


def _cell(row: str, value, conf: float, certain: bool, alts=(), place_mm: float = 0.0
          ) -> CellResult:
    return CellResult(0, 0, row, value, conf, tuple(alts), certain, (0, 0, 10, 10),
                      place_mm=place_mm, reasons=(Decision(Pass.READING, certain),))


def _context(n: int, px_per_mm: list[float] | None = None) -> PassContext:
    blank = np.full((110, 145, 3), 255, np.uint8)  # paper only: no mark to look at twice
    crops = [CellCrop(blank, (1, 2, 3, 4, 5), (15, 15, 115, 80))] * n
    return PassContext(crops, px_per_mm or [10.0] * n, CUTTING, PLACEMENT, TOTALS)


def test_the_cell_passes_run_in_one_order() -> None:
    assert [p.name for p in CELL_PASSES] == ORDER
    cells = [_cell("nines", 3, 0.999, True), _cell(TOTAL_ROW, 3, 0.999, True)]
    run = run_passes(cells, _context(len(cells)))
    assert list(run.after) == ORDER
    assert run.unchecked == run.after[Pass.PLACEMENT]
    assert all(c.certain for c in run.cells)


def test_every_decision_is_recorded_with_its_pass() -> None:
    # The tens (4 at 0.9, or 6) is placed 2 mm loosely: the placement holds it unsure, the
    # agreeing total confirms it on the way, and the hold stands in the end. The nines of
    # the next column (no total) are shown too small in the photo.
    cells = [replace(_cell("nines", 3, 0.999, True), column=1),
             _cell("nines", 3, 0.999, True),
             _cell("tens", 4, 0.9, False, [(6, 0.05)], place_mm=2.0),
             _cell(TOTAL_ROW, 7, 0.999, True)]
    run = run_passes(cells, _context(4, [2.0, 10.0, 10.0, 10.0]))
    nines, _, tens, total = run.cells
    assert [(d.by, d.certain) for d in nines.reasons] == [(Pass.READING, True),
                                                          (Pass.READING, False)]
    assert nines.note is not None and nines.note.key == "too_small"
    assert [(d.by, d.certain) for d in tens.reasons] == [
        (Pass.READING, False), (Pass.TOTALS, True), (Pass.PLACEMENT, False)]
    assert not tens.certain and tens.note is not None and tens.note.key == "place_unsure"
    assert run.unchecked[2].held == tens.held and not run.unchecked[2].certain
    assert total.certain and total.reasons == (Decision(Pass.READING, True),)


def test_a_blurred_photo_is_read_with_no_cell_certain() -> None:
    """A total that agrees may not vouch for a cell of a blurred photo: the hold stands."""
    cells = [_cell("nines", 3, 0.999, True), _cell("tens", 4, 0.999, True),
             _cell(TOTAL_ROW, 7, 0.999, True)]
    run = run_passes(cells, replace(_context(3), blurred=True))
    assert not any(c.certain for c in run.cells)
    assert {c.note.key for c in run.cells if c.note is not None} == {"blurred"}
    assert [c.value for c in run.cells] == [3, 4, 7]  # read as they were, only not sure


def test_the_totals_check_works_on_a_column() -> None:
    column = Column((_cell("nines", 3, 0.999, True), _cell("tens", 4, 0.9, False, [(6, 0.05)])),
                    _cell(TOTAL_ROW, 7, 0.999, True))
    assert column.unsure == (1,) and column.known == 3
    checked = check_column(column)
    assert checked.cells[1].certain and checked.cells[1].note.key == "confirmed_by_total"
    assert checked.cells[0] == column.cells[0] and checked.total == column.total
    # The same cell whose digit this sheet's hand writes like another needs a strike's 0.999.
    alike = check_column(replace(column, cells=(column.cells[0], replace(
        column.cells[1], written_like=("4", "6")))))
    assert not alike.cells[1].certain


def test_settings_are_checked_and_carried_by_the_scan_options() -> None:
    options = ScanOptions()
    assert (options.cutting, options.reading, options.totals, options.payout) == (
        CUTTING, READING, TOTALS, PAYOUT)
    assert options.payout.certainty == CERTAINTY
    with pytest.raises(ValueError, match="real_photo_accept <= lookalike_accept"):
        ReadingSettings(lookalike_accept=0.98)
    with pytest.raises(ValueError, match="suspect"):
        TotalsSettings(suspect=-1.0)
    with pytest.raises(ValueError, match="probability"):
        ConfirmRule(posterior=1.5)
    with pytest.raises(ValueError, match="small_px_per_mm"):
        CuttingSettings(small_px_per_mm=0.0)
    with pytest.raises(ValueError, match="accept"):
        CertaintySettings(accept=0.0)
    with pytest.raises(ValueError, match="unheld"):
        PayoutSettings(unheld=1.0)


def test_a_reading_setting_reaches_the_recognizer() -> None:
    """A benchmark varies a threshold through the settings, not by patching a module."""
    strict = replace(READING, real_photo_accept=0.995, lookalike_accept=0.998,
                     struck_lookalike_accept=0.999)
    reader = DigitModelRecognizer(settings=strict)
    assert reader.calibration.accept >= 0.995
    assert DigitModelRecognizer().calibration.accept < 0.995


def test_a_recognizer_declares_what_it_offers() -> None:
    assert DigitModelRecognizer.capabilities == {Capability.FEATURES, Capability.CALIBRATED}
    assert TesseractRecognizer.capabilities == frozenset()
    # Without features, adaptation reads as the recognizer does.
    blank = np.full((110, 145, 3), 255, np.uint8)
    crops = [CellCrop(blank, (1, 2, 3), (15, 15, 115, 80))]
    ink = InkRecognizer()
    assert read_cells(ink, crops, adapt=True) == ink.read(crops)


def test_no_empty_cell_is_certain_where_most_of_the_sheet_is_unsure() -> None:
    """Six of ten cells unsure: the certain empty ones may hold writing the reader or the
    crop missed, so they are held unsure to the end; certain numbers stay certain. With
    four of ten unsure, the empty cells stay certain."""
    rows = ["nines", "tens", "jacks", "queens", "kings", "aces", "straight", "full_house",
            "poker", "grande"]

    def sheet(unsure: int) -> list[CellResult]:
        return [_cell(row, None if i % 2 else 6, 0.99 if i >= unsure else 0.5, i >= unsure)
                for i, row in enumerate(rows)]

    run = run_passes(sheet(6), _context(10))
    assert [c.certain for c in run.cells] == [False] * 6 + [True, False, True, False]
    held = run.cells[7]
    assert held.held is not None and held.note is not None and held.note.key == "unsure_sheet"
    assert [c.certain for c in run_passes(sheet(4), _context(10)).cells] \
        == [False] * 4 + [True] * 6
    with pytest.raises(ValueError):
        replace(PLACEMENT, most_unsure_share=0.0)
