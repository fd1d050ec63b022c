"""Stage 2: find the sheet in the photo: fiducials, QR code, page outline, homography.

Markers are detected on a downscaled copy (fast) and their corners refined at
full resolution. The homography maps sheet millimetres to photo pixels; every
detected marker corner is a correspondence, so three markers are plenty and the
fourth is never needed. With fewer, the paper's outline supplies the corners and
the markers (or the QR code) say which corner is which.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from escalero.scan.geometry import PageFrame, SheetGeometry, page_frame, page_frames
from escalero.scan.imaging import shrink
from escalero.scoring.errors import Reason, SheetNotFoundError
from escalero.sheets.layout import build_layout, marker_corner, spec_from_marker_ids

from escalero.i18n import N_


@dataclass(frozen=True)
class LocateSettings:
    """How the sheet is found in the photo: the marks' detection, the QR code's tries and
    when marks fit one page (ScanOptions.locating). None is fitted by a search over
    values: each was set by hand on the photos named (commit in brackets)."""

    # The first detection passes run on a copy this large (px, long side) (6ffcd46).
    detect_long_side: int = 1600
    # The quick pass's one threshold window, px at detect_long_side: all four marks seen on
    # 19 of 20 bench photos in a third of the time of three windows (9c1d352).
    quick_window: int = 23
    # Margin around the expected QR box, mm (quiet zone, bent paper) (d46b517).
    qr_pad_mm: float = 6.0
    # (px/mm, sharpen, detector) tried in turn on the QR region; the later ones recover
    # blurred and noisy codes (harsh benchmark photos: 11 of 13 that the first failed on,
    # 4d426cb). zxing-cpp first where installed: it reads blurred, bent codes OpenCV's
    # detectors give up on, in about a millisecond a try, at a few px per module.
    qr_tries: tuple[tuple[float, bool, str], ...] = (
        (6.0, False, "zxing"), (8.0, True, "zxing"), (4.0, True, "zxing"),
        (6.0, True, "zxing"), (8.0, False, "zxing"),
        (8.0, False, "plain"), (16.0, False, "aruco"), (12.0, True, "plain"),
        (20.0, True, "aruco"), (8.0, False, "aruco"), (16.0, False, "plain"))
    # Three or four marks fit one plane to this share of their size: a misread mark throws
    # the fit off by far more; bent paper moves three marks' corners off one plane by up to
    # 4% of a mark's size (pub 7600000: 2.4-2.5 px at 60 px), where the other layout's
    # frame misfits by 17-19% (d97142b).
    marker_fit_share: float = 0.06
    min_fit_px: float = 2.0  # ...but never below this many px RMS: set by hand (6ffcd46)
    # A page frame fits the marks found where their RMS misfit is under this share of a
    # mark's size (frame_fits): set by hand (d46b517).
    frame_fit_share: float = 0.1
    # Of four marks, one is a stray find where the other three put it this share of a
    # mark's size away and fit this many times better without it (4d426cb, set by hand).
    stray_miss_share: float = 0.5
    stray_gain: float = 1.5
    # The paper's outline places the sheet where the marks or the code lie within this
    # share of the outline's diagonal of where it puts them: set by hand (6ffcd46).
    outline_fit_share: float = 0.03
    # A second look for the marks the first passes missed (look_again): a window around
    # where two found ones put each, enlarged, read with the small-marker detector. On 200
    # pub photos (seed 7500000: 1600-1920 px, 2 px blur) 11 showed only the two near marks;
    # the far ones, smaller under the tilt, were found this way in 4 of them by enlarging
    # 2-3 times (0f2575d). The window's half side is a share of the page's diagonal in px.
    look_again_zoom: tuple[float, ...] = (2.0, 3.0)
    look_again_reach: float = 0.2
    # A find this much smaller than the largest mark found is no mark: a tilt makes the far
    # marks smaller by at most 1.5-2 times on the bench; a die's face or a printed square
    # on the table reads as a mark a quarter of the size (pub 7700000-097: 11.6 px beside
    # 43 and 38 px), and as a third mark it kept the second look for the real ones away.
    least_size_share: float = 0.4

    def __post_init__(self) -> None:
        if self.detect_long_side < 64 or self.quick_window < 3 or self.quick_window % 2 == 0:
            raise ValueError("LocateSettings: need detect_long_side >= 64 and an odd "
                             "quick_window >= 3")
        if self.qr_pad_mm < 0 or not self.qr_tries or any(
                ppm <= 0 or name not in ("zxing", "plain", "aruco")
                for ppm, _, name in self.qr_tries):
            raise ValueError("LocateSettings: need qr_pad_mm >= 0 and qr_tries of positive "
                             "px/mm with a detector zxing, plain or aruco")
        shares = (self.marker_fit_share, self.frame_fit_share, self.outline_fit_share,
                  self.look_again_reach)
        if not all(0 < v < 1 for v in shares) or any(z <= 0 for z in self.look_again_zoom) or \
                not 0 <= self.least_size_share < 1:
            raise ValueError("LocateSettings: marker_fit_share, frame_fit_share, "
                             "outline_fit_share and look_again_reach must lie in (0, 1), "
                             "least_size_share in [0, 1), look_again_zoom be positive")
        if self.min_fit_px < 0 or self.stray_miss_share <= 0 or self.stray_gain < 1:
            raise ValueError("LocateSettings: need min_fit_px >= 0, stray_miss_share > 0 "
                             "and stray_gain >= 1")


LOCATE = LocateSettings()
# The refusals' English texts are catalog msgids (escalero.i18n): scan.refusals words them.
TWO_SHEETS = N_("two score sheets in the picture: photograph one sheet at a time "
                "(cover or fold away the other)")
NO_SHEET = N_("no score sheet found: hold the phone so all four corner marks "
              "are in the picture")


@dataclass(frozen=True)
class MarkerHit:
    id: int  # as printed: version 1 sheets 0-3, later ones also name the layout
    corners: np.ndarray  # (4, 2) float32, photo px, ArUco corner order
    # The id was not decoded but matched: a mark too blurred to decode, found by its shape
    # and read against the ids the decoded ones allow (scan.blurred_marks).
    matched: bool = False

    @property
    def corner(self) -> int | None:
        """The page corner this fiducial is printed in (0 top-left, clockwise)."""
        return marker_corner(self.id)


@dataclass(frozen=True)
class QrHit:
    text: str
    corners: np.ndarray  # (4, 2) float32, photo px: the code's TL, TR, BR, BL


@dataclass(frozen=True)
class Placement:
    """Where the sheet lies in the photo."""

    homography: np.ndarray  # 3x3, sheet mm -> photo px
    method: str  # "markers" or "outline"
    markers: tuple[MarkerHit, ...]
    outline: np.ndarray | None  # (4, 2) paper corners in photo px when used
    error_px: float  # RMS reprojection error of the marker corners


def gray_of(image: np.ndarray) -> np.ndarray:
    """The photo in grey (a grey photo as it is): what the marker, code and outline
    searches read."""
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _detector(kind: str, quick_window: int) -> cv2.aruco.ArucoDetector:
    """ArUco detection: "quick" (one threshold window), "normal" or "small" markers."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    if kind == "quick":
        # One threshold window of three, sized to the marks at detect_long_side, on a
        # roughly shrunk copy: all four seen on 19 of 20 bench photos in a third of the
        # time (corners are refined at full size all the same).
        params.adaptiveThreshWinSizeMin = quick_window
        params.adaptiveThreshWinSizeMax = quick_window
    elif kind == "small":
        # Small or soft markers: finer threshold windows, smaller accepted perimeters,
        # more tolerance for a few wrong border bits.
        params.adaptiveThreshWinSizeMin = 5
        params.adaptiveThreshWinSizeMax = 35
        params.adaptiveThreshWinSizeStep = 10  # 4 windows: as good here, 4x faster than 11
        params.minMarkerPerimeterRate = 0.015
        params.polygonalApproxAccuracyRate = 0.05
        params.maxErroneousBitsInBorderRate = 0.5
    return cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def _detect(gray: np.ndarray, kind: str, settings: LocateSettings = LOCATE
            ) -> dict[int, tuple[int, np.ndarray]]:
    """corner -> (id, corners px) of the fiducials found, one per corner."""
    corners, ids, _ = _detector(kind, settings.quick_window).detectMarkers(gray)
    seen: dict[int, list[tuple[int, np.ndarray]]] = {}
    if ids is None:
        return {}
    for c, i in zip(corners, ids.ravel(), strict=True):
        corner = marker_corner(int(i))
        if corner is not None:
            seen.setdefault(corner, []).append((int(i), c.reshape(4, 2).astype(np.float32)))
    # Two of one corner, alike in size, for two or more corners: two sheets in the picture.
    # Mixing their corners would place a sheet that exists nowhere.
    twins = 0
    for cands in seen.values():
        areas = sorted((cv2.contourArea(p) for _, p in cands), reverse=True)
        twins += len(areas) > 1 and areas[1] > areas[0] / 3
    if twins >= 2:
        raise SheetNotFoundError(TWO_SHEETS, reason=Reason.TWO_SHEETS)
    # A lone double (a reflection, a stray find): keep the larger.
    return {corner: max(cands, key=lambda c: cv2.contourArea(c[1]))
            for corner, cands in seen.items()}


def find_markers(image: np.ndarray, settings: LocateSettings = LOCATE
                 ) -> tuple[MarkerHit, ...]:
    """The corner fiducials in the photo (one per corner, in corner order), corners in
    full-resolution px."""
    gray = gray_of(image)
    side = settings.detect_long_side
    small, scale = shrink(gray, side, rough=True)
    found = {corner: (mid, pts / scale)
             for corner, (mid, pts) in _detect(small, "quick", settings).items()}
    if len(found) < 4:  # the quick pass is all or nothing: else as if it had not run
        found = {}
        copies: dict[int, tuple[np.ndarray, float]] = {}
        # Cheapest pass first; the slower ones only while fewer than three are found:
        # three fix the sheet, and a missing fourth is usually under a thumb.
        passes = ((side, "normal", 3), (side, "small", 3), (2 * side, "small", 3))
        for long_side, kind, enough in passes:
            if long_side not in copies:
                copies[long_side] = shrink(gray, long_side)
            small, scale = copies[long_side]
            for corner, (mid, pts) in _detect(small, kind, settings).items():
                found.setdefault(corner, (mid, pts / scale))
            if len(found) >= enough or scale >= 1.0:
                break
    hits = tuple(MarkerHit(found[c][0], _refine(gray, found[c][1])) for c in sorted(found))
    return _without_odd_sizes(hits, settings.least_size_share)


def _without_odd_sizes(hits: tuple[MarkerHit, ...], share: float) -> tuple[MarkerHit, ...]:
    """The finds that are at least `share` of the largest one's size (see
    LocateSettings.least_size_share)."""
    if len(hits) < 2:
        return hits
    sizes = [_mark_size(h) for h in hits]
    return tuple(h for h, size in zip(hits, sizes, strict=True) if size >= share * max(sizes))


Fits = list[tuple[float, np.ndarray, PageFrame]]  # frame_fits: (rms px, mm->px, frame)

def look_again(image: np.ndarray, markers: tuple[MarkerHit, ...], fits: Fits,
               settings: LocateSettings = LOCATE) -> tuple[MarkerHit, ...]:
    """`markers` and those found where the best-fitting page frames put the missing ones
    (see LocateSettings.look_again_zoom), when only two were found (three marks already
    name the layout: a fourth is looked for by its shape alone, look_for_fourth, not by
    this 0.14 s look, a finger on a mark, sample 11); a find that would not fit the frame
    with the others is no mark. Where neither is decoded there, both may still be found by
    their shape and matched to the one id pair that fits (scan.blurred_marks)."""
    if len(markers) != 2 or not fits:
        return markers
    gray = gray_of(image)
    found = {m.corner: m for m in markers}
    for _err, hom, frame in fits[:2]:
        pw, ph = frame.page_mm
        page = cv2.perspectiveTransform(np.array([[[0, 0]], [[pw, ph]], [[pw, 0]], [[0, ph]]],
                                                 np.float64), hom).reshape(4, 2)
        reach = int(settings.look_again_reach * max(np.linalg.norm(page[0] - page[1]),
                                                    np.linalg.norm(page[2] - page[3])))
        for mark in frame.markers:
            if mark.id not in found:  # a frame's marker ids are their corners
                hit = _look_for(gray, hom, reach, mark.centre, mark.id, settings)
                if hit is not None and frame_fits((*found.values(), hit), [frame], settings):
                    found[mark.id] = hit
        if len(found) == 4:
            break
    if len(found) == 2:  # both still missing: too blurred to decode, maybe not to see
        from escalero.scan.blurred_marks import find_blurred_marks

        shaped = find_blurred_marks(gray, {c: (m.id, m.corners) for c, m in found.items()
                                           if c is not None}, fits) or _from_either(gray, found)
        found.update({c: MarkerHit(i, pts, matched=True) for c, (i, pts) in shaped.items()})
    return tuple(found[c] for c in sorted(c for c in found if c is not None))


def look_for_fourth(image: np.ndarray, markers: tuple[MarkerHit, ...], fits: Fits
                    ) -> tuple[MarkerHit, ...]:
    """`markers` and the fourth, found by its shape, where three were decoded
    (scan.blurred_marks.find_fourth): a homography of three marks leaves the fourth corner
    several mm off on a bent or tilted sheet."""
    if len(markers) != 3 or not fits or any(m.corner is None for m in markers):
        return markers
    from escalero.scan.blurred_marks import find_fourth

    gray = gray_of(image)
    shaped = find_fourth(gray, {m.corner: (m.id, m.corners) for m in markers
                                if m.corner is not None}, fits)
    found = {m.corner: m for m in markers}
    found.update({c: MarkerHit(i, pts, matched=True) for c, (i, pts) in shaped.items()})
    return tuple(found[c] for c in sorted(c for c in found if c is not None))


def _from_either(gray: np.ndarray, found: dict[int | None, MarkerHit]
                 ) -> dict[int, tuple[int, np.ndarray]]:
    """The two missing marks as one decoded mark finds the other three by their shape
    (blurred_marks.find_from_one), taken where those three hold the other decoded mark, its
    id and its place (within a tenth of its side): where the frame fits of the two put the
    missing ones too far off to find (fresh pub photo 11200000-055)."""
    from escalero.scan.blurred_marks import find_from_one

    (a, first), (b, second) = ((c, m) for c, m in found.items() if c is not None)
    for corner, mark, other_corner, other in ((a, first, b, second), (b, second, a, first)):
        shaped = find_from_one(gray, (corner, mark.id, mark.corners), page_frames())
        seen = shaped.get(other_corner)
        if seen is not None and seen[0] == other.id and float(
                np.abs(seen[1] - other.corners).max()) < 0.1 * _mark_size(other):
            return {c: v for c, v in shaped.items() if c != other_corner}
    return {}


def look_from_one(image: np.ndarray, markers: tuple[MarkerHit, ...]) -> tuple[MarkerHit, ...]:
    """One decoded mark: the other three found by their shape anywhere in the photo and
    matched to the ids it allows (scan.blurred_marks.find_from_one), where they show; else
    the one as it was."""
    corner = markers[0].corner if len(markers) == 1 else None
    if corner is None:
        return markers
    from escalero.scan.blurred_marks import find_from_one

    mark = markers[0]
    shaped = find_from_one(gray_of(image), (corner, mark.id, mark.corners), page_frames())
    if not shaped:
        return markers
    found: dict[int, MarkerHit] = {corner: mark, **{c: MarkerHit(i, pts, matched=True)
                                                    for c, (i, pts) in shaped.items()}}
    return tuple(found[c] for c in sorted(found))


def without_stray(image: np.ndarray, markers: tuple[MarkerHit, ...], fits: Fits,
                  frames: Sequence[PageFrame], settings: LocateSettings = LOCATE
                  ) -> tuple[MarkerHit, ...]:
    """Three or more marks that fit no page frame together (`fits`: frame_fits(markers,
    frames)) hold a stray find (a handwritten 1 read as a small mark in a cell, pub photo
    9600000-087, beside two real marks whose third was too small to decode at first): each
    is left out in turn, smallest first, and the first rest that fits a frame, with a
    second look (look_again) where two are left, is taken. `markers` as they are where
    they fit a frame or no rest does."""
    if len(markers) < 3 or fits:
        return markers
    for stray in sorted(markers, key=_mark_size):
        rest = tuple(m for m in markers if m is not stray)
        rest_fits = frame_fits(rest, frames, settings)
        if rest_fits and len(rest) == 2:
            rest = look_again(image, rest, rest_fits, settings)
            rest_fits = frame_fits(rest, frames, settings) if len(rest) >= 3 else []
        if rest_fits:
            return rest
    return markers


def _look_for(gray: np.ndarray, hom: np.ndarray, reach: int,
              centre_mm: tuple[float, float], corner: int, settings: LocateSettings
              ) -> MarkerHit | None:
    """The mark of `corner` in an enlarged window, `reach` px each way, around where `hom`
    puts its centre."""
    cx, cy = cv2.perspectiveTransform(np.array([[centre_mm]], np.float64), hom)[0, 0]
    h, w = gray.shape[:2]
    x0, y0 = int(np.clip(cx - reach, 0, w)), int(np.clip(cy - reach, 0, h))
    x1, y1 = int(np.clip(cx + reach, 0, w)), int(np.clip(cy + reach, 0, h))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return None
    for zoom in settings.look_again_zoom:
        big = cv2.resize(gray[y0:y1, x0:x1], None, fx=zoom, fy=zoom,
                         interpolation=cv2.INTER_CUBIC)
        for kind in ("small", "normal"):
            hit = _detect(big, kind, settings).get(corner)
            if hit is not None:
                return MarkerHit(hit[0], _refine(gray, hit[1] / zoom + [x0, y0]))
    return None


def layout_from_markers(markers: tuple[MarkerHit, ...], fits: Fits | None = None,
                        settings: LocateSettings = LOCATE) -> Any:
    """The sheets.layout.LayoutSpec the fiducials' ids name (layout version 2 and later),
    or None: a version 1 sheet, fewer than three markers, ids that disagree, or markers
    that do not lie where that sheet prints them (a stray find in the clutter around it).
    `fits`: frame_fits(markers, page_frames()), when already at hand.
    """
    spec = spec_from_marker_ids(h.id for h in markers)
    if spec is None:
        return None
    frame = page_frame(build_layout(spec))
    fits = frame_fits(markers, page_frames(), settings) if fits is None else fits
    if not any(fit[2] == frame for fit in fits):
        return None
    return spec


def _refine(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Sub-pixel corners at full resolution (detection ran on a smaller copy)."""
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))
    win = int(np.clip(side / 12, 2, 12))
    pts = corners.reshape(-1, 1, 2).astype(np.float32).copy()
    h, w = gray.shape[:2]
    if (pts[:, 0, 0].min() < win + 1 or pts[:, 0, 1].min() < win + 1
            or pts[:, 0, 0].max() > w - win - 2 or pts[:, 0, 1].max() > h - win - 2):
        return corners
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
    refined = cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), criteria).reshape(4, 2)
    # Keep the detector's corner if refinement wandered off (blur, glare).
    moved = np.linalg.norm(refined - corners, axis=1)
    return np.where((moved < side / 8)[:, None], refined, corners).astype(np.float32)


def frame_fits(markers: tuple[MarkerHit, ...], frames: Sequence[PageFrame],
               settings: LocateSettings = LOCATE) -> Fits:
    """The page frames the detected markers fit, best first: (rms px, mm->px, frame)."""
    if len(markers) < 2:
        return []
    fits = []
    for frame in frames:
        src: list[tuple[float, float]] = []
        dst: list[list[float]] = []
        for hit in markers:
            m = next((fm for fm in frame.markers if fm.id == hit.corner), None)
            if m is not None:
                src.extend(m.corners)
                dst.extend(hit.corners.tolist())
        hom, err = _fit(np.array(src, np.float32), np.array(dst, np.float32))
        if err < settings.frame_fit_share * _marker_px(markers):
            fits.append((err, hom, frame))
    return sorted(fits, key=lambda f: f[0])


def _zxing() -> Any:
    """The zxing-cpp module, or None where it is not installed (OpenCV alone then)."""
    try:
        import zxingcpp
    except ImportError:
        return None
    return zxingcpp


def _decode(detectors: dict[str, Any], name: str, image: np.ndarray
            ) -> tuple[str, np.ndarray | None]:
    """(text, corners TL TR BR BL in image px) from one detector; ("", None) if none."""
    if name == "zxing":
        zx = detectors.get("zxing")
        if zx is None:
            return "", None
        for hit in zx.read_barcodes(image, formats=zx.BarcodeFormat.QRCode):
            if hit.valid and hit.text:
                pos = hit.position
                corners = [pos.top_left, pos.top_right, pos.bottom_right, pos.bottom_left]
                return hit.text, np.array([[p.x, p.y] for p in corners], np.float32)
        return "", None
    try:
        text, points, _ = detectors[name].detectAndDecode(image)
    except cv2.error:
        # OpenCV's detector can fail its own assertions on a stray pattern (a convex hull
        # of no points: hand 8500000-079); that image holds no code it can read.
        return "", None
    if not text or points is None:
        return "", None
    return text, points.reshape(-1, 2)[:4].astype(np.float32)


def _detectors() -> dict[str, Any]:
    return {"zxing": _zxing(), "plain": cv2.QRCodeDetector(),
            "aruco": cv2.QRCodeDetectorAruco()}


def _qr_variants(image: np.ndarray, hom: np.ndarray, box: tuple[float, float, float, float],
                 zxing: bool = True, settings: LocateSettings = LOCATE
                 ) -> Iterator[tuple[np.ndarray, np.ndarray, str]]:
    """The QR region warped upright (photo px -> crop px matrix), cheapest first
    (LocateSettings.qr_tries)."""
    x, y, w, h = box
    pad = settings.qr_pad_mm
    for ppm, sharpen, detector in settings.qr_tries:
        if detector == "zxing" and not zxing:
            continue
        to_crop = np.array([[ppm, 0, -(x - pad) * ppm], [0, ppm, -(y - pad) * ppm],
                            [0, 0, 1]]) @ np.linalg.inv(hom)
        size = (round((w + 2 * pad) * ppm), round((h + 2 * pad) * ppm))
        crop = cv2.warpPerspective(image, to_crop, size, flags=cv2.INTER_CUBIC,
                                   borderValue=255)
        if sharpen:  # undo some of the blur: unsharp mask
            crop = cv2.addWeighted(crop, 3.0, cv2.GaussianBlur(crop, (0, 0), ppm / 3), -2.0, 0)
        yield crop, to_crop, detector


def _qr_in_frames(image: np.ndarray, fits: Fits, ours: Callable[[str], bool] | None = None,
                  settings: LocateSettings = LOCATE) -> QrHit | None:
    """Decode the QR code where each fitting page frame puts it (a small local warp).

    Only in the frame the marks fit best is the QR box the sheet's own: a text that is
    not one of our codes (`ours`) read where a worse-fitting frame puts it (the print
    around the marks, decoded as a stray code: pub 7700000-162) is no code of this sheet."""
    detectors = _detectors()
    for rank, (_err, hom, frame) in enumerate(fits[:2]):
        for crop, to_crop, name in _qr_variants(image, hom, frame.qr_box,
                                                zxing=detectors["zxing"] is not None,
                                                settings=settings):
            text, points = _decode(detectors, name, crop)
            if rank > 0 and ours is not None and text and not ours(text):
                continue
            if text and points is not None:
                back = cv2.perspectiveTransform(points.reshape(-1, 1, 2), np.linalg.inv(to_crop))
                return QrHit(text, back.reshape(4, 2).astype(np.float32))
    return None


def read_qr(image: np.ndarray, markers: tuple[MarkerHit, ...] = (),
            frames: Sequence[PageFrame] = (), search: bool = True,
            fits: Fits | None = None, ours: Callable[[str], bool] | None = None,
            settings: LocateSettings = LOCATE) -> QrHit | None:
    """Decode the sheet's QR code: where the page frames put it, else (with `search`)
    search the photo. A sheet whose markers name its layout needs no search: the code
    would add only its serial, and the search costs a second where the code is unreadable.
    `fits`: frame_fits(markers, frames), when already at hand; `ours`: whether a text is
    one of this project's codes (see _qr_in_frames).
    """
    gray = gray_of(image)
    hit = _qr_in_frames(gray, frame_fits(markers, frames, settings) if fits is None else fits,
                        ours, settings)
    if hit is not None or not search:
        return hit
    attempts: list[tuple[np.ndarray, float, tuple[int, int]]] = []
    small, scale = shrink(gray, settings.detect_long_side)
    attempts.append((small, scale, (0, 0)))
    if markers:
        pts = np.concatenate([m.corners for m in markers])
        x0, y0 = np.maximum(pts.min(axis=0).astype(int) - 20, 0)
        x1, y1 = pts.max(axis=0).astype(int) + 20
        crop = gray[y0:y1, x0:x1]
        if crop.size:
            crop_small, cscale = shrink(crop, int(settings.detect_long_side * 1.6))
            attempts.append((crop_small, cscale, (int(x0), int(y0))))
    if scale < 1.0:
        attempts.append((gray, 1.0, (0, 0)))
    detectors = _detectors()
    for name in ("zxing", "plain", "aruco"):
        for img, sc, (ox, oy) in attempts:
            text, points = _decode(detectors, name, img)
            if text and points is not None:
                return QrHit(text, (points / sc + [ox, oy]).astype(np.float32))
    return None


def find_outline(image: np.ndarray) -> np.ndarray | None:
    """The paper's four corners (the largest bright convex quadrilateral), or None."""
    small, scale = shrink(gray_of(image), 1000)
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    _, mask = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
        if cv2.contourArea(c) < 0.08 * small.shape[0] * small.shape[1]:
            break
        hull = cv2.convexHull(c)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(approx) == 4:
            best = approx.reshape(4, 2).astype(np.float32) / scale
            break
    return best


def _marker_px(hits: Sequence[MarkerHit]) -> float:
    """The markers' mean size in the photo (px, corner to opposite corner)."""
    return float(np.mean([_mark_size(h) for h in hits]))


def _mark_size(hit: MarkerHit) -> float:
    """A mark's size in the photo (px, corner to opposite corner)."""
    return float(np.linalg.norm(hit.corners[0] - hit.corners[2]))


def _rms(hom: np.ndarray, src_mm: np.ndarray, dst_px: np.ndarray) -> float:
    """RMS reprojection error (px) of the points src_mm mapped by `hom` onto dst_px."""
    proj = cv2.perspectiveTransform(src_mm.reshape(-1, 1, 2).astype(np.float32), hom)
    return float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - dst_px) ** 2, axis=1))))


def _fit(src_mm: np.ndarray, dst_px: np.ndarray) -> tuple[np.ndarray, float]:
    hom, _ = cv2.findHomography(src_mm.astype(np.float32), dst_px.astype(np.float32), 0)
    if hom is None:
        return np.eye(3), float("inf")
    return hom, _rms(hom, src_mm, dst_px)


def _marker_correspondences(geom: SheetGeometry, markers: tuple[MarkerHit, ...]
                            ) -> tuple[np.ndarray, np.ndarray]:
    src: list[tuple[float, float]] = []
    dst: list[list[float]] = []
    for hit in markers:
        m = geom.marker_at(hit.corner)
        if m is not None:
            src.extend(m.corners)
            dst.extend(hit.corners.tolist())
    return np.array(src, np.float32).reshape(-1, 2), np.array(dst, np.float32).reshape(-1, 2)


def _drop_stray_marker(geom: SheetGeometry, used: tuple[MarkerHit, ...], hom: np.ndarray,
                       err: float, marker_px: float, settings: LocateSettings
                       ) -> tuple[np.ndarray, float, tuple[MarkerHit, ...]]:
    """Four markers always fit a homography; a stray one (another sheet, a false find)
    shows as a marker the other three put far from where it was found. Bent paper moves
    markers a little too, so only a gross misfit is dropped; the grid check catches the rest.
    """
    best = None
    # A mark found by its shape (matched) is the likelier stray: where one is among the
    # four, only it may be left out (pub 12000000-032: a bent sheet's decoded mark was
    # dropped for a matched one, and its cells moved 3 mm).
    for skip in [h for h in used if h.matched] or used:
        rest = tuple(h for h in used if h is not skip)
        r_src, r_dst = _marker_correspondences(geom, rest)
        r_hom, r_err = _fit(r_src, r_dst)
        miss = _rms(r_hom, *_marker_correspondences(geom, (skip,)))
        if best is None or r_err < best[0]:
            best = (r_err, miss, r_hom, rest)
    assert best is not None
    r_err, miss, r_hom, rest = best
    if miss > settings.stray_miss_share * marker_px and err > settings.stray_gain * r_err:
        return r_hom, r_err, rest
    return hom, err, used


def place_sheet(geom: SheetGeometry, markers: tuple[MarkerHit, ...], qr: QrHit | None,
                outline: np.ndarray | None, settings: LocateSettings = LOCATE) -> Placement:
    """The sheet-mm -> photo-px homography from the best evidence available."""
    src, dst = _marker_correspondences(geom, markers)
    used = tuple(h for h in markers if geom.marker_at(h.corner) is not None)
    if len(used) >= 3:
        marker_px = _marker_px(used)
        hom, err = _fit(src, dst)
        if len(used) == 4:
            hom, err, used = _drop_stray_marker(geom, used, hom, err, marker_px, settings)
        # A misread marker throws the fit off by far more than a pixel or two
        # (LocateSettings.marker_fit_share).
        if err < max(settings.min_fit_px, settings.marker_fit_share * marker_px):
            return Placement(hom, "markers", used, None, err)
    if outline is None:
        raise SheetNotFoundError(NO_SHEET, reason=Reason.NO_SHEET)
    pw, ph = geom.page_mm
    page = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    anchors_src, anchors_dst = src, dst
    if qr is not None and geom.qr_box is not None:
        qx, qy, qw, qh = geom.qr_box
        qr_mm = np.array([[qx, qy], [qx + qw, qy], [qx + qw, qy + qh], [qx, qy + qh]], np.float32)
        anchors_src = np.concatenate([anchors_src, qr_mm])
        anchors_dst = np.concatenate([anchors_dst, qr.corners])
    if len(anchors_src) == 0:
        raise SheetNotFoundError(NO_SHEET, reason=Reason.NO_SHEET)
    # The outline's corners are unlabelled: try the four rotations, keep the one
    # that puts the markers / QR code where the layout has them.
    best: tuple[float, np.ndarray] | None = None
    for k in range(4):
        hom, _ = _fit(page, np.roll(outline, -k, axis=0))
        err = _rms(hom, anchors_src, anchors_dst)
        if best is None or err < best[0]:
            best = (err, hom)
    assert best is not None
    err, hom = best
    diag = float(np.linalg.norm(outline[0] - outline[2]))
    if err > settings.outline_fit_share * diag:
        raise SheetNotFoundError(NO_SHEET, reason=Reason.NO_SHEET)
    return Placement(hom, "outline", used, outline.astype(np.float32), err)
