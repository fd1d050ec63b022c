"""scan.ruled: the table of a sheet this project did not print, found by its own lines."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest
from escalero.samples.foreign import draw_table
from escalero.scan import ruled
from escalero.scan.cells import CellCrop
from escalero.scan.geometry import TOTAL_ROW
from escalero.scan.recognize import CellReading

PPM = 5.0  # px per mm of the drawn test pages


def _page(kind: str, sides: int, seed: int, squared: bool = False,
          page_mm: tuple[float, float] = (148.0, 210.0)) -> tuple[np.ndarray, np.ndarray]:
    page, _table = draw_table(np.random.default_rng(seed), kind, sides, page_mm, PPM, squared)
    h, w = page.shape[:2]
    # On a dark table, so that the paper's edge is an edge and not a line.
    framed = cv2.copyMakeBorder(page, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 50, 40))
    outline = np.array([[40, 40], [40 + w, 40], [40 + w, 40 + h], [40, 40 + h]], np.float32)
    return framed, outline


@pytest.mark.parametrize(("kind", "sides", "squared"),
                         [("block", 2, False), ("block", 3, False), ("hand", 2, True),
                          ("hand", 2, False)])
def test_finds_every_line_of_the_table(kind: str, sides: int, squared: bool) -> None:
    image, outline = _page(kind, sides, seed=3, squared=squared)
    tables = ruled.find_tables(image, outline)
    assert tables, "no table found"
    # Header, ten rows and the total: 13 lines; the labels' column and 3 per side.
    assert {(len(t.rows), len(t.cols)) for t in tables} == {(13, 2 + 3 * sides)}


def test_maps_rows_in_order_and_sides_from_the_columns() -> None:
    image, outline = _page("block", 3, seed=5)
    table = ruled.find_tables(image, outline)[0]
    sheet = ruled.foreign_sheet(table, outline)
    assert sheet is not None and sheet.sides == 3 and sheet.header_rows == 1
    slots = sheet.geometry.slots
    assert len(slots) == 3 * 3 * 11
    # Down a column the rows follow the game's order, the total last, each below the last.
    column = [s for s in slots if s.side == 1 and s.column == 2]
    assert [s.row for s in column][-1] == TOTAL_ROW and column[0].row == "nines"
    ys = [s.box[1] for s in column]
    assert ys == sorted(ys)
    # Rows are ROW_MM apart in the virtual frame; a straight printed line is sure.
    assert np.median(np.diff(ys)) == pytest.approx(ruled.ROW_MM, rel=0.05)
    assert max(s.uncertainty_mm for s in sheet.snapped) <= 0.5


def test_named_sides_must_match_the_columns() -> None:
    image, outline = _page("block", 2, seed=7)
    table = ruled.find_tables(image, outline)[0]
    assert ruled.foreign_sheet(table, outline, sides=3) is None
    assert ruled.foreign_sheet(table, outline, sides=2) is not None


def test_half_turn_twice_is_the_table() -> None:
    image, outline = _page("hand", 2, seed=11)
    table = ruled.find_tables(image, outline)[0]
    back = ruled.half_turn(ruled.half_turn(table))
    assert np.allclose(back.to_photo, table.to_photo)
    assert all(a == pytest.approx(b) for a, b in zip(back.rows, table.rows, strict=True))


def test_squared_paper_alone_is_no_table() -> None:
    page = np.full((round(210 * PPM), round(148 * PPM), 3), 245, np.uint8)
    for v in np.arange(0, 210, 5.0):
        cv2.line(page, (0, round(v * PPM)), (page.shape[1], round(v * PPM)), (215, 200, 190), 1)
    for v in np.arange(0, 148, 5.0):
        cv2.line(page, (round(v * PPM), 0), (round(v * PPM), page.shape[0]), (215, 200, 190), 1)
    h, w = page.shape[:2]
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    assert ruled.find_tables(page, outline) == []


def test_the_table_lines_are_painted_over() -> None:
    image, outline = _page("block", 2, seed=5)
    table = ruled.find_tables(image, outline)[0]
    sheet = ruled.foreign_sheet(table, outline)
    assert sheet is not None
    painted = ruled.paint_lines(image, table, sheet.scale)
    dark_before = ruled.darkness(image) > 0.3
    dark_after = ruled.darkness(painted) > 0.3
    assert dark_after.sum() < 0.5 * dark_before.sum()  # the lines are most of the print


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="min_darkness"):
        ruled.RuledSettings(min_darkness=1.5)
    with pytest.raises(ValueError, match="strips"):
        ruled.RuledSettings(strips=3)


def _ruled_page(tone: Callable[[int, float], int]) -> tuple[np.ndarray, np.ndarray]:
    """A plain table (13 row lines, 8 column lines) on white paper, each row line drawn
    in pieces whose grey `tone(line, share of the way across)` gives."""
    page = np.full((1000, 700, 3), 245, np.uint8)
    xs = np.linspace(60, 640, 8).round().astype(int)
    ys = np.linspace(150, 850, 13).round().astype(int)
    for x in xs:
        cv2.line(page, (int(x), int(ys[0]) - 5), (int(x), int(ys[-1]) + 5), (90, 90, 90), 2)
    for i, y in enumerate(ys):
        edges = np.linspace(xs[0] - 5, xs[-1] + 5, 11).round().astype(int)
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            g = tone(i, (a - edges[0]) / (edges[-1] - edges[0]))
            cv2.line(page, (int(a), int(y)), (int(b), int(y)), (g, g, g), 2)
    framed = cv2.copyMakeBorder(page, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 50, 40))
    outline = np.array([[40, 40], [740, 40], [740, 1040], [40, 1040]], np.float32)
    return framed, outline


def test_a_line_that_fades_along_the_page_is_one_line() -> None:
    """A pen's line darkens and fades along the page by more than twice: on every other
    row line the dark start gives way to a faint rest. Each is still one line."""
    image, outline = _ruled_page(lambda i, t: 40 if i % 2 and t < 0.3 else
                                 165 if i % 2 else 110)
    tables = ruled.find_tables(image, outline)
    assert {(len(t.rows), len(t.cols)) for t in tables} == {(13, 8)}


class _Reads:
    """A stand-in reader: every entry reads as `entry`, every total as `total`, surely."""

    def __init__(self, entry: int, total: int) -> None:
        self.entry, self.total = entry, total

    def read(self, crops: list[CellCrop]) -> list[CellReading]:
        return [CellReading("value", self.total if c.allowed is None else self.entry, 0.99, (),
                            True) for c in crops]


def _sheets(seed: int) -> tuple[np.ndarray, list[ruled.ForeignSheet]]:
    image, outline = _page("hand", 2, seed=seed)
    sheets = [s for t in ruled.find_tables(image, outline)
              if (s := ruled.foreign_sheet(t, outline)) is not None]
    assert len(sheets) >= 1
    return ruled.paint_lines(image, sheets[0].table, sheets[0].scale), sheets


def test_totals_that_match_no_column_leave_the_mapping_in_doubt() -> None:
    """Written totals that are the sum of no column's entries, whichever way up: the rows
    and sides may be mapped wrong, so every box is flagged and a warning says why."""
    painted, sheets = _sheets(seed=11)
    ways = [ruled.WayUp(s) for s in sheets]
    sheet = ruled._upright(painted, ways, _Reads(entry=4, total=7), "en")
    assert all(s.uncertainty_mm >= ruled.ROW_MM for s in sheet.snapped)
    assert any("could not be told for sure" in w for w in sheet.warnings)


def test_totals_that_match_their_columns_leave_the_mapping_as_found() -> None:
    painted, sheets = _sheets(seed=11)
    sheet = ruled._upright(painted, [ruled.WayUp(sheets[0])], _Reads(entry=4, total=40), "en")
    assert sheet is sheets[0]
    assert max(s.uncertainty_mm for s in sheet.snapped) < ruled.ROW_MM


def test_columns_that_count_one_side_leave_the_mapping_in_doubt() -> None:
    """At least two sides play: a table whose columns count one side has lost lines (every
    other column line missed read two sides as one, and paid out certain and wrong), so
    every box is flagged, the payout is never certain and a warning says why. A side the
    player names stands as named."""
    image, outline = _page("block", 1, seed=9)
    table = ruled.find_tables(image, outline)[0]
    sheet = ruled.foreign_sheet(table, outline, lang="en")
    assert sheet is not None and sheet.sides == 1 and sheet.doubtful
    assert all(s.uncertainty_mm >= ruled.ROW_MM for s in sheet.snapped)
    assert any("Only one side's columns" in w for w in sheet.warnings)
    named = ruled.foreign_sheet(table, outline, sides=1)
    assert named is not None and not named.doubtful


def test_a_doubtful_mapping_is_marked_on_the_sheet() -> None:
    painted, sheets = _sheets(seed=11)
    ways = [ruled.WayUp(s) for s in sheets]
    assert ruled._upright(painted, ways, _Reads(entry=4, total=7), "en").doubtful
    assert not ruled._upright(painted, ways[:1], _Reads(entry=4, total=40), "en").doubtful


def test_a_doubtful_foreign_sheet_never_pays_out_certain() -> None:
    from escalero.scan.pipeline import ScanOptions, scan_image

    image, _outline = _page("block", 1, seed=9)
    result = scan_image(image, ScanOptions(lang="en"))
    assert result.layout_source == "grid"
    assert any("Only one side's columns" in w for w in result.warnings)
    assert not result.certainty.certain
    assert not any(c.certain for c in result.cells)


def test_sides_counted_from_the_columns_leave_the_payout_unsure() -> None:
    """A side whose lines were all missed leaves no trace, so a payout over sides counted
    from the columns is not certain; sides the player names are not counted."""
    from escalero.scan.pipeline import ScanOptions, scan_image

    image, outline = _page("block", 2, seed=7)
    table = ruled.find_tables(image, outline)[0]
    counted = ruled.foreign_sheet(table, outline)
    named = ruled.foreign_sheet(table, outline, sides=2)
    assert counted is not None and counted.sides_counted and not counted.doubtful
    assert named is not None and not named.sides_counted
    assert not scan_image(image, ScanOptions(lang="en")).certainty.certain


def _row_mids(table: ruled.RuledTable) -> list[float]:
    return [float(np.median(list(t.values()))) for t in table.rows]


def _last_line_y(table: ruled.RuledTable) -> float:
    """The photo y of the table's last row line, halfway across the copy."""
    x = table.size[0] / 2
    y = float(ruled._at(table.rows[-1], table.strip_x, x))
    return float(cv2.perspectiveTransform(np.array([[[x, y]]]), table.to_photo)[0, 0, 1])


def test_a_table_without_a_line_under_its_totals_gets_one() -> None:
    """Without the line under its totals, a table's lines make the game's rows only: its
    names' row would be taken for the first game row. One mapping adds the missing line a
    row's pitch below the last, where the whole table's had been."""
    whole = ruled.find_tables(*_ruled_page(lambda i, t: 110))[0]
    image, outline = _ruled_page(lambda i, t: 245 if i == 12 else 110)
    table = ruled.find_tables(image, outline)[0]
    assert len(table.rows) == 12
    mappings = ruled.row_mappings(table, n_game=11)
    assert mappings[0] is table  # the table as found comes first
    added = [m for m in mappings if len(m.rows) == 13]
    assert len(added) == 1
    # In photo px (each table's flat copy has its own frame): ys 150-850 drawn, 58 apart.
    assert _last_line_y(added[0]) == pytest.approx(_last_line_y(whole), abs=6.0)
    sheet = ruled.foreign_sheet(added[0], outline)
    assert sheet is not None and sheet.header_rows == 1


def test_a_stroke_across_a_row_is_no_row_line() -> None:
    """A long stroke through a row (a Grande struck across the columns) is found as a line
    and splits the row into two thin bands; one mapping leaves it out."""
    image, outline = _ruled_page(lambda i, t: 110)
    whole = ruled.find_tables(image, outline)[0]
    y = 40 + round((150 + 700 * 10 / 12 + 150 + 700 * 11 / 12) / 2)  # inside the 11th band
    cv2.line(image, (95, y), (685, y), (90, 90, 90), 2)
    table = ruled.find_tables(image, outline)[0]
    assert len(table.rows) == 14
    merged = ruled.without_split_rows(table)
    assert merged is not None and len(merged.rows) == 13
    assert _row_mids(merged) == pytest.approx(_row_mids(whole), abs=3.0)
    assert ruled.without_split_rows(whole) is None
    assert any(len(m.rows) == 13 for m in ruled.row_mappings(table, n_game=11))


def test_lines_below_the_table_are_left_out_in_one_mapping() -> None:
    table = ruled.find_tables(*_ruled_page(lambda i, t: 110))[0]
    counts = [len(m.rows) for m in ruled.row_mappings(table, n_game=11)]
    assert counts == [13, 12]  # as found (one header row), and the last line left out


def test_of_mappings_that_read_alike_the_one_as_found_stays() -> None:
    """Rows shifted by one read as surely as the right ones: only written totals that
    agree with more columns make another mapping win."""
    painted, sheets = _sheets(seed=11)
    table = sheets[0].table
    mappings = [s for m in ruled.row_mappings(table, n_game=11)
                if (s := ruled.foreign_sheet(m, sheets[0].outline)) is not None]
    assert len(mappings) >= 2
    # Each reads with every column adding up: the one as found stays, and the others
    # are not even made.
    made: list[int] = []
    way = ruled.WayUp(mappings[0], lambda: made.append(1) or mappings[1:])
    _, chosen = ruled._best_mapping(painted, way, _Reads(entry=4, total=40))
    assert chosen is mappings[0] and not made
    # Where none adds up, the others are read, and on a tie the one as found stays.
    way = ruled.WayUp(mappings[0], lambda: made.append(1) or mappings[1:])
    _, chosen = ruled._best_mapping(painted, way, _Reads(entry=4, total=7))
    assert chosen is mappings[0] and made


def test_a_sliver_of_an_outline_holds_no_table_and_does_not_crash() -> None:
    """An outline a few pixels thin (pub photo 9600000-070: a 9 x 1400 px flat copy, its
    strips empty) finds no table instead of raising IndexError."""
    image = np.full((800, 600, 3), 230, np.uint8)
    sliver = np.array([[100, 100], [500, 100], [500, 103], [100, 103]], np.float64)
    settings = ruled.RuledSettings()
    flat, _ = ruled._flat_copy(image, sliver, settings, ordered=True)
    assert min(flat.shape[:2]) < settings.strips  # narrower than the strips: some are empty
    assert ruled._pass(image, sliver, settings, ordered=True) == []
