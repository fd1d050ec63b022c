"""A score sheet this project did not print: the table found by its own ruled lines.

A bought score block or a table ruled by hand carries no corner marks and no QR code.
Placement then takes its two inputs from elsewhere (docs/ARCHITECTURE.md, Placement):

1. **Page frame**: the paper's outline (locate.find_outline) gives a rough homography;
   the paper is warped flat from it at WORK_LONG_SIDE px.
2. **Expected boxes**: the table's ruled lines, dark or coloured (0.3-0.6 mm), are found
   on that flat copy: each pixel's darkness against the paper around it (in its darkest
   channel, so a red or blue print counts), kept where it runs along a line (a
   morphological opening), summed in strips across the page; each strip's peaks are
   linked from strip to strip into lines, so a wobbly hand-drawn line or bent paper is
   followed. Short strokes (a struck cell, a 7's bar) do not run through enough strips,
   and squared paper's light pattern is not dark enough, to count as the table's lines.
   The table is the set of long lines that cross each other; its rows map in order to
   the game's rows (header first, the total row last), its first column holds the row
   labels and the other columns are the sides, as many of the game's columns each.

The result is an ordinary SheetGeometry in a virtual millimetre frame (scaled so that a
row is ROW_MM high, as on our own sheets), the homography from it to the photo, and each
box already placed on its lines with an uncertainty (how much its lines wander along
it): the cell reader, the totals check and the payout certainty then run unchanged. The
table's lines are painted over with the paper's colour in the photo the cells are cut
from, as our own sheets' light-red lines drop out by their colour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import cv2
import numpy as np
from escalero.scan.geometry import TOTAL_ROW, SheetGeometry, Slot, default_side_names
from escalero.scan.grid import SnappedSlot
from escalero.scan.imaging import shrink
from escalero.scan.locate import Placement
from escalero.scoring.rulesets import get_ruleset

from escalero.i18n import N_, pick_language, translator

Track = dict[int, float]  # strip index -> the line's position across the strips, work px


@dataclass(frozen=True)
class RuledSettings:
    """The ruled-table finder's fitted values. Fitted on samples.foreign's block and hand
    photos (mild level, seeds 1-40) and checked on the golf cards of shared/data/real."""

    # The flat copy's long side (px): A4 at ~4.7 px/mm, where a 0.3 mm line is 1.4 px.
    work_long_side: int = 1400
    # Darkness (0-1, of the paper's level in the darkest channel) a table line must reach
    # along a strip: printed and pen lines 0.3-0.8 in the photos, squared paper's pattern
    # 0.03-0.12, our own light-red 0.14 mm grid under 0.12.
    min_darkness: float = 0.2
    # The opening's length, as a share of the flat copy's short side (~1.5 % of 1000 px:
    # 7 mm on A4): longer than a digit's strokes, shorter than a cell.
    open_share: float = 0.015
    # The share of a strip's width a line must darken (lines slant and wobble by a px or
    # two within a strip; a digit's stroke covers less than half of it).
    cover: float = 0.7
    strips: int = 28  # strips across the page in each direction (~8 mm apart on A4)
    link_share: float = 0.004  # a line moves at most this share of the side per strip
    # A line's darkness from strip to strip stays within this factor of where it started.
    link_level: float = 2.0
    min_span: float = 0.75  # a table line runs through this share of the longest at least
    min_rows: int = 11  # game rows (10 and the total) under at most this many headers
    max_header_rows: int = 2
    base_mm: float = 0.2  # a box between two straight found lines (as grid.found_mm)
    max_unsure_mm: float = 1.0  # as grid.PlacementSettings.max_uncertain_mm
    paint_mm: float = 0.9  # the band painted over along each line (virtual mm)
    # Squared paper's light pattern is painted over where it runs this dark along a line
    # (its lines 0.03-0.12; paper noise after the opening stays under 0.02).
    pattern_darkness: float = 0.035
    # Where a paper's pattern is dark enough to pass min_darkness, the table's lines are
    # this many times darker still (pen or print 0.3-0.8 against the pattern's <= 0.28).
    pattern_gap: float = 1.4

    def __post_init__(self) -> None:
        if not 0 < self.min_darkness < 1 or not 0 < self.open_share < 0.2:
            raise ValueError("ruled: min_darkness in (0, 1) and open_share in (0, 0.2)")
        if self.strips < 8 or not 0 < self.min_span <= 1 or self.work_long_side < 400:
            raise ValueError("ruled: need strips >= 8, min_span in (0, 1], work_long_side >= 400")


RULED = RuledSettings()
ROW_MM = 12.0  # a game row's height in the virtual frame: our own sheets' 8-14 mm middle

CONFIRM = N_("Sheet not printed by Escalero: table read from its lines ({rows} rows, "
             "{sides} sides of {cols} columns, rows from the top: Nines to Grande, total). "
             "Please confirm once that rows and sides are mapped right.")


@dataclass(frozen=True)
class RuledTable:
    """The table's lines in the flat copy (work px) and the copy's frame."""

    to_photo: np.ndarray  # 3x3, work px -> photo px
    size: tuple[int, int]  # the flat copy's (width, height) px
    rows: tuple[Track, ...]  # horizontal lines, top to bottom: strip -> y
    cols: tuple[Track, ...]  # vertical lines, left to right: strip -> x
    strip_x: np.ndarray  # centre x of each vertical strip (the rows' samples)
    strip_y: np.ndarray  # centre y of each horizontal strip (the columns' samples)


@dataclass(frozen=True)
class ForeignSheet:
    """A foreign sheet ready for the pipeline's flat page, reader and checks."""

    geometry: SheetGeometry
    homography: np.ndarray  # virtual mm -> photo px
    snapped: tuple[SnappedSlot, ...]
    outline: np.ndarray
    table: RuledTable
    scale: float  # virtual mm per work px
    sides: int
    header_rows: int
    warnings: tuple[str, ...] = field(default=())
    # The mapping of rows and sides is in doubt (DOUBT, ONE_SIDE): every box is flagged,
    # and the payout is not certain, whatever the cells read.
    doubtful: bool = False
    # The sides were counted from the columns found, not named by the player: a side whose
    # lines were all missed leaves no trace (block 8100000-163: three sides read as two,
    # paid out certain and wrong), so such a payout is not certain either.
    sides_counted: bool = False


def paper_outline(image: np.ndarray) -> np.ndarray | None:
    """The paper's four corners (photo px) where locate.find_outline finds none: the
    largest bright, colourless region (a checked tablecloth's white squares and a light
    table's grain are cut off it by an opening a few percent of its size), its convex
    hull brought to four corners."""
    small, scale = shrink(image, 800)
    if small.ndim == 2:
        score = small.astype(np.float32)
    else:
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        score = hsv[:, :, 2].astype(np.float32) - 1.5 * hsv[:, :, 1].astype(np.float32)
    score8 = cv2.normalize(cv2.GaussianBlur(score, (5, 5), 0), None, 0, 255,
                           cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(score8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = int(stats[biggest, cv2.CC_STAT_AREA])
    if area < 0.08 * mask.size:
        return None
    blob = (labels == biggest).astype(np.uint8) * 255
    k = max(5, int(0.04 * np.sqrt(area)) | 1)
    blob = cv2.morphologyEx(blob, cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    for eps in (0.01, 0.02, 0.03, 0.05):
        approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32) / scale
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32) / scale


def lines_outline(image: np.ndarray) -> np.ndarray | None:
    """Four corners (photo px) around the long dark lines in the photo, square to their
    main direction: the table's own frame, for a paper whose outline does not show (a
    white sheet on a light table, a busy tablecloth)."""
    small, scale = shrink(image, 1000)
    dark = darkness(small)
    binary = (dark > RULED.min_darkness).astype(np.uint8) * 255
    size = min(binary.shape)
    segs = cv2.HoughLinesP(binary, 1, np.pi / 720, threshold=int(0.15 * size),
                           minLineLength=int(0.25 * size), maxLineGap=int(0.01 * size) + 2)
    if segs is None or len(segs) < 4:
        return None
    seg = segs.reshape(-1, 4).astype(np.float64)
    d = seg[:, 2:] - seg[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    # The lines' direction modulo a quarter turn, as a length-weighted circular mean.
    quarter = np.arctan2(d[:, 1], d[:, 0]) * 4
    theta = float(np.arctan2((length * np.sin(quarter)).sum(),
                             (length * np.cos(quarter)).sum()) / 4)
    c, s_ = np.cos(theta), np.sin(theta)
    rot = np.array([[c, s_], [-s_, c]])  # photo -> the lines' frame
    pts = np.concatenate([seg[:, :2], seg[:, 2:]]) @ rot.T
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.06 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    return (box @ rot).astype(np.float32) / scale


def _order(outline: np.ndarray) -> np.ndarray:
    """The outline's corners as top-left, top-right, bottom-right, bottom-left."""
    pts = np.asarray(outline, np.float64).reshape(4, 2)
    s, d = pts.sum(axis=1), pts[:, 1] - pts[:, 0]
    return np.array([pts[s.argmin()], pts[d.argmin()], pts[s.argmax()], pts[d.argmax()]])


def _flat_copy(image: np.ndarray, outline: np.ndarray, settings: RuledSettings,
               ordered: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The paper warped flat from its outline (long side work_long_side), and the
    work px -> photo px homography. `ordered`: the corners are top-left, top-right,
    bottom-right, bottom-left already (else as they lie in the photo)."""
    tl, tr, br, bl = np.asarray(outline, np.float64).reshape(4, 2) if ordered \
        else _order(outline)
    w = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    h = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    k = settings.work_long_side / max(w, h)
    size = (max(1, round(w * k)), max(1, round(h * k)))
    dst = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float64)
    to_photo = cv2.getPerspectiveTransform(dst.astype(np.float32),
                                           np.array([tl, tr, br, bl], np.float32))
    flat = cv2.warpPerspective(image, np.linalg.inv(to_photo), size, flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)
    return flat, to_photo


def darkness(flat: np.ndarray) -> np.ndarray:
    """Each pixel's darkness against the paper around it (0 paper .. 1 black), in its
    darkest channel: a coloured print is dark in one channel at least."""
    chans = [flat] if flat.ndim == 2 else cv2.split(flat)
    out = np.zeros(flat.shape[:2], np.float32)
    for ch in chans:
        c = ch.astype(np.float32)
        # The paper: a closing fills thin dark lines and strokes with the paper around
        # them but keeps a step (the paper's edge against the table) where it is.
        paper = cv2.morphologyEx(c, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        out = np.maximum(out, np.clip((paper - c) / (paper + 1.0), 0.0, 1.0))
    return out


def _line_maps(dark: np.ndarray, settings: RuledSettings) -> tuple[np.ndarray, np.ndarray]:
    """Darkness kept only where it runs along a horizontal / vertical line."""
    length = max(9, round(settings.open_share * min(dark.shape)))
    # Thickened across first: a thin, slightly slanted line survives the opening.
    horiz = cv2.morphologyEx(cv2.dilate(dark, np.ones((5, 1), np.uint8)), cv2.MORPH_OPEN,
                             np.ones((1, length), np.uint8))
    vert = cv2.morphologyEx(cv2.dilate(dark, np.ones((1, 5), np.uint8)), cv2.MORPH_OPEN,
                            np.ones((length, 1), np.uint8))
    return horiz, vert


def _peaks(profile: np.ndarray, floor: float, min_gap: int) -> list[tuple[float, float]]:
    """(sub-pixel position, height) of the profile's maxima above `floor`, at least
    `min_gap` apart (the stronger kept)."""
    p = cv2.GaussianBlur(profile.reshape(-1, 1).astype(np.float32), (1, 0), 1.0).ravel()
    idx = np.flatnonzero((p[1:-1] >= p[:-2]) & (p[1:-1] > p[2:]) & (p[1:-1] >= floor)) + 1
    chosen: list[int] = []
    for i in sorted(idx, key=lambda i: -p[i]):
        if all(abs(i - j) >= min_gap for j in chosen):
            chosen.append(int(i))
    out = []
    for at in sorted(chosen):
        a, b, c = p[at - 1], p[at], p[at + 1]
        den = a - 2 * b + c
        out.append((float(at + (0.5 * (a - c) / den if den < 0 else 0.0)), float(b)))
    return out


def _tracks(line_map: np.ndarray, axis: int, settings: RuledSettings
            ) -> tuple[list[Track], np.ndarray]:
    """Lines across the strips: each strip's profile peaks, linked strip to strip, the
    strongest first. axis 0: horizontal lines (strips are columns of the map), 1:
    vertical ones."""
    m = line_map if axis == 0 else line_map.T
    length, across = m.shape  # positions along the profile, and across the strips
    edges = np.linspace(0, across, settings.strips + 1).round().astype(int)
    centres = (edges[:-1] + edges[1:]) / 2
    gap = max(3, round(0.006 * length))
    # A line runs through (almost) the whole strip, a stroke of ink through part of it:
    # the profile is the level most of the strip's width reaches.
    found = []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        k = int((b - a - 1) * (1 - settings.cover))
        found.append(_peaks(np.partition(m[:, a:b], k, axis=1)[:, k], settings.min_darkness,
                            gap))
    reach = settings.link_share * length + 1.5
    taken: set[tuple[int, int]] = set()  # (strip, peak index) already in a line
    tracks: list[Track] = []
    seeds = sorted(((v, k, i) for k, peaks in enumerate(found) for i, (_, v) in enumerate(peaks)),
                   reverse=True)
    for _, start, index in seeds:
        if (start, index) in taken:
            continue
        track, members = _link(found, start, index, taken, reach, settings)
        if len(track) >= 3:
            tracks.append(track)
            taken.update(members)
    return _joined(tracks, reach), centres


def _joined(tracks: list[Track], reach: float) -> list[Track]:
    """The tracks with the pieces of one line joined: a pen's line that fades along the
    page (or crosses a heavy stroke) is followed in pieces of unlike darkness; a piece
    that lies where a longer track runs (between its samples, or a few strips past its
    end), in strips it has none of, is the same line."""
    out = sorted(tracks, key=len, reverse=True)
    i = 0
    while i < len(out):
        a = out[i]
        j = i + 1
        while j < len(out):
            if _continues(a, out[j], reach):
                a.update(out.pop(j))
                j = i + 1  # the longer line may now reach pieces passed over
            else:
                j += 1
        i += 1
    return out


def _continues(a: Track, b: Track, reach: float, max_gap: int = 4) -> bool:
    """Whether track `b` lies on the course of track `a` (see _joined): where it runs
    between `a`'s samples, near `a` throughout; past an end of `a`, its sample nearest
    that end near where `a` is carried on to it (further on, `b` follows itself)."""
    if a.keys() & b.keys():
        return False
    ka = np.array(sorted(a), np.float64)
    va = np.array([a[int(k)] for k in ka])
    inside = [k for k in b if ka[0] < k < ka[-1]]
    before, after = [k for k in b if k < ka[0]], [k for k in b if k > ka[-1]]
    checks = [(k, float(np.interp(k, ka, va))) for k in inside]
    for outside, end in ((before, slice(0, 3)), (after, slice(-3, None))):
        if not outside:
            continue
        k = max(outside) if end.start == 0 else min(outside)
        near = 0 if end.start == 0 else -1
        slope = float(np.polyfit(ka[end], va[end], 1)[0]) if len(ka) >= 3 else 0.0
        checks.append((k, float(va[near] + slope * (k - ka[near]))))
    for k, want in checks:
        gap = float(np.abs(ka - k).min())
        if gap > max_gap or abs(b[k] - want) > reach * (1 + 0.5 * (gap - 1)):
            return False
    return True


def _link(found: list[list[tuple[float, float]]], start: int, index: int,
          taken: set[tuple[int, int]], reach: float, settings: RuledSettings
          ) -> tuple[Track, list[tuple[int, int]]]:
    """The line through peak `index` of strip `start`, followed both ways strip by strip:
    in each, the free peak nearest to where the line was, within `reach` (more after a
    strip it was not seen in) and about as dark as where it started (a paper's light
    pattern next to a table's line, or a heavy stroke on it, is neither the one nor the
    other; a line that fades is followed in pieces, see _joined)."""
    levels = [found[start][index][1]]
    track: Track = {start: found[start][index][0]}
    members = [(start, index)]
    for step in (1, -1):
        last, k, misses = found[start][index][0], start + step, 0
        while 0 <= k < settings.strips and misses <= 2:
            level = float(np.median(levels))
            cands = [(abs(p - last), i) for i, (p, v) in enumerate(found[k])
                     if (k, i) not in taken and abs(p - last) <= reach * (1 + 0.5 * misses)
                     and level / settings.link_level <= v <= level * settings.link_level]
            if cands:
                i = min(cands)[1]
                last = track[k] = found[k][i][0]
                members.append((k, i))
                levels.append(found[k][i][1])
                misses = 0
            else:
                misses += 1
            k += step
    return track, members


def _at(track: Track, centres: np.ndarray, where: np.ndarray | float) -> np.ndarray:
    """The line's position at `where` (along the strips), interpolated between its
    samples and carried on past its ends."""
    ks = sorted(track)
    return np.asarray(np.interp(where, centres[ks], [track[k] for k in ks]))


def _reach(track: Track) -> int:
    """The strips a track runs through, from its first to its last."""
    return max(track) - min(track) + 1


def _span(track: Track, centres: np.ndarray, half: float) -> tuple[float, float]:
    ks = sorted(track)
    return float(centres[ks[0]] - half), float(centres[ks[-1]] + half)


def _crossing(rows: list[Track], cols: list[Track], sx: np.ndarray, sy: np.ndarray,
              maps: tuple[np.ndarray, np.ndarray], settings: RuledSettings) -> np.ndarray:
    """cross[i, j]: horizontal line i and vertical line j meet: each shows in its line map
    right next to where they cross (a line ending short of another, or the paper's edge
    next to the table, does not)."""
    horiz, vert = maps
    h, w = horiz.shape
    reach = max(3, round(0.008 * min(h, w)))  # ~1.5 mm on A4
    out = np.zeros((len(rows), len(cols)), bool)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            x = float(_at(c, sy, float(np.median(list(r.values())))))
            y = float(_at(r, sx, x))
            xi, yi = int(round(x)), int(round(y))
            if not (reach <= xi < w - reach and reach <= yi < h - reach):
                continue
            across = horiz[yi - 1:yi + 2, xi - reach:xi + reach + 1].max(axis=0)
            down = vert[yi - reach:yi + reach + 1, xi - 1:xi + 2].max(axis=1)
            floor = 0.8 * settings.min_darkness
            out[i, j] = max(across[:reach].mean(), across[reach + 1:].mean()) >= floor \
                and max(down[:reach].mean(), down[reach + 1:].mean()) >= floor
    return out


def _strength(track: Track, centres: np.ndarray, line_map: np.ndarray, axis: int) -> float:
    """A line's median darkness along its samples (in its line map)."""
    h, w = line_map.shape
    vals = []
    for k, v in track.items():
        a, b = int(round(v)), int(round(centres[k]))
        y, x = (a, b) if axis == 0 else (b, a)
        if 0 <= y < h and 0 <= x < w:
            vals.append(float(line_map[max(0, y - 1):y + 2, x].max() if axis == 0
                              else line_map[y, max(0, x - 1):x + 2].max()))
    return float(np.median(vals)) if vals else 0.0


def _drop_pattern(tracks: list[Track], centres: np.ndarray, line_map: np.ndarray, axis: int,
                  settings: RuledSettings) -> tuple[list[Track], float]:
    """The tracks without squared or lined paper's pattern: where the lines fall into a
    strong and a weak group (their darkness apart by pattern_gap or more) and many of the
    weak ones lie outside the strong ones' range (the pattern runs over the whole paper,
    a table's thinner lines stay inside its frame), the weak ones are dropped. Also
    returns the darkest dropped line's darkness (0.0: none dropped)."""
    longest = max((len(t) for t in tracks), default=0)
    tracks = [t for t in tracks if len(t) >= 0.3 * longest]  # not strokes of ink
    if len(tracks) < 4:
        return tracks, 0.0
    strength = np.array([_strength(t, centres, line_map, axis) for t in tracks])
    order = np.argsort(-strength)
    ranked = strength[order]
    ratios = ranked[:-1] / np.maximum(ranked[1:], 1e-6)
    ratios[:2] = 0.0  # a table has more than two strong lines each way
    k = int(np.argmax(ratios))
    if ratios[k] < settings.pattern_gap:
        return tracks, 0.0
    strong = [tracks[i] for i in order[:k + 1]]
    weak = [tracks[i] for i in order[k + 1:]]
    pos = [float(np.median(list(t.values()))) for t in strong]
    lo, hi = min(pos), max(pos)
    outside = sum(not lo <= float(np.median(list(t.values()))) <= hi for t in weak)
    return (strong, float(ranked[k + 1])) if outside >= 0.3 * len(weak) else (tracks, 0.0)


def _table_lines(rows: list[Track], cols: list[Track], sx: np.ndarray, sy: np.ndarray,
                 maps: tuple[np.ndarray, np.ndarray], settings: RuledSettings
                 ) -> tuple[list[Track], list[Track], float]:
    """The lines that make one table: rows that cross enough of its columns and columns
    that cross enough of its rows, until both agree."""
    size = (maps[0].shape[1], maps[0].shape[0])
    half = (size[0] / settings.strips / 2, size[1] / settings.strips / 2)
    # Squared paper shows its pattern both ways: told apart in one direction (where more
    # of it lies outside the table), it is dropped in both.
    pattern = max(_drop_pattern(rows, sx, maps[0], 0, settings)[1],
                  _drop_pattern(cols, sy, maps[1], 1, settings)[1])
    if pattern:
        rows = [t for t in rows if _strength(t, sx, maps[0], 0) > 1.2 * pattern]
        cols = [t for t in cols if _strength(t, sy, maps[1], 1) > 1.2 * pattern]
    # The table's lines run its whole width (height): far longer than a stroke of ink.
    # (Its strips from first to last: a wobbly line missed in a strip here and there
    # runs as far.)
    longest_r = max((_reach(t) for t in rows), default=0)
    longest_c = max((_reach(t) for t in cols), default=0)
    rows = [t for t in rows if _reach(t) >= settings.min_span * longest_r]
    cols = [t for t in cols if _reach(t) >= settings.min_span * longest_c]
    r_idx, c_idx = list(range(len(rows))), list(range(len(cols)))
    for _ in range(6):
        if len(r_idx) < 2 or len(c_idx) < 2:
            return [], [], pattern
        cross = _crossing([rows[i] for i in r_idx], [cols[j] for j in c_idx], sx, sy, maps,
                          settings)
        # A header's merged cells leave a side's inner columns off its top line: a row
        # line needs only a third of the columns, a column most of the rows.
        keep_r = [r_idx[a] for a in range(len(r_idx))
                  if cross[a].sum() >= max(3, 0.3 * len(c_idx))]
        keep_c = [c_idx[b] for b in range(len(c_idx))
                  if cross[:, b].sum() >= max(3, 0.6 * len(r_idx))]
        if keep_r == r_idx and keep_c == c_idx:
            break
        r_idx, c_idx = keep_r, keep_c
    rs = sorted((rows[i] for i in r_idx), key=lambda t: float(np.median(list(t.values()))))
    cs = sorted((cols[j] for j in c_idx), key=lambda t: float(np.median(list(t.values()))))
    if not rs or not cs:
        return [], [], pattern
    # A line must run through a good part of the table (not a stroke across a cell).
    width = _at(cs[-1], sy, size[1] / 2) - _at(cs[0], sy, size[1] / 2)
    height = _at(rs[-1], sx, size[0] / 2) - _at(rs[0], sx, size[0] / 2)
    rs = [t for t in rs if np.ptp(sx[sorted(t)]) + 2 * half[0] >= settings.min_span * width]
    cs = [t for t in cs if np.ptp(sy[sorted(t)]) + 2 * half[1] >= settings.min_span * height]
    return rs, cs, pattern


def _pass(image: np.ndarray, outline: np.ndarray, settings: RuledSettings,
          ordered: bool = False) -> list[tuple[RuledTable, float]]:
    """The table's lines on the flat copy warped from `outline`, as it lies and (unless
    the outline is `ordered` the table's way) turned a quarter; each RuledTable with rows
    and columns of lines, however many, and the darkness of the paper's pattern where
    one was told apart (else 0.0)."""
    flat, to_photo = _flat_copy(image, outline, settings, ordered)
    out: list[tuple[RuledTable, float]] = []
    if min(flat.shape[:2]) < 2 * settings.strips:
        # A sliver of an outline (pub photo 9600000-070 gave a 9 x 1400 px copy) holds no
        # table, and its strips would be empty.
        return out
    dark = darkness(flat)
    for quarter in (0,) if ordered else (0, 1):
        if quarter:  # the paper lies on its side: turn the copy a quarter
            dark = cv2.rotate(dark, cv2.ROTATE_90_CLOCKWISE)
            h0 = flat.shape[0]
            # rotated (u, v) <- original (v, h0 - 1 - u)
            turn = np.array([[0, 1, 0], [-1, 0, h0 - 1], [0, 0, 1]], np.float64)
            to_photo = to_photo @ turn
        size = (dark.shape[1], dark.shape[0])
        horiz, vert = _line_maps(dark, settings)
        rows, sx = _tracks(horiz, 0, settings)
        cols, sy = _tracks(vert, 1, settings)
        rs, cs, pattern = _table_lines(rows, cols, sx, sy, (horiz, vert), settings)
        if len(rs) >= 3 and len(cs) >= 3:
            out.append((RuledTable(to_photo.copy(), size, tuple(rs), tuple(cs), sx, sy),
                        pattern))
    return out


def table_frame(table: RuledTable, pad: float = 0.1) -> np.ndarray:
    """The table's outer lines' corners (photo px), `pad` of its size farther out: a
    frame square to the table, whatever the paper's outline did."""
    sx, sy = table.strip_x, table.strip_y
    pts = []
    for r, c in ((0, 0), (0, -1), (-1, -1), (-1, 0)):
        x = float(_at(table.cols[c], sy, float(np.median(list(table.rows[r].values())))))
        pts.append((x, float(_at(table.rows[r], sx, x))))
    quad = np.array(pts)
    centre = quad.mean(axis=0)
    quad = centre + (quad - centre) * (1 + 2 * pad)
    return cv2.perspectiveTransform(quad.reshape(-1, 1, 2), table.to_photo).reshape(4, 2)


def find_tables(image: np.ndarray, outline: np.ndarray, settings: RuledSettings = RULED
                ) -> list[RuledTable]:
    """The ruled table on the paper inside `outline` (photo px) in each orientation that
    gives it at least min_rows rows of lines (the paper may lie any way round in the
    photo: each table comes with its half-turned twin; the reader tells them apart,
    see for_scan), or [] where none shows. The lines found on the paper's flat copy are
    found again on a copy warped from the table's own outer lines: square to the table,
    so that perspective and a rough outline leave them straight."""
    found: list[RuledTable] = []
    for rough, pattern in _pass(image, outline, settings):
        # Close up, the table's frame holds too little of a paper's pattern to tell it
        # apart: lines as light as the pattern seen on the whole paper do not count.
        close = replace(settings, min_darkness=max(settings.min_darkness, 1.2 * pattern))
        # The refined copy's table where it saw as many lines, else the rough one's.
        for refined, _ in _pass(image, table_frame(rough), close, True) or [(rough, 0.0)]:
            best = refined if (len(refined.rows) + len(refined.cols)
                               >= len(rough.rows) + len(rough.cols)) else rough
            if len(best.rows) - 1 >= settings.min_rows:
                found.append(best)
    if not found:
        return []
    # The pass that saw the most of the table's lines (a rough outline may cut one off).
    most = max(len(t.rows) + len(t.cols) for t in found)
    out: list[RuledTable] = []
    for table in found:
        if len(table.rows) + len(table.cols) == most:
            out += [table, half_turn(table)]
    return out


def half_turn(table: RuledTable) -> RuledTable:
    """The same table seen the other way up (its rows and columns in reverse)."""
    w, h = table.size
    n = len(table.strip_x), len(table.strip_y)
    rows = tuple({n[0] - 1 - k: h - v for k, v in t.items()} for t in reversed(table.rows))
    cols = tuple({n[1] - 1 - k: w - v for k, v in t.items()} for t in reversed(table.cols))
    flip = np.array([[-1, 0, w], [0, -1, h], [0, 0, 1]], np.float64)
    return RuledTable(table.to_photo @ flip, table.size, rows, cols,
                      (w - table.strip_x)[::-1].copy(), (h - table.strip_y)[::-1].copy())


def _mids(tracks: tuple[Track, ...]) -> np.ndarray:
    """Each line's median position across the strips (work px)."""
    return np.array([float(np.median(list(t.values()))) for t in tracks])


def row_mappings(table: RuledTable, n_game: int, settings: RuledSettings = RULED
                 ) -> list[RuledTable]:
    """The ways the table's row lines can hold the game's `n_game` rows, the table as
    found first. A line can be too many or missing, and each shifts every row below it:
    - a long stroke across a row (a Grande struck through several columns) splits it
      into two thin bands (hand 8200000-003 and -128): without it (without_split_rows);
    - a line under the table or a name's underline: with up to max_header_rows lines at
      the bottom left out;
    - a hand-ruled table without a line under its totals: with one added (with_row_below).
    The reader decides between them (for_scan)."""
    bases = [table]
    if (merged := without_split_rows(table)) is not None:
        bases.append(merged)
    out: list[RuledTable] = []
    for base in bases:
        bands = len(base.rows) - 1
        out.append(base)
        out += [replace(base, rows=base.rows[:k + 1])
                for k in range(bands - 1, max(n_game, bands - settings.max_header_rows) - 1, -1)]
        if (extended := with_row_below(base, n_game)) is not None:
            out.append(extended)
    return out


def without_split_rows(table: RuledTable) -> RuledTable | None:
    """The table without the lines that split a row into two thin bands (each under 0.7
    of the rows' pitch, together 0.75-1.35 of it), or None where none does."""
    spans = np.diff(_mids(table.rows))
    pitch = float(np.median(spans))
    drop = {i + 1 for i in range(len(spans) - 1)
            if max(spans[i], spans[i + 1]) < 0.7 * pitch
            and 0.75 * pitch <= spans[i] + spans[i + 1] <= 1.35 * pitch}
    if not drop:
        return None
    return replace(table, rows=tuple(t for i, t in enumerate(table.rows) if i not in drop))


def with_row_below(table: RuledTable, n_game: int) -> RuledTable | None:
    """The table with one more row line below its last, a row's pitch further down, where
    its lines make exactly the game's rows (no header): a hand-ruled table often has no
    line under its totals, and then its names' row is taken for the first game row and
    every row is mapped one too high (hand 8200000-033 and -128). None where the table
    has a header already or the line would lie off the copy. The reader decides which
    mapping is right (for_scan): only one of them makes written totals agree."""
    if len(table.rows) - 1 != n_game:
        return None
    pitch = float(np.median(np.diff(_mids(table.rows))))
    below = {k: v + pitch for k, v in table.rows[-1].items()}
    if max(below.values()) >= table.size[1] - 1:
        return None
    return replace(table, rows=(*table.rows, below))


def _edges(track: Track, centres: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return np.asarray(_at(track, centres, np.linspace(lo, hi, 7)))


def _sheet_shape(table: RuledTable, n_game: int, per_side: int, sides: int | None,
                 settings: RuledSettings) -> tuple[int, int] | None:
    """The header rows and sides of `table` for a game of `n_game` rows and `per_side`
    columns a side, or None where its rows or columns do not fit that game."""
    bands = len(table.rows) - 1
    header = bands - n_game
    if not 0 <= header <= settings.max_header_rows:
        return None
    data = len(table.cols) - 2  # column bands after the labels' column
    if data < per_side or data % per_side:
        return None
    if sides is None:
        sides = data // per_side
    elif sides * per_side != data:
        return None
    return header, sides


def _evenly_spaced(mids: np.ndarray, cmids: np.ndarray) -> bool:
    """Whether the rows are of one height and the columns of one width, roughly."""
    # Rows of one height and columns of one width, give or take a hand's unevenness: a
    # line not found leaves a band twice as high (every row below it would shift).
    for spans in (np.diff(mids), np.diff(cmids)):
        rel = spans / np.median(spans)
        if rel.min() <= 0.55 or rel.max() >= 1.6:
            return False
    return True


def _cell_box(table: RuledTable, vertical: tuple[Track, Track], horizontal: tuple[Track, Track],
              inset: float, scale: float, settings: RuledSettings
              ) -> tuple[tuple[float, float, float, float], float] | None:
    """One cell's writable box (virtual mm) and how unsure it is (mm), or None where the
    box inside its lines is too small."""
    sx, sy = table.strip_x, table.strip_y
    left_t, right_t = vertical
    top_t, bottom_t = horizontal
    # The cell's rough extent, then each line along the cell's own stretch.
    ym = float(np.mean([_at(top_t, sx, float(_at(left_t, sy, 0.0))),
                        _at(bottom_t, sx, float(_at(left_t, sy, 0.0)))]))
    x_lo = float(_at(left_t, sy, ym))
    x_hi = float(_at(right_t, sy, ym))
    y_lo = float(np.mean(_edges(top_t, sx, x_lo, x_hi)))
    y_hi = float(np.mean(_edges(bottom_t, sx, x_lo, x_hi)))
    lefts, rights = _edges(left_t, sy, y_lo, y_hi), _edges(right_t, sy, y_lo, y_hi)
    tops, bottoms = _edges(top_t, sx, x_lo, x_hi), _edges(bottom_t, sx, x_lo, x_hi)
    # Each side at its line's mean along the box: a slanted or wobbly line
    # leaves the box centred in its cell (the lines are painted over, so a
    # box that reaches under one where it bulges in reads no line).
    x0, x1 = float(lefts.mean()) + inset, float(rights.mean()) - inset
    y0, y1 = float(tops.mean()) + inset, float(bottoms.mean()) - inset
    if x1 - x0 <= 2 * inset or y1 - y0 <= 2 * inset:
        return None
    box = (x0 * scale, y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale)
    # How far a line bends along the box (off its straight course): the box's
    # side may be off its line's mean by up to half of that.
    bend = max(_bend(e) for e in (lefts, rights, tops, bottoms))
    gaps = _gaps((left_t, right_t), (top_t, bottom_t), sx, sy, (x0 + x1) / 2, (y0 + y1) / 2)
    return box, round(settings.base_mm + 0.5 * bend * scale + gaps * settings.max_unsure_mm, 2)


def _cell_slots(table: RuledTable, row_tracks: tuple[Track, ...], wanted: tuple[str, ...],
                sides: int, per_side: int, scale: float, settings: RuledSettings
                ) -> tuple[list[Slot], list[float]] | None:
    """Every cell's slot and unsureness, side by side, column by column, row by row, or
    None where any cell's box is too small."""
    slots: list[Slot] = []
    unsure: list[float] = []
    inset = 0.5 / scale  # px: the writable box lies this far inside its lines
    for s in range(sides):
        for c in range(per_side):
            vertical = (table.cols[1 + s * per_side + c], table.cols[2 + s * per_side + c])
            for r, row in enumerate(wanted):
                cell = _cell_box(table, vertical, (row_tracks[r], row_tracks[r + 1]), inset,
                                 scale, settings)
                if cell is None:
                    return None
                slots.append(Slot(s, c, row, cell[0]))
                unsure.append(cell[1])
    return slots, unsure


def foreign_sheet(table: RuledTable, outline: np.ndarray, game: str = "escalero",
                  variants: tuple[str, ...] = (), sides: int | None = None,
                  pairs: bool = False, lang: str = "de",
                  settings: RuledSettings = RULED) -> ForeignSheet | None:
    """The foreign sheet of `table` as the pipeline reads it (its lines not yet painted
    over: paint_lines), or None where the table has not the game's shape (`sides`: as
    named by the user; None: from the columns)."""
    rules = get_ruleset(game, variants)
    n_game = len(rules.row_ids) + 1  # and the total row
    per_side = rules.columns
    shape = _sheet_shape(table, n_game, per_side, sides, settings)
    if shape is None:
        return None
    named = sides
    one_counted_side = named is None and shape[1] == 1
    header, sides = shape
    row_tracks = table.rows[header:]
    mids, cmids = _mids(row_tracks), _mids(table.cols[1:])
    if not _evenly_spaced(mids, cmids):
        return None
    scale = ROW_MM / float(np.median(np.diff(mids)))  # virtual mm per work px
    wanted = (*rules.row_ids, TOTAL_ROW)
    cells = _cell_slots(table, row_tracks, wanted, sides, per_side, scale, settings)
    if cells is None:
        return None
    slots, unsure = cells
    names = tuple(_name_box(table, header, s, per_side, scale) for s in range(sides))
    members = default_side_names(sides, pairs)
    page_mm = (table.size[0] * scale, table.size[1] * scale)
    geom = SheetGeometry(game=game, variants=tuple(variants), page_mm=page_mm, markers=(),
                         qr_box=None, slots=tuple(slots),
                         side_names=tuple(" & ".join(m) for m in members),
                         side_members=members, inset_mm=0.5,
                         name_boxes=tuple((s, 0, b) for s, b in enumerate(names) if b))
    hom = table.to_photo @ np.diag([1 / scale, 1 / scale, 1.0])
    snapped = tuple(SnappedSlot(slot, slot.box, 0.0, 4, u)
                    for slot, u in zip(slots, unsure, strict=True))
    t = translator(pick_language(lang))
    text = t.gettext(CONFIRM).format(rows=n_game, sides=sides, cols=per_side)
    sheet = ForeignSheet(geom, hom, snapped, np.asarray(outline, np.float32), table, scale,
                         sides, header, (text,), sides_counted=named is None)
    # Counted from the columns, one side is no game: at least two play, so lines were
    # missed (hand 8200000-189, block 8100000-055: every other column line, read as one
    # side and paid out certain and wrong).
    return _in_doubt(sheet, t.gettext(ONE_SIDE)) if one_counted_side else sheet


def _in_doubt(sheet: ForeignSheet, why: str) -> ForeignSheet:
    """The sheet with every box as unsure as a row is high (flagged for review), the
    payout never certain, and a warning that says why."""
    snapped = tuple(replace(s, uncertainty_mm=max(s.uncertainty_mm, ROW_MM))
                    for s in sheet.snapped)
    return replace(sheet, snapped=snapped, warnings=(*sheet.warnings, why), doubtful=True)


def _bend(samples: np.ndarray) -> float:
    """How far a line's samples along a box stray from their straight fit (px)."""
    t = np.arange(len(samples), dtype=np.float64)
    fit = np.polyval(np.polyfit(t, samples, 1), t)
    return float(np.abs(samples - fit).max())


def _gaps(vertical: tuple[Track, Track], horizontal: tuple[Track, Track], sx: np.ndarray,
          sy: np.ndarray, xm: float, ym: float) -> float:
    """1 where one of the box's lines was not seen within a strip and a half of the box
    (interpolated across a gap, a shadow or a fold), else 0: such a box is as unsure as
    the reader's window."""
    reach = (1.5 * float(np.median(np.diff(sx))), 1.5 * float(np.median(np.diff(sy))))
    near = all(np.abs(sy[sorted(t)] - ym).min() <= reach[1] for t in vertical) and \
        all(np.abs(sx[sorted(t)] - xm).min() <= reach[0] for t in horizontal)
    return 0.0 if near else 1.0


def _name_box(table: RuledTable, header: int, side: int, per_side: int, scale: float
              ) -> tuple[float, float, float, float] | None:
    """The header box over a side's columns (virtual mm), where there is a header."""
    if header < 1:
        return None
    sx, sy = table.strip_x, table.strip_y
    top, bottom = table.rows[0], table.rows[header]
    left, right = table.cols[1 + side * per_side], table.cols[1 + (side + 1) * per_side]
    ym = float(np.mean([np.median(list(top.values())), np.median(list(bottom.values()))]))
    x0, x1 = float(_at(left, sy, ym)), float(_at(right, sy, ym))
    y0 = float(np.mean(_edges(top, sx, x0, x1)))
    y1 = float(np.mean(_edges(bottom, sx, x0, x1)))
    return (x0 * scale + 0.5, y0 * scale + 0.5, (x1 - x0) * scale - 1, (y1 - y0) * scale - 1)


def paint_lines(image: np.ndarray, table: RuledTable, scale: float,
                settings: RuledSettings = RULED) -> np.ndarray:
    """The photo with a band along each of the table's lines painted in the paper's
    colour nearby, so that no cell crop holds a dark line at its edge."""
    w, h = table.size
    mask = np.zeros((h, w), np.uint8)
    band = max(3, round(settings.paint_mm / scale))
    xs = np.arange(0, w, 4, dtype=np.float64)
    ys = np.arange(0, h, 4, dtype=np.float64)
    for t in table.rows:
        x0, x1 = _span(t, table.strip_x, w / settings.strips)
        sel = xs[(xs >= x0) & (xs <= x1)]
        pts = np.stack([sel, _at(t, table.strip_x, sel)], 1)
        cv2.polylines(mask, [pts.round().astype(np.int32)], False, 255, band)
    for t in table.cols:
        y0, y1 = _span(t, table.strip_y, h / settings.strips)
        sel = ys[(ys >= y0) & (ys <= y1)]
        pts = np.stack([_at(t, table.strip_y, sel), sel], 1)
        cv2.polylines(mask, [pts.round().astype(np.int32)], False, 255, band)
    mask |= _light_lines(image, table, settings)
    ph, pw = image.shape[:2]
    big = cv2.warpPerspective(mask, table.to_photo, (pw, ph), flags=cv2.INTER_NEAREST)
    if not big.any():
        return image
    # The paper's colour: the brightest nearby on a quarter-size copy (lines are thin).
    f = 4
    small = cv2.resize(image, (max(1, pw // f), max(1, ph // f)), interpolation=cv2.INTER_AREA)
    paper = cv2.resize(cv2.dilate(small, np.ones((5, 5), np.uint8)), (pw, ph),
                       interpolation=cv2.INTER_NEAREST)
    out = image.copy()
    np.copyto(out, paper, where=(big > 0) if image.ndim == 2 else (big > 0)[:, :, None])
    return out


def _light_lines(image: np.ndarray, table: RuledTable, settings: RuledSettings) -> np.ndarray:
    """Where squared or lined paper's light pattern runs inside the table (work px, 255):
    lines lighter than a table line that run through most of the table, as its own
    lines are found (a digit's stroke does not). Ink is darker, and stays."""
    w, h = table.size
    flat = cv2.warpPerspective(image, np.linalg.inv(table.to_photo), (w, h),
                               flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    dark = darkness(flat)
    horiz, vert = _line_maps(dark, settings)
    faint = replace(settings, min_darkness=settings.pattern_darkness)
    lines = np.zeros((h, w), np.uint8)
    for axis, line_map in ((0, horiz), (1, vert)):
        tracks, centres = _tracks(line_map, axis, faint)
        longest = max((len(t) for t in tracks), default=0)
        for t in tracks:
            if len(t) < settings.min_span * longest:
                continue
            ks = sorted(t)
            pts = np.stack([centres[ks], [t[k] for k in ks]], 1)
            if axis:
                pts = pts[:, ::-1]
            cv2.polylines(lines, [pts.round().astype(np.int32)], False, 255, 3)
    lines[dark >= settings.min_darkness] = 0
    x0 = int(max(0, min(table.cols[0].values())))
    x1 = int(min(w, max(table.cols[-1].values()) + 1))
    y0 = int(max(0, min(table.rows[0].values())))
    y1 = int(min(h, max(table.rows[-1].values()) + 1))
    out = np.zeros_like(lines)
    out[y0:y1, x0:x1] = lines[y0:y1, x0:x1]
    return out


def describe(sheet: ForeignSheet) -> dict[str, Any]:
    """What the finder mapped, for the scan's JSON and the review."""
    return {"sides": sheet.sides, "header_rows": sheet.header_rows,
            "rows": len({s.row for s in sheet.geometry.slots})}


def for_scan(image: np.ndarray, outline: np.ndarray | None, layout: Any,
             fields: frozenset[str] | None, lang: str, reader: Any,
             settings: RuledSettings = RULED
             ) -> tuple[ForeignSheet, np.ndarray, Placement] | None:
    """The pipeline's hook (no corner marks, no code): the foreign sheet, the photo with
    its lines painted over and its page frame; None where no table of the game's shape
    shows. `layout` (a sheets.layout.LayoutSpec) names the game; the number of sides
    counts where the user named it (`fields`: the named ones, None: all), else it is taken
    from the table's columns. Of the orientations the table fits, the one whose cells
    `reader` (a scan.recognize.Recognizer) reads most surely is taken: digits upside down
    or on their side read unsure."""
    game, variants, sides, pairs = "escalero", (), None, False
    if layout is not None:
        game, variants, pairs = layout.game, tuple(layout.variants), bool(layout.pairs)
        if fields is None or fields & {"sides", "pairs"}:
            sides = int(layout.sides)
    ways: list[WayUp] = []
    tables: list[RuledTable] = []
    n_game = len(get_ruleset(game, variants).row_ids) + 1
    # The outline the marks' search found, else the paper found by its colour, else the
    # frame of the table's own long lines.
    for find in ((lambda _: outline) if outline is not None else None, paper_outline,
                 lines_outline):
        if find is None or (paper := find(image)) is None:
            continue
        found = find_tables(image, paper, settings)

        def sheet_of(candidate: RuledTable, paper: np.ndarray = paper) -> ForeignSheet | None:
            return foreign_sheet(candidate, paper, game, variants, sides, pairs, lang,
                                 settings)

        # Each way up, the ways its row lines can hold the game's rows (found first).
        mapped = [way for table in found
                  if (way := _way_up(row_mappings(table, n_game, settings), sheet_of))]
        if not mapped:
            continue
        if sides is not None:  # named: the first frame that fits them
            ways, tables = mapped, found
            break
        # Counted, a side whose lines a frame cut off leaves no trace: the frame that
        # counts the most sides is taken, the first on a tie (the paper's outline cut
        # every other column line of block 8100000-055 and hand 8200000-189, and a whole
        # side of block 8400000-074; the table's own lines' frame found them all).
        if not ways or mapped[0].first.sides > ways[0].first.sides:
            ways, tables = mapped, found
    if not ways:
        return None
    # Every line found is painted over, also those a mapping leaves out of its rows.
    painted = paint_lines(image, tables[0], ways[0].first.scale, settings)
    best = _upright(painted, ways, reader, lang)
    return best, painted, Placement(best.homography, "ruled", (), best.outline, 0.0)


@dataclass(frozen=True)
class WayUp:
    """One way up of a table: its first row mapping that fits the game as a sheet, and
    the sheets of its other mappings, made only when asked for (each costs its boxes)."""

    first: ForeignSheet
    others: Callable[[], list[ForeignSheet]] = field(default=lambda: [])


def _way_up(candidates: list[RuledTable],
            sheet_of: Callable[[RuledTable], ForeignSheet | None]) -> WayUp | None:
    """The WayUp of a table's row mappings (row_mappings), or None where none fits."""
    for i, candidate in enumerate(candidates):
        if (first := sheet_of(candidate)) is not None:
            return WayUp(first, partial(_sheets_of, candidates[i + 1:], sheet_of))
    return None


def _sheets_of(candidates: list[RuledTable],
               sheet_of: Callable[[RuledTable], ForeignSheet | None]) -> list[ForeignSheet]:
    return [s for c in candidates if (s := sheet_of(c)) is not None]


@dataclass(frozen=True)
class Upright:
    """How a foreign sheet reads one way up (upright)."""

    agree: int  # columns whose written total is the sum of their entries as read
    totals: int  # columns whose total reads as a number
    confidence: float  # the written cells' mean confidence as numbers (struck counts 0)

    @property
    def score(self) -> float:
        return self.agree + self.confidence


# Columns whose totals agree that a row mapping other than the one as found needs (the
# shifted tables of the hand and block sets agree in 4-6 once mapped right).
MAPPING_AGREE = 2
# Two ways up whose scores lie closer than this leave the mapping in doubt (the wrong way
# up scores 0.0-0.2 on the hand and block sets, the right way 0.7 or more).
DOUBT_GAP = 0.3
ONE_SIDE = N_("Only one side's columns were found in the table, and at least two play: "
              "some of its lines were not seen. Every cell is marked for checking; name the "
              "players (--players) or photograph the table again, flat and whole.")
DOUBT = N_("The table's rows and sides could not be told for sure (its written totals match "
           "none of its columns, or it reads about as well the other way up): every cell is "
           "marked for checking.")


def _upright(painted: np.ndarray, ways: list[WayUp], reader: Any, lang: str
             ) -> ForeignSheet:
    """Of the ways up the table fits (each with its row mappings, the one as found
    first), the one that reads best (upright); where its written totals match none of its
    columns, or another way up reads about as well, the mapping is in doubt: every box is
    then as unsure as a row is high (flagged for review), and a warning says so."""
    if reader is None:
        return ways[0].first
    ranked = sorted((_best_mapping(painted, way, reader) for way in ways),
                    key=lambda r: -r[0].score)
    (best, sheet), rest = ranked[0], ranked[1:]
    doubt = (best.totals > 0 and best.agree == 0) or \
        bool(rest and best.score - rest[0][0].score < DOUBT_GAP)
    if not doubt:
        return sheet
    return _in_doubt(sheet, translator(pick_language(lang)).gettext(DOUBT))


def _best_mapping(painted: np.ndarray, way: WayUp, reader: Any
                  ) -> tuple[Upright, ForeignSheet]:
    """Of one way up's row mappings, the one with the most written totals that agree
    with their columns; on a tie the one as found (the first). Rows shifted by one read
    as surely as the right ones (the same digits, upright), but a column's total is the
    sum of its entries only where every row is where it belongs. Another mapping needs
    MAPPING_AGREE such columns: one can agree by chance (upside down, hand 8500000-108's
    left-out bottom line made one unsure column add up, and won over the right way up)."""
    first = (upright(painted, way.first, reader), way.first)
    if first[0].agree >= MAPPING_AGREE:  # rows shifted by one make no column add up
        return first
    rest = [(upright(painted, m, reader), m) for m in way.others()]
    return max([first, *(r for r in rest if r[0].agree >= MAPPING_AGREE)],
               key=lambda r: r[0].agree)


def upright(photo: np.ndarray, sheet: ForeignSheet, reader: Any) -> Upright:
    """How well `reader` (a scan.recognize.Recognizer) reads the sheet this way up: the
    columns whose written total is the sum of their entries as read (upside down or on
    its side hardly any is), and the mean confidence of its written cells as numbers (a
    struck cell counts 0: a stroke reads as struck either way up, and so do many digits
    upside down)."""
    from escalero.scan.cells import cut_crops
    from escalero.scan.rectify import rectify

    rect = rectify(photo, sheet.homography, sheet.geometry, [])
    readings = list(reader.read(cut_crops(rect, list(sheet.snapped), sheet.geometry)))
    written = [r for r in readings if r.kind != "empty"]
    if not written:
        return Upright(0, 0, 0.0)
    sums: dict[tuple[int, int], int] = {}
    totals: dict[tuple[int, int], Any] = {}
    for s, r in zip(sheet.snapped, readings, strict=True):
        key = (s.slot.side, s.slot.column)
        if s.slot.row == TOTAL_ROW:
            totals[key] = r.value
        else:
            sums[key] = sums.get(key, 0) + (r.value if isinstance(r.value, int) else 0)
    numbers = {k: t for k, t in totals.items() if isinstance(t, int) and t > 0}
    agree = sum(t == sums.get(k) for k, t in numbers.items())
    return Upright(agree, len(numbers), float(np.mean([r.confidence if r.kind == "value"
                                                       else 0.0 for r in written])))
