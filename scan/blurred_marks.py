"""Corner marks too blurred to decode: found by their shape, read against the few ids left.

A blurred, tilted photo may decode only the two near corner marks; the far two are plain
black squares a person sees at the paper's corners, but their 4x4 bits are too soft for
the ArUco detector (issue 35). Two decoded ids do not name the layout: each corner carries
one base-11 digit of the layout's number and the fourth a check digit, so two known digits
leave 11 pairs for the other two, of which several name printable sheets on the same page
(two ids of a 2-player A4 sheet also fit 3 and 4 players, and 2 or 3 pairs).

So each missing mark is looked for as a mark-shaped dark blob where the frame fits put it
(`_blob`: a dark, nearly square region of the expected size with a light quiet zone), its
outline gives its four corners, and the two blobs are then read together against the
id pairs the check digit allows (`_match`): the photo's mark, warped square, against each
candidate's printed pattern blurred alike. The pair is taken only if it is clearly the best
and every pattern fits, and the four marks fit that layout's page frame to a fraction of a
millimetre; else the two decoded marks are all there is, and the sheet is refused as before.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, fields

import cv2
import numpy as np
from escalero.scan.geometry import PageFrame, page_frame
from escalero.scan.locate import find_outline
from escalero.sheets.layout import (
    MARKER_ID_BASE,
    MARKER_RADIX,
    build_layout,
    spec_from_marker_ids,
)


@dataclass(frozen=True)
class BlobSettings:
    """When a dark blob is a corner mark and when its pattern names an id."""

    # Where to look: the window's half side, in expected mark sides. On the 5 pub photos of
    # seed 7600000 with two marks decoded, the frame fits put the far ones 0.1-2.4 sides
    # off (the best fit's frame, or the runner-up's where it lay nearer).
    reach: float = 3.0
    # Where no blob lies within `reach` of a missing mark, looked for this far: a steep
    # tilt (17 degrees) foreshortens the far side, and on fresh pub photo 10100000-023 the
    # frame fits put both far marks 4 sides off. Set by hand; the pattern and fit checks
    # below judge what the wider look finds.
    wide_reach: float = 5.0
    # The blob's area over the mark's area where the frame fits put it (perspective kept):
    # 0.71-1.10 on those 5 photos (the two-mark fit misjudges the far side's scale).
    area_range: tuple[float, float] = (0.6, 1.6)
    # Its corners (centred on the prediction) may each stray this share of the side: the
    # two-mark fit's perspective is rough (0.03-0.16 on those 5 photos).
    max_corner_shift: float = 0.35
    min_solidity: float = 0.88  # blob area / convex hull area: a square, not a smudge
    # The quiet zone (a ring 0.05-0.18 sides out) must be paper: this share of its pixels
    # at most darker than halfway from paper to the mark's black.
    max_dark_ring: float = 0.08
    min_contrast: float = 40.0  # grey levels from the mark's black to its paper
    # Reading the pair: NCC of each warped mark with its candidate's blurred pattern, and
    # the best pair's summed NCC over the runner-up pair's. Fitted on 225 pairs of decoded
    # marks read as if blurred (19 pub photos of seed 7600000, 20 mild 3-player ones of
    # seed 7300000): the right id's lower NCC 0.92-0.99, a wrong pair's up to 0.63, the
    # margin 0.57 or more; on the 4 pub photos it is made for, 0.956-0.98.
    min_ncc: float = 0.8
    min_margin: float = 0.3
    # The four marks' homography (16 corners): RMS misfit on the page, mm: 0.26-0.38 on
    # those 5 photos (bent paper, blurred corners); a blob of the wrong shape, far more.
    max_rms_mm: float = 0.8
    # Four marks fit a homography wherever they lie, so where the paper's outline is found
    # (locate.find_outline) its corners must lie this close (mm) to where the four marks
    # put the page's corners (see _outline_says_no): a mark moved 6 mm moves its corner
    # 7 mm (tests); on the pub photos of seed 7600000 read this way whose outline is
    # found (007, 099), the corners that were not cut off lie within 2.9 mm.
    max_outline_mm: float = 5.0
    # Page frames tried, best fitting first (as many as two marks fit closely): set by hand
    # (923b79c).
    max_frames: int = 3
    # Blurs tried on the patterns, px at _PX_PER_MODULE: set by hand (923b79c).
    pattern_sigmas: tuple[float, ...] = (2.0, 3.5, 5.0, 7.0)
    # Grey levels: below this a warped mark shows no pattern at all (a flat blot reads as
    # none): set by hand (87ebec9).
    min_pattern_std: float = 4.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            values = value if isinstance(value, tuple) else (value,)
            if any(v <= 0 for v in values):
                raise ValueError(f"BlobSettings.{f.name} must be positive, got {value}")
        if self.wide_reach < self.reach:
            raise ValueError("BlobSettings.wide_reach must be at least reach")
        if not self.area_range[0] < 1.0 < self.area_range[1]:
            raise ValueError("BlobSettings.area_range must hold 1.0")


BLOBS = BlobSettings()
_PX_PER_MODULE = 10  # the mark (6 x 6 modules: border and 4 x 4 bits) is read at this size
_SHIFT = 2  # px at _PX_PER_MODULE each way: the blob's corners are known to ~0.2 modules


@dataclass(frozen=True)
class Blob:
    """A mark found by its shape: its corners (photo px, TL TR BR BL as printed)."""

    corner: int
    corners: np.ndarray  # (4, 2) float32


# A reading of some blobs as marks: (summed NCC, the lowest NCC, corner -> id, corner ->
# the blob's corners px).
Read = tuple[float, float, dict[int, int], dict[int, np.ndarray]]


def find_blurred_marks(gray: np.ndarray, known: dict[int, tuple[int, np.ndarray]],
                       fits: list[tuple[float, np.ndarray, PageFrame]],
                       settings: BlobSettings = BLOBS) -> dict[int, tuple[int, np.ndarray]]:
    """corner -> (id, corners px) of the two missing marks, or {} where the evidence is not
    enough. `known`: corner -> (id, corners px) of exactly two decoded marks (layout
    version 2 ids); `fits`: their page frame fits (locate.frame_fits), best first."""
    if len(known) != 2 or not all(_digit(i) is not None for i, _ in known.values()):
        return {}
    choices = _id_choices(tuple(sorted((c, i) for c, (i, _) in known.items())))
    frames = [fit for fit in fits[:settings.max_frames] if any(f == fit[2] for _, f in choices)]
    missing = [c for c in range(4) if c not in known]
    # Blobs where any fitting frame puts each missing mark: two marks on one side fix the
    # far side's perspective poorly, and another frame's guess may lie nearer.
    found: dict[int, list[np.ndarray]] = {c: [] for c in missing}
    for reach in (settings.reach, settings.wide_reach):
        for _err, hom, frame in frames:
            for c in missing:
                if reach != settings.reach and found[c]:
                    continue  # the wide look only for a mark the near one did not find
                blob = _blob(gray, hom, frame.markers[c].corners, settings, reach)
                if blob is not None and not any(np.linalg.norm(blob.mean(axis=0)
                                                               - b.mean(axis=0)) < 2
                                                for b in found[c]):
                    found[c].append(blob)
    results: list[Read] = []
    outline = find_outline(gray) if all(found.values()) else None
    for _err, _hom, frame in frames:
        pairs = [ids for ids, f in choices if f == frame]
        for first in found[missing[0]]:
            for second in found[missing[1]]:
                blobs = {missing[0]: first, missing[1]: second}
                corners = {**{c: pts for c, (_, pts) in known.items()}, **blobs}
                if _rms_mm(frame, corners) <= settings.max_rms_mm and not _outline_says_no(
                        frame, corners, set(blobs), outline, settings):
                    results.extend((score, worst, ids, blobs)
                                   for score, worst, ids in _match(gray, blobs, pairs,
                                                                   settings))
    return _clear_best(results, settings)


def _clear_best(results: list[Read], settings: BlobSettings
                ) -> dict[int, tuple[int, np.ndarray]]:
    """corner -> (id, corners px) of the best reading of the blobs, where it is clearly
    the best and every pattern fits; else {}. Every id set the check digit allows is a
    rival (a lone one: a blank pattern's score)."""
    if not results:
        return {}
    results = sorted(results, key=lambda r: -r[0])
    score, worst, ids, blobs = results[0]
    runner_up = results[1][0] if len(results) > 1 else 0.0
    if worst < settings.min_ncc or score - runner_up < settings.min_margin:
        return {}
    return {c: (ids[c], blobs[c]) for c in blobs}


def _digit(marker_id: int) -> int | None:
    if MARKER_ID_BASE <= marker_id < MARKER_ID_BASE + 4 * MARKER_RADIX:
        return (marker_id - MARKER_ID_BASE) % MARKER_RADIX
    return None


@functools.cache
def _id_choices(decoded: tuple[tuple[int, int], ...]
                ) -> tuple[tuple[dict[int, int], PageFrame], ...]:
    """The (corner -> id of each missing corner, page frame) of every printable layout the
    (corner, id) `decoded` allow: the digits of all missing corners but the last free, the
    check digit fixing that one (two decoded: 11 choices, one: 121)."""
    known = dict(decoded)
    missing = [c for c in range(4) if c not in known]
    total = sum((i - MARKER_ID_BASE) % MARKER_RADIX for i in known.values())
    out = []
    for free in itertools.product(range(MARKER_RADIX), repeat=len(missing) - 1):
        digits = [*free, (-total - sum(free)) % MARKER_RADIX]
        ids = {c: MARKER_ID_BASE + MARKER_RADIX * c + d for c, d in zip(missing, digits,
                                                                         strict=True)}
        spec = spec_from_marker_ids([*known.values(), *ids.values()])
        if spec is not None:
            out.append((ids, page_frame(build_layout(spec))))
    return tuple(out)


def _blob(gray: np.ndarray, hom: np.ndarray, corners_mm: tuple[tuple[float, float], ...],
          settings: BlobSettings, reach_sides: float | None = None) -> np.ndarray | None:
    """The corners (photo px) of the dark mark-shaped blob nearest where `hom` puts the
    mark with `corners_mm`, looked for `reach_sides` (settings.reach) mark sides around
    it, or None."""
    want = cv2.perspectiveTransform(np.array([corners_mm], np.float64), hom)[0]
    side = _side(want)
    centre = want.mean(axis=0)
    if side < 8:
        return None
    reach = (settings.reach if reach_sides is None else reach_sides) * side
    h, w = gray.shape[:2]
    x0, y0 = int(max(0, centre[0] - reach)), int(max(0, centre[1] - reach))
    x1, y1 = int(min(w, centre[0] + reach)), int(min(h, centre[1] + reach))
    if x1 - x0 < 2 * side or y1 - y0 < 2 * side:
        return None
    win, dark = _dark(gray[y0:y1, x0:x1], side)
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    area_want = abs(cv2.contourArea(want.astype(np.float32)))
    best: tuple[float, np.ndarray] | None = None
    for contour in contours:
        area = cv2.contourArea(contour)
        if not settings.area_range[0] <= area / area_want <= settings.area_range[1]:
            continue
        quad = _quad(win, contour + 0)  # re-traced at the blob's own mid grey
        if quad is None:
            continue
        quad += np.array([x0, y0], np.float32)
        shift = _corner_shift(quad, want)
        if shift is None or shift[0] > settings.max_corner_shift * side:
            continue
        if not _quiet(gray, quad, settings):
            continue
        dist = float(np.linalg.norm(quad.mean(axis=0) - centre))
        if best is None or dist < best[0]:
            best = (dist, shift[1])
    return None if best is None else best[1]


def _side(quad: np.ndarray) -> float:
    """A quadrilateral's mean side (px)."""
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))


def _dark(gray: np.ndarray, side: float) -> tuple[np.ndarray, np.ndarray]:
    """The region a little smoothed, and where it is darker than its surroundings over two
    mark sides (255): where marks of `side` px show as blobs."""
    win = cv2.GaussianBlur(gray, (0, 0), 1.0)
    return win, cv2.adaptiveThreshold(win, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                      cv2.THRESH_BINARY_INV, int(2 * side) | 1, 10)


def _quad(win: np.ndarray, contour: np.ndarray) -> np.ndarray | None:
    """The blob's four corners (window px), its outline re-traced halfway between its black
    and the paper around it (a blurred edge's true place), or None if not square enough."""
    x, y, bw, bh = cv2.boundingRect(contour)
    pad = max(bw, bh) // 3 + 2
    ax, ay = max(0, x - pad), max(0, y - pad)
    patch = win[ay:y + bh + pad, ax:x + bw + pad]
    mask = np.zeros(patch.shape, np.uint8)
    cv2.drawContours(mask, [contour - [ax, ay]], -1, 255, -1)
    near = cv2.dilate(mask, np.ones((3, 3), np.uint8)) > 0
    ring = (cv2.dilate(mask, np.ones((pad, pad), np.uint8)) > 0) & ~near
    if not mask.any() or not ring.any():
        return None
    black = float(np.percentile(patch[mask > 0], 10))
    paper = float(np.median(patch[ring]))
    mid = (black + paper) / 2
    core = ((patch < mid) & near).astype(np.uint8)
    found, _ = cv2.findContours(core, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not found:
        return None
    outline = max(found, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or cv2.contourArea(outline) / hull_area < BLOBS.min_solidity:
        return None
    approx = cv2.approxPolyDP(hull, 0.06 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(approx) != 4:
        return None
    return _edge_corners(outline.reshape(-1, 2).astype(np.float32), approx) + [ax, ay]


def _edge_corners(points: np.ndarray, approx: np.ndarray) -> np.ndarray:
    """Corners where lines fitted to the outline's four sides meet (blur rounds a square's
    corners inwards; its straight sides stay where they were)."""
    lines = []
    for k in range(4):
        a, b = approx[k].astype(np.float32), approx[(k + 1) % 4].astype(np.float32)
        length = float(np.linalg.norm(b - a))
        along = (points - a) @ (b - a) / max(length ** 2, 1e-6)
        off = np.abs(_cross(b - a, points - a)) / max(length, 1e-6)
        side = points[(along > 0.2) & (along < 0.8) & (off < 0.15 * length)]
        if len(side) < 3:
            return approx.astype(np.float32)
        vx, vy, px, py = cv2.fitLine(side, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([px, py]), np.array([vx, vy])))
    out = []
    for k in range(4):
        (p1, v1), (p2, v2) = lines[k - 1], lines[k]
        det = v1[0] * -v2[1] + v2[0] * v1[1]
        if abs(det) < 1e-6:
            return approx.astype(np.float32)
        t = ((p2 - p1)[0] * -v2[1] + v2[0] * (p2 - p1)[1]) / det
        out.append(p1 + t * v1)
    return np.array(out, np.float32)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The z of the cross product of 2-d vectors (rows of `b` against `a`)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _corner_shift(quad: np.ndarray, want: np.ndarray) -> tuple[float, np.ndarray] | None:
    """(largest corner misfit px once centred, the quad in the order of `want`): the
    rotation of the blob's corners that matches the predicted ones, same winding."""
    if _cross(quad[1] - quad[0], quad[2] - quad[1]) * _cross(
            want[1] - want[0], want[2] - want[1]) < 0:
        quad = quad[::-1]
    rel_want = want - want.mean(axis=0)
    best = None
    for k in range(4):
        q = np.roll(quad, -k, axis=0)
        misfit = float(np.max(np.linalg.norm(q - q.mean(axis=0) - rel_want, axis=1)))
        if best is None or misfit < best[0]:
            best = (misfit, q.astype(np.float32))
    return best


def _quiet(gray: np.ndarray, quad: np.ndarray, settings: BlobSettings) -> bool:
    """True when the mark is black on paper and the quiet zone around it is paper."""
    centre = quad.mean(axis=0)
    inner = (quad - centre) * 1.1 + centre
    outer = (quad - centre) * 1.36 + centre
    x0, y0 = np.maximum(outer.min(axis=0).astype(int) - 1, 0)
    x1, y1 = outer.max(axis=0).astype(int) + 2
    patch = gray[y0:y1, x0:x1]
    if patch.size == 0 or x1 > gray.shape[1] or y1 > gray.shape[0]:
        return False
    off = np.array([x0, y0], np.float32)
    ring = np.zeros(patch.shape, np.uint8)
    cv2.fillConvexPoly(ring, np.round(outer - off).astype(np.int32), 255)
    cv2.fillConvexPoly(ring, np.round(inner - off).astype(np.int32), 0)
    body = np.zeros(patch.shape, np.uint8)
    cv2.fillConvexPoly(body, np.round((quad - centre) * 0.9 + centre - off).astype(np.int32), 255)
    if not ring.any() or not body.any():
        return False
    paper = float(np.median(patch[ring > 0]))
    black = float(np.percentile(patch[body > 0], 10))
    if paper - black < settings.min_contrast:
        return False
    dark = patch[ring > 0] < (paper + black) / 2
    return float(dark.mean()) <= settings.max_dark_ring


def _rms_mm(frame: PageFrame, corners: dict[int, np.ndarray]) -> float:
    """RMS misfit (mm, on the page) of the marks' corners under their joint homography."""
    src = np.array([p for c in sorted(corners) for p in frame.markers[c].corners], np.float32)
    dst = np.concatenate([corners[c] for c in sorted(corners)]).astype(np.float32)
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        return float("inf")
    back = cv2.perspectiveTransform(dst.reshape(-1, 1, 2), np.linalg.inv(hom)).reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))


def _outline_says_no(frame: PageFrame, corners: dict[int, np.ndarray], matched: set[int],
                     outline: np.ndarray | None, settings: BlobSettings) -> bool:
    """True when the paper's outline contradicts the marks: it is the paper (a page corner
    next to a decoded mark lies where the four marks put it, within max_outline_mm) but a
    page corner next to a matched mark does not, and the outline holds that corner (the
    paper goes on past it, or stops short of it along an edge). A cast shadow or the
    photo's edge cuts a corner off now and then, so a corner that is off tells nothing by
    itself, nor one the outline leaves out by more than max_outline_mm: a shadow's edge cut
    across it (fresh pub photo 11500000-065, 16 mm), where a mark taken from elsewhere on
    the page would put the corner inside the paper."""
    if outline is None:
        return False
    polygon = outline.reshape(-1, 1, 2).astype(np.float32)
    if any(cv2.pointPolygonTest(polygon, tuple(float(v) for v in corners[c].mean(axis=0)),
                                False) < 0 for c in matched):
        # A matched mark stands on paper (its quiet zone is paper: _quiet) outside the
        # outline: that outline is a cast shadow's edge across the page, not the paper's
        # (fresh pub photos 9600000-051, 10100000-030).
        return False
    src = np.array([p for c in sorted(corners) for p in frame.markers[c].corners], np.float32)
    dst = np.concatenate([corners[c] for c in sorted(corners)]).astype(np.float32)
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        return True
    found = cv2.perspectiveTransform(outline.reshape(-1, 1, 2).astype(np.float32),
                                     np.linalg.inv(hom)).reshape(-1, 2)
    pw, ph = frame.page_mm
    page = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)  # corners 0-3
    off = [float(np.min(np.linalg.norm(found - p, axis=1))) for p in page]
    paper = any(off[c] <= settings.max_outline_mm for c in corners if c not in matched)
    polygon_mm = found.reshape(-1, 1, 2)
    cut_off = [cv2.pointPolygonTest(polygon_mm, (float(x), float(y)), True)
               < -settings.max_outline_mm for x, y in page]
    return paper and any(off[c] > settings.max_outline_mm and not cut_off[c] for c in matched)


@functools.cache
def _template(marker_id: int, sigma: float) -> np.ndarray:
    """The printed mark's inner 4 x 4 bits with half a module of border around, blurred by
    `sigma`, at _PX_PER_MODULE (float32, 0 black .. 1 white)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    m = _PX_PER_MODULE
    mark = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * m, borderBits=1)
    blurred = cv2.GaussianBlur(mark.astype(np.float32) / 255, (0, 0), sigma)
    return blurred[m // 2:6 * m - m // 2, m // 2:6 * m - m // 2].copy()


def _warped(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The mark in `corners` warped square at _PX_PER_MODULE: its 4 x 4 bits with half a
    module of border and _SHIFT px more each way (room for the shifts tried)."""
    m, pad = _PX_PER_MODULE, _PX_PER_MODULE // 2 - _SHIFT
    n = 6 * m
    square = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) - pad
    to_square = cv2.getPerspectiveTransform(corners.astype(np.float32), square)
    size = n - 2 * pad
    return cv2.warpPerspective(gray, to_square, (size, size), flags=cv2.INTER_LINEAR,
                               borderValue=255).astype(np.float32)


def _score(patch: np.ndarray, marker_id: int, settings: BlobSettings) -> float:
    """How well the warped mark shows `marker_id`: the best NCC of its bits over blurs and
    small shifts (the border, the same for every id, is left out)."""
    if float(patch.std()) < settings.min_pattern_std:  # flat: a plain blot, or nothing to correlate
        return -1.0
    return max(float(cv2.matchTemplate(patch, _template(marker_id, sigma),
                                       cv2.TM_CCOEFF_NORMED).max())
               for sigma in settings.pattern_sigmas)


def _match(gray: np.ndarray, blobs: dict[int, np.ndarray], pairs: list[dict[int, int]],
           settings: BlobSettings) -> list[tuple[float, float, dict[int, int]]]:
    """(summed NCC, the lower mark's NCC, ids) of each id pair in `pairs`."""
    patches = {c: _warped(gray, pts) for c, pts in blobs.items()}
    scores: dict[tuple[int, int], float] = {}  # a mark's id recurs in many of the pairs
    out = []
    for ids in pairs:
        for c in blobs:
            if (c, ids[c]) not in scores:
                scores[c, ids[c]] = _score(patches[c], ids[c], settings)
        each = [scores[c, ids[c]] for c in blobs]
        out.append((sum(each), min(each), ids))
    return out


@dataclass(frozen=True)
class LoneMarkSettings:
    """When one decoded mark finds the other three by their shape (find_from_one). The
    pattern, quiet-zone, fit and outline checks are BlobSettings'."""

    # A blob's area over the decoded mark's: a tilted photo shows the far marks smaller
    # (pub photos tilt up to 18 degrees) and nearer ones larger. Set by hand, not fitted.
    area_range: tuple[float, float] = (0.3, 2.5)
    # Blobs tried: the mark-shaped ones nearest in size to the decoded mark, at most this
    # many (the three marks, the QR code's finder patterns, a die's face). Set by hand.
    max_blobs: int = 12

    def __post_init__(self) -> None:
        if not 0.0 < self.area_range[0] < 1.0 < self.area_range[1] or self.max_blobs < 3:
            raise ValueError("LoneMarkSettings: need area_range around 1.0 and max_blobs >= 3")


LONE_MARK = LoneMarkSettings()


def find_from_one(gray: np.ndarray, known: tuple[int, int, np.ndarray],
                  frames: Sequence[PageFrame], settings: BlobSettings = BLOBS,
                  lone: LoneMarkSettings = LONE_MARK) -> dict[int, tuple[int, np.ndarray]]:
    """corner -> (id, corners px) of the three marks missing where only one, `known`
    (corner, id, corners px; a layout version 2 id), was decoded and the QR code was not
    read (fresh pub photos: 12 of 16 refused sheets showed all four marks, one decodable).
    Every mark-shaped blob in the photo is a candidate; three that put the four marks on
    one page frame (their 16 corners within max_rms_mm) are read together against the id
    triples the decoded id and the check digit allow, and taken only as find_blurred_marks
    takes a pair: clearly the best, every pattern fitting, the paper's outline (where
    found) not against them. {} where the evidence is not enough."""
    corner, marker_id, pts = known
    if _digit(marker_id) is None:
        return {}
    side = _side(pts)
    blobs = [b for b in _blobs_anywhere(gray, side, settings, lone)
             if float(np.linalg.norm(b.mean(axis=0) - pts.mean(axis=0))) > side]
    missing = [c for c in range(4) if c != corner]
    choices = _id_choices(((corner, marker_id),))
    fitting: list[tuple[PageFrame, dict[int, np.ndarray]]] = []
    for frame in frames:
        if not any(f == frame for _, f in choices):
            continue
        centres_mm = np.array([frame.markers[c].centre for c in (corner, *missing)], np.float32)
        for trio in itertools.permutations(range(len(blobs)), 3):
            found = [pts, *(blobs[k] for k in trio)]
            hom = cv2.getPerspectiveTransform(
                centres_mm, np.array([q.mean(axis=0) for q in found], np.float32))
            placed = _placed_as(frame, hom, dict(zip(missing, (blobs[k] for k in trio),
                                                      strict=True)), side, settings)
            if placed is None:
                continue
            corners = {corner: pts, **placed}
            if _rms_mm(frame, corners) <= settings.max_rms_mm:
                fitting.append((frame, placed))
    if not fitting:
        return {}
    outline = find_outline(gray)
    results: list[Read] = []
    for frame, placed in fitting:
        if _outline_says_no(frame, {corner: pts, **placed}, set(placed), outline, settings):
            continue
        triples = [ids for ids, f in choices if f == frame]
        results.extend((score, worst, ids, placed)
                       for score, worst, ids in _match(gray, placed, triples, settings))
    return _clear_best(results, settings)


def _placed_as(frame: PageFrame, hom: np.ndarray, blobs: dict[int, np.ndarray], side: float,
               settings: BlobSettings) -> dict[int, np.ndarray] | None:
    """Each blob's corners in the order `hom` puts its mark's (None where one strays more
    than max_corner_shift of its side from them, or `hom` mirrors the page)."""
    if np.linalg.det(hom[:2, :2]) <= 0:
        return None
    out = {}
    for c, quad in blobs.items():
        want = cv2.perspectiveTransform(np.array([frame.markers[c].corners], np.float64),
                                        hom)[0]
        shift = _corner_shift(quad, want)
        if shift is None or shift[0] > settings.max_corner_shift * max(_side(want), 0.3 * side):
            return None
        out[c] = shift[1]
    return out


def _blobs_anywhere(gray: np.ndarray, side: float, settings: BlobSettings,
                    lone: LoneMarkSettings) -> list[np.ndarray]:
    """The corners (photo px) of mark-shaped blobs anywhere in the photo: dark, nearly
    square, with a quiet zone of paper, of an area near a mark of `side` px; the
    lone.max_blobs nearest in size."""
    win, dark = _dark(gray, side)
    # Every contour, nested ones too: the dark band along the paper's edge encloses the
    # whole page, marks and all.
    contours, _ = cv2.findContours(dark, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    area_want = side * side
    found = []
    for contour in contours:
        ratio = cv2.contourArea(contour) / area_want
        if not lone.area_range[0] <= ratio <= lone.area_range[1]:
            continue
        quad = _quad(win, contour + 0)
        if quad is None or not _quiet(gray, quad, settings):
            continue
        found.append((abs(np.log(ratio)), quad))
    found.sort(key=lambda f: f[0])
    return [quad for _, quad in found[:lone.max_blobs]]


def find_fourth(gray: np.ndarray, known: dict[int, tuple[int, np.ndarray]],
                fits: Sequence[tuple[float, np.ndarray, PageFrame]],
                settings: BlobSettings = BLOBS) -> dict[int, tuple[int, np.ndarray]]:
    """corner -> (id, corners px) of the fourth mark where three were decoded, found by
    its shape where their page frame's fit puts it and read as the one id their check
    digit leaves; {} where it is not there so.

    Three marks fix the sheet's plane poorly at the fourth corner: on pub photos (seed
    12000000) where only three were decoded, the scan's homography put that corner 3-9 mm
    from where the photo shows it, and with it the cells near it.
    """
    if len(known) != 3 or not all(_digit(i) is not None for i, _ in known.values()):
        return {}
    choices = _id_choices(tuple(sorted((c, i) for c, (i, _) in known.items())))
    if len(choices) != 1:
        return {}
    ids, frame = choices[0]
    ((corner, want),) = ids.items()
    fit = next((f for f in fits if f[2] == frame), None)
    if fit is None:
        return {}
    blob = next((b for reach in (settings.reach, settings.wide_reach)
                 if (b := _blob(gray, fit[1], frame.markers[corner].corners, settings, reach))
                 is not None), None)
    if blob is None:
        return {}
    corners = {**{c: pts for c, (_, pts) in known.items()}, corner: blob}
    if _rms_mm(frame, corners) > settings.max_rms_mm or \
            _score(_warped(gray, blob), want, settings) < settings.min_ncc:
        return {}
    return {corner: (want, blob)}
