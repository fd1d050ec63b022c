"""A phone camera for synthetic photos: clean page raster in, JPEG of a photographed sheet out.

Two stages, both pure: `plan_shot` draws every random choice (frame size, where the page
lies, tilt, rotation, bend, light, blur, noise, JPEG quality) into a frozen `ShotPlan`,
so the caller knows the resolution the page must be rendered at; `take_photo` then turns
a page raster into the photo. The scene is built the way light gets into a phone: paper
(bent, tinted) on a procedural table, lit unevenly, a hand's shadow, the lens (vignetting,
focus and motion blur), the sensor (white balance, shot noise), the phone's processing
(tone curve, sharpening) and JPEG. The harsh level adds what messenger uploads and other
people's photos bring: low resolutions, hard cast shadows across the grid, grayscale JPEGs,
and flatbed or copier scans (flat, square on, against a white or dark lid).

Geometry follows a pinhole camera over a plane: the page is rotated in its plane, tilted
about an axis in the plane, projected, then placed in the frame. A bent page is a height
field over the paper; a raised point moves away from the optical centre by h / distance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

LEVELS = ("mild", "harsh", "pub")
MAP_STEP = 8  # the sampling map is computed on a grid this much coarser, then upsampled


@dataclass(frozen=True)
class Level:
    """Ranges the random choices are drawn from (uniform unless noted)."""

    upright_share: float  # shots with the page within `jitter` of upright
    jitter: float  # degrees of rotation around the base orientation
    tilt: tuple[float, float]  # degrees between the camera axis and the page normal
    fill: tuple[float, float]  # page's projected size / frame size (limiting side)
    bend_mm: tuple[float, float]  # height of the paper's bulge
    curl_mm: tuple[float, float]  # lift of one edge
    light_min: tuple[float, float]  # darkest gain of the uneven light
    vignette: tuple[float, float]  # light lost in the frame corners
    shadow_share: float  # photos with a hand's shadow
    shadow: tuple[float, float]  # light the shadow takes away
    white_balance: float  # max relative gain error per channel
    focus_mm: tuple[float, float]  # Gaussian blur sigma, in mm on the paper
    motion_mm: tuple[float, float]  # motion blur length, in mm on the paper
    noise: tuple[float, float]  # sensor noise sigma at mid grey (of 255)
    jpeg: tuple[int, int]  # JPEG quality
    fold_share: float = 0.0  # sheets folded in half once (a crease across the middle)
    fold_mm: tuple[float, float] = (1.0, 3.0)  # height of the crease
    glare_share: float = 0.0  # photos with a lamp's reflection on the paper
    glare: tuple[float, float] = (0.2, 0.4)  # share of the light the reflection adds
    depth_blur: float = 0.0  # extra blur at the far edge of a tilted page (x focus blur)
    clutter_share: float = 0.0  # photos with dice and a pen on the table
    megapixels: tuple[float, float] = (2.0, 12.0)
    # Messenger and web uploads: a long side of this many px instead of a camera's size.
    low_res_share: float = 0.0
    long_side_px: tuple[float, float] = (1600.0, 2600.0)
    cast_share: float = 0.0  # a hard-edged cast shadow (a head, a phone) across the grid
    cast: tuple[float, float] = (0.3, 0.55)  # light the cast shadow takes away
    gray_share: float = 0.0  # saved as a grayscale JPEG
    flatbed_share: float = 0.0  # a flatbed or copier scan instead of a phone photo
    # The pub level's extras (another camera model): all off on mild and harsh.
    focus_px: tuple[float, float] | None = None  # blur sigma in photo px (not mm on paper)
    cast_soft_mm: tuple[float, float] = (0.3, 3.0)  # the cast shadow's edge softness
    corner_shift: float = 0.0  # each page corner moved by up to this share of the page size
    warp_px: float = 0.0  # a sinusoidal in-plane bend up to this many px at 1700 px wide
    grid_fade_share: float = 0.0  # photos whose light-red grid print is washed out ...
    grid_fade: tuple[float, float] = (0.0, 0.0)  # ... by this share, over most of the grid


LEVEL_TABLE = {
    "mild": Level(
        upright_share=0.75, jitter=12.0, tilt=(0.0, 15.0), fill=(0.72, 0.92),
        bend_mm=(0.0, 5.0), curl_mm=(0.0, 3.0), light_min=(0.8, 1.0), vignette=(0.05, 0.25),
        shadow_share=0.3, shadow=(0.1, 0.3), white_balance=0.06, focus_mm=(0.0, 0.08),
        motion_mm=(0.0, 0.15), noise=(1.5, 4.0), jpeg=(75, 95), fold_share=0.15,
        fold_mm=(0.5, 3.0), glare_share=0.1, glare=(0.1, 0.25), depth_blur=0.5,
        clutter_share=0.3,
    ),
    "harsh": Level(
        upright_share=0.25, jitter=25.0, tilt=(12.0, 30.0), fill=(0.6, 0.88),
        bend_mm=(4.0, 16.0), curl_mm=(2.0, 10.0), light_min=(0.45, 0.75), vignette=(0.25, 0.5),
        shadow_share=0.8, shadow=(0.25, 0.5), white_balance=0.12, focus_mm=(0.08, 0.22),
        motion_mm=(0.1, 0.5), noise=(4.0, 9.0), jpeg=(60, 80), fold_share=0.4,
        fold_mm=(2.0, 7.0), glare_share=0.4, glare=(0.2, 0.5), depth_blur=1.5,
        clutter_share=0.6, low_res_share=0.4, cast_share=0.4, gray_share=0.15,
        flatbed_share=0.1,
    ),
    # A dim pub, another phone: small, blurred, noisy uploads under a soft cast shadow,
    # with faint grid lines the blur and the shadow hide over much of the grid.
    "pub": Level(
        upright_share=0.5, jitter=15.0, tilt=(5.0, 20.0), fill=(0.7, 0.92),
        bend_mm=(1.0, 6.0), curl_mm=(0.0, 4.0), light_min=(0.65, 0.7), vignette=(0.05, 0.15),
        shadow_share=0.15, shadow=(0.1, 0.25), white_balance=0.1, focus_mm=(0.0, 0.0),
        motion_mm=(0.0, 0.1), noise=(5.5, 6.5), jpeg=(60, 75), fold_share=0.1,
        fold_mm=(1.0, 3.0), clutter_share=0.3, low_res_share=1.0,
        long_side_px=(1600.0, 1920.0), cast_share=0.8, cast=(0.25, 0.45),
        cast_soft_mm=(3.0, 15.0), focus_px=(1.5, 2.2), corner_shift=0.1, warp_px=10.0,
        grid_fade_share=0.5, grid_fade=(0.75, 0.97),
    ),
}  # fmt: skip


@dataclass(frozen=True)
class Options:
    """Special fixtures on top of the level's random choices."""

    level: str = "mild"
    megapixels: float | None = None  # None: drawn from the level's range
    rotation: float | None = None  # page rotation in the photo, degrees clockwise
    tilt: float | None = None  # degrees between the camera axis and the page normal
    cover_mm: tuple[float, float] | None = None  # a finger hides this point of the page
    cover_radius_mm: float = 14.0  # at least this much around the point is hidden
    no_sheet: bool = False  # just the table
    tiny: bool = False  # page far away: a small part of the frame
    jpeg_quality: int | None = None
    flatbed: bool = False  # a flatbed or copier scan, whatever the level


@dataclass(frozen=True)
class ShotPlan:
    """Every random choice of one photo; `take_photo` is deterministic given this."""

    level: str
    size: tuple[int, int]  # (width, height) px
    page_mm: tuple[float, float]
    corners: tuple[tuple[float, float], ...]  # page TL, TR, BR, BL in photo px (flat page)
    rotation: float
    tilt: float
    distance_mm: float  # camera to page centre
    px_per_mm: float  # photo pixels per paper millimetre (mean over the page)
    bend: tuple[float, ...]  # bulge height mm, direction (rad), curl mm, curl direction
    fold: tuple[float, int]  # crease height mm (0: none), 0 = across x (vertical), 1 = across y
    waves: tuple[tuple[float, float, float, float], ...]  # amplitude mm, fx, fy, phase
    light: tuple[float, ...]  # min gain, vignette, shadow strength (0: none)
    white_balance: tuple[float, float, float]  # gains B, G, R
    focus_px: float
    depth_blur: tuple[float, float]  # extra blur factor at the far edge, its direction (rad)
    glare: tuple[float, float, float, float]  # strength (0: none), x, y, radius px
    clutter: bool  # dice and a pen lie on the table next to the sheet
    motion: tuple[float, float]  # length px, angle degrees
    noise: float
    jpeg_quality: int
    background: str
    seed: int
    cover_px: tuple[float, float, float] | None = None  # finger tip x, y, radius px
    no_sheet: bool = False
    # Hard-edged cast shadow: strength (0: none), edge point x, y px, angle rad, width px
    # (0: a half-plane), edge softness px.
    cast: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    gray: bool = False  # saved as a grayscale JPEG
    flatbed: bool = False  # a flatbed scan: flat page, even light, no perspective
    # In-plane sinusoidal bend: amplitude mm, wavelength mm, phase, direction (rad).
    warp: tuple[float, float, float, float] = (0.0, 1.0, 0.0, 0.0)
    grid_fade: float = 0.0  # share of the grid print's colour washed out (most of the grid)

    def metadata(self) -> dict:
        """What a truth file records about the photo."""
        return {
            "level": self.level, "width": self.size[0], "height": self.size[1],
            "megapixels": round(self.size[0] * self.size[1] / 1e6, 2),
            "rotation": round(self.rotation, 1), "tilt": round(self.tilt, 1),
            "px_per_mm": round(self.px_per_mm, 2), "bend_mm": round(self.bend[0], 1),
            "curl_mm": round(self.bend[2], 1), "fold_mm": round(self.fold[0], 1),
            "focus_px": round(self.focus_px, 2), "glare": round(self.glare[0], 2),
            "clutter": self.clutter,
            "motion_px": round(self.motion[0], 2), "noise": round(self.noise, 1),
            "shadow": round(self.light[2], 2), "jpeg_quality": self.jpeg_quality,
            "background": self.background, "no_sheet": self.no_sheet,
            "finger": self.cover_px is not None,
            "cast_shadow": round(self.cast[0], 2), "gray": self.gray, "flatbed": self.flatbed,
            "warp_mm": round(self.warp[0], 2), "grid_fade": round(self.grid_fade, 2),
            "page_corners_px": None if self.no_sheet else [
                [round(x, 1), round(y, 1)] for x, y in self.corners],
        }  # fmt: skip


BACKGROUNDS = ("wood", "light-wood", "tablecloth", "desk-dark", "desk-grey", "stone")
LIDS = ("lid-white", "lid-dark")  # a flatbed's lid behind the page
SCAN_DPI = (200.0, 300.0)


def _u(rng: np.random.Generator, lo_hi: tuple[float, float]) -> float:
    return float(rng.uniform(*lo_hi))


def _project(page_mm: tuple[float, float], rotation: float, tilt: float, axis: float,
             distance: float) -> np.ndarray:
    """Page corners (TL, TR, BR, BL) through a pinhole camera, in mm at unit magnification."""
    w, h = page_mm
    pts = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0],
                    [-w / 2, h / 2, 0]], float)
    r = math.radians(rotation)
    rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    k = np.array([math.cos(axis), math.sin(axis), 0.0])
    rt, _ = cv2.Rodrigues(k * math.radians(tilt))
    p = pts @ rz.T @ rt.T
    return p[:, :2] * distance / (distance + p[:, 2:3])


def plan_shot(rng: np.random.Generator, page_mm: tuple[float, float],
              options: Options = Options()) -> ShotPlan:
    """Draw every random choice of one photo of a `page_mm` (width, height) sheet."""
    if options.level not in LEVEL_TABLE:
        raise ValueError(f"level must be one of {LEVELS}, not {options.level!r}")
    lv = LEVEL_TABLE[options.level]
    if options.flatbed:
        return _plan_flatbed(rng, page_mm, options)
    # (Extra draws only where the level uses them: the mild level's photos stay the same.)
    if (lv.flatbed_share and rng.random() < lv.flatbed_share and options == Options(
            level=options.level, jpeg_quality=options.jpeg_quality)):
        return _plan_flatbed(rng, page_mm, options)
    mp = options.megapixels or math.exp(rng.uniform(*np.log(lv.megapixels)))
    if options.megapixels is None and lv.low_res_share and rng.random() < lv.low_res_share:
        mp = _u(rng, lv.long_side_px) ** 2 * 3 / 4 / 1e6
    rotation = _plan_rotation(rng, lv, options)
    tilt = _u(rng, lv.tilt)
    if options.tilt is not None:
        tilt = float(options.tilt)
    size, corners, distance, px_per_mm = _plan_frame(rng, lv, options, page_mm, mp, rotation,
                                                     tilt)
    cover_px = _plan_cover(options, page_mm, corners, px_per_mm)
    waves = tuple((float(rng.uniform(0, 0.4) * lv.bend_mm[1] / 4), float(rng.uniform(-3, 3)),
                   float(rng.uniform(-3, 3)), float(rng.uniform(0, 2 * math.pi)))
                  for _ in range(3))
    shadow = _u(rng, lv.shadow) if rng.random() < lv.shadow_share else 0.0
    wb = _plan_white_balance(rng, lv)
    quality = options.jpeg_quality or int(rng.integers(lv.jpeg[0], lv.jpeg[1] + 1))
    fold = (_u(rng, lv.fold_mm) if rng.random() < lv.fold_share else 0.0,
            int(rng.integers(2)))
    glare = _plan_glare(rng, lv, corners)
    # A tilted page leaves the depth of field towards its far edge.
    depth = (lv.depth_blur * tilt / 30 * rng.uniform(0.5, 1.0), float(rng.uniform(0, 2 * math.pi)))
    clutter = bool(rng.random() < lv.clutter_share)
    cast = _plan_cast(rng, lv, corners, px_per_mm)
    gray = bool(lv.gray_share and rng.random() < lv.gray_share)
    plan = ShotPlan(
        level=options.level, size=size, page_mm=page_mm,
        corners=tuple((float(x), float(y)) for x, y in corners),
        rotation=rotation, tilt=tilt, distance_mm=distance, px_per_mm=px_per_mm,
        bend=(_u(rng, lv.bend_mm), float(rng.uniform(0, math.pi)), _u(rng, lv.curl_mm),
              float(rng.uniform(0, 2 * math.pi))),
        fold=fold, waves=waves,
        light=(_u(rng, lv.light_min), _u(rng, lv.vignette), shadow),
        white_balance=wb,
        focus_px=_u(rng, lv.focus_mm) * px_per_mm, depth_blur=depth, glare=glare,
        clutter=clutter,
        motion=(_u(rng, lv.motion_mm) * px_per_mm, float(rng.uniform(0, 180))),
        noise=_u(rng, lv.noise), jpeg_quality=quality,
        background=str(rng.choice(BACKGROUNDS)), seed=int(rng.integers(1 << 31)),
        cover_px=cover_px, no_sheet=options.no_sheet, cast=cast, gray=gray,
    )  # fmt: skip
    # The pub level's extras, drawn last and only there: other levels' photos stay the same.
    return _pub_extras(rng, lv, plan) if lv.corner_shift else plan


def _pub_extras(rng: np.random.Generator, lv: Level, plan: ShotPlan) -> ShotPlan:
    """Another camera model: corners pulled off a camera's perspective, blur set in photo
    px, an in-plane sinusoidal bend, and (in a share) the grid print washed out."""
    size, page_mm = plan.size, plan.page_mm
    corners = np.array(plan.corners)
    span = corners.max(axis=0) - corners.min(axis=0)
    moved = corners + rng.uniform(-1, 1, (4, 2)) * lv.corner_shift * span
    centre = corners.mean(axis=0)
    for _ in range(20):  # stay in the frame: pull the quad towards its centre
        if (moved.min() >= 2) and (moved[:, 0].max() <= size[0] - 2) \
                and (moved[:, 1].max() <= size[1] - 2):
            break
        moved = centre + (moved - centre) * 0.95
    px_per_mm = _mean_px_per_mm(moved, page_mm)
    scale = max(size) / 1700.0
    focus_px = _u(rng, lv.focus_px or (0.0, 0.0)) * scale
    warp = (float(rng.uniform(0.3, 1.0) * lv.warp_px * scale / px_per_mm),
            _u(rng, (0.5, 1.5)) * max(page_mm), float(rng.uniform(0, 2 * math.pi)),
            float(rng.uniform(0, math.pi)))
    fade = _u(rng, lv.grid_fade) if rng.random() < lv.grid_fade_share else 0.0
    return replace(plan, corners=tuple((float(x), float(y)) for x, y in moved),
                   px_per_mm=px_per_mm, focus_px=focus_px, warp=warp, grid_fade=fade)


def _plan_rotation(rng: np.random.Generator, lv: Level, options: Options) -> float:
    """The page's rotation in the photo (degrees): mostly upright, else a quarter turn."""
    if options.rotation is not None:
        rotation = float(options.rotation)
    elif rng.random() < lv.upright_share:
        rotation = float(rng.uniform(-lv.jitter, lv.jitter))
    else:
        rotation = float(rng.choice([90, 180, 270]) + rng.uniform(-lv.jitter, lv.jitter))
    return rotation % 360


def _plan_frame(rng: np.random.Generator, lv: Level, options: Options,
                page_mm: tuple[float, float], mp: float, rotation: float, tilt: float
                ) -> tuple[tuple[int, int], np.ndarray, float, float]:
    """Where the page lands in the picture: (picture size px, page corners px (TL, TR,
    BR, BL), camera distance mm, mean px per mm)."""
    distance = float(np.hypot(*page_mm) * rng.uniform(1.0, 1.6))  # phone wide-angle lens
    proj = _project(page_mm, rotation, tilt, float(rng.uniform(0, math.pi)), distance)
    span = proj.max(axis=0) - proj.min(axis=0)
    # Hold the phone the way the page lies (mostly).
    landscape = (span[0] > span[1]) == (rng.random() < 0.9)
    long_side = math.sqrt(mp * 1e6 * 4 / 3)
    size = (int(long_side), int(long_side * 3 / 4))
    if not landscape:
        size = size[::-1]
    fill = (0.14, 0.25) if options.tiny else lv.fill
    scale = _u(rng, fill) * min(size[0] / span[0], size[1] / span[1])
    slack = np.array(size) - span * scale
    offset = slack * rng.uniform(0.15, 0.85, 2) - proj.min(axis=0) * scale
    corners = proj * scale + offset
    return size, corners, distance, _mean_px_per_mm(corners, page_mm)


def _mean_px_per_mm(corners: np.ndarray, page_mm: tuple[float, float]) -> float:
    """Photo px per paper mm, the mean of the page's widths and heights (TL, TR, BR, BL)."""
    edges = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    return float((edges[0] + edges[2]) / (2 * page_mm[0]) / 2
                 + (edges[1] + edges[3]) / (2 * page_mm[1]) / 2)


def _plan_cover(options: Options, page_mm: tuple[float, float], corners: np.ndarray,
                px_per_mm: float) -> tuple[float, float, float] | None:
    """The finger tip over `options.cover_mm` (x, y, radius in px), if one is asked for."""
    if options.cover_mm is None:
        return None
    h_mat = cv2.getPerspectiveTransform(
        np.array([[0, 0], [page_mm[0], 0], page_mm, [0, page_mm[1]]], np.float32),
        corners.astype(np.float32))
    pt = cv2.perspectiveTransform(np.array([[options.cover_mm]], np.float32), h_mat)[0, 0]
    return (float(pt[0]), float(pt[1]), options.cover_radius_mm * px_per_mm)


def _plan_white_balance(rng: np.random.Generator, lv: Level) -> tuple[float, float, float]:
    """White balance misses along the colour temperature (warm lamp / cool daylight),
    less so along green-magenta: (blue, green, red) gains."""
    temp = rng.uniform(-lv.white_balance, lv.white_balance)
    tint = rng.uniform(-lv.white_balance, lv.white_balance) / 3
    return (1 - temp, 1 + tint, 1 + temp)


def _plan_glare(rng: np.random.Generator, lv: Level, corners: np.ndarray
                ) -> tuple[float, float, float, float]:
    """The lamp's reflection, somewhere on the page: strength (0: none), x, y, radius px."""
    g_at = corners.mean(axis=0) + (corners.max(axis=0) - corners.min(axis=0)) * rng.uniform(
        -0.35, 0.35, 2)
    return (_u(rng, lv.glare) if rng.random() < lv.glare_share else 0.0, float(g_at[0]),
            float(g_at[1]), float(np.ptp(corners[:, 0]) * rng.uniform(0.12, 0.3)))


def _plan_cast(rng: np.random.Generator, lv: Level, corners: np.ndarray, px_per_mm: float
               ) -> tuple[float, ...]:
    """A hard-edged cast shadow (see ShotPlan.cast), or none."""
    if not (lv.cast_share and rng.random() < lv.cast_share):
        return (0.0,) * 6
    # The shadow's edge crosses the page's middle, where the grid is.
    at = corners.mean(axis=0) + (corners.max(axis=0) - corners.min(axis=0)) * rng.uniform(
        -0.25, 0.25, 2)
    width = 0.0 if rng.random() < 0.5 else _u(rng, (30.0, 120.0)) * px_per_mm
    return (_u(rng, lv.cast), float(at[0]), float(at[1]), float(rng.uniform(0, math.pi)),
            width, _u(rng, lv.cast_soft_mm) * px_per_mm)


def _plan_flatbed(rng: np.random.Generator, page_mm: tuple[float, float], options: Options
                  ) -> ShotPlan:
    """A flatbed or copier scan: the page pressed flat on the glass, evenly lit, square on."""
    lv = LEVEL_TABLE[options.level]
    px_per_mm = _u(rng, SCAN_DPI) / 25.4
    rotation = float(rng.uniform(-1.5, 1.5) + (180 if rng.random() < 0.2 else 0)) % 360
    margin = rng.uniform(2.0, 12.0, 2)  # the page lies near the glass's corner
    proj = _project(page_mm, rotation, 0.0, 0.0, 1e9)
    bed = proj.max(axis=0) - proj.min(axis=0) + margin + rng.uniform(2.0, 8.0, 2)
    size = (int(bed[0] * px_per_mm), int(bed[1] * px_per_mm))
    corners = (proj - proj.min(axis=0) + margin) * px_per_mm
    quality = options.jpeg_quality or int(rng.integers(80, 96))
    return ShotPlan(
        level=options.level, size=size, page_mm=page_mm,
        corners=tuple((float(x), float(y)) for x, y in corners),
        rotation=rotation, tilt=0.0, distance_mm=1e6, px_per_mm=px_per_mm,
        bend=(0.0, 0.0, 0.0, 0.0), fold=(0.0, 0), waves=(), light=(0.97, 0.0, 0.0),
        white_balance=(1.0, 1.0, 1.0), focus_px=_u(rng, (0.3, 1.0)), depth_blur=(0.0, 0.0),
        glare=(0.0, 0.0, 0.0, 1.0), clutter=False, motion=(0.0, 0.0),
        noise=_u(rng, (0.5, 2.0)), jpeg_quality=quality, background=str(rng.choice(LIDS)),
        seed=int(rng.integers(1 << 31)), gray=bool(rng.random() < 3 * lv.gray_share),
        flatbed=True,
    )  # fmt: skip


# --- textures -------------------------------------------------------------------------------


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]
                  ) -> np.ndarray:
    """Smooth random field in about [-1, 1] with `cells` (x, y) bumps across `shape`."""
    grid = rng.standard_normal((cells[1] + 3, cells[0] + 3)).astype(np.float32)
    big = cv2.resize(grid, (shape[1] + 2 * shape[1] // cells[0] + 3,
                            shape[0] + 2 * shape[0] // cells[1] + 3),
                     interpolation=cv2.INTER_CUBIC)
    y0, x0 = shape[0] // cells[1], shape[1] // cells[0]
    return big[y0:y0 + shape[0], x0:x0 + shape[1]] / 1.5


def _fractal(rng: np.random.Generator, shape: tuple[int, int], base: int, octaves: int
             ) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    for o in range(octaves):
        n = base * 2**o
        aspect = shape[1] / shape[0]
        out += _smooth_noise(rng, shape, (max(2, int(n * aspect)), n)) * 0.55**o
    return out


def _rotated_coords(shape: tuple[int, int], angle: float) -> tuple[np.ndarray, np.ndarray]:
    ys, xs = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    c, s = math.cos(angle), math.sin(angle)
    return xs * c + ys * s, -xs * s + ys * c


def _wood(rng: np.random.Generator, shape: tuple[int, int], dark: bool) -> np.ndarray:
    """Planks of wood: long wavy grain lines and fine streaks, at a random angle."""
    lh, lw = shape
    side = int(math.hypot(lh, lw)) + 4  # draw with the grain along x, then rotate
    grid = (side, side)
    ys = np.mgrid[0:side, 0:side][0].astype(np.float32)
    period = side / rng.uniform(25, 60)
    warp = period * (1.5 * _smooth_noise(rng, grid, (3, 6))
                     + 0.4 * _smooth_noise(rng, grid, (2, 12)))
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * (ys + warp) / period)
    # Streaks: noise stretched along the grain.
    streak = cv2.resize(rng.standard_normal((side, max(2, side // 60))).astype(np.float32),
                        grid, interpolation=cv2.INTER_LINEAR)
    # Planks: a seam every so often, each plank a little different in tone.
    plank_h = side / rng.uniform(2.5, 5)
    plank = np.floor((ys + rng.uniform(0, plank_h)) / plank_h)
    tone = 1 + 0.12 * np.sin(plank * 12.9898 + rng.uniform(0, 6))
    seam = np.abs(((ys + rng.uniform(0, plank_h)) % plank_h) - plank_h / 2) > plank_h / 2 - 1.2
    t = np.clip(rings**2 * 0.55 + 0.12 * streak + 0.25, 0, 1)
    if dark:
        lo, hi = np.array([22, 42, 75], np.float32), np.array([55, 100, 150], np.float32)
    else:
        lo, hi = np.array([90, 145, 190], np.float32), np.array([145, 195, 228], np.float32)
    img = (lo + (hi - lo) * t[:, :, None]) * tone[:, :, None]
    img[seam] *= 0.55
    m = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(0, 180)), 1.0)
    m[:, 2] -= ((side - lw) / 2, (side - lh) / 2)  # type: ignore[arg-type]  # numpy stubs
    return cv2.warpAffine(img, m, (lw, lh), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)


def _background(kind: str, rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A table surface, BGR float32 0-255, built at low resolution and upsampled."""
    w, h = size
    lw, lh = max(64, w // 4), max(48, h // 4)
    shape = (lh, lw)
    if kind in ("wood", "light-wood"):
        img = _wood(rng, shape, kind == "wood")
    elif kind == "tablecloth":
        u, v = _rotated_coords(shape, float(rng.uniform(-0.3, 0.3)))
        period = lw / rng.uniform(6, 18)
        colour = np.array([[40, 40, 190], [150, 80, 30], [40, 120, 40], [60, 140, 200]]
                          )[int(rng.integers(4))]
        a = (np.sin(2 * np.pi * u / period) > 0).astype(np.float32)
        b = (np.sin(2 * np.pi * v / period) > 0).astype(np.float32)
        cover = (0.55 * a + 0.55 * b)[:, :, None]  # gingham: stripes overlap darker
        img = np.array([235, 235, 238]) * (1 - cover) + colour * cover
        weave = 1 + 0.06 * np.sin(2 * np.pi * u / 1.7) * np.sin(2 * np.pi * v / 1.7)
        img *= weave[:, :, None]
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.7)
        # Folds in the cloth: broad soft shading.
        img *= (1 + 0.12 * _smooth_noise(rng, shape, (4, 3)))[:, :, None]
    elif kind == "stone":
        base = np.array(rng.uniform(60, 170, 3))
        speck = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 0.8)
        img = base * (1 + 0.25 * speck + 0.15 * _fractal(rng, shape, 3, 3))[:, :, None]
    elif kind in LIDS:  # a scanner's lid: flat white foam or a dark cover
        level = rng.uniform(238, 250) if kind == "lid-white" else rng.uniform(15, 40)
        img = np.full((*shape, 3), level, np.float32)
    else:
        grey = rng.uniform(30, 70) if kind == "desk-dark" else rng.uniform(150, 205)
        tint = rng.uniform(0.9, 1.1, 3)
        img = grey * tint * (1 + 0.06 * _fractal(rng, shape, 2, 4))[:, :, None]
    img = cv2.resize(np.clip(img, 0, 255).astype(np.float32), (w, h),
                     interpolation=cv2.INTER_LINEAR)
    return img


# --- the scene ------------------------------------------------------------------------------


def _height(plan: ShotPlan, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Height of the bent paper above the table (mm) at page position x, y (mm)."""
    w, h = plan.page_mm
    bulge, bdir, curl, cdir = plan.bend
    u, v = x / w - 0.5, y / h - 0.5
    t = u * math.cos(bdir) + v * math.sin(bdir)  # across the bulge, about -0.7..0.7
    z = bulge * np.cos(np.clip(t, -0.75, 0.75) * math.pi / 1.5)
    s = u * math.cos(cdir) + v * math.sin(cdir)  # one edge lifts off the table
    z += curl * np.clip((s - 0.3) / 0.4, 0, None) ** 2
    for amp, fx, fy, ph in plan.waves:
        z += amp * np.sin(2 * np.pi * (fx * u + fy * v) + ph)
    crease, axis = plan.fold
    if crease:  # folded in half once: a tent with a sharp ridge down the middle
        z += crease * (1 - 2 * np.abs(u if axis == 0 else v))
    return z


def _sampling_maps(plan: ShotPlan, page_px: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """For each photo pixel: where to sample the page raster, and the paper's shading."""
    w, h = plan.size
    pw, ph = plan.page_mm
    mx, my, shade = _coarse_maps(plan)
    sx, sy = page_px[0] / pw, page_px[1] / ph
    maps = [(mx * sx).astype(np.float32), (my * sy).astype(np.float32),
            shade.astype(np.float32)]
    full = (mx.shape[1] * MAP_STEP, mx.shape[0] * MAP_STEP)
    return tuple(cv2.resize(m, full, interpolation=cv2.INTER_LINEAR)[:h, :w] for m in maps)


def page_to_photo(plan: ShotPlan, points_mm: np.ndarray) -> np.ndarray:
    """Where page points (N x 2, mm) land in the photo (N x 2 px), bend and all: the
    truth a placement is measured against. Inverts the photo's sampling map (bilinear
    between its nodes, as the photo was drawn) by Gauss-Newton from the nearest node."""
    mx, my, _ = _coarse_maps(plan)
    # cv2.resize (linear) puts node (i, j) at px (j + 0.5) * STEP - 0.5 of the full map.
    out = np.zeros((len(points_mm), 2))
    for k, (tx, ty) in enumerate(np.asarray(points_mm, np.float64)):
        d = (mx - tx) ** 2 + (my - ty) ** 2
        i, j = np.unravel_index(int(np.argmin(d)), d.shape)
        u, v = float(j), float(i)  # node coordinates
        for _ in range(8):
            x, xu, xv = _bilinear(mx, u, v)
            y, yu, yv = _bilinear(my, u, v)
            det = xu * yv - xv * yu
            if abs(det) < 1e-12:
                break
            ex, ey = tx - x, ty - y
            u += (yv * ex - xv * ey) / det
            v += (-yu * ex + xu * ey) / det
        out[k] = ((u + 0.5) * MAP_STEP - 0.5, (v + 0.5) * MAP_STEP - 0.5)
    return out


def _bilinear(m: np.ndarray, u: float, v: float) -> tuple[float, float, float]:
    """m between its nodes at column u, row v: (value, d/du, d/dv)."""
    gh, gw = m.shape
    j0, i0 = int(np.clip(np.floor(u), 0, gw - 2)), int(np.clip(np.floor(v), 0, gh - 2))
    fu, fv = u - j0, v - i0
    a, b, c, e = m[i0, j0], m[i0, j0 + 1], m[i0 + 1, j0], m[i0 + 1, j0 + 1]
    val = (a * (1 - fu) + b * fu) * (1 - fv) + (c * (1 - fu) + e * fu) * fv
    du = (b - a) * (1 - fv) + (e - c) * fv
    dv = (c - a) * (1 - fu) + (e - b) * fu
    return float(val), float(du), float(dv)


def _coarse_maps(plan: ShotPlan) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sampling map at every MAP_STEP-th photo px: page mm (x, y) and shading."""
    w, h = plan.size
    gw, gh = w // MAP_STEP + 2, h // MAP_STEP + 2
    qx, qy = np.meshgrid(np.arange(gw, dtype=np.float64) * MAP_STEP,
                         np.arange(gh, dtype=np.float64) * MAP_STEP)
    pw, ph = plan.page_mm
    corners = np.array(plan.corners, np.float64)
    to_photo = cv2.getPerspectiveTransform(
        np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32), corners.astype(np.float32))
    to_page = np.linalg.inv(to_photo)
    centre = cv2.perspectiveTransform(np.array([[[pw / 2, ph / 2]]], np.float64), to_photo)[0, 0]

    def inv(px: np.ndarray, py: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = to_page[2, 0] * px + to_page[2, 1] * py + to_page[2, 2]
        return ((to_page[0, 0] * px + to_page[0, 1] * py + to_page[0, 2]) / d,
                (to_page[1, 0] * px + to_page[1, 1] * py + to_page[1, 2]) / d)

    # A raised point appears pushed away from the centre by h / distance; undo that by
    # a fixed-point iteration (the height field is smooth, two rounds are plenty).
    mx, my = inv(qx, qy)
    for _ in range(2):
        k = 1 + _height(plan, mx, my) / plan.distance_mm
        mx, my = inv(centre[0] + (qx - centre[0]) / k, centre[1] + (qy - centre[1]) / k)
    amp, wavelength, phase, direction = plan.warp
    if amp:  # the paper's in-plane bend: a sine across the page, moving it sideways
        along = mx * math.cos(direction) + my * math.sin(direction)
        move = amp * np.sin(2 * np.pi * along / wavelength + phase)
        mx, my = mx - move * math.sin(direction), my + move * math.cos(direction)
    # Paper facing the light is brighter: shade by the slope towards a light direction.
    eps = 1.0
    z0 = _height(plan, mx, my)
    gx = (_height(plan, mx + eps, my) - z0) / eps
    gy = (_height(plan, mx, my + eps) - z0) / eps
    la = plan.bend[1] + 0.8
    shade = np.clip(1 + 2.5 * (gx * math.cos(la) + gy * math.sin(la)), 0.6, 1.15)
    return mx, my, shade


def _hand_shadow(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Soft shadow of a hand and forearm reaching in from one edge (0..1, low resolution)."""
    w, h = size
    lw, lh = max(64, w // 8), max(48, h // 8)
    mask = np.zeros((lh, lw), np.uint8)
    side = int(rng.integers(4))
    reach = rng.uniform(0.25, 0.55)
    along = rng.uniform(0.2, 0.8)
    start = [(along * lw, -lh * 0.2), (lw * 1.2, along * lh), (along * lw, lh * 1.2),
             (-lw * 0.2, along * lh)][side]
    direction = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][side], float)
    direction = direction + rng.normal(0, 0.3, 2)
    direction /= np.linalg.norm(direction)
    tip = np.array(start) + direction * reach * max(lw, lh)
    palm = min(lw, lh) * rng.uniform(0.12, 0.2)
    cv2.line(mask, tuple(int(v) for v in start), tuple(int(v) for v in tip), 255,
             thickness=int(palm * 1.6))
    cv2.circle(mask, tuple(int(v) for v in tip), int(palm), 255, -1)
    normal = np.array([-direction[1], direction[0]])
    for i in range(4):  # fingers fan out from the palm
        base = tip + normal * palm * (i - 1.5) * 0.5
        fdir = direction + normal * (i - 1.5) * 0.15
        end = base + fdir * palm * rng.uniform(1.2, 1.9)
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in end), 255,
                 thickness=max(1, int(palm * 0.32)))
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), palm * 0.4)
    return cv2.resize(soft, (w, h), interpolation=cv2.INTER_LINEAR)


def _light_field(plan: ShotPlan, rng: np.random.Generator) -> np.ndarray:
    """Gain per pixel: uneven light, vignetting and a hand's shadow."""
    w, h = plan.size
    lw, lh = max(64, w // 8), max(48, h // 8)
    light_min, vignette, shadow = plan.light
    ys, xs = np.mgrid[0:lh, 0:lw].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    ramp = (xs / lw - 0.5) * math.cos(ang) + (ys / lh - 0.5) * math.sin(ang)
    field_ = ramp + 0.3 * _smooth_noise(rng, (lh, lw), (2, 2))
    field_ = (field_ - field_.min()) / (np.ptp(field_) + 1e-6)
    gain = light_min + (1 - light_min) * field_
    r2 = ((xs / lw - 0.5) ** 2 + (ys / lh - 0.5) ** 2) * 2
    gain *= 1 - vignette * r2**1.5
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    if shadow:
        gain *= 1 - shadow * _hand_shadow(rng, plan.size)
    if plan.cast[0]:
        gain *= 1 - plan.cast[0] * _cast_shadow(plan)
    return gain


def _cast_shadow(plan: ShotPlan) -> np.ndarray:
    """A hard-edged shadow (0..1): a half-plane or a band, its edge through the grid."""
    _strength, x, y, angle, width, soft = plan.cast
    w, h = plan.size
    q = 4
    ys, xs = np.mgrid[0:h // q + 1, 0:w // q + 1].astype(np.float32) * q
    d = (xs - x) * math.cos(angle) + (ys - y) * math.sin(angle)  # signed distance, px
    inside = d if not width else np.minimum(d, width - d)
    mask = 1 / (1 + np.exp(-np.clip(inside / max(soft / 1.7, 0.5), -30, 30)))
    return cv2.resize(mask.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def _capsule(img: np.ndarray, a: tuple[float, float], b: tuple[float, float], r: float,
             colour: np.ndarray, edge: float) -> None:
    """A rounded rod from a to b (a fingertip, a pen), shaded darker towards its sides."""
    h, w = img.shape[:2]
    pad = int(r * 2 + edge * 3) + 2
    x0 = max(0, int(min(a[0], b[0])) - pad)
    y0 = max(0, int(min(a[1], b[1])) - pad)
    x1 = min(w, int(max(a[0], b[0])) + pad)
    y1 = min(h, int(max(a[1], b[1])) + pad)
    if x0 >= x1 or y0 >= y1:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pa = (int(a[0]) - x0, int(a[1]) - y0)
    pb = (int(b[0]) - x0, int(b[1]) - y0)
    cv2.line(mask, pa, pb, 255, max(1, int(2 * r)))
    cv2.circle(mask, pa, int(r), 255, -1)
    cv2.circle(mask, pb, int(r), 255, -1)
    alpha = cv2.GaussianBlur(mask, (0, 0), max(0.8, edge)).astype(np.float32) / 255
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    shade = np.clip(dist / max(r, 1), 0, 1) ** 0.5
    rod = colour[None, None, :] * (0.55 + 0.45 * shade)[:, :, None]
    region = img[y0:y1, x0:x1]
    region[...] = region * (1 - alpha[:, :, None]) + rod * alpha[:, :, None]


def _finger(img: np.ndarray, plan: ShotPlan, rng: np.random.Generator) -> None:
    """Paint a fingertip over `plan.cover_px`, reaching in from the nearest frame edge."""
    assert plan.cover_px is not None
    x, y, r = plan.cover_px
    w, h = plan.size
    r *= rng.uniform(1.1, 1.3)  # the finger is nearer than the paper, so it looks bigger
    dists = [y, w - x, h - y, x]  # nearest edge: top, right, bottom, left
    side = int(np.argmin(dists))
    end = [(x, -h * 0.1), (w * 1.1, y), (x, h * 1.1), (-w * 0.1, y)][side]
    skin = np.array([120, 150, 205], np.float32) * rng.uniform(0.8, 1.1)
    _capsule(img, (x, y), end, r, skin, r * 0.08)


def _off_page(corners: np.ndarray, pts: np.ndarray, margin: float) -> bool:
    """True if every point lies outside the page by at least `margin` px."""
    poly = corners.astype(np.float32).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(poly, (float(x), float(y)), True) < -margin
               for x, y in pts)


def _die(img: np.ndarray, centre: tuple[float, float], size: float, angle: float,
         rng: np.random.Generator) -> None:
    """A die lying on the table: shadow, rounded ivory body, pips or a poker-die letter."""
    n = int(size * 1.8) | 1
    local = np.zeros((n, n), np.uint8)
    c, half = n // 2, int(size / 2)
    cv2.rectangle(local, (c - half, c - half), (c + half, c + half), 255, -1)
    # Rounded corners: blur the square and cut it again.
    local = (cv2.GaussianBlur(local, (0, 0), size * 0.1) > 128).astype(np.uint8) * 255
    face: np.ndarray = np.zeros((n, n), np.uint8)
    if rng.random() < 0.5:  # ordinary die: pips
        grid = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
                4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
                5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
                6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[int(rng.integers(1, 7))]
        for gx, gy in grid:
            cv2.circle(face, (int(c + gx * size * 0.27), int(c + gy * size * 0.27)),
                       max(1, int(size * 0.09)), 255, -1, cv2.LINE_AA)
        ink = np.array([30, 30, 30], np.float32)
    else:  # poker die: 9 10 B D K A
        label = str(rng.choice(["9", "10", "B", "D", "K", "A"]))
        scale = size / 40 * (0.8 if len(label) > 1 else 1.1)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
        cv2.putText(face, label, (c - tw // 2, c + th // 2), cv2.FONT_HERSHEY_DUPLEX, scale,
                    255, max(1, int(size / 20)), cv2.LINE_AA)
        ink = np.array([40, 40, 170] if label in ("D", "K", "A") else [30, 30, 30], np.float32)
    rot = cv2.getRotationMatrix2D((c, c), angle, 1.0)
    body = cv2.warpAffine(local, rot, (n, n)).astype(np.float32) / 255
    face = cv2.warpAffine(face, rot, (n, n)).astype(np.float32) / 255
    shadow = cv2.GaussianBlur(np.roll(body, (int(size * 0.12), int(size * 0.08)), (0, 1)),
                              (0, 0), size * 0.12)
    x0, y0 = int(centre[0]) - c, int(centre[1]) - c
    h, w = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + n), min(h, y0 + n)
    if xa >= xb or ya >= yb:
        return
    sl = (slice(ya - y0, yb - y0), slice(xa - x0, xb - x0))
    region = img[ya:yb, xa:xb]
    region *= (1 - 0.5 * shadow[sl])[:, :, None]
    ivory = np.array([215, 230, 238], np.float32) * rng.uniform(0.9, 1.05)
    colour = ivory * (1 - face[sl][:, :, None]) + ink * face[sl][:, :, None]
    region[...] = region * (1 - body[sl][:, :, None]) + colour * body[sl][:, :, None]


def _clutter(img: np.ndarray, plan: ShotPlan, rng: np.random.Generator) -> None:
    """Dice and a pen on the table, never on the sheet (its markers stay visible)."""
    corners = np.array(plan.corners, np.float32)
    w, h = plan.size
    size = 16 * plan.px_per_mm * rng.uniform(0.9, 1.2)  # poker dice are about 16 mm
    placed = 0
    for _ in range(40):
        if placed >= int(rng.integers(1, 6)):
            break
        centre = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
        if _off_page(corners, np.array([centre]), size):
            _die(img, centre, size, float(rng.uniform(0, 90)), rng)
            placed += 1
    for _ in range(20):  # a pen, about 14 cm long
        a = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        ang = rng.uniform(0, 2 * math.pi)
        b = a + 140 * plan.px_per_mm * np.array([math.cos(ang), math.sin(ang)])
        pts = a + (b - a) * np.linspace(0, 1, 12)[:, None]
        r = 4.5 * plan.px_per_mm
        if _off_page(corners, pts, r * 2):
            body = np.array([[140, 60, 20], [30, 30, 30], [230, 230, 230], [40, 40, 170]],
                            np.float32)[int(rng.integers(4))]
            drop = np.array([1.5, 1.5]) * r  # its shadow: the table, darker
            table = img[int(np.clip(a[1], 0, h - 1)), int(np.clip(a[0], 0, w - 1))]
            _capsule(img, tuple(a + drop), tuple(b + drop), r, table * 0.5, r * 0.6)
            _capsule(img, tuple(a), tuple(b), r, body, 0.8)
            break


def _glare(img: np.ndarray, plan: ShotPlan) -> np.ndarray:
    """A lamp's reflection: adds light, washing the ink out but not away."""
    strength, gx, gy, radius = plan.glare
    w, h = plan.size
    q = 8
    ys, xs = np.mgrid[0:h // q + 1, 0:w // q + 1].astype(np.float32) * q
    blob = np.exp(-(((xs - gx) ** 2 + ((ys - gy) * 1.4) ** 2) / (2 * radius**2)))
    blob = cv2.resize(blob * strength, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.add(_times(img, 1 - blob), cv2.merge((blob, blob, blob)) * np.float32(250))


def _depth_blur(img: np.ndarray, plan: ShotPlan) -> np.ndarray:
    """Blur that grows towards one side of the frame (the far edge of a tilted page)."""
    extra, direction = plan.depth_blur
    sigma = max(plan.focus_px, 0.6) * (1 + extra)
    if extra < 0.2:
        return img
    w, h = plan.size
    far = cv2.GaussianBlur(img, (0, 0), sigma)
    ys, xs = np.mgrid[0:h // 8 + 1, 0:w // 8 + 1].astype(np.float32) * 8
    ramp = (xs / w - 0.5) * math.cos(direction) + (ys / h - 0.5) * math.sin(direction)
    ramp = cv2.resize(np.clip(ramp + 0.5, 0, 1), (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.add(_times(img, 1 - ramp), _times(far, ramp))


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    n = max(3, int(math.ceil(length)) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    cv2.line(k, (int(round(c - dx * length / 2)), int(round(c - dy * length / 2))),
             (int(round(c + dx * length / 2)), int(round(c + dy * length / 2))), 1.0, 1,
             cv2.LINE_AA)
    return k / k.sum()


def _times(img: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """img (H x W x 3) times a per-pixel gain (H x W), as float32 (cv2: fast, threaded)."""
    return cv2.multiply(img, cv2.merge((gain, gain, gain)), dtype=cv2.CV_32F)


def _paper(page_bgr: np.ndarray, plan: ShotPlan, rng: np.random.Generator
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The page as it lies in the photo: colour (uint8), coverage, shading, cast shadow."""
    w, h = plan.size
    page_px = (page_bgr.shape[1], page_bgr.shape[0])
    mx, my, shade = _sampling_maps(plan, page_px)
    src = page_bgr
    # Sample a raster much finer than the photo through a pre-blur, against aliasing.
    ratio = page_px[0] / plan.page_mm[0] / plan.px_per_mm
    if ratio > 1.5:
        src = cv2.GaussianBlur(src, (0, 0), 0.4 * ratio)
    paper = cv2.remap(cv2.cvtColor(src, cv2.COLOR_BGR2BGRA), mx, my, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = paper[:, :, 3].astype(np.float32) * np.float32(1 / 255)
    # Paper is never pure white, and printed black is never pure black.
    tint = np.array([rng.uniform(228, 245), rng.uniform(235, 248), rng.uniform(238, 250)]) / 255
    colour = cv2.transform(paper[:, :, :3], np.hstack([np.diag(tint * 0.93), 8 * tint[:, None]]))
    # Paper fibres: fine and faint.
    grain = 1 + 0.012 * rng.standard_normal((h // 2 + 1, w // 2 + 1), dtype=np.float32)
    shade *= cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
    # The paper casts a thin soft shadow on the table (drawn at a quarter of the size).
    q = 4
    small = cv2.resize(alpha, (w // q, h // q), interpolation=cv2.INTER_AREA)
    off = plan.px_per_mm * rng.uniform(0.5, 2.0) / q
    m = np.array([[1, 0, off * rng.uniform(-1, 1)], [0, 1, off]], np.float32)
    cast = cv2.GaussianBlur(cv2.warpAffine(small, m, small.shape[::-1]), (0, 0), max(1.0, off * 2))
    cast = cv2.resize(cast, (w, h), interpolation=cv2.INTER_LINEAR)
    return colour, alpha, shade, cast


def fade_grid(page_bgr: np.ndarray, plan: ShotPlan) -> np.ndarray:
    """The printed page with its light-red grid washed out by `plan.grid_fade` over most
    of the page (a smooth field, so some lines still show): a printer low on magenta, and
    the faint lines a blurred, shadowed photo loses. Black print is kept."""
    if not plan.grid_fade:
        return page_bgr
    rng = np.random.default_rng([plan.seed, 2])
    h, w = page_bgr.shape[:2]
    field_ = _smooth_noise(rng, (max(8, h // 16), max(8, w // 16)), (3, 3))
    field_ = (field_ - field_.min()) / (np.ptp(field_) + 1e-6)
    local = np.clip(plan.grid_fade * (0.75 + 0.5 * field_), 0.0, 1.0).astype(np.float32)
    local = cv2.resize(local, (w, h), interpolation=cv2.INTER_LINEAR)
    b, g, r = (c.astype(np.float32) for c in cv2.split(page_bgr))
    red = np.clip((r - np.maximum(g, b)) / 60.0, 0.0, 1.0) * local
    out = page_bgr.astype(np.float32)
    out += (255.0 - out) * red[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def take_photo(page_bgr: np.ndarray | None, plan: ShotPlan) -> bytes:
    """Photograph the page raster (any resolution, covering `plan.page_mm`) -> JPEG bytes."""
    rng = np.random.default_rng(plan.seed)
    w, h = plan.size
    img = _background(plan.background, rng, plan.size)
    if plan.clutter and not plan.no_sheet:
        # On the table, so under the same light; its own random stream, so that the
        # rest of the photo is the same with or without it.
        _clutter(img, plan, np.random.default_rng([plan.seed, 1]))
    light = _light_field(plan, rng)
    if plan.no_sheet:
        img = _times(img, light)
    else:
        if page_bgr is None:
            raise ValueError("a page raster is needed unless the plan has no sheet")
        colour, alpha, shade, cast = _paper(page_bgr, plan, rng)
        # One pass: table (darkened by the paper's shadow) and paper, both under the light.
        table_gain = (1 - alpha) * (1 - 0.35 * cast) * light
        paper_gain = alpha * shade * light
        img = cv2.add(_times(img, table_gain), _times(colour, paper_gain))
    if plan.cover_px is not None:
        _finger(img, plan, rng)
    # White balance and auto exposure (paper near the top of the range) in one multiply.
    wb = np.array(plan.white_balance, np.float32)
    bright = float(np.percentile((img[::16, ::16] * wb).max(axis=2), 98))
    gains = wb * np.float32(rng.uniform(225, 250) / max(bright, 1.0))
    img = img * gains  # (numpy, not cv2.multiply: stub versions disagree on Scalars)
    if plan.glare[0]:
        img = _glare(img, plan)
    # Lens: focus blur (more towards the far edge), then the shake of the hand.
    if plan.focus_px > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), plan.focus_px)
    img = _depth_blur(img, plan)
    if plan.motion[0] > 1.0:
        img = cv2.filter2D(img, -1, _motion_kernel(*plan.motion))
    # Sensor: shot noise grows with the signal; chroma noise is coarser than luma noise.
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    amp = np.sqrt(np.maximum(grey, np.float32(0)) * np.float32(1 / 128) + np.float32(0.1))
    # (numpy's generator, not cv2.randn: cv2's global RNG would break reproducibility)
    luma = rng.standard_normal((h, w), dtype=np.float32)
    luma *= amp * np.float32(plan.noise)
    chroma = rng.standard_normal((h // 2, w // 2, 3), dtype=np.float32)
    chroma *= np.float32(0.6 * plan.noise)
    img = cv2.add(img, cv2.merge((luma, luma, luma)))
    img = cv2.add(img, cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR),
                  dtype=cv2.CV_8U)  # saturates to 0-255
    # Phone processing: a gentle S tone curve and sharpening.
    lut = np.clip(255 * (0.5 - 0.5 * np.cos(np.pi * np.arange(256) / 255)) * 0.3
                  + np.arange(256) * 0.7, 0, 255).astype(np.uint8)
    img = cv2.LUT(img, lut)
    blur = cv2.GaussianBlur(img, (0, 0), 1.0)
    img = cv2.addWeighted(img, 1.4, blur, -0.4, 0)
    if plan.gray:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, plan.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()
