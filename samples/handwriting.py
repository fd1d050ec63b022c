"""Synthetic handwriting: draws numbers, strikes and names into a page image like a pen would.

Digit shapes come from MNIST: `samples/data/digits.png` (5,000 MNIST training digits as
shipped with OpenCV's samples, Debian package `opencv-doc`; MNIST by Y. LeCun, C. Cortes,
C. Burges). The grid is split by column into two disjoint glyph pools: columns 0-69 are
"train", columns 70-99 are "eval", so a model is never measured on glyphs it learned from.

A second, independent source: `samples.strokes` (pen-trajectory digits, thin ballpoint strokes,
European 1s and crossed 7s). Its train and eval pools come from disjoint seeds. A third:
`samples.fonts` (104 handwriting font families from npm, split by family). A writer's digits
come from one source ("mnist", "strokes" or "fonts"; "mixed" picks mnist or strokes per
writer, "all" any of the three).

A `Writer` fixes one person's style (pen, size, slant, spacing, favourite strike); every
call draws a fresh variation of it. Ink is blended multiplicatively (ink on paper), so it
darkens the grid lines it crosses instead of painting over them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

DIGITS_PNG = Path(__file__).parent / "data" / "digits.png"
SPLITS = ("train", "eval")
SOURCES = ("mnist", "strokes", "fonts", "mixed", "all")
# Stroke pools: disjoint seeds per split; 3 glyphs of every digit per stroke style.
_STROKE_SEEDS = {"train": 1, "eval": 2}
_STROKE_PER_DIGIT = {"train": 600, "eval": 300}
_STROKE_PER_STYLE = 3
_STROKE_HEIGHT = 32
_TRAIN_COLUMNS = 70  # grid columns 0-69 train, 70-99 eval
STRIKES = ("dash", "slash", "cross", "line", "zero")

# Pens as (name, BGR ink colour, opacity). Opacity < 1 lets paper show through (pencil).
PENS = (
    ("ballpoint-blue", (150, 62, 22), 0.95),
    ("ballpoint-blue", (120, 48, 35), 0.95),
    ("gel-blue", (170, 70, 20), 0.97),
    ("black", (38, 34, 32), 0.97),
    ("felt-black", (20, 20, 20), 1.0),
    ("pencil", (95, 95, 100), 0.75),
)
# The harsh level also writes in the colours people pick up at a pub table; red ink on the
# light-red grid is the hard case for finding the grid.
HARSH_PENS = PENS + (
    ("ballpoint-red", (45, 35, 185), 0.95),
    ("felt-red", (40, 30, 210), 1.0),
    ("brown", (30, 55, 110), 0.95),
    ("green", (60, 125, 30), 0.95),
)
# The pub level (another camera model, other writers) adds the inks a red-channel reader
# sees faint: purple and violet ballpoints, a pink highlighter-like felt pen.
PUB_PENS = HARSH_PENS + (
    ("ballpoint-purple", (130, 40, 110), 0.95),
    ("felt-violet", (170, 60, 140), 1.0),
    ("felt-pink", (150, 70, 220), 1.0),
)

# Pen models seen on real sheets, for training the reader only (the photo generator's
# levels keep theirs): light grainy pencil, thick markers that bleed into the paper,
# ballpoints with pressure gaps, and inks the red channel shows faint. The name's first
# word picks the model in `_blend`.
REAL_PENS = (
    ("pencil-light", (112, 112, 118), 0.65),
    ("pencil-light", (85, 85, 90), 0.75),
    ("marker-black", (25, 25, 25), 1.0),
    ("marker-blue", (140, 60, 20), 1.0),
    ("marker-red", (40, 30, 200), 1.0),
    ("marker-green", (50, 140, 20), 1.0),
    ("gappy-blue", (150, 62, 22), 0.95),
    ("gappy-black", (40, 36, 34), 0.95),
    ("gappy-red", (45, 35, 185), 0.95),
    ("ballpoint-green", (70, 130, 30), 0.95),
    ("ballpoint-purple", (130, 40, 110), 0.95),
    ("felt-pink", (150, 70, 220), 1.0),
)

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Writer:
    """One person's handwriting. Lengths are fractions of the cell (box) height."""

    id: int
    split: str  # glyph pool: "train" or "eval"
    glyphs: tuple[tuple[int, ...], ...]  # per digit 0-9: indices into that digit's pool
    pen: str
    ink_bgr: tuple[int, int, int]
    opacity: float
    stroke: float  # stroke weight relative to MNIST's (1.0); ballpoints are thinner
    height: float  # digit height / box height
    width: float  # horizontal stretch of the glyphs
    slant: float  # shear: x shift per unit of height (positive leans right)
    spacing: float  # gap between digits / digit height (negative: overlapping)
    jitter: float  # baseline jitter / digit height
    offset: tuple[float, float]  # preferred centre shift in the box (fraction of w, h)
    overflow: float  # how far a number may spill over the box width before it is squeezed
    strike: str  # favourite way to strike a cell, one of STRIKES
    source: str = "mnist"  # glyph source: "mnist", "strokes" or "fonts"
    # Elastic warp of every digit written, as a fraction of the digit height (training
    # only: more shapes from the same glyph pools; 0 leaves the glyphs as drawn).
    elastic: float = 0.0
    # Writes 1s with a long upstroke and 7s with a crossbar, as Austrians do, whatever the
    # glyph source drew (training only; the stroke writers draw such glyphs themselves).
    continental: bool = False
    # A continental writer whose 1's upstroke is long, 0.55-0.9 of its height and steep,
    # so that the 1 nearly makes an inverted V (the real golf cards' writers; training only).
    long_upstroke: bool = False


@lru_cache(maxsize=1)
def _pools() -> dict[str, tuple[tuple[np.ndarray, ...], ...]]:
    """Glyph alpha masks (float32 0..1, cropped to the ink) per split, per digit."""
    sheet = cv2.imread(str(DIGITS_PNG), cv2.IMREAD_GRAYSCALE)
    if sheet is None:
        raise FileNotFoundError(f"{DIGITS_PNG} is missing; it ships with the repository")
    pools: dict[str, list[list[np.ndarray]]] = {s: [[] for _ in range(10)] for s in SPLITS}
    for row in range(50):
        digit = row // 5
        for col in range(100):
            cell = sheet[row * 20:(row + 1) * 20, col * 20:(col + 1) * 20]
            ys, xs = np.nonzero(cell > 40)
            glyph = cell[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255
            split = "train" if col < _TRAIN_COLUMNS else "eval"
            pools[split][digit].append(glyph)
    return {s: tuple(tuple(g) for g in per_digit) for s, per_digit in pools.items()}


@lru_cache(maxsize=2)
def _stroke_pools(split: str) -> tuple[tuple[np.ndarray, ...], ...]:
    """Pen-trajectory glyph masks of a split (same conventions as `_pools`)."""
    from escalero.samples.strokes import stroke_pool  # only writers of that source need it

    return stroke_pool(_STROKE_SEEDS[split], _STROKE_PER_DIGIT[split], _STROKE_HEIGHT,
                       _STROKE_PER_STYLE)


def _glyph_pool(source: str, split: str) -> tuple[tuple[np.ndarray, ...], ...]:
    if source == "fonts":
        from escalero.samples.fonts import font_pool  # fetched on first use (npm)

        return font_pool(split)
    return _stroke_pools(split) if source == "strokes" else _pools()[split]


def pool_size(split: str, digit: int, source: str = "mnist") -> int:
    return len(_glyph_pool(source, split)[digit])


def _stroke_glyphs(rng: np.random.Generator, split: str) -> tuple[tuple[int, ...], ...]:
    """1-3 glyphs per digit, all from one stroke style: one person's 1s, 7s, 4s agree."""
    styles = math.ceil(_STROKE_PER_DIGIT[split] / _STROKE_PER_STYLE)
    style = int(rng.integers(styles))
    own = np.arange(style, _STROKE_PER_DIGIT[split], styles)  # stroke_pool's i % styles
    return tuple(
        tuple(int(i) for i in rng.choice(own, size=int(rng.integers(1, 4)), replace=False))
        for _ in range(10)
    )


def _font_glyphs(rng: np.random.Generator, split: str) -> tuple[tuple[int, ...], ...]:
    """1-3 glyphs per digit, all from one font family (one person's hand)."""
    from escalero.samples.fonts import VARIANTS

    families = len(_glyph_pool("fonts", split)[0]) // VARIANTS
    first = int(rng.integers(families)) * VARIANTS
    return tuple(
        tuple(first + int(i) for i in rng.choice(VARIANTS, size=int(rng.integers(1, 4)),
                                                 replace=False))
        for _ in range(10)
    )


def make_writer(rng: np.random.Generator, split: str = "train", writer_id: int | None = None,
                source: str = "mnist", pens: tuple[tuple[str, tuple[int, int, int], float], ...]
                = PENS) -> Writer:
    """A random writer whose digits all come from the `split` glyph pool of `source`."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, not {source!r}")
    if source == "mixed":
        source = "strokes" if rng.random() < 0.5 else "mnist"
    elif source == "all":
        source = ("mnist", "strokes", "fonts")[int(rng.integers(3))]
    if source == "strokes":
        glyphs = _stroke_glyphs(rng, split)
    elif source == "fonts":
        glyphs = _font_glyphs(rng, split)
    else:
        pools = _pools()[split]
        # A real person writes each digit much the same way: 1-3 shapes per digit.
        glyphs = tuple(
            tuple(int(i) for i in rng.choice(len(pools[d]), size=int(rng.integers(1, 4)),
                                             replace=False))
            for d in range(10)
        )
    pen, ink, opacity = pens[int(rng.integers(len(pens)))]
    b, g, r = (int(np.clip(c + rng.normal(0, 10), 0, 255)) for c in ink)
    strike = str(rng.choice(STRIKES, p=(0.35, 0.25, 0.1, 0.15, 0.15)))
    return Writer(
        id=int(writer_id if writer_id is not None else rng.integers(1 << 31)),
        split=split,
        glyphs=glyphs,
        pen=pen,
        ink_bgr=(b, g, r),
        opacity=opacity,
        # Stroke and font glyphs carry their own pen width: re-threshold near neutral (0.5).
        stroke=float(rng.uniform(0.55, 1.35) if source == "mnist" else rng.uniform(0.85, 1.15)),
        height=float(np.clip(rng.normal(0.6, 0.1), 0.4, 0.85)),
        width=float(np.clip(rng.normal(1.0, 0.1), 0.75, 1.3)),
        slant=float(np.clip(rng.normal(0.1, 0.12), -0.15, 0.4)),
        spacing=float(np.clip(rng.normal(0.08, 0.1), -0.18, 0.35)),
        jitter=float(rng.uniform(0.0, 0.08)),
        offset=(float(rng.normal(0, 0.07)), float(rng.normal(0, 0.07))),
        overflow=float(rng.uniform(0.85, 1.1)),
        strike=strike,
        source=source,
    )


def _ink_ramp(a: np.ndarray, stroke: float) -> np.ndarray:
    """Re-threshold a smoothly upscaled mask: higher threshold, thinner stroke."""
    t = float(np.clip(0.5 - 0.45 * (stroke - 1.0), 0.15, 0.85))
    return np.clip((a - t) * 4.0 + 0.5, 0.0, 1.0)


def _number_mask(value: int, writer: Writer, box_h: int, rng: np.random.Generator
                 ) -> np.ndarray:
    """Ink alpha of a written number, before placing it in a cell."""
    pools = _glyph_pool(writer.source, writer.split)
    h = max(6.0, writer.height * box_h * rng.uniform(0.92, 1.08))
    jitter = writer.jitter * h
    pieces = []
    for ch in str(value):
        d = int(ch)
        glyph = pools[d][writer.glyphs[d][int(rng.integers(len(writer.glyphs[d])))]]
        if writer.continental and d in (1, 7) and writer.source != "strokes":
            glyph = continental_glyph(glyph, d, rng, writer.long_upstroke)
        gh, gw = glyph.shape
        scale = h / max(gh, 10) * rng.uniform(0.93, 1.07)
        size = (max(2, round(gw * scale * writer.width * rng.uniform(0.92, 1.08))),
                max(2, round(gh * scale)))
        # Pad before upscaling so the cubic kernel rounds off the stroke ends; the padding
        # is taken off the gap below so spacing is measured between the inks.
        r = max(1, round(scale))
        piece = cv2.resize(np.pad(glyph, 1), (size[0] + 2 * r, size[1] + 2 * r),
                           interpolation=cv2.INTER_CUBIC)
        pieces.append(_elastic(piece, writer.elastic * h, rng) if writer.elastic > 0 else piece)
    pad = int(math.ceil(jitter + 0.1 * h)) + 2
    canvas_h = max(p.shape[0] for p in pieces) + 2 * pad
    gaps = [writer.spacing * h + rng.normal(0, 0.04 * h) - 2 * max(1, round(h / 16))
            for _ in pieces[1:]]
    width = sum(p.shape[1] for p in pieces) + int(sum(max(g, -0.5 * h) for g in gaps)) + 2 * pad
    canvas = np.zeros((canvas_h, max(width, 4) + pieces[-1].shape[1]), np.float32)
    x = float(pad)
    for i, p in enumerate(pieces):
        ph, pw = p.shape
        # Digits of one number share a baseline; the jitter moves each a little.
        y = canvas_h - pad - ph + int(round(rng.uniform(-jitter, jitter)))
        xi = int(round(max(x, 0)))
        region = canvas[y:y + ph, xi:xi + pw]
        np.maximum(region, p[:region.shape[0], :region.shape[1]], out=region)
        x = xi + pw + (max(gaps[i], -0.5 * h) if i < len(gaps) else 0)
    canvas = canvas[:, :int(x) + pad]
    slant = writer.slant + rng.normal(0, 0.03)
    if abs(slant) > 1e-3:
        ch_, cw_ = canvas.shape
        extra = int(math.ceil(abs(slant) * ch_))
        m = np.array([[1, -slant, slant * ch_ if slant > 0 else 0], [0, 1, 0]], np.float32)
        canvas = cv2.warpAffine(canvas, m, (cw_ + extra, ch_), flags=cv2.INTER_LINEAR)
    return _ink_ramp(canvas, writer.stroke * rng.uniform(0.9, 1.1))


def _stroke_width(glyph: np.ndarray) -> float:
    """A glyph's stroke width in its own pixels: twice the median, over its middle rows,
    of the farthest any ink lies from paper (across the stroke, whatever its slant)."""
    h = glyph.shape[0]
    ink = np.pad((glyph > 0.5).astype(np.uint8), 1)
    far = cv2.distanceTransform(ink, cv2.DIST_L2, 3)[1:-1, 1:-1]
    middle = far[h // 4:max(h // 4 + 1, 3 * h // 4)].max(axis=1)
    middle = middle[middle > 0]
    width = 2 * float(np.median(middle)) if middle.size else h / 10
    return float(np.clip(width, 1.0, 0.2 * h))


_FINER = 3  # continental_glyph's drawing scale


def continental_glyph(glyph: np.ndarray, digit: int, rng: np.random.Generator,
                      long: bool = False) -> np.ndarray:
    """A 1 given a long upstroke from its top down to the left (0.35-0.65 of its height,
    25-55 degrees below the horizontal; `long`: 0.55-0.9 and 30-70 degrees), or a 7 given
    a crossbar through its stem, drawn at the glyph's own stroke width."""
    width = _stroke_width(glyph) * _FINER
    # Drawn on a finer copy: at MNIST's 14 px a 2 px stroke meeting the stem would close
    # the angle between them into a wedge.
    glyph = cv2.resize(glyph, (glyph.shape[1] * _FINER, glyph.shape[0] * _FINER),
                       interpolation=cv2.INTER_CUBIC).clip(0, 1)
    gh, gw = glyph.shape
    thick = max(1, int(round(width)))
    if digit == 1:
        length = rng.uniform(*((0.55, 0.9) if long else (0.35, 0.65))) * gh
        # below the horizontal
        angle = math.radians(rng.uniform(*((30, 70) if long else (25, 55))))
        reach = int(math.ceil(length * math.cos(angle) + width))
        out = np.pad(glyph, ((0, 0), (reach, 0)))
        top = np.nonzero(glyph[:max(1, gh // 8)].max(axis=0) > 0.5)[0]
        x0 = reach + (float(top.mean()) if top.size else gw / 2)
        y0 = width / 2
        end = (x0 - length * math.cos(angle), y0 + length * math.sin(angle))
    else:
        y0 = rng.uniform(0.45, 0.62) * gh
        stem = np.nonzero(glyph[int(y0)] > 0.5)[0]
        xc = float(stem.mean()) if stem.size else gw / 2
        half = rng.uniform(0.22, 0.38) * max(gw, 0.6 * gh)
        reach = int(math.ceil(max(0.0, half - xc) + width))
        out = np.pad(glyph, ((0, 0), (reach, int(math.ceil(max(0.0, xc + half - gw) + width)))))
        tilt = rng.uniform(-0.08, 0.08) * half
        x0, end = reach + xc - half, (reach + xc + half, y0 - tilt)
        y0 += tilt
    bar = np.zeros_like(out)
    bits = 3  # sub-pixel bits: the line lies anywhere between pixels
    s = 1 << bits
    cv2.line(bar, (int(round(x0 * s)), int(round(y0 * s))),
             (int(round(end[0] * s)), int(round(end[1] * s))), 1.0, thick, cv2.LINE_AA, bits)
    out = np.maximum(out, bar)
    ys, xs = np.nonzero(out > 0.02)  # cropped to the ink, as the pools' glyphs are
    return out[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _elastic(mask: np.ndarray, amplitude: float, rng: np.random.Generator) -> np.ndarray:
    """The mask bent by a smooth random displacement field (Simard et al., 2003) whose
    largest shift is about `amplitude` px: loops open or close, strokes bow, a 1 leans."""
    h, w = mask.shape
    sigma = max(1.0, 0.15 * max(h, w))
    field = rng.uniform(-1.0, 1.0, (2, h, w)).astype(np.float32)
    field = np.stack([cv2.GaussianBlur(f, (0, 0), sigma) for f in field])
    field *= amplitude * rng.uniform(0.3, 1.0) / max(float(np.abs(field).max()), 1e-6)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return cv2.remap(mask, xs + field[0], ys + field[1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def _stroke_px(writer: Writer, box_h: int) -> float:
    # MNIST strokes are about 12% of the digit height at weight 1.0.
    return max(1.0, 0.1 * writer.height * box_h * writer.stroke)


def _polyline_mask(shape: tuple[int, int], points: list[np.ndarray], thickness: float,
                   rng: np.random.Generator) -> np.ndarray:
    """Hand-drawn line through `points`: slightly bent, anti-aliased."""
    mask = np.zeros(shape, np.uint8)
    for a, b in zip(points, points[1:], strict=False):
        n = 4
        ts = np.linspace(0, 1, n + 1)[:, None]
        normal = np.array([-(b - a)[1], (b - a)[0]]) / (np.linalg.norm(b - a) + 1e-6)
        bend = rng.normal(0, 0.04) * np.linalg.norm(b - a)
        pts = a + (b - a) * ts + normal * (bend * np.sin(np.pi * ts))
        cv2.polylines(mask, [np.round(pts * 4).astype(np.int32)], False, 255,
                      thickness=max(1, int(round(thickness))), lineType=cv2.LINE_AA, shift=2)
    return mask.astype(np.float32) / 255


def _strike_mask(style: str, writer: Writer, w: int, h: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, tuple[int, int]]:
    """Alpha of a strike and its top-left offset relative to the box."""
    m = int(0.25 * h)  # strikes may run into the margin and over the grid lines
    shape = (h + 2 * m, w + 2 * m)
    cx = m + w / 2 + writer.offset[0] * w + rng.normal(0, 0.05 * w)
    cy = m + h / 2 + writer.offset[1] * h + rng.normal(0, 0.06 * h)
    t = _stroke_px(writer, h) * rng.uniform(0.8, 1.2)
    half = w * rng.uniform(0.15, 0.38)
    tilt = rng.normal(0, 0.08) * half
    if style == "dash":
        pts = [np.array([cx - half, cy + tilt]), np.array([cx + half, cy - tilt])]
        return _polyline_mask(shape, pts, t, rng), (-m, -m)
    if style == "line":  # a long stroke through the whole cell, often over the lines
        x0, x1 = m - rng.uniform(0.0, 0.15) * w, m + w + rng.uniform(0.0, 0.15) * w
        dy = rng.normal(0, 0.15) * h
        pts = [np.array([x0, cy + dy]), np.array([x1, cy - dy])]
        return _polyline_mask(shape, pts, t, rng), (-m, -m)
    hh = h * rng.uniform(0.25, 0.42)
    hw = min(half, hh * rng.uniform(0.6, 1.4))
    slash = [np.array([cx - hw, cy + hh]), np.array([cx + hw, cy - hh])]
    if style == "slash":
        return _polyline_mask(shape, slash, t, rng), (-m, -m)
    back = [np.array([cx - hw, cy - hh]), np.array([cx + hw, cy + hh])]
    mask = np.maximum(_polyline_mask(shape, slash, t, rng), _polyline_mask(shape, back, t, rng))
    return mask, (-m, -m)


def _blend(page: np.ndarray, alpha: np.ndarray, x0: int, y0: int, writer: Writer,
           rng: np.random.Generator) -> tuple[int, int, int, int] | None:
    """Multiply ink into the page at (x0, y0), clipped to the page. Returns the ink box."""
    ph, pw = page.shape[:2]
    ah, aw = alpha.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(pw, x0 + aw), min(ph, y0 + ah)
    if xa >= xb or ya >= yb:
        return None
    a = alpha[ya - y0:yb - y0, xa - x0:xb - x0] * writer.opacity
    model = writer.pen.split("-")[0]
    if model == "marker":  # thick felt: the ink bleeds into the paper around the stroke
        bled = cv2.GaussianBlur(cv2.dilate(np.ascontiguousarray(a), np.ones((3, 3), np.uint8),
                                           iterations=int(rng.integers(1, 3))), (0, 0), 1.2)
        a = np.clip(bled * 1.3, 0.0, 1.0).astype(a.dtype)
    if writer.pen == "pencil":  # graphite leaves grain
        a = a * rng.uniform(0.6, 1.0, a.shape).astype(np.float32)
    elif model == "pencil":  # pressed lightly: coarser grain, gaps in the stroke
        a = a * rng.uniform(0.35, 1.0, a.shape).astype(np.float32)
    elif model == "gappy":  # a ballpoint that skips: smooth gaps along the stroke
        gaps = cv2.GaussianBlur(rng.random(a.shape, dtype=np.float32), (0, 0), 2.5)
        gaps = (gaps - gaps.min()) / max(float(np.ptp(gaps)), 1e-6)
        a = a * np.clip((gaps - 0.25) * 2.5, 0.1, 1.0)
    else:  # ballpoints skip a little, unevenly
        a = a * (1.0 - 0.15 * rng.random(a.shape, dtype=np.float32) ** 4)
    ink = np.asarray(writer.ink_bgr, np.float32) / 255.0
    factor = 1.0 - a[:, :, None] * (1.0 - ink[None, None, :])
    region = page[ya:yb, xa:xb]
    if region.ndim == 2:  # grey page: use the ink's luminance
        factor = factor.mean(axis=2)
    region[...] = np.clip(region.astype(np.float32) * factor, 0, 255).astype(page.dtype)
    ys, xs = np.nonzero(a > 0.3)
    if len(xs) == 0:
        return None
    return (xa + int(xs.min()), ya + int(ys.min()), xa + int(xs.max()) + 1,
            ya + int(ys.max()) + 1)


def render_entry(page_bgr: np.ndarray, box_px: Box, entry: int | str, writer: Writer,
                 rng: np.random.Generator) -> tuple[int, int, int, int] | None:
    """Write `entry` (a number 0-999 or "x" for struck) into the box, in place.

    Returns the bounding box (x0, y0, x1, y1) of the ink drawn, or None if nothing landed
    on the page. "x" is drawn in the writer's favourite strike style most of the time.
    """
    x, y, w, h = (int(v) for v in box_px)
    if entry == "x":
        style = writer.strike if rng.random() < 0.75 else str(rng.choice(STRIKES))
        if style == "zero":
            entry = 0
        else:
            mask, (dx, dy) = _strike_mask(style, writer, w, h, rng)
            return _blend(page_bgr, mask, x + dx, y + dy, writer, rng)
    if isinstance(entry, str) or not 0 <= int(entry) <= 999:
        raise ValueError(f"entry must be 0-999 or 'x', not {entry!r}")
    mask = _number_mask(int(entry), writer, h, rng)
    mh, mw = mask.shape
    limit = w * writer.overflow
    if mw > limit:  # people squeeze long numbers to fit; keep the height
        mw = max(4, int(limit))
        mask = cv2.resize(mask, (mw, mh), interpolation=cv2.INTER_AREA)
    cx = x + w / 2 + writer.offset[0] * w + rng.normal(0, 0.04 * w)
    cy = y + h / 2 + writer.offset[1] * h + rng.normal(0, 0.05 * h)
    return _blend(page_bgr, mask, int(round(cx - mw / 2)), int(round(cy - mh / 2)), writer, rng)


def render_ring(page_bgr: np.ndarray, around: tuple[int, int, int, int], writer: Writer,
                rng: np.random.Generator, shape: str = "circle") -> None:
    """A hand-drawn ring ("circle"), box ("square") or triangle around `around` (x0, y0, x1,
    y1 in px), in place: golf cards mark birdies and bogeys so, and a player rings a number
    to point at it. The line is as thick as the writer's strokes, a little uneven, and
    need not close."""
    x0, y0, x1, y1 = around
    ph, pw = page_bgr.shape[:2]
    h = max(y1 - y0, 8)
    pad = rng.uniform(0.12, 0.4) * h
    cx, cy = (x0 + x1) / 2 + rng.normal(0, 0.05 * h), (y0 + y1) / 2 + rng.normal(0, 0.05 * h)
    rx, ry = (x1 - x0) / 2 + pad, (y1 - y0) / 2 + pad
    ts = np.linspace(0, 1, 90)
    if shape == "circle":
        start, sweep = rng.uniform(0, 2 * np.pi), rng.uniform(1.85, 2.15) * np.pi
        ang = start + sweep * ts
        wob = 1 + rng.normal(0, 0.03) * np.sin(3 * ang + rng.uniform(0, 6))
        pts = np.stack([cx + rx * wob * np.cos(ang), cy + ry * wob * np.sin(ang)], axis=1)
    else:
        corners = ([(-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1)] if shape == "square"
                   else [(0, -1.9), (1.7, 1.1), (-1.7, 1.1), (0, -1.9)])
        c = np.array(corners, np.float64) * (rx, ry) + (cx, cy)
        c += rng.normal(0, 0.04 * h, c.shape)
        pts = np.concatenate([np.linspace(a, b, 20) for a, b in zip(c[:-1], c[1:], strict=True)])
    thick = max(1, round(0.1 * h * writer.stroke * rng.uniform(0.7, 1.2)))
    mask = np.zeros((ph, pw), np.uint8)
    cv2.polylines(mask, [np.round(pts * 4).astype(np.int32)], False, 255, thick, cv2.LINE_AA,
                  shift=2)
    _blend(page_bgr, mask.astype(np.float32) / 255.0, 0, 0, writer, rng)


def render_text(page_bgr: np.ndarray, box_px: Box, text: str, writer: Writer,
                rng: np.random.Generator) -> tuple[int, int, int, int] | None:
    """A handwritten-looking scribble for `text` (player names are never read back)."""
    x, y, w, h = (int(v) for v in box_px)
    n = max(1, len(text.strip()))
    letter_w = min(h * 0.45, 0.9 * w / n)
    width = letter_w * n
    amp = h * writer.height * 0.35
    ts = np.linspace(0, 1, 12 * n)
    # Loops of a cursive hand: a sine per letter with varying height, plus slant.
    heights = np.repeat(rng.uniform(0.5, 1.0, n), 12)
    heights[:12] = 1.0  # a capital first letter
    xs = ts * width + writer.slant * amp * np.sin(2 * np.pi * n * ts)
    ys = -amp * heights * np.abs(np.sin(np.pi * n * ts + rng.uniform(0, 0.3)))
    pts = np.stack([xs, ys + amp], axis=1) + np.array([w * 0.05, (h - amp) / 2])
    shape = (h, w)
    mask = np.zeros(shape, np.uint8)
    cv2.polylines(mask, [np.round(pts * 4).astype(np.int32)], False, 255,
                  thickness=max(1, int(round(_stroke_px(writer, h)))), lineType=cv2.LINE_AA,
                  shift=2)
    return _blend(page_bgr, mask.astype(np.float32) / 255, x, y, writer, rng)
