"""The cell-reading network without torch: preprocessing, ONNX inference, constrained decoding.

The network reads a whole cell (digits may touch, so it never splits first). Its output per
cell is one vector of logits: 3 for the kind (empty, struck, number), 3 for the number's
length (1-3 digits) and 6 x 10 for the digits: one head for a 1-digit number, two for a
2-digit one, three for a 3-digit one. A value v of length L scores
P(number) * P(L) * prod_i P_{L,i}(digit_i). A written 0 is a strike (RULES.md), so the
1-digit head's 0 adds to P(struck).

`tools/train_digits.py` imports `preprocess` from here, so training and reading share it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from escalero.scan.imaging import (
    MAD_TO_SIGMA,
    darkness,
    median_and_sigma,
    median_last,
    quantile_last,
)
from escalero.scan.rectify import CELL_MARGIN_MM, PX_PER_MM

# The network's format: its input (px) and its output per cell (the module doc).
INPUT_H, INPUT_W = 40, 56
N_OUT = 3 + 3 + 6 * 10
HEAD_OFFSET = {1: 6, 2: 16, 3: 36}  # first logit of the digit heads for each length
MODEL_DIR = Path(__file__).parent / "models"
MODEL_PATH = MODEL_DIR / "digits.onnx"
CALIBRATION_PATH = MODEL_DIR / "digits.json"
# Per row, how much likelier each written reading is there than in the training cells
# (tools/row_priors.py); decode weighs a cell's written mass by it (label shift).
ROW_PRIORS_PATH = MODEL_DIR / "row_priors.json"


WORK_H = 2 * INPUT_H  # ink is found at twice the network's resolution
# The preprocessing's version, a format fact: bumped when preprocess gives a crop other
# numbers (a training cache keys on it). 2: drop_grid_lines. 3: printed rules across the
# crop taken off (drop_rules).
PREPROCESS_VERSION = 3
ASPECT = INPUT_W / INPUT_H


@dataclass(frozen=True)
class Preprocessing:
    """How a crop becomes the network's input. Fixed with the weights, not a knob: the
    networks in models/ were trained on crops preprocessed with these values
    (tools/train_digits.py imports preprocess), so changing one means bumping
    PREPROCESS_VERSION and training again; no ScanOptions field carries it. Each field
    says where it comes from."""

    # The paper estimate's window at WORK_H: strokes are thinner. Set by hand, not fitted
    # (0ee593d made it the one ink measure's window).
    paper_px: int = 11
    # The grid's lines lie within the contract's margin (rectify.CELL_MARGIN_MM) plus this
    # of the crop's edge: the snapping's and the writer's slack. Set by hand, not fitted.
    grid_slack_mm: float = 0.9
    # A line fills (almost) every pixel of its row or column, writing near the edge seldom
    # more than 60% of one: this percentile is the line's level. (A straight upright stroke
    # taller than 60% of the crop within grid_slack_mm of a side line would be taken for
    # one.) Set by hand, not fitted (dee5737).
    grid_quantile: float = 40.0
    # A row dark across all but this share of the crop's width, anywhere in the crop, is a
    # printed rule, not writing: a score card's thick divider bar reaching into a box placed
    # by hand (its darkness shows as a ridge along the bar's edge, past the edge band), or a
    # line of a box placed far off. Writing stays inside the box, at most 90% of the
    # crop's width (two sides: 26 of 29 mm), and a hand-drawn stroke is not level across a
    # whole crop. The row's darkness at this share is taken off. Chosen on the real golf
    # cards (benchmarks.real: empty cells under a green bar read as struck, 82.1% -> 92.9%
    # of empty cells right, no other kind moved by more than a cell).
    rule_share: float = 0.05
    # Paper pixels brighter than median + this many robust sigmas count as paper (the noise
    # floor). Set by hand, not fitted; measured with it (9066938): harsh bench 84.7% ->
    # 98.9% cells right, pencil in a hand's shadow no longer read as noise.
    noise_sigmas: float = 2.0
    # The paper estimate's blur (px at WORK_H), and the ink map's smoothing before the
    # floor. Set by hand, not fitted (0ee593d, 9066938).
    paper_sigma: float = 4.0
    smoothing_sigma: float = 1.0
    # The ink's window: the crop's border (this share of its height) is left out of the ink
    # it follows (grid lines, a neighbour's ink), and padded around it again; ink is what
    # is darker than window_ink; with less than least_ink of the inner part's area the
    # window is the cell's middle; else it spans the ink's columns from ink_from to ink_to
    # of it. Set by hand, not fitted (23101ee).
    border_share: float = 0.12
    window_ink: float = 0.3
    least_ink: float = 0.05
    ink_from: float = 0.01
    ink_to: float = 0.99
    # Faint ink is stretched to full strength from this percentile of the cell, but never
    # by more than 1 / least_stretch, so an empty cell's noise is not blown up. Set by hand,
    # not fitted (3d97f43).
    top_percentile: float = 99.5
    least_stretch: float = 0.25

    def __post_init__(self) -> None:
        if self.paper_px < 1 or self.grid_slack_mm < 0 or self.noise_sigmas < 0:
            raise ValueError("preprocessing: need paper_px >= 1, grid_slack_mm >= 0 and "
                             "noise_sigmas >= 0")
        if not 0.0 <= self.rule_share < 0.5:
            raise ValueError("preprocessing: rule_share is a share in [0, 0.5)")
        if not 0.0 <= self.grid_quantile <= 100.0 or not 0.0 < self.top_percentile <= 100.0:
            raise ValueError("preprocessing: grid_quantile and top_percentile are "
                             "percentiles")
        if self.paper_sigma <= 0 or self.smoothing_sigma <= 0 or self.least_stretch <= 0:
            raise ValueError("preprocessing: need paper_sigma, smoothing_sigma and "
                             "least_stretch > 0")
        if not 0.0 <= self.border_share < 0.5 or not 0.0 <= self.ink_from < self.ink_to <= 1.0 \
                or not 0.0 <= self.window_ink < 1.0 or not 0.0 <= self.least_ink <= 1.0:
            raise ValueError("preprocessing: need border_share in [0, 0.5), "
                             "0 <= ink_from < ink_to <= 1 and window_ink, least_ink in [0, 1]")

    @property
    def grid_band_px(self) -> int:
        """Crop px from the edge in which the grid's lines lie (24 at 10 px/mm)."""
        return round((CELL_MARGIN_MM + self.grid_slack_mm) * PX_PER_MM)


PREPROCESSING = Preprocessing()


def ink_map(crop_bgr: np.ndarray, rules: bool = True) -> np.ndarray:
    """A BGR cell crop -> float32 ink map WORK_H high (aspect kept), 0 = paper, 1 = ink.

    The red channel drops the light-red grid (red is as bright as paper there) while blue,
    black and pencil ink stay dark; drop_grid_lines takes off what a photo leaves of the
    lines (`rules`: and the printed rules across the crop). Dividing by a local paper
    estimate flattens shadows.
    """
    return drop_grid_lines(darkness(_work_size(crop_bgr), PREPROCESSING.paper_px,
                                    PREPROCESSING.paper_sigma), crop_bgr.shape[0], rules)


def drop_grid_lines(ink: np.ndarray, crop_h: int, rules: bool = True) -> np.ndarray:
    """The ink map (..., h, w) without the grid lines along the crop's edges.

    The red channel drops the red grid only where the photo keeps its colour: a thin line
    in a small or JPEG-compressed photo keeps its darkness but loses much of its hue
    (chroma is stored at half resolution), and the stretch that brings pencil to full
    strength would bring such a line with it (the network then reads the cell's right-hand
    line as one more digit). A grid line runs the crop's whole width or height, and writing
    covers only part of any row or column near the edge, so a low quantile of each such
    row (column) is the line's own level: it is taken off there.
    """
    return _drop_grid_lines_in_band(ink, _grid_band(ink.shape[-2], crop_h), rules)


def _drop_grid_lines_in_band(ink: np.ndarray, band: int, rules: bool = True) -> np.ndarray:
    """drop_grid_lines with the edge band's width in the ink map's rows given; `rules`:
    the printed rules across the crop taken off too (drop_rules)."""
    h, w = ink.shape[-2:]
    out = ink.copy()
    for rows in (slice(0, band), slice(h - band, h)):
        level = quantile_last(out[..., rows, :], PREPROCESSING.grid_quantile)
        out[..., rows, :] = np.maximum(out[..., rows, :] - level[..., None], 0.0)
    for cols in (slice(0, band), slice(w - band, w)):
        level = quantile_last(np.swapaxes(out[..., :, cols], -1, -2),
                              PREPROCESSING.grid_quantile)
        out[..., :, cols] = np.maximum(out[..., :, cols] - level[..., None, :], 0.0)
    return drop_rules(out) if rules else out


def rule_levels(crop_bgr: np.ndarray) -> np.ndarray:
    """Per row of the crop's ink map (WORK_H rows, the grid lines along its edges taken
    off), the level drop_rules would take off it: high where a line runs across the whole
    crop."""
    return _rule_level(ink_map(crop_bgr, rules=False))[..., 0]


def _rule_level(ink: np.ndarray) -> np.ndarray:
    """Each row's darkness at PREPROCESSING.rule_share of its width (..., h, 1)."""
    k = int(PREPROCESSING.rule_share * (ink.shape[-1] - 1))
    return np.partition(ink, k, axis=-1)[..., k:k + 1]


def drop_rules(ink: np.ndarray) -> np.ndarray:
    """The ink map (..., h, w) without printed rules across the whole crop: each row's
    darkness at PREPROCESSING.rule_share of its width (the k-th darkest but one of its
    lightest pixels) is taken off it, in place. A rule fills its row, writing at most the
    box's part of it, so a row that holds writing only loses its paper's level."""
    level = _rule_level(ink)
    np.subtract(ink, level, out=ink)
    np.maximum(ink, 0.0, out=ink)
    return ink


def ink_window(ink: np.ndarray) -> tuple[int, int]:
    """Columns (x0, x1) of a window of the network's aspect around the writing.

    Cells range from 11.5 x 8 mm to 29 x 14 mm, so a wide crop would squeeze the digits;
    instead the window follows the ink, and only widens when the writing is wider.
    """
    h, w = ink.shape
    want = round(h * ASPECT)
    if w <= want:
        return 0, w
    pre = PREPROCESSING
    margin = round(pre.border_share * h)  # the crop's border: grid lines, a neighbour's ink
    inner = ink[margin:h - margin, margin:w - margin]
    cols = (inner * (inner > pre.window_ink)).sum(axis=0)
    if cols.sum() < 4 * h * pre.least_ink:  # (almost) no ink: the middle of the cell
        mid = w // 2
        return mid - want // 2, mid - want // 2 + want
    cum = np.cumsum(cols) / cols.sum()
    left = margin + int(np.searchsorted(cum, pre.ink_from))
    right = margin + int(np.searchsorted(cum, pre.ink_to)) + 1
    pad = round(pre.border_share * h)
    x0, x1 = left - pad, right + pad
    if x1 - x0 < want:  # grow to the network's aspect around the ink's centre
        c = (x0 + x1) // 2
        x0, x1 = c - want // 2, c - want // 2 + want
    x0, x1 = max(0, x0), min(w, x1)
    if x1 - x0 < want:  # clamped at a border: extend the other way
        x0, x1 = (0, want) if x0 == 0 else (w - want, w)
    return x0, x1


def noise_floor(ink: np.ndarray, sigmas: float) -> tuple[float, float]:
    """(paper level, paper level + `sigmas` robust sigmas) of an ink map that is mostly
    paper: the median and the MAD scaled to a Gaussian sigma."""
    median, sigma = median_and_sigma(ink)
    return median, median + sigmas * sigma


def preprocess(crop_bgr: np.ndarray) -> np.ndarray:
    """A BGR cell crop -> the network's input: float32 ink map INPUT_H x INPUT_W.

    Faint ink in a dim, noisy photo (pencil in a hand's shadow) must not be stretched
    together with the sensor noise: the map is smoothed a little and the paper's noise
    floor, estimated robustly from the median (paper is most of any cell), is taken off
    before the ink is stretched to full strength.
    """
    ink = cv2.GaussianBlur(ink_map(crop_bgr), (0, 0), PREPROCESSING.smoothing_sigma)
    x0, x1 = ink_window(ink)
    ink = ink[:, x0:x1]
    h, w = ink.shape
    want = round(h * ASPECT)
    left = 0
    if w < want:  # narrow cell: pad with paper on both sides
        left = (want - w) // 2
        ink = cv2.copyMakeBorder(ink, 0, 0, left, want - w - left, cv2.BORDER_CONSTANT, value=0)
    ink = cv2.resize(ink, (INPUT_W, INPUT_H), interpolation=cv2.INTER_AREA)
    # The floor is measured on the cell itself: padding is clean paper, and counted in it
    # would double the spread of a noisy cell and wipe its writing out with the noise.
    c0 = min(INPUT_W - 1, -(-left * INPUT_W // want))
    c1 = max(c0 + 1, (left + w) * INPUT_W // want) if w < want else INPUT_W
    return stretch(ink, ink[:, c0:c1])


def stretch(ink: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """`ink` less the noise floor of `cell` (the ink map's cell part), its ink stretched
    to 1: faint ink (pencil) to full strength, but never an empty cell's noise blown up."""
    _, floor = noise_floor(cell, PREPROCESSING.noise_sigmas)
    top = float(np.percentile(cell, PREPROCESSING.top_percentile))
    return np.clip((ink - floor) / max(top - floor, PREPROCESSING.least_stretch), 0.0,
                   1.0).astype(np.float32)


def preprocess_batch(crops: Sequence[np.ndarray], keep_rules: bool = False) -> np.ndarray:
    """preprocess for a sheet's crops at once: (N, INPUT_H, INPUT_W), the same numbers.
    `keep_rules`: a line across the whole crop is kept (scan.line_strikes), not taken off
    as a printed rule.

    The OpenCV steps (resizing, the paper estimate, smoothing) stay per crop; the numpy
    steps around them (ink against paper, the grid lines' levels, the ink's window, the
    noise floor and the stretch) run over all crops of one working size together, which is
    most of preprocess's cost when it runs crop by crop. Crops are grouped by their size
    after resizing, not before: a sheet's cells differ by a pixel or two, which resizing
    mostly takes away.
    """
    out = np.zeros((len(crops), INPUT_H, INPUT_W), np.float32)
    works = [_work_size(crop) for crop in crops]
    by_size: dict[tuple[int, int], list[int]] = {}
    for i, (work, crop) in enumerate(zip(works, crops, strict=True)):
        by_size.setdefault((work.shape[1], _grid_band(WORK_H, crop.shape[0])), []).append(i)
    for (_, band), members in by_size.items():
        inks = _ink_maps(np.stack([works[i] for i in members]), band, keep_rules)
        inputs, spans = [], []
        for ink, (x0, x1) in zip(inks, _ink_windows(inks), strict=True):
            net_input, span = _network_size(ink[:, x0:x1])
            inputs.append(net_input)
            spans.append(span)
        out[members] = _stretch(np.stack(inputs), spans)
    return out


def _work_size(crop: np.ndarray) -> np.ndarray:
    """The crop's red channel resized to WORK_H high, its aspect kept (as ink_map)."""
    red = crop if crop.ndim == 2 else crop[:, :, 2]
    h, w = red.shape
    width = max(8, round(w * WORK_H / h))
    return cv2.resize(red, (width, WORK_H), interpolation=cv2.INTER_AREA)


def _grid_band(ink_h: int, crop_h: int) -> int:
    """Rows (columns) of an ink map `ink_h` high, cut from a crop `crop_h` high, along
    each edge in which the grid lines lie."""
    return max(1, round(PREPROCESSING.grid_band_px * ink_h / crop_h))


def _ink_maps(work: np.ndarray, band: int, keep_rules: bool = False) -> np.ndarray:
    """ink_map, smoothed as preprocess smooths it, of a stack of crops already resized to
    WORK_H (N, WORK_H, w) whose grid lines lie `band` rows from the edges (`keep_rules`: a
    line across the crop kept)."""
    ink = _drop_grid_lines_in_band(
        darkness(work, PREPROCESSING.paper_px, PREPROCESSING.paper_sigma), band,
        rules=not keep_rules)
    return np.stack([cv2.GaussianBlur(x, (0, 0), PREPROCESSING.smoothing_sigma) for x in ink])


def _ink_windows(inks: np.ndarray) -> list[tuple[int, int]]:
    """ink_window of each of a stack of ink maps (N, h, w)."""
    n, h, w = inks.shape
    want = round(h * ASPECT)
    if w <= want:
        return [(0, w)] * n
    margin = round(PREPROCESSING.border_share * h)
    inner = inks[:, margin:h - margin, margin:w - margin]
    columns = (inner * (inner > PREPROCESSING.window_ink)).sum(axis=1)
    return [_window_of(cols, h, w, want, margin) for cols in columns]


def _window_of(cols: np.ndarray, h: int, w: int, want: int, margin: int) -> tuple[int, int]:
    """ink_window's columns from the ink per column of the crop's inner part."""
    pre = PREPROCESSING
    if cols.sum() < 4 * h * pre.least_ink:  # (almost) no ink: the middle of the cell
        mid = w // 2
        return mid - want // 2, mid - want // 2 + want
    cum = np.cumsum(cols) / cols.sum()
    left = margin + int(np.searchsorted(cum, pre.ink_from))
    right = margin + int(np.searchsorted(cum, pre.ink_to)) + 1
    pad = round(pre.border_share * h)
    x0, x1 = left - pad, right + pad
    if x1 - x0 < want:  # grow to the network's aspect around the ink's centre
        c = (x0 + x1) // 2
        x0, x1 = c - want // 2, c - want // 2 + want
    x0, x1 = max(0, x0), min(w, x1)
    if x1 - x0 < want:  # clamped at a border: extend the other way
        x0, x1 = (0, want) if x0 == 0 else (w - want, w)
    return x0, x1


def _network_size(ink: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
    """The ink window padded to the network's aspect and resized to its input, and the
    input's columns (c0, c1) that show the cell (not the padding)."""
    h, w = ink.shape
    want = round(h * ASPECT)
    left = 0
    if w < want:  # narrow cell: pad with paper on both sides
        left = (want - w) // 2
        ink = cv2.copyMakeBorder(ink, 0, 0, left, want - w - left, cv2.BORDER_CONSTANT, value=0)
    ink = cv2.resize(ink, (INPUT_W, INPUT_H), interpolation=cv2.INTER_AREA)
    c0 = min(INPUT_W - 1, -(-left * INPUT_W // want))
    c1 = max(c0 + 1, (left + w) * INPUT_W // want) if w < want else INPUT_W
    return ink, (c0, c1)


def _stretch(inputs: np.ndarray, spans: Sequence[tuple[int, int]]) -> np.ndarray:
    """preprocess's noise floor and stretch, for every input whose cell spans the same
    columns at once (in the same float32 / float64 steps as preprocess)."""
    out = np.empty_like(inputs)
    for c0, c1 in set(spans):
        sel = [i for i, span in enumerate(spans) if span == (c0, c1)]
        cells = inputs[sel][:, :, c0:c1].reshape(len(sel), -1)
        median = median_last(cells)
        mad = median_last(np.abs(cells - median[:, None]))
        floor = median.astype(np.float64) + PREPROCESSING.noise_sigmas * (
            MAD_TO_SIGMA * mad.astype(np.float64))
        top = quantile_last(cells, PREPROCESSING.top_percentile).astype(np.float64)
        scale = np.maximum(top - floor, PREPROCESSING.least_stretch)
        out[sel] = np.clip((inputs[sel] - floor.astype(np.float32)[:, None, None])
                           / scale.astype(np.float32)[:, None, None], 0.0, 1.0)
    return out


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


@dataclass(frozen=True)
class CellScores:
    """Log-probabilities of one cell's readings: empty, struck and every number 1-999."""

    empty: float
    struck: float
    numbers: np.ndarray  # shape (1000,), index = value; index 0 unused (-inf)


def score_cell(logits: np.ndarray, temperature: float = 1.0) -> CellScores:
    """Turn one output vector into log-probabilities of all readings."""
    empty, struck, numbers = score_cells(np.asarray(logits)[None, :], temperature)
    return CellScores(empty=float(empty[0]), struck=float(struck[0]), numbers=numbers[0])


def score_cells(logits: np.ndarray, temperature: float = 1.0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """score_cell for a batch (N, N_OUT): log-probabilities of empty (N,), struck (N,) and
    every number (N, 1000)."""
    z = np.asarray(logits, np.float64).reshape(-1, N_OUT) / temperature
    if not len(z):
        return np.zeros(0), np.zeros(0), np.zeros((0, 1000))
    kind = _log_softmax(z[:, 0:3])
    length = _log_softmax(z[:, 3:6])
    heads = _log_softmax(z[:, 6:].reshape(-1, 6, 10))
    numbers = np.full((len(z), 1000), -np.inf)
    base = kind[:, 2:3]
    d1 = heads[:, 0]
    numbers[:, 1:10] = base + length[:, 0:1] + d1[:, 1:]
    two = heads[:, 1, :, None] + heads[:, 2, None, :]  # [tens, ones]
    numbers[:, 10:100] = base + length[:, 1:2] + two[:, 1:].reshape(len(z), -1)
    three = (heads[:, 3, :, None, None] + heads[:, 4, None, :, None]
             + heads[:, 5, None, None, :])
    numbers[:, 100:1000] = base + length[:, 2:3] + three[:, 1:].reshape(len(z), -1)
    # A written "0" is a strike.
    struck = np.logaddexp(kind[:, 1], kind[:, 2] + length[:, 0] + d1[:, 0])
    return kind[:, 0], struck, numbers


@dataclass(frozen=True)
class Decoded:
    """Readings ranked best first: (reading, probability). reading: None, "x" or an int."""

    ranked: tuple[tuple[int | str | None, float], ...]
    # A row cell's likeliest numbers the row does not allow, with their (out_of_row_prior
    # weighted) share of the same total: a mis-added column asks whether one of them
    # is what the player wrote and added up (scan.cells). Empty for written totals.
    outside: tuple[tuple[int, float], ...] = ()


@dataclass(frozen=True)
class DecodeSettings:
    """How a cell's scores become ranked readings (ReadingSettings.decoding). Each field
    says where it comes from; the accept thresholds in models/digits.json were measured
    with these."""

    # Prior weight of a number the row does not allow: writing one is rare but happens, and
    # the mass it draws keeps a cell from being read "certainly" as the nearest allowed
    # value. Set by hand, not fitted (3d97f43).
    out_of_row_prior: float = 0.05
    # Numbers kept per cell: every value a row allows; for a written total (any of 1-999)
    # the most likely ones, enough for the totals check to find the column's sum among
    # them. Set by hand, not fitted (94cfdad: 48, not 4, so no column is too open to weigh).
    max_numbers: int = 48
    # Numbers a row does not allow kept per row cell (Decoded.outside) for the totals check.
    # Set by hand, not fitted (d18dae2).
    outside_kept: int = 64

    def __post_init__(self) -> None:
        if not 0.0 <= self.out_of_row_prior <= 1.0:
            raise ValueError("decoding: out_of_row_prior is a weight in [0, 1]")
        if self.max_numbers < 1 or self.outside_kept < 1:
            raise ValueError("decoding: need max_numbers >= 1 and outside_kept >= 1")


DECODING = DecodeSettings()


def decode(scores: CellScores, allowed: tuple[int, ...] | None,
           total_cap: int | None = None, weights: RowWeights | None = None,
           settings: DecodeSettings = DECODING) -> Decoded:
    """Rank the readings a cell may hold; numbers the row does not allow only draw mass.

    `allowed=None` (written totals) allows every number 1-999, or 1-`total_cap`: a total
    above the most its column can add up to is a misreading far more often than a sum.
    `weights` (row_weights) shifts the written mass, struck or an allowed number, from the
    training cells' prior to the row's; the empty reading and the rest keep their mass.
    """
    nums = scores.numbers
    mask = _allowed_mask(allowed, total_cap)
    finite = np.isfinite(nums)
    top = max(scores.empty, scores.struck, float(nums[finite].max()))
    p_nums = np.where(finite, np.exp(nums - top), 0.0)
    p_empty, p_struck = np.exp(scores.empty - top), np.exp(scores.struck - top)
    p_other = float(p_nums[~mask].sum()) * settings.out_of_row_prior
    p_allowed = p_nums * mask
    if weights is not None:
        written = p_struck + float(p_allowed.sum())
        shifted = p_struck * weights.struck + float(p_allowed @ weights.numbers)
        if shifted > 0.0:
            p_struck = p_struck * weights.struck * written / shifted
            p_allowed = p_allowed * weights.numbers * (written / shifted)
    total = p_empty + p_struck + float(p_allowed.sum()) + p_other
    best = _most_likely(p_allowed, _allowed_index(allowed, total_cap), settings.max_numbers)
    cands: list[tuple[int | str | None, float]] = [(None, p_empty / total),
                                                   ("x", p_struck / total)]
    cands += [(int(v), float(p_allowed[v]) / total) for v in best if p_allowed[v] > 0]
    cands.sort(key=lambda c: -c[1])
    outside: tuple[tuple[int, float], ...] = ()
    if allowed is not None:
        p_out = np.where(mask, 0.0, p_nums) * settings.out_of_row_prior
        kept = np.argpartition(p_out, -settings.outside_kept)[-settings.outside_kept:]
        kept = kept[np.argsort(p_out[kept])[::-1]]
        kept = kept[p_out[kept] > 0]
        outside = tuple(zip(kept.tolist(), (p_out[kept] / total).tolist(), strict=True))
    return Decoded(ranked=tuple(cands), outside=outside)


def _most_likely(p_allowed: np.ndarray, index: np.ndarray, most: int) -> np.ndarray:
    """The (at most `most`) likeliest of the allowed numbers `index`, best first. A row
    allows a handful of values, so only those are ranked; a total allows hundreds, whose
    best `most` are picked by partition before they are ranked."""
    if len(index) > most:
        index = index[np.argpartition(p_allowed[index], -most)[-most:]]
    return index[np.argsort(p_allowed[index])[::-1]]


@lru_cache(maxsize=64)
def _allowed_index(allowed: tuple[int, ...] | None, total_cap: int | None = None
                   ) -> np.ndarray:
    """The numbers a row allows, ascending (the indices of _allowed_mask)."""
    index = np.flatnonzero(_allowed_mask(allowed, total_cap))
    index.flags.writeable = False  # shared between calls
    return index


@lru_cache(maxsize=64)
def _allowed_mask(allowed: tuple[int, ...] | None, total_cap: int | None = None
                  ) -> np.ndarray:
    """The numbers a row allows (1-999, or 1-`total_cap`, for a written total), as a mask
    over 0-999."""
    mask = np.zeros(1000, bool)
    if allowed is None:
        mask[1:1000 if total_cap is None else min(total_cap, 999) + 1] = True
    else:
        mask[[v for v in allowed if 0 < v < 1000]] = True
    mask.flags.writeable = False  # shared between calls
    return mask


@dataclass(frozen=True)
class RowWeights:
    """A row's prior over its written readings relative to the training cells' prior (only
    ratios count): `struck`, and `numbers` over 0-999 (1 where the table says nothing)."""

    struck: float
    numbers: np.ndarray


def row_key(row_id: str, allowed: tuple[int, ...]) -> str:
    """A row in row_priors.json: its id and values ("nines:1,2,3,4,5"); a variant that
    changes a row's values makes it another row."""
    return f"{row_id}:{','.join(str(v) for v in allowed)}"


@lru_cache(maxsize=4)
def _row_prior_table(path: Path) -> dict[str, dict[str, float]]:
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8"))["weights"])


@lru_cache(maxsize=256)
def row_weights(key: str | None, path: Path = ROW_PRIORS_PATH) -> RowWeights | None:
    """The weights of row `key` (row_key), or None where the table has no such row."""
    table = _row_prior_table(path).get(key) if key is not None else None
    if not table:
        return None
    numbers = np.ones(1000)
    for reading, w in table.items():
        if reading != "x":
            numbers[int(reading)] = float(w)
    numbers.flags.writeable = False  # shared between calls
    return RowWeights(float(table.get("x", 1.0)), numbers)


@dataclass(frozen=True)
class Calibration:
    temperature: float = 1.0
    accept: float = 0.999  # confidence at or above which a row cell's reading is "certain"
    accept_total: float = 0.999  # the same for written totals (any number 0-999)
    # How often a reading called certain was wrong on the calibration cells (at least 3 in
    # the number accepted, the rule of three for "none seen"): the payout keeps this doubt.
    certain_error: float = 1e-3
    certain_error_total: float = 1e-2

    @staticmethod
    def load(path: Path = CALIBRATION_PATH, least_accept: float = 0.0) -> Calibration:
        """The fitted calibration; `least_accept` (recognize.ReadingSettings.
        real_photo_accept) holds where the fitted accept threshold is lower."""
        if not path.exists():
            return Calibration()
        data = json.loads(path.read_text())
        accept = max(float(data["accept"]), least_accept)
        return Calibration(float(data["temperature"]), accept,
                           float(data.get("accept_total", max(accept, 0.999))),
                           _measured_error(data.get("calibration_accept"), 1e-3),
                           _measured_error(data.get("calibration_accept_total"), 1e-2))

    def threshold(self, allowed: tuple[int, ...] | None, reading: object) -> float:
        """The accept threshold for a cell of a row (`allowed`) or a written total (None).

        Totals need more only when read as a number (any of 0-999, no row to help); an empty
        or struck total is told from ink as surely as any row cell.
        """
        return self.accept_total if allowed is None and isinstance(reading, int) else \
            self.accept


def fit_accept(conf: np.ndarray, right: np.ndarray, target: float, floor: float = 0.98
               ) -> float:
    """The lowest confidence at which the calibration cells at or above it are `target`
    right, never below `floor`; 1.01 (nothing is ever certain) if no confidence is.
    tools/train_digits.py fits `accept` with it, tools/fit_lone_stroke.py the split's."""
    order = np.argsort(-conf)
    errors = np.cumsum(~right[order])
    ok = errors <= (1 - target) * np.arange(1, len(order) + 1)
    if not ok.any():
        return 1.01
    k = int(np.nonzero(ok)[0].max())  # the deepest prefix by confidence that meets it
    return max(floor, float(conf[order[k]]))


def _measured_error(stats: dict[str, float] | None, fallback: float) -> float:
    """Error rate of accepted readings, and never below 3 / (cells accepted)."""
    if not stats:
        return fallback
    accepted = float(stats["cells"]) * float(stats["accepted_share"])
    return max(1.0 - float(stats["accepted_accuracy"]), 3.0 / max(accepted, 1.0))


@lru_cache(maxsize=4)
def load_net(path: str = str(MODEL_PATH)) -> cv2.dnn.Net:
    return cv2.dnn.readNetFromONNX(path)


_NET_LOCK = threading.Lock()  # one cv2.dnn.Net is shared; setInput/forward must not interleave
FEATURES_OUTPUT = "features"  # the penultimate layer (tools/features_output.py adds it)
# ONNX Runtime reads a sheet's batch 1.5-2x faster than cv2.dnn on the same model
# (benchmarks/read_speed.py); cv2.dnn stays the fallback where it is not installed.
ENGINES = ("onnxruntime", "cv2")


def default_engine() -> str:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return "cv2"
    return "onnxruntime"


# Threads the network pass of one sheet may use. A sheet's batch (60-200 cells) splits
# well: two threads read it in about half the time of one on two cores (66 cells: 9.7 ms
# against 19 ms a network, benchmarks.read_speed). `scan --jobs N` reads sheets side by
# side and sets one thread per worker (READ_THREADS_ENV), so jobs do not fight for cores.
READ_THREADS_ENV = "ESCALERO_READ_THREADS"


def read_threads() -> int:
    """Threads for a network pass: ESCALERO_READ_THREADS if set, else up to two cores."""
    value = os.environ.get(READ_THREADS_ENV, "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    return max(1, min(2, os.cpu_count() or 1))


@lru_cache(maxsize=8)
def _session(path: str, threads: int = 1) -> object:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # Idle threads sleep instead of spinning: the web app and batch jobs share the cores.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def has_features(path: Path = MODEL_PATH, engine: str | None = None) -> bool:
    if (engine or default_engine()) == "onnxruntime":
        session = _session(str(path), read_threads())
        outputs = [o.name for o in session.get_outputs()]  # type: ignore[attr-defined]
    else:
        outputs = list(load_net(str(path)).getUnconnectedOutLayersNames())
    return FEATURES_OUTPUT in outputs


def run_net(batch: np.ndarray, path: Path = MODEL_PATH, chunk: int = 128,
            engine: str | None = None) -> np.ndarray:
    """Logits for a batch of preprocessed cells (N, INPUT_H, INPUT_W) -> (N, N_OUT)."""
    return run_net_features(batch, path, chunk, features=False, engine=engine)[0]


def run_net_features(batch: np.ndarray, path: Path = MODEL_PATH, chunk: int = 128,
                     features: bool = True, engine: str | None = None
                     ) -> tuple[np.ndarray, np.ndarray | None]:
    """(logits (N, N_OUT), penultimate features (N, F) or None) from one pass."""
    engine = engine or default_engine()
    want = features and has_features(path, engine)
    names = ["logits", FEATURES_OUTPUT] if want else ["logits"]
    logits, feats = [], []
    for start in range(0, len(batch), chunk):
        part = np.ascontiguousarray(batch[start:start + chunk, None, :, :], np.float32)
        if engine == "onnxruntime":
            session = _session(str(path), read_threads())
            outs = session.run(names, {"cells": part})  # type: ignore[attr-defined]
        else:
            net = load_net(str(path))
            with _NET_LOCK:
                net.setInput(part)
                outs = net.forward(names) if want else [net.forward()]
        logits.append(np.asarray(outs[0]).reshape(len(part), N_OUT))
        if want:
            feats.append(np.asarray(outs[1]).reshape(len(part), -1))
    if not logits:
        return np.zeros((0, N_OUT), np.float32), None
    return np.concatenate(logits), np.concatenate(feats) if want else None


def members(path: Path = MODEL_PATH) -> tuple[Path, ...]:
    """The networks read together: `digits.json` may list several ("members", trained
    apart); a lone `digits.onnx` is a team of one."""
    meta = path.with_suffix(".json")
    names = json.loads(meta.read_text()).get("members") if meta.exists() else None
    return tuple(path.parent / n for n in names) if names else (path,)


def run_members(batch: np.ndarray, paths: Sequence[Path], engine: str | None = None
                ) -> np.ndarray:
    """Mean logits of several networks. Averaging logits is the normalised geometric mean
    of each head's probabilities: a reading stays likely only if every member finds it
    likely, so the members' independent mistakes cost confidence instead of accuracy."""
    return np.mean([run_net(batch, p, engine=engine) for p in paths], axis=0)


def run_members_features(batch: np.ndarray, paths: Sequence[Path], engine: str | None = None
                         ) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean logits (as run_members) and every member's features side by side (each scaled
    to unit length, so each member weighs the same), or None if a member has none."""
    runs = [run_net_features(batch, p, engine=engine) for p in paths]
    logits = np.mean([z for z, _ in runs], axis=0)
    if any(f is None for _, f in runs):
        return logits, None
    feats = [f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-6)
             for _, f in runs if f is not None]
    return logits, np.concatenate(feats, axis=1) / np.sqrt(len(feats))
