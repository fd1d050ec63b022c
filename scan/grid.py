"""Stage 3b: snap every cell onto its printed light-red grid lines on the flat sheet.

The homography from the markers is exact only where the paper is flat. Each cell's box is
moved onto the grid lines found next to it, so a bent sheet still cuts clean cells; a grid
that is not where the layout puts it (a wrong layout, a folded sheet) is refused.

The lines are looked for on the grid's region of the flat page only, at LineSearchSettings.px_per_mm
(warped straight from the photo, or shrunk from a flat page); every cell's four lines are
searched in one pass over an integral image of the lines' strength.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import cv2
import numpy as np
from escalero.scan.geometry import Box, SheetGeometry, Slot
from escalero.scan.imaging import MAD_TO_SIGMA
from escalero.scan.rectify import PX_PER_MM, PageView, Rectified, page_px
from escalero.scoring.errors import Reason, UnreadableSheetError

from escalero.i18n import N_


@dataclass(frozen=True)
class LineSearchSettings:
    """Where the grid lines are looked for and when a peak is a line: the line search's
    values (PlacementSettings.lines carries them). None is fitted to data: each was set by
    hand when the search was written (the commit named), unless it says otherwise."""

    # 0.2 mm a pixel: the 0.14 mm grid lines still stand out along a cell's edge, and the
    # search costs a quarter of what it does at the crops' 10 px/mm (3fd15c8).
    px_per_mm: float = 5.0
    # The paper's level: a 5 x 5 median of values 0.8 mm apart (4 mm) (3fd15c8).
    paper_px_per_mm: float = 1.25
    search_mm: float = 2.5  # how far a line may sit from where the homography puts it (6ffcd46)
    min_lines_found: float = 0.5  # share of cells showing both lines, each direction (6ffcd46)
    # Below this share of cells placed by the grid's colour, its shade is tried as well: on
    # the harsh bench the colour placed 50-90% of the cells on a third of the colour photos
    # (red ink taken for print, casts, shadows), where the shade mostly placed more, and
    # right (b19a588).
    clear_share: float = 0.9
    max_stretch_mm: float = 0.8  # opposite lines of one cell move apart at most this (008d232)
    # Mean redness per pixel along a grid line (clean print: 10-30) (6e6aff8).
    min_line_strength: float = 2.0
    line_snr: float = 5.0  # a line's peak over the profile's robust noise (6e6aff8)
    min_seeds: float = 0.1  # share of cells that must sit where the homography puts them (6e6aff8)
    max_bend_mm: float = 12.0  # how far bending may move a cell off the homography (6e6aff8)
    # A pixel darker than this share of the paper's level is ink or shadow, never the light
    # print: it adds no line strength (23f8a91).
    ink_share: float = 0.55
    # A line's profile sums its edge less this share at each end, where the crossing lines
    # and the neighbours' ink are (the middle 70%) (23f8a91).
    edge_trim: float = 0.15
    # Redness (line_strength's score) and darkness (shade_strength's) above these, over a
    # stroke's breadth (what a 3 x 3 erosion leaves), are ink, never the light print; so is
    # dark ink that is reddish. It and everything within ink_rim_mm of it add no line
    # strength (_without_ink_rims). Set by hand on pub photo 11500000-013 (a red hand) and
    # checked on the 39 mild 3-side photos of seed 11600000 where a first version (no
    # erosion, redness 40) flagged 54 more cells: they flag as before.
    max_print_strength: float = 25.0
    max_print_shade: float = 20.0
    ink_rim_mm: float = 0.8
    # An edge where no line stands out is looked at again with its profile summed over
    # this width: a blurred photo's line, spread over 1 mm and more (0: not looked for).
    # Believed only where the first search finds at least min_blurred_share of all edges
    # so: a blurred photo blurs every line, and a few edges found only so were something
    # else. Set by hand on pub photos 11900000-009, -065, -069 (pink lines a person sees,
    # no cell placed by them; now 91% and 44% in both directions, -069 83% sideways only)
    # and 11500000-078, -092, -102 (a faded grid
    # where 1.5-4% of the edges found so were up to 4.4 mm off); checked on the first 80
    # photos of pub 11900000 and all of 11500000 (benchmarks.scan).
    blurred_line_mm: float = 1.0
    min_blurred_share: float = 0.1
    # The summed profile's line must stand this far over its noise (twice line_snr: the
    # faded grids' spurious finds stood 10-20 over theirs). Set by hand with the above.
    blurred_line_snr: float = 10.0
    # The cells the first search and the spread leave unplaced are searched again around
    # the offset of their column's (row's) lines within comb_span_mm summed as one comb,
    # looked for up to comb_mm off, and never beyond comb_pitch_share of the cells'
    # spacing (0: not looked for). Set by hand on pub photos 11500000-020 and
    # 12000000-101 (a visible grid 3-4 mm from the homography's place).
    comb_mm: float = 6.0
    comb_span_mm: float = 40.0
    comb_pitch_share: float = 0.4
    comb_ink_share: float = 0.8
    comb_min_cells: int = 4  # fewer cells placed so on an axis: none is believed

    def __post_init__(self) -> None:
        for name in ("px_per_mm", "paper_px_per_mm", "search_mm", "max_stretch_mm",
                     "min_line_strength", "line_snr", "max_bend_mm", "max_print_strength",
                     "max_print_shade", "ink_rim_mm", "blurred_line_snr"):
            if getattr(self, name) <= 0:
                raise ValueError(f"LineSearchSettings.{name} must be positive, "
                                 f"got {getattr(self, name)}")
        if self.blurred_line_mm < 0 or self.comb_mm < 0:
            raise ValueError("LineSearchSettings.blurred_line_mm and comb_mm must be >= 0 "
                             "(0: off)")
        if self.comb_span_mm <= 0 or not 0 < self.comb_pitch_share < 0.5 \
                or self.comb_min_cells < 1:
            raise ValueError("LineSearchSettings: need comb_span_mm > 0, comb_min_cells >= 1 "
                             "and 0 < comb_pitch_share < 0.5 (a comb locks a whole row off "
                             "beyond)")
        for name in ("min_lines_found", "clear_share", "min_seeds", "ink_share",
                     "min_blurred_share", "comb_ink_share"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"LineSearchSettings.{name} must be a share in [0, 1], "
                                 f"got {getattr(self, name)}")
        if self.paper_px_per_mm > self.px_per_mm:
            raise ValueError("LineSearchSettings: need paper_px_per_mm <= px_per_mm")
        if not 0 <= self.edge_trim < 0.5:
            raise ValueError(f"LineSearchSettings.edge_trim must lie in [0, 0.5), got "
                             f"{self.edge_trim}")

    @property
    def full_pad_mm(self) -> float:
        """The grid's region, wide enough for any cell."""
        return self.search_mm + self.max_bend_mm + 2.0

    @property
    def core_pad_mm(self) -> float:
        """...and where the paper lies flat: the search past the outer cells' lines (and the
        0.5 mm inset) and the reach of the paper's level (~3 mm: its median and blocks)."""
        return self.search_mm + 4.0


LINE_SEARCH = LineSearchSettings()

@dataclass(frozen=True)
class PlacementSettings:
    """How sure a cell's placement is, and when it is too unsure to be certain: the
    placement stage's fitted values (ScanOptions.placement carries them, so a benchmark
    can vary one). Each field says what it was fitted on; all are in mm unless named."""

    # On a cell's own two lines / one line of a pair: the line search's own spread
    # (benchmarks.scan placement table, mild 7300000: 0.12 mm median, 0.26 mm p99).
    found_mm: float = 0.2
    one_line_mm: float = 0.4
    # A cell placed from its neighbours is as unsure as the sheet's own placed cells
    # move apart (mm per mm, their bend_quantile), within these. Fitted on the placement
    # table: a fixed 0.02 left cells 0.6-1 mm unsure 1.8 mm off (median) on pub 7100000 (its
    # in-plane sine); a fixed 0.05 cost a 2-side harsh sheet 1.3 flags (7400000), where such
    # cells were 0.3 mm off. 0.1: the pub level's sine at its steepest.
    bend_per_mm: float = 0.02
    max_bend_per_mm: float = 0.1
    bend_quantile: float = 0.9
    # No line of that direction anywhere: the homography alone. Pub 7100000: such cells
    # 1.5 mm off (median), 5.6 mm p99; they are flagged at any value above the window.
    homography_mm: float = 2.5
    # A cell whose lines moved this much more than the median of its placed neighbours (at
    # least min_neighbours) found something else (harsh 7400000: a cast shadow's edge taken
    # for a column's lines in grey photos, 3 mm off). Neighbours 10-20 mm apart differ by
    # at most 0.1 mm per mm on the pub level's sine.
    consistent_mm: float = 1.2
    min_neighbours: int = 3
    # Fewer cells placed by their own lines on an axis: none of them is believed (a lone
    # find in a grid that does not show is something else). Set by hand on pub photo
    # 12000000-101.
    min_placed: int = 3
    # The window a box may be off by and its reading still be certain: benchmarks.offset
    # (boxes moved 0-3 mm; 40 photos, mild 7210000, 3 sides) read as many written cells
    # right at 2 mm as in place, but from 1.5 mm on one of ~2,600 certain readings was
    # wrong (0.04%, over the 0.02% the accept threshold is fitted for), and written totals
    # fell from 95% to 91% right at 2 mm. Beyond it a cell is read, not certain.
    max_uncertain_mm: float = 1.0
    # A certain reading of a cell unsure by more than max_uncertain_mm and at most this
    # stays certain where the cell reads the same with its box moved by its whole
    # uncertainty left, right, up and down (scan.shifted). 3.0 takes in the homography's
    # 2.5; pub 7600000 (first 60 photos, committed reader): flags per sheet 32.8 -> 15.9,
    # no sheet with a silent error before or after. Not fitted: chosen by hand.
    shifted_reach_mm: float = 3.0
    # A moved box's reading replaces an unsure first reading only this much surer
    # (scan.shifted.reaim): set by hand on pub 7600000 (first 40 photos), where boxes
    # placed by the homography alone lay up to 7 mm off and the first reading of a cut-off
    # digit said "empty" or "struck" (d97142b).
    reaim_gain: float = 0.2
    # A sheet with more than this share of its cells unsure after the placement pass has
    # no empty cell certain (cells.flag_empty_on_unsure_sheet). Set by hand on fresh pub
    # photos 14400000-081 (97% unsure: a Buben 6 in faint pencil read as empty, sure of
    # it) and 14200000-044 with the release before (81% unsure: a Grande 50 and an Aces 6
    # cut off by boxes placed 4-6 mm off, read as empty); mild sheets stay far below it.
    most_unsure_share: float = 0.5
    # Where the grid lines are looked for, and when a peak is one.
    lines: LineSearchSettings = LINE_SEARCH

    def __post_init__(self) -> None:
        if not 0 < self.found_mm <= self.one_line_mm <= self.max_uncertain_mm:
            raise ValueError("placement: need 0 < found_mm <= one_line_mm <= max_uncertain_mm")
        if self.shifted_reach_mm < self.max_uncertain_mm:
            raise ValueError("placement: need shifted_reach_mm >= max_uncertain_mm")
        if not 0 < self.bend_per_mm <= self.max_bend_per_mm or not 0 < self.bend_quantile <= 1:
            raise ValueError("placement: need 0 < bend_per_mm <= max_bend_per_mm and a "
                             "bend_quantile in (0, 1]")
        if self.homography_mm <= 0 or self.consistent_mm <= 0 or self.min_neighbours < 1 \
                or self.min_placed < 1:
            raise ValueError("placement: homography_mm, consistent_mm, min_neighbours and "
                             "min_placed must be positive")
        if not 0 <= self.reaim_gain <= 1:
            raise ValueError(f"placement: reaim_gain must lie in [0, 1], got {self.reaim_gain}")
        if not 0 < self.most_unsure_share <= 1:
            raise ValueError("placement: most_unsure_share must lie in (0, 1], got "
                             f"{self.most_unsure_share}")


PLACEMENT = PlacementSettings()

GRID_MISSING = N_("the printed grid is not where the layout puts it: photograph the whole "
                  "sheet flat, or check --game/--players/--variant")


@dataclass(frozen=True)
class SnappedSlot:
    slot: Slot
    box: Box  # refined writable box, mm
    shift_mm: float  # how far the refinement moved it (largest edge move)
    edges_found: int  # 0-4 grid lines found around it
    uncertainty_mm: float = 0.0  # how far the box may still be off its printed place
    # Per axis (x, y): placed by its own lines, and how far it may be off on that axis.
    own: tuple[bool, bool] = (False, False)
    axis_mm: tuple[float, float] = (0.0, 0.0)


def _eight_bit(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """`values` (range lo..hi) as 8 bits for OpenCV's fast medians: truncated, not rounded
    (OpenCV rounds: hence the half step off, short of ties), as the paper level always was;
    a step of chroma is most of a unit of line strength, so the rounding shows."""
    scale = 255.0 / (hi - lo)
    return cv2.addWeighted(values, scale, values, 0.0, -lo * scale - 0.499, dtype=cv2.CV_8U)


def _full_size(small: np.ndarray, lo: float, hi: float, step: int,
               shape: tuple[int, ...]) -> np.ndarray:
    """A level measured every `step` px (8 bits, range lo..hi) back at full size; past the
    last whole step it is carried on."""
    values = small.astype(np.float32) * np.float32((hi - lo) / 255.0) + np.float32(lo)
    level: np.ndarray = cv2.resize(values, (small.shape[1] * step, small.shape[0] * step),
                                   interpolation=cv2.INTER_LINEAR)
    h, w = shape[:2]
    if level.shape == (h, w):
        return level
    return cv2.copyMakeBorder(level, 0, max(0, h - level.shape[0]), 0,
                              max(0, w - level.shape[1]), cv2.BORDER_REPLICATE)[:h, :w]


def _paper_chroma(chroma: np.ndarray, px_per_mm: float, paper_px_per_mm: float
                  ) -> np.ndarray:
    """The paper's colour, blind to ink and lines: a 5 x 5 median (1 mm: the thin grid lines
    and the grain are gone from it), sampled every 0.8 mm, and a 5 x 5 median of those
    (4 mm). A mean would be pulled by dark blue ink, making the paper next to it look red;
    means of blocks would mix the lines into it and weaken them."""
    step = max(1, round(px_per_mm / paper_px_per_mm))
    q = cv2.medianBlur(_eight_bit(chroma, -1.0, 1.0), 5)
    samples = np.ascontiguousarray(q[step // 2::step, step // 2::step])
    return _full_size(cv2.medianBlur(samples, 5), -1.0, 1.0, step, chroma.shape)


def _paper_lum(lum: np.ndarray, px_per_mm: float, paper_px_per_mm: float) -> np.ndarray:
    """The paper's brightness: a 3 x 3 median, means of 0.8 mm blocks, a 5 x 5 median of
    those (4 mm). (OpenCV's 3 x 3 and 5 x 5 medians are sorting networks, many times
    faster than larger ones.)"""
    step = max(1, round(px_per_mm / paper_px_per_mm))
    h, w = lum.shape
    hk, wk = max(1, h // step), max(1, w // step)
    q = cv2.medianBlur(_eight_bit(lum, 0.0, 255.0), 3)[:hk * step, :wk * step]
    blocks = cv2.resize(q, (wk, hk), interpolation=cv2.INTER_AREA)
    return _full_size(cv2.medianBlur(blocks, 5), 0.0, 255.0, step, lum.shape)


STRIPE_ROWS = 48  # per-pixel steps run this many rows at a time: they stay in the cache


def _stripes(height: int) -> list[slice]:
    return [slice(y, min(height, y + STRIPE_ROWS)) for y in range(0, height, STRIPE_ROWS)]


def line_strength(page: np.ndarray, px_per_mm: float = PX_PER_MM,
                  settings: LineSearchSettings = LINE_SEARCH) -> np.ndarray:
    """How much each pixel looks like the light-red grid print (ink and paper score ~0).

    Redness is measured relative to the paper around it, so a blue or warm colour cast
    does not matter; dark pixels (ink, shadows) are excluded, because the print is light.
    """
    chroma = np.empty(page.shape[:2], np.float32)
    lum = np.empty_like(chroma)
    for rows in _stripes(page.shape[0]):
        b, g, r = (c.astype(np.float32) for c in cv2.split(page[rows]))
        gb = g + b
        lum[rows] = (gb + r) * np.float32(1 / 3)
        chroma[rows] = (r - 0.5 * gb) / (lum[rows] + 1.0)
    paper_chroma = _paper_chroma(chroma, px_per_mm, settings.paper_px_per_mm)
    paper_lum = _paper_lum(lum, px_per_mm, settings.paper_px_per_mm)
    red = np.empty_like(chroma)
    ink = np.empty(chroma.shape, np.uint8)
    for rows in _stripes(page.shape[0]):
        stripe = cv2.addWeighted(chroma[rows], 100.0, paper_chroma[rows], -100.0, -3.0)
        dark = lum[rows] < settings.ink_share * paper_lum[rows]
        ink[rows] = (dark & (stripe > 0.0)) | (stripe > settings.max_print_strength)
        stripe[dark] = 0.0
        red[rows] = np.clip(stripe, 0.0, 255.0)
    return _without_ink_rims(red, ink, px_per_mm, settings)


def away_from_ink(page: np.ndarray, strength: np.ndarray, px_per_mm: float,
                  settings: LineSearchSettings = LINE_SEARCH) -> np.ndarray:
    """`strength` with none within ink_rim_mm of a pixel darker than comb_ink_share of the
    paper around it that is not the print's red: ink of any other colour, its blurred rim
    and all (a JPEG leaves red fringes round blue digits)."""
    lum = (page if page.ndim == 2 else cv2.cvtColor(page, cv2.COLOR_BGR2GRAY)).astype(np.float32)
    paper = _paper_lum(lum, px_per_mm, settings.paper_px_per_mm)
    ink = ((lum < settings.comb_ink_share * paper) & (strength <= 0.0)).astype(np.uint8)
    rim = max(1, int(round(settings.ink_rim_mm * px_per_mm)))
    out = strength.copy()
    out[cv2.dilate(ink, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0] = 0.0
    return out


def _without_ink_rims(strength: np.ndarray, ink: np.ndarray, px_per_mm: float,
                      settings: LineSearchSettings) -> np.ndarray:
    """`strength` with no strength on the ink (`ink`: 1 where a pixel is too strong for the
    print) or within ink_rim_mm of it: ink in the grid's colour (a red or brown hand) is
    redder, and any ink darker, than the light print can be, but its blurred rim is not,
    and a row of digits' tops near a cell's edge was taken for its line (pub photo
    11500000-013). Only a pen's stroke is broad: a sharp print's thin line is as strong,
    but a 3 x 3 erosion (0.6 mm at 5 px/mm) leaves nothing of it. (Dark ink of another
    colour adds no redness, rim and all: line_strength takes only its core off.)"""
    strokes = cv2.erode(ink, np.ones((3, 3), np.uint8))
    rim = max(1, int(round(settings.ink_rim_mm * px_per_mm)))
    strength[cv2.dilate(strokes, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0] = 0.0
    return strength


def is_gray(page: np.ndarray) -> bool:
    """True for a photo without colour (a grayscale JPEG, a 16-bit grey scan)."""
    if page.ndim == 2:
        return True
    sample = page[::7, ::7].astype(np.int16)
    return float(np.abs(sample[:, :, 2] - sample[:, :, 1]).mean()) < 1.5 and \
        float(np.abs(sample[:, :, 0] - sample[:, :, 1]).mean()) < 1.5


def shade_strength(page: np.ndarray, px_per_mm: float = PX_PER_MM,
                   settings: LineSearchSettings = LINE_SEARCH) -> np.ndarray:
    """How much each pixel looks like a grid line by its shade alone: a little darker than
    the paper around it (the light-red print in a grayscale photo). Ink is far darker and
    excluded, as in line_strength."""
    lum = np.empty(page.shape[:2], np.float32)
    for rows in _stripes(page.shape[0]):
        if page.ndim == 2:
            lum[rows] = page[rows]
        else:
            b, g, r = (c.astype(np.float32) for c in cv2.split(page[rows]))
            lum[rows] = (b + g + r) * np.float32(1 / 3)
    paper_lum = _paper_lum(lum, px_per_mm, settings.paper_px_per_mm)
    dark = np.empty_like(lum)
    ink = np.empty(lum.shape, np.uint8)
    for rows in _stripes(page.shape[0]):
        level, stripe = paper_lum[rows], lum[rows]
        out = (level - stripe) / (level + 1.0) * 100.0 - 3.0
        out[stripe < settings.ink_share * level] = 0.0
        ink[rows] = out > settings.max_print_shade
        dark[rows] = np.clip(out, 0.0, 255.0)
    return _without_ink_rims(dark, ink, px_per_mm, settings)


@dataclass(frozen=True)
class _Lines:
    """A grid view's line strength, as an integral image: any edge's profile in O(1)."""

    integral: np.ndarray  # (h + 1, w + 1) float64 prefix sums of the strength
    px_per_mm: float
    origin: tuple[int, int]  # page px (at px_per_mm) of the strength map's pixel (0, 0)
    left_view: list[bool] = field(default_factory=list)  # a search reached past the view
    settings: LineSearchSettings = LINE_SEARCH

    @staticmethod
    def of(strength: np.ndarray, view: PageView, settings: LineSearchSettings) -> _Lines:
        return _Lines(cv2.integral(strength, sdepth=cv2.CV_64F), view.px_per_mm, view.origin,
                      settings=settings)


def _profiles(lines: _Lines, pos_mm: np.ndarray, lo_mm: np.ndarray, hi_mm: np.ndarray,
              vertical: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each edge's profile across its line (the strength summed along the middle 70% of
    [lo, hi]), the profile's first index (px), the edge's expected place (px), the number of
    px summed, and whether the window lies inside the view: (profiles, a0, p, along, ok)."""
    ppm = lines.px_per_mm
    ox, oy = lines.origin
    half = int(round(lines.settings.search_mm * ppm))
    n_a = 2 * half + 1
    o_a, o_b = np.where(vertical, ox, oy), np.where(vertical, oy, ox)
    p = pos_mm * ppm - o_a
    a0 = np.round(p).astype(np.int64) - half
    span = hi_mm - lo_mm
    trim = lines.settings.edge_trim
    b0 = np.floor((lo_mm + trim * span) * ppm).astype(np.int64) - o_b
    b1 = np.floor((hi_mm - trim * span) * ppm).astype(np.int64) - o_b
    rows, cols = lines.integral.shape
    limit, other = np.where(vertical, cols - 1, rows - 1), np.where(vertical, rows - 1, cols - 1)
    ok = (a0 >= 0) & (a0 + n_a <= limit) & (b0 >= 0) & (b1 <= other) & (b1 > b0)
    if not ok.all():
        lines.left_view.append(True)
    a0, b0, b1 = np.where(ok, a0, 0), np.where(ok, b0, 0), np.where(ok, b1, 1)
    idx = a0[:, None] + np.arange(n_a + 1)[None, :]
    vert, lo, hi = vertical[:, None], b0[:, None], b1[:, None]
    # Sum over [b0, b1) along the edge of all px before each a: the differences along a
    # are the profile (a vertical edge's rows are b, a horizontal one's columns).
    ii = lines.integral
    sums = ii[np.where(vert, hi, idx), np.where(vert, idx, hi)] \
        - ii[np.where(vert, lo, idx), np.where(vert, idx, lo)]
    return np.diff(sums, axis=1), a0, p, b1 - b0, ok


def _peaks(profiles: np.ndarray, along: np.ndarray, settings: LineSearchSettings
           ) -> np.ndarray:
    """Sub-pixel index of the grid line in each perpendicular profile, NaN where none.

    The window may hold two lines (a neighbouring side's column, the Summe row): of
    the strong peaks, the one nearest the window's centre (the expected line) wins.
    Where no line stands out of a profile, it is looked for once more as a blurred line
    (settings.blurred_line_mm).
    """
    peak = _sharp_peaks(profiles, along, settings)
    width = int(round(settings.blurred_line_mm * settings.px_per_mm))
    missing = np.isnan(peak)
    if width < 2 or not missing.any():
        return peak
    # A blurred photo spreads the 0.14 mm line over 1 mm and more: its redness per pixel
    # falls under min_line_strength though its sum across the line is the same. Summed
    # over the blur's width, the profile shows it again (a matched filter), and its noise
    # less (the grain averages out).
    peak[missing] = _sharp_peaks(_summed(profiles[missing], width), along[missing], settings,
                                 margin=width // 2, snr=settings.blurred_line_snr)
    return peak


def _summed(profiles: np.ndarray, width: int) -> np.ndarray:
    """Each profile px summed with its width - 1 neighbours (centred), the same length."""
    half = width // 2
    padded = np.pad(profiles, ((0, 0), (half + 1, width - 1 - half)))
    running = np.cumsum(padded, axis=1)
    return running[:, width:] - running[:, :-width]


def _sharp_peaks(profiles: np.ndarray, along: np.ndarray, settings: LineSearchSettings,
                 margin: int = 0, snr: float | None = None) -> np.ndarray:
    """_peaks' test of each profile as it is; `margin`: px at each end the profile does
    not cover whole (a summed profile's ends), where no line is taken."""
    n, size = profiles.shape
    base = np.median(profiles, axis=1, keepdims=True)
    lift = profiles - base
    noise = MAD_TO_SIGMA * np.median(np.abs(lift), axis=1)
    top = lift.max(axis=1)
    # The line must stand out along most of the edge (mean strength per pixel) and
    # well above the profile's own noise (shadows, paper grain, ink).
    strong = (top / np.maximum(along, 1) >= settings.min_line_strength) & \
        (top >= (settings.line_snr if snr is None else snr) * noise)
    rising = np.ones((n, size), bool)
    rising[:, 1:] = lift[:, 1:] >= lift[:, :-1]
    falling = np.ones((n, size), bool)
    falling[:, :-1] = lift[:, :-1] > lift[:, 1:]
    cand = (lift >= 0.5 * top[:, None]) & rising & falling
    # A maximum at the window's end is no line but a slope into it (a shadow's edge): a
    # line there lies past the search, where the layout does not put it.
    cand[:, :margin + 1] = False
    cand[:, size - margin - 1:] = False
    centre = (size - 1) / 2
    i = np.where(cand, np.abs(np.arange(size) - centre)[None, :], np.inf).argmin(axis=1)
    k = np.clip(i, 1, size - 2)
    rows = np.arange(n)
    a, b, c = profiles[rows, k - 1], profiles[rows, k], profiles[rows, k + 1]
    den = a - 2 * b + c
    inner = (i > 0) & (i < size - 1) & (den < 0)
    peak = np.where(inner, i + 0.5 * (a - c) / np.where(inner, den, -1.0), i.astype(float))
    return np.where(strong & cand.any(axis=1), peak, np.nan)


def _edge_offsets(lines: _Lines, pos_mm: np.ndarray, lo_mm: np.ndarray, hi_mm: np.ndarray,
                  vertical: np.ndarray) -> np.ndarray:
    """Offset (mm) from each `pos_mm` of the grid line nearest it, along [lo, hi] of its
    edge; NaN where no line stands out (or the window leaves the view)."""
    profiles, a0, p, along, ok = _profiles(lines, pos_mm, lo_mm, hi_mm, vertical)
    peak = _peaks(profiles, along, lines.settings)
    return np.where(ok, (a0 + peak - p) / lines.px_per_mm, np.nan)


def _search(lines: _Lines, boxes: np.ndarray, inset: float, ox: np.ndarray, oy: np.ndarray
            ) -> list[list[float | None]]:
    """Offsets (mm, from the layout) of each box's four lines (left, right, top, bottom),
    searched around its offset (ox, oy); None where a line was not found."""
    x, y, w, h = (boxes[:, k] for k in range(4))
    x, y = x + ox, y + oy
    pos = np.stack([x - inset, x + w + inset, y - inset, y + h + inset], 1)
    lo = np.stack([y, y, x, x], 1)
    hi = np.stack([y + h, y + h, x + w, x + w], 1)
    vertical = np.broadcast_to(np.array([True, True, False, False]), pos.shape)
    found = _edge_offsets(lines, pos.ravel(), lo.ravel(), hi.ravel(), vertical.ravel())
    found = found.reshape(-1, 4) + np.stack([ox, ox, oy, oy], 1)
    return [[None if np.isnan(v) else float(v) for v in row] for row in found]


def _pair_shift(edges: list[float | None], a: int, b: int, max_stretch_mm: float
                ) -> float | None:
    """The shift of a cell's two opposite lines, if both were found and moved together."""
    ea, eb = edges[a], edges[b]
    if ea is None or eb is None or abs(eb - ea) >= max_stretch_mm:
        return None
    return (ea + eb) / 2


def _boxes(slots: tuple[Slot, ...]) -> np.ndarray:
    return np.array([s.box for s in slots], np.float64).reshape(-1, 4)


def _neighbours(slots: tuple[Slot, ...]) -> np.ndarray:
    """near[i, j]: slot j is next to slot i (within 1.6 of slot i's size each way)."""
    boxes = _boxes(slots)
    centres = boxes[:, :2] + boxes[:, 2:] / 2
    d = np.abs(centres[:, None, :] - centres[None, :, :])
    near = np.asarray((d <= 1.6 * boxes[:, None, 2:]).all(axis=2))
    np.fill_diagonal(near, False)
    return near


Lines = list[list[float | None]]


def _find_lines(lines: _Lines, geom: SheetGeometry,
                comb: Callable[[], np.ndarray] | None = None) -> tuple[Lines, Lines, int]:
    """Each slot's four line offsets (mm) and per-axis shifts (None: not found), and the
    fewest seeds of the two axes.

    Cells near the markers are found where the homography puts them; the offsets then
    spread to neighbouring cells, each searched around its neighbours' offset, so a
    sheet bent by several millimetres is followed cell by cell.
    """
    boxes = _boxes(geom.slots)
    zero = np.zeros(len(boxes))
    raw = _search(lines, boxes, geom.inset_mm, zero, zero)
    if lines.settings.blurred_line_mm > 0:
        lines, raw = _blurred_or_not(lines, boxes, geom.inset_mm, raw)
    stretch = lines.settings.max_stretch_mm

    def shifts(edges: Lines) -> Lines:
        return [[_pair_shift(e, 0, 1, stretch), _pair_shift(e, 2, 3, stretch)] for e in edges]

    shift = shifts(raw)
    seeds = [sum(sh[axis] is not None for sh in shift) for axis in (0, 1)]
    neighbours = _neighbours(geom.slots)
    memo: dict[tuple[int, float, float], list[float | None]] = {}

    def search(i: int, ox: float, oy: float) -> list[float | None]:
        # A slot searched again around the same offset (its neighbours unchanged since)
        # finds the same lines: each search runs once.
        if (i, ox, oy) not in memo:
            memo[i, ox, oy] = _search(lines, boxes[i:i + 1], geom.inset_mm, np.array([ox]),
                                      np.array([oy]))[0]
        return list(memo[i, ox, oy])

    _spread_all(search, raw, shift, neighbours, lines.settings)
    # The comb only where the spread left cells unplaced: a region of the grid it cannot
    # reach (most sheets have none, and pay nothing for it).
    if lines.settings.comb_mm > 0 and comb is not None and \
            any(sh[0] is None or sh[1] is None for sh in shift):
        combed = _comb_seeded(lines, geom, boxes, raw, shift, comb)
        new = shifts(combed)
        found = [sum(a[axis] is None and b[axis] is not None
                     for a, b in zip(shift, new, strict=True)) for axis in (0, 1)]
        if any(found):
            raw, shift = combed, new
            seeds = [s + f for s, f in zip(seeds, found, strict=True)]
            _spread_all(search, raw, shift, neighbours, lines.settings)
    return raw, shift, min(seeds)


def _spread_all(search: Callable[[int, float, float], list[float | None]], raw: Lines,
                shift: Lines, neighbours: np.ndarray, settings: LineSearchSettings) -> None:
    """_spread_to every unplaced slot, round after round, until no round places one."""
    for _ in range(len(raw)):
        progress = False
        for i in range(len(raw)):
            if shift[i][0] is None or shift[i][1] is None:
                progress |= _spread_to(search, i, raw, shift, np.flatnonzero(neighbours[i]),
                                       settings)
        if not progress:
            break


def _blurred_or_not(lines: _Lines, boxes: np.ndarray, inset: float, raw: Lines
                    ) -> tuple[_Lines, Lines]:
    """The lines (and the first search's edges) with blurred lines looked for, where they
    show on at least min_blurred_share of the edges; else without. A blurred photo blurs
    every line alike; a few edges found only so are something else (pub photo
    11500000-092: two cells' \"lines\" 4.4 mm off, which pulled their neighbours along)."""
    sharp = replace(lines, settings=replace(lines.settings, blurred_line_mm=0.0))
    zero = np.zeros(len(boxes))
    sharp_raw = _search(sharp, boxes, inset, zero, zero)
    found = sum(v is not None for row in raw for v in row)
    found_sharp = sum(v is not None for row in sharp_raw for v in row)
    if found - found_sharp >= lines.settings.min_blurred_share * 4 * len(boxes):
        return lines, raw
    return sharp, sharp_raw


def _comb_seeded(lines: _Lines, geom: SheetGeometry, boxes: np.ndarray, raw: Lines,
                 shift: Lines, comb: Callable[[], np.ndarray]) -> Lines:
    """The edges found so far, with the cells still unplaced (by the first search or the
    spread from their neighbours) searched again around the offset of the comb of their
    column's (row's) lines nearby (`shift`: the per-axis shifts so far, None unplaced).

    Where the homography puts a whole region of the grid more than search_mm off (a bent
    sheet placed by blurred marks: pub 11500000-020, 12000000-101, 3-4 mm), no cell of it
    is found and none can seed its neighbours. The lines of several cells summed at their
    printed spacing stand out further, and a comb is not taken for a stray edge: it is
    looked for comb_mm around the homography's place (held under comb_pitch_share of the
    spacing, so it never locks a row off), and each cell's own lines are then searched
    search_mm around it, as the first search does. The comb is summed on `comb()`, the
    line strength with nothing near ink: the red fringes a JPEG leaves round blue digits
    line up down a column as well as a line does (12000000-101, a grid washed out).
    """
    settings = lines.settings
    stretch = settings.max_stretch_mm
    unplaced = [[sh[axis] is None for sh in shift] for axis in (0, 1)]
    offsets = np.full((len(raw), 2), np.nan)
    masked: _Lines | None = None
    for axis in (0, 1):
        todo = [i for i in range(len(raw)) if unplaced[axis][i]]
        if not todo:
            continue
        if masked is None:
            masked = replace(lines, integral=cv2.integral(comb(), sdepth=cv2.CV_64F),
                             left_view=[])
        offsets[todo, axis] = _comb_offsets(masked, geom, boxes, axis, todo)
    redo = [i for i in range(len(raw)) if not np.isnan(offsets[i]).all()]
    if masked is None or not redo:
        return raw
    inset = geom.inset_mm
    ox, oy = (np.nan_to_num(offsets[redo, k]) for k in (0, 1))
    # The cell's own lines, on the same strength: away from ink.
    found = _search(masked, boxes[redo], inset, ox, oy)
    out = [list(e) for e in raw]
    for axis, (a, b) in enumerate(((0, 1), (2, 3))):
        placed = [(i, edges) for i, edges in zip(redo, found, strict=True)
                  if unplaced[axis][i] and not np.isnan(offsets[i, axis])
                  and _pair_shift(edges, a, b, stretch) is not None]
        # A bent region is several cells: a lone find is likelier a thick pen's rim
        # (pub 12300000-178: one cell 4.7 mm off, which the spread carried over the sheet).
        if len(placed) < settings.comb_min_cells:
            continue
        for i, edges in placed:
            out[i][a], out[i][b] = edges[a], edges[b]
    return out


def _comb_offsets(lines: _Lines, geom: SheetGeometry, boxes: np.ndarray, axis: int,
                  todo: list[int]) -> np.ndarray:
    """The offset (mm, NaN: none) on `axis` of the comb of each `todo` slot's column's
    (row's) lines within comb_span_mm, looked for up to comb_mm off (under
    comb_pitch_share of the spacing); `lines`: the strength away from ink."""
    settings, slots, inset = lines.settings, geom.slots, geom.inset_mm
    x, y, w, h = (boxes[:, k] for k in range(4))
    # Horizontal lines (axis 1) stack down a column; vertical ones (axis 0) along a row.
    if axis == 0:
        pos = np.stack([x - inset, x + w + inset], 1)
        lo, hi = np.stack([y, y], 1), np.stack([y + h, y + h], 1)
        same = np.array([[a.row == b.row for b in slots] for a in slots])
        centre, pitch = x + w / 2, w + 2 * inset
    else:
        pos = np.stack([y - inset, y + h + inset], 1)
        lo, hi = np.stack([x, x], 1), np.stack([x + w, x + w], 1)
        same = np.array([[(a.side, a.column) == (b.side, b.column) for b in slots]
                         for a in slots])
        centre, pitch = y + h / 2, h + 2 * inset
    near = np.abs(centre[:, None] - centre[None, :]) <= settings.comb_span_mm
    reach = min(settings.comb_mm, settings.comb_pitch_share * float(pitch.min()))
    if reach <= settings.search_mm:
        return np.full(len(todo), np.nan)
    wide = replace(lines, settings=replace(settings, search_mm=reach), left_view=[])
    profiles, _, _, along, ok = _profiles(wide, pos.ravel(), lo.ravel(), hi.ravel(),
                                          np.full(pos.size, axis == 0))
    profiles = np.where(ok[:, None], profiles, 0.0).reshape(len(slots), 2, -1).sum(axis=1)
    along = np.where(ok, along, 0).reshape(len(slots), 2).sum(axis=1)
    half = (profiles.shape[1] - 1) // 2
    members = [np.flatnonzero(same[i] & near[i]) for i in todo]
    combs = np.stack([profiles[m].sum(axis=0) for m in members])
    peak = _comb_peaks(combs, np.array([along[m].sum() for m in members]), settings)
    return (peak - half) / lines.px_per_mm


def _comb_peaks(combs: np.ndarray, along: np.ndarray, settings: LineSearchSettings
                ) -> np.ndarray:
    """_peaks for combs: summed over a blurred line's width where the search looks for
    blurred lines, as far over their noise as a blurred line's sum must stand, and never
    within 1 mm of the window's ends (a slope into it from something past the search:
    where ink is taken off, the profile is flat but for that)."""
    width = int(round(settings.blurred_line_mm * settings.px_per_mm))
    if width >= 2:
        combs = _summed(combs, width)
    margin = max(width // 2, int(round(settings.px_per_mm)))
    return _sharp_peaks(combs, along, settings, margin=margin, snr=settings.blurred_line_snr)


def _spread_to(search: Callable[[int, float, float], list[float | None]], i: int,
               raw: Lines, shift: Lines, neighbours: np.ndarray,
               settings: LineSearchSettings) -> bool:
    """Search slot i's missing lines around its placed neighbours' offset; True if found."""
    pred: list[float | None] = []
    for axis in (0, 1):
        vals = [v for j in neighbours if (v := shift[j][axis]) is not None]
        pred.append(float(np.mean(vals)) if vals else None)
    if pred[0] is None and pred[1] is None:
        return False
    sx, sy = shift[i][0], shift[i][1]
    ox = sx if sx is not None else (pred[0] or 0.0)
    oy = sy if sy is not None else (pred[1] or 0.0)
    if max(abs(ox), abs(oy)) > settings.max_bend_mm:
        return False
    edges = search(i, ox, oy)
    progress = False
    for axis, (a, b) in enumerate(((0, 1), (2, 3))):
        expected = pred[axis]
        if shift[i][axis] is not None or expected is None:
            continue
        found = _pair_shift(edges, a, b, settings.max_stretch_mm)
        if found is None:
            # One line (the other hidden by ink or glare) that agrees with the
            # neighbours still places the cell: both lines move by its offset.
            single = [e for k in (a, b) if (e := edges[k]) is not None
                      and abs(e - expected) < settings.max_stretch_mm]
            if len(single) == 1:
                found = float(single[0])
                edges[a] = edges[b] = found
        if found is not None:
            shift[i][axis] = found
            raw[i][a], raw[i][b] = edges[a], edges[b]
            progress = True
    return progress


def _found_share(shift: Lines) -> float:
    """The share of slots placed by their own lines, in the worse of the two axes."""
    return min(sum(sh[axis] is not None for sh in shift) for axis in (0, 1)) / len(shift)


def grid_view(page: np.ndarray | Rectified, geom: SheetGeometry, pad_mm: float | None = None,
              settings: LineSearchSettings = LINE_SEARCH) -> PageView:
    """The grid's region of the flat page, `pad_mm` wider on every side (by default
    settings.full_pad_mm), at settings.px_per_mm:
    warped from the photo (a Rectified), or shrunk from a flat page at PX_PER_MM. Its edges
    lie on whole steps of the paper level (see _paper_lum), counted from the page's
    corner: views of any pad agree where they overlap."""
    gx, gy, gw, gh = geom.grid_bounds()
    pad_mm = settings.full_pad_mm if pad_mm is None else pad_mm
    ppm = settings.px_per_mm
    k = round(ppm / settings.paper_px_per_mm)
    x0, y0 = (max(0, int((v - pad_mm) * ppm)) // k * k for v in (gx, gy))
    x1, y1 = (-(-int((v + pad_mm) * ppm) // k) * k for v in (gx + gw, gy + gh))
    if isinstance(page, Rectified):
        width, height = page_px(page.page_mm, ppm)
        return page.view(x0, y0, min(x1, width), min(y1, height), ppm, averaged=True)
    f = round(PX_PER_MM / ppm)  # whole px of the flat page per px of the view
    region = page[f * y0:f * y1, f * x0:f * x1]
    small = cv2.resize(region, (region.shape[1] // f, region.shape[0] // f),
                       interpolation=cv2.INTER_AREA)
    return PageView(small, ppm, (x0, y0))


def snap_slots(page: np.ndarray | Rectified, geom: SheetGeometry, strict: bool = True,
               settings: PlacementSettings = PLACEMENT) -> tuple[SnappedSlot, ...]:
    """Move each slot's box onto its grid lines; each gets a placement uncertainty.

    `page`: the flat sheet (Rectified), or a flat page at PX_PER_MM.
    strict (the layout was guessed or named by the user, not read from the QR code): a
    grid that is not where the layout puts it is refused, because it says the layout is
    wrong. Otherwise the layout is certain and placement degrades: a cell whose lines are
    hidden (shadow, ink, a grayscale photo of a faint grid) keeps the place its placed
    neighbours or the homography predict, with an uncertainty that grows with the distance
    to the nearest cell placed by its own lines. A sheet whose grid does not show at all
    is still read: its cells are placed by the homography alone, and flagged (Lage
    unsicher) where that leaves them more uncertain than the reader's window.
    """
    slots = geom.slots
    # Where the paper lies flat the grid's own region and a little more is all the search
    # reaches; only a cell searched farther out (bent paper) needs the whole margin.
    search = settings.lines
    for pad in (search.core_pad_mm, search.full_pad_mm):
        best, left_view = _best_kind(grid_view(page, geom, pad, search), geom, search)
        if not left_view:
            break
    share, raw, shift, seeds = best
    # Paper bends and shifts, but it does not stretch: most cells must show both lines
    # of each direction, moved together. Lines of another grid (a wrong layout) rarely do.
    if strict and share < search.min_lines_found:
        raise UnreadableSheetError(GRID_MISSING, reason=Reason.GRID_MISSING)
    neighbours = _neighbours(slots)
    shift = _without_lone_finds(_drop_inconsistent(shift, neighbours, settings), settings)
    return _place(slots, raw, shift, neighbours, settings)


def _best_kind(view: PageView, geom: SheetGeometry, settings: LineSearchSettings
               ) -> tuple[tuple[float, Lines, Lines, int], bool]:
    """(share placed, raw, shift, seeds) of the grid print's kind that places more cells,
    and whether a search reached past the view."""
    best: tuple[float, Lines, Lines, int] | None = None
    left_view = False
    # The light-red print by its colour first; by its shade where the photo has no colour
    # (grayscale) or the colour places too few cells (red ink, a strong colour cast,
    # shadows): then the kind that places more cells wins.
    kinds = ("gray",) if is_gray(view.image) else ("red", "gray")
    for kind in kinds:
        strength = (line_strength(view.image, view.px_per_mm, settings) if kind == "red"
                    else shade_strength(view.image, view.px_per_mm, settings))
        lines = _Lines.of(strength, view, settings)
        raw, shift, seeds = _find_lines(lines, geom, partial(
            away_from_ink, view.image, strength, view.px_per_mm, settings))
        left_view = left_view or bool(lines.left_view)
        share = _found_share(shift) if seeds >= settings.min_seeds * len(geom.slots) else 0.0
        if best is None or share > best[0]:
            best = (share, raw, shift, seeds)
        if share >= settings.clear_share:
            break
    assert best is not None
    return best, left_view


def _drop_inconsistent(shift: Lines, neighbours: np.ndarray, settings: PlacementSettings
                       ) -> Lines:
    """The shifts without those that disagree with their neighbours': paper bends
    smoothly, so a cell whose lines moved consistent_mm more than the median of its placed
    neighbours' took something else for its lines (a cast shadow's edge in a grey photo,
    the edge of a bold stroke). It is placed from its neighbours instead."""
    out = [list(sh) for sh in shift]
    near_of = [np.flatnonzero(row).tolist() for row in neighbours]
    for axis in (0, 1):
        # Worst first, one at a time: a run of cells that took one shadow edge for their
        # lines must not vouch for each other once their sound neighbours outvote one.
        while True:
            worst, worst_at = settings.consistent_mm, -1
            for i, sh in enumerate(out):
                own = sh[axis]
                if own is None:
                    continue
                near = [v for j in near_of[i] if (v := out[j][axis]) is not None]
                if len(near) >= settings.min_neighbours and \
                        (gap := abs(own - _median(near))) > worst:
                    worst, worst_at = gap, i
            if worst_at < 0:
                break
            out[worst_at][axis] = None
    return out


def _without_lone_finds(shift: Lines, settings: PlacementSettings) -> Lines:
    """The shifts without those of an axis on which fewer than min_placed cells were placed
    by their own lines: no neighbour vouches for so few, and each would move every other
    cell of the sheet by its offset (pub 12000000-101: one cell's "lines" 3.8 mm off in a
    grid washed out, and the whole sheet with it)."""
    out = [list(sh) for sh in shift]
    for axis in (0, 1):
        if 0 < sum(sh[axis] is not None for sh in out) < settings.min_placed:
            for sh in out:
                sh[axis] = None
    return out


def _median(values: list[float]) -> float:
    """np.median of a few floats, to the bit (the middle one, or the mean of the middle
    two), without numpy's cost per call: _drop_inconsistent takes hundreds a sheet."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _bend_slope(centres: np.ndarray, shift: Lines, neighbours: np.ndarray,
                settings: PlacementSettings) -> float:
    """How fast this sheet's cells move apart (mm per mm): the bend_quantile of the shift
    differences between neighbouring cells placed by their own lines, over their distance,
    within bend_per_mm and max_bend_per_mm. A flat photo gains nothing from a steep
    bend elsewhere; paper bent in its plane predicts far cells worse."""
    rates = []
    for i, j in zip(*np.nonzero(np.triu(neighbours)), strict=True):
        dist = float(np.hypot(*(centres[i] - centres[j])))
        for axis in (0, 1):
            a, b = shift[i][axis], shift[j][axis]
            if a is not None and b is not None and dist > 0:
                rates.append(abs(a - b) / dist)
    if len(rates) < settings.min_neighbours:
        return settings.max_bend_per_mm
    return float(np.clip(np.quantile(rates, settings.bend_quantile), settings.bend_per_mm,
                         settings.max_bend_per_mm))


def _place(slots: tuple[Slot, ...], raw: Lines, shift: Lines, neighbours: np.ndarray,
           settings: PlacementSettings) -> tuple[SnappedSlot, ...]:
    """Each slot's box and uncertainty from its own lines, else from the nearest placed."""
    centres = np.array([(s.box[0] + s.box[2] / 2, s.box[1] + s.box[3] / 2) for s in slots])
    placed_by_axis = [[j for j in range(len(slots)) if shift[j][axis] is not None]
                      for axis in (0, 1)]
    slope = _bend_slope(centres, shift, neighbours, settings)
    out = []
    moves_all: list[list[float]] = []
    uncertain: list[list[float]] = []
    for i in range(len(slots)):
        moves: list[float] = []
        per_axis: list[float] = []
        for axis, (a, b) in enumerate(((0, 1), (2, 3))):
            if shift[i][axis] is not None:
                moves += [float(raw[i][a]), float(raw[i][b])]  # type: ignore[arg-type]
                per_axis.append(settings.found_mm if raw[i][a] != raw[i][b]
                                else settings.one_line_mm)
                continue
            placed = placed_by_axis[axis]
            if not placed:  # no line of this direction anywhere: the homography alone
                moves += [0.0, 0.0]
                per_axis.append(settings.homography_mm)
                continue
            dist = np.hypot(*(centres[placed] - centres[i]).T)
            near = np.argsort(dist)[:4]
            weights = 1.0 / (dist[near] + 1.0)
            d = float(np.sum(weights * [shift[placed[k]][axis] for k in near]) / weights.sum())
            moves += [d, d]
            per_axis.append(min(settings.homography_mm,
                                settings.found_mm + slope * float(dist.min())))
        moves_all.append(moves)
        uncertain.append(per_axis)
    for i, slot in enumerate(slots):
        left, right, top, bottom = moves_all[i]
        x, y, w, h = slot.box
        box = (x + left, y + top, w + right - left, h + bottom - top)
        ux, uy = (round(v, 2) for v in uncertain[i])
        out.append(SnappedSlot(slot, box, max(abs(v) for v in moves_all[i]),
                               2 * sum(sh is not None for sh in shift[i]), max(ux, uy),
                               (shift[i][0] is not None, shift[i][1] is not None), (ux, uy)))
    return tuple(out)

