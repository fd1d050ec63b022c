"""The layout from the printed grid, for a sheet whose QR code cannot be read.

The markers fix the page frame (paper, orientation); every layout printed on that frame
puts its red grid lines somewhere else, so the line profiles of the flat page say which
one it is. Layouts that differ only in values, not geometry (`strasse-25`, `weights-123`),
cannot be told apart: the default is taken and the result says so in a warning.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from escalero.scan.geometry import PageFrame, page_frames
from escalero.scan.grid import LINE_SEARCH, line_strength
from escalero.scan.rectify import PX_PER_MM, warp_page
from escalero.scoring.validate import game_name
from escalero.sheets.texts import variant_name

from escalero.i18n import pick_language, translator

if TYPE_CHECKING:
    from escalero.scan.locate import MarkerHit
    from escalero.sheets.layout import LayoutSpec

VALUE_ONLY_VARIANTS = ("strasse-25", "weights-123")  # change allowed values, not geometry
PROFILE_PX_PER_MM = PX_PER_MM / 2  # line profiles on a half-size copy: 4x cheaper, as sharp


@dataclass(frozen=True)
class InferenceSettings:
    """When the printed grid names a layout (ScanOptions.inference). None is fitted: all
    were set by hand with the grid inference (fd02b0b, a760260)."""

    # An expected line matches a found one this close (bent paper, the homography). Set by
    # hand, not fitted (fd02b0b).
    tol_mm: float = 1.0
    # Found lines closer than this are one line. Set by hand, not fitted (fd02b0b).
    nms_mm: float = 0.5
    # The least score (F1 of expected against found lines, both directions and the name
    # boxes multiplied) a layout is taken at. Set by hand, not fitted (a760260).
    min_score: float = 0.5
    # The best must beat the runner-up by this much, and by more the lower it scores. Set
    # by hand, not fitted (fd02b0b).
    min_margin: float = 0.05
    # Page frames tried (A4 and Letter portrait fit four markers almost alike), those
    # whose markers fit at most frame_ratio times, or frame_slack px more than, the best's
    # error. Set by hand, not fitted (fd02b0b).
    max_frames: int = 2
    frame_ratio: float = 1.5
    frame_slack: float = 1.0
    # A found line is a peak this share of the strong expected lines' level (their 75th
    # percentile) or more. Set by hand, not fitted (fd02b0b).
    line_share: float = 0.3
    # The best must beat the runner-up by min_margin, or by this times what its score
    # lacks of 1 where that is more. Set by hand, not fitted (a760260).
    margin_per_miss: float = 0.5

    def __post_init__(self) -> None:
        if self.tol_mm <= 0 or self.nms_mm <= 0 or self.max_frames < 1:
            raise ValueError("inference: need tol_mm > 0, nms_mm > 0 and max_frames >= 1")
        if self.frame_ratio < 1.0 or self.frame_slack < 0 or not 0.0 < self.line_share <= 1.0 \
                or self.margin_per_miss < 0:
            raise ValueError("inference: need frame_ratio >= 1, frame_slack >= 0, "
                             "line_share in (0, 1] and margin_per_miss >= 0")
        if not 0.0 <= self.min_score <= 1.0 or not 0.0 <= self.min_margin <= 1.0:
            raise ValueError("inference: min_score and min_margin are scores in [0, 1]")


INFERENCE = InferenceSettings()

@dataclass(frozen=True)
class Candidate:
    """One distinct grid geometry on a page frame, and the spec that stands for it."""

    spec: LayoutSpec  # the default among those sharing the geometry
    same_geometry: tuple[LayoutSpec, ...]  # every spec printed with this very grid
    xs: np.ndarray  # expected vertical line positions, mm
    ys: np.ndarray  # expected horizontal line positions, mm
    x_span: tuple[float, float]  # where horizontal lines run, mm
    y_span: tuple[float, float]  # where vertical lines run, mm
    pitch: tuple[float, float]
    name_xs: np.ndarray  # vertical lines of the name boxes: one box per side, not per column
    name_span: tuple[float, float]  # where those run, mm


@dataclass(frozen=True)
class Inferred:
    spec: LayoutSpec
    score: float
    runner_up: float
    candidate: Candidate

    def warning_in(self, lang: str) -> str:
        return warning_for(self.candidate, lang)


def _lines(boxes: list[tuple[float, float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    xs = sorted({round(v, 2) for x, _, w, _ in boxes for v in (x, x + w)})
    ys = sorted({round(v, 2) for _, y, _, h in boxes for v in (y, y + h)})
    return np.array(xs), np.array(ys)


def _default_rank(spec: LayoutSpec) -> tuple[int, int]:
    """Fewest value-only variants first: the default reading of an ambiguous grid."""
    return (sum(v in VALUE_ONLY_VARIANTS for v in spec.variants), len(spec.variants))


@functools.cache
def candidates(frame: PageFrame) -> tuple[Candidate, ...]:
    """Every distinct grid printed on `frame`, each once."""
    from escalero.sheets.layout import INSET_MM, all_specs, build_layout

    groups: dict[tuple, list] = {}
    for spec in all_specs():
        layout = build_layout(spec)
        markers = tuple((corner, m.centre[0], m.centre[1], m.size)
                        for corner, m in enumerate(layout.markers))
        here = tuple((m.id, m.cx, m.cy, m.size) for m in frame.markers)
        if (layout.width, layout.height) != frame.page_mm or markers != here:
            continue
        boxes = [tuple(box.grow(INSET_MM)) for box in layout.writable_boxes()]
        boxes += [tuple(box) for _, box in layout.row_labels]
        key = tuple(tuple(round(v, 2) for v in b) for b in boxes)
        groups.setdefault(key, []).append((spec, layout, boxes))
    out = []
    for members in groups.values():
        spec, layout, boxes = min(members, key=lambda m: _default_rank(m[0]))
        xs, ys = _lines(boxes)
        grid = [tuple(c.box.grow(INSET_MM)) for c in (*layout.cells, *layout.totals)]
        labels = [tuple(box) for _, box in layout.row_labels]
        x_span = (min(b[0] for b in labels), max(b[0] + b[2] for b in grid))
        y_span = (min(b[1] for b in grid), max(b[1] + b[3] for b in grid))
        names = [tuple(n.box.grow(INSET_MM)) for n in layout.names]
        name_xs, _ = _lines(names)
        name_span = (min(b[1] for b in names), max(b[1] + b[3] for b in names))
        out.append(Candidate(spec, tuple(m[0] for m in members), xs, ys, x_span, y_span,
                             layout.pitch, name_xs, name_span))
    return tuple(out)


def _peaks(profile: np.ndarray, lo: int, hi: int, thr: float, nms_mm: float) -> np.ndarray:
    """Positions (px) of the local maxima above `thr` in profile[lo:hi], thinned to one
    within `nms_mm`."""
    seg = profile[lo:hi].astype(np.float32)  # compared with its float32 dilation
    if seg.size < 3:
        return np.zeros(0)
    r = max(1, int(nms_mm * PROFILE_PX_PER_MM))
    dil = cv2.dilate(seg.reshape(1, -1), np.ones((1, 2 * r + 1), np.uint8))
    idx = np.flatnonzero((seg >= dil.ravel()) & (seg >= thr))
    keep: list[int] = []
    for i in idx:  # plateaus: one peak each
        if not keep or i - keep[-1] > r:
            keep.append(int(i))
    return np.array(keep, float) + lo


def _axis_f1(cum: np.ndarray, span: tuple[float, float], expected: np.ndarray,
             pitch: float, settings: InferenceSettings) -> float:
    """F1 of expected lines vs lines found in the profile over `span`, across the extent."""
    n = cum.shape[0] - 1
    a = int(np.clip(span[0] * PROFILE_PX_PER_MM, 0, n))
    b = int(np.clip(span[1] * PROFILE_PX_PER_MM, 0, n))
    if b - a < 10:
        return 0.0
    profile = (cum[b] - cum[a]) / (b - a)  # mean line strength per pixel along the line
    size = profile.shape[0]
    lo = int(np.clip((expected[0] - 0.5 * pitch) * PROFILE_PX_PER_MM, 0, size))
    hi = int(np.clip((expected[-1] + 0.5 * pitch) * PROFILE_PX_PER_MM, 0, size))
    if hi - lo < 10:
        return 0.0
    lift = profile - float(np.median(profile[lo:hi]))
    exp_px = expected * PROFILE_PX_PER_MM
    tol = settings.tol_mm * PROFILE_PX_PER_MM
    hits = []
    for e in exp_px:
        i0, i1 = int(max(0, e - tol)), int(min(size, e + tol + 1))
        hits.append(float(lift[i0:i1].max()) if i1 > i0 else 0.0)
    # Found lines: clearly above noise and a fair share of the strong expected lines.
    strong = float(np.percentile(hits, 75))
    thr = max(LINE_SEARCH.min_line_strength, settings.line_share * strong)
    found = _peaks(lift, lo, hi, thr, settings.nms_mm)
    if found.size == 0:
        return 0.0
    dist = np.abs(found[:, None] - exp_px[None, :])
    recall = float(np.mean(dist.min(axis=0) <= tol))
    precision = float(np.mean(dist.min(axis=1) <= tol))
    if recall + precision == 0:
        return 0.0
    return 2 * recall * precision / (recall + precision)


def _cumsum(strength: np.ndarray, axis: int) -> np.ndarray:
    """Prefix sums along `axis`, with a zero row first: sums over any span in O(1)."""
    c = np.cumsum(strength, axis=axis, dtype=np.float32)
    c = c if axis == 0 else c.T
    return np.vstack([np.zeros((1, c.shape[1])), c])


def _flat_strength(image: np.ndarray, hom: np.ndarray, frame: PageFrame,
                   cands: tuple[Candidate, ...]) -> np.ndarray:
    """Line strength of the flat page (PROFILE_PX_PER_MM), computed only where grids can be."""
    page, _ = warp_page(image, hom, frame.page_mm)
    h, w = page.shape[:2]
    x0 = min(min(c.xs[0], c.x_span[0]) for c in cands) - 5
    x1 = max(max(c.xs[-1], c.x_span[1]) for c in cands) + 5
    y0 = min(min(c.ys[0], c.y_span[0]) for c in cands) - 5
    y1 = max(max(c.ys[-1], c.y_span[1]) for c in cands) + 5
    ax0, ay0 = max(0, int(x0 * PX_PER_MM)), max(0, int(y0 * PX_PER_MM))
    ax1, ay1 = min(w, int(x1 * PX_PER_MM)), min(h, int(y1 * PX_PER_MM))
    strength = np.zeros((h, w), np.float32)
    strength[ay0:ay1, ax0:ax1] = line_strength(page[ay0:ay1, ax0:ax1])
    return cv2.resize(strength, (w // 2, h // 2), interpolation=cv2.INTER_AREA)


def infer_layout(image: np.ndarray, markers: tuple[MarkerHit, ...],
                 settings: InferenceSettings = INFERENCE) -> Inferred | None:
    """The layout whose grid the photo shows, or None when no grid is clearly it."""
    from escalero.scan.locate import frame_fits

    fits = frame_fits(markers, page_frames())
    if not fits:
        return None
    best_err = fits[0][0]
    scored: list[tuple[float, Candidate]] = []
    for err, hom, frame in fits[:settings.max_frames]:
        if err > max(settings.frame_ratio * best_err, best_err + settings.frame_slack):
            break
        cands = candidates(frame)
        if not cands:
            continue
        strength = _flat_strength(image, hom, frame, cands)
        cum_rows, cum_cols = _cumsum(strength, 0), _cumsum(strength, 1)
        for cand in cands:
            fx = _axis_f1(cum_rows, cand.y_span, cand.xs, cand.pitch[0], settings)
            fy = _axis_f1(cum_cols, cand.x_span, cand.ys, cand.pitch[1], settings)
            # Sides of one column look like one side of several but for the side gaps;
            # the name boxes (one per side) tell them apart.
            fn = _axis_f1(cum_rows, cand.name_span, cand.name_xs, cand.pitch[0], settings)
            scored.append((fx * fy * fn, cand))
    if not scored:
        return None
    scored.sort(key=lambda s: -s[0])
    top, cand = scored[0]
    second = scored[1][0] if len(scored) > 1 else 0.0
    # A poor match (bent paper smears the profiles) must win all the more clearly; the
    # grid check after it (scan.grid) then follows the bend cell by cell.
    if top < settings.min_score \
            or top - second < max(settings.min_margin, settings.margin_per_miss * (1.0 - top)):
        return None
    return Inferred(cand.spec, round(top, 3), round(second, 3), cand)


def _describe(spec: LayoutSpec, lang: str = "de") -> str:
    t = translator(lang)
    who = t.ngettext("{n} pair", "{n} pairs", spec.sides) if spec.pairs else \
        t.ngettext("{n} player", "{n} players", spec.sides)
    extra = [variant_name(v, lang) for v in spec.variants]
    return ", ".join([game_name(spec.game, lang), who.format(n=spec.sides), *extra,
                      spec.paper.upper()])


def warning_for(cand: Candidate, lang: str = "de") -> str:
    """What the player must know, in `lang`: the layout was guessed; what the grid cannot
    show."""
    spec, lang = cand.spec, pick_language(lang)
    t = translator(lang)
    text = t.gettext("QR code unreadable: layout recognised from the grid ({layout})").format(
        layout=_describe(spec, lang))
    others = [s for s in cand.same_geometry if s != spec]
    if spec.game == "escalero":  # house rules never change the grid
        text += t.gettext("; give house rules (strasse-25, weights-123) with --variant")
    for other in (s for s in others if s.game != spec.game):
        text += t.gettext("; if it is {layout}: give --game, --players and --variant").format(
            layout=_describe(other, lang))
    return text
