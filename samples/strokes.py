"""Parametric handwritten digits: pen trajectories drawn like a ballpoint would.

A second, independent source of digit shapes next to MNIST (`samples.handwriting`). MNIST
glyphs are all thick felt-pen strokes from one population of writers; real score sheets are
filled in with ballpoints by people with their own habits (1 with or without a flag, 7 with
or without a crossbar, open or closed 4, a 9 with a loop or only an arch, ...). Here every
digit has a few skeletons (pen paths in a unit box, y down, height 1), a `StrokeStyle` fixes
one person's habits, and every call of `stroke_glyph` adds natural variation: jittered key
points, a smooth elastic warp of the trajectory, overshoot, stroke width that varies along
the line.

Masks follow `samples.handwriting._pools()`: float32 alpha 0..1, cropped to the ink.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

Point = tuple[float, float]
# A stroke: start point, then items that are either a point (line to it) or a triple of
# points (cubic Bezier: two control points and the end point).
Stroke = list
Jitter = Callable[[float, float], Point]

_SS = 4  # supersampling factor of the line drawing


@dataclass(frozen=True)
class StrokeStyle:
    """One person's way of writing digits. Lengths are fractions of the glyph height."""

    variants: tuple[int, ...]  # per digit 0-9: index into that digit's skeletons
    aspect: float  # glyph width / height multiplier
    roundness: float  # Bezier control arms: <1 flatter and more angular, >1 rounder
    slant: float  # shear: x shift per unit of height (positive leans right)
    loop: float  # size of the loops of 6 and 9 and the upper bowl of 8
    wobble: float  # amplitude of the smooth elastic warp of the trajectory
    jitter: float  # per-call noise of the key points
    width: float  # stroke width / glyph height (ballpoint ~0.04-0.08, felt pen up to 0.15)
    overshoot: float  # mean extension of stroke ends along their direction
    hook: float  # probability of a small entry hook at the start of a stroke
    quirk: float  # size of this person's own fixed offsets of the key points
    quirk_seed: int  # seeds those offsets, so every glyph of this person shares them


def _ellipse(j: Jitter, cx: float, cy: float, rx: float, ry: float, a0: float, a1: float,
             n: int = 28) -> Stroke:
    """Arc of an ellipse from angle a0 to a1 (degrees, y down: increasing = clockwise)."""
    cx, cy = j(cx, cy)
    ts = np.radians(np.linspace(a0, a1, n))
    pts = [(cx + rx * math.cos(t), cy + ry * math.sin(t)) for t in ts]
    return [pts[0], *pts[1:]]


# --- skeletons: functions (jitter, loop size) -> list of strokes -------------------------

def _zero(j: Jitter, lp: float) -> list[list[Stroke]]:
    return [
        [_ellipse(j, 0.5, 0.5, 0.45, 0.5, -90, -90 - 375)],  # from the top, anticlockwise
        [_ellipse(j, 0.5, 0.5, 0.45, 0.5, -60, -60 - 345)],  # from top right, small gap
        [_ellipse(j, 0.5, 0.5, 0.42, 0.5, -100, -100 + 370)],  # clockwise
    ]


def _one(j: Jitter, lp: float) -> list[list[Stroke]]:
    top, foot = j(0.55, 0.0), j(0.5, 1.0)
    return [
        [[top, foot]],
        [[j(0.2, 0.3), top, foot]],  # European flag
        [[j(0.18, 0.28), top, foot], [j(0.2, 1.0), j(0.85, 1.0)]],  # flag and base
        # A long upstroke, as Austrians (and the real golf cards' writers) write a 1: from
        # half-way down or lower, so that it is near a 7 without its bar or an open 4.
        [[j(-0.2, 0.5), top, foot]],
        [[j(-0.12, 0.7), top, foot]],
    ]


def _two(j: Jitter, lp: float) -> list[list[Stroke]]:
    top = [j(0.08, 0.28), (j(0.12, -0.05), j(0.88, -0.08), j(0.88, 0.3))]
    loop = _ellipse(j, 0.2, 0.86, 0.13 * lp, 0.11 * lp, 225, -270, n=36)
    return [
        [[*top, (j(0.85, 0.55), j(0.35, 0.8), j(0.05, 1.0)), j(0.95, 0.98)]],
        # loop at the bottom left: full anticlockwise turn, base leaves from its bottom
        [[*top, (j(0.85, 0.6), j(0.35, 0.66), loop[0]), *loop[1:], j(0.95, 0.98)]],
        # small hooked top, straight diagonal
        [[j(0.12, 0.2), (j(0.2, -0.04), j(0.85, -0.06), j(0.82, 0.25)), j(0.05, 1.0),
          j(0.95, 1.0)]],
    ]


def _three(j: Jitter, lp: float) -> list[list[Stroke]]:
    mid = j(0.38, 0.47)
    return [
        [[j(0.1, 0.12), (j(0.3, -0.08), j(0.95, -0.02), j(0.8, 0.24)),
          (j(0.7, 0.42), j(0.5, 0.47), mid),
          (j(1.05, 0.45), j(1.02, 1.05), j(0.45, 1.0)),
          (j(0.28, 0.99), j(0.15, 0.95), j(0.05, 0.86))]],
        # flat top: bar, diagonal to the middle, round belly
        [[j(0.08, 0.0), j(0.88, 0.0), mid,
          (j(1.1, 0.38), j(1.05, 1.05), j(0.45, 1.0)),
          (j(0.28, 0.99), j(0.15, 0.95), j(0.05, 0.86))]],
    ]


def _four(j: Jitter, lp: float) -> list[list[Stroke]]:
    return [
        # open 4: L-shape, then the stem from the top
        [[j(0.15, 0.0), j(0.05, 0.62), j(0.98, 0.62)], [j(0.72, 0.05), j(0.72, 1.0)]],
        # closed 4: diagonal, bar, stem
        [[j(0.68, 0.0), j(0.02, 0.66), j(0.98, 0.66)], [j(0.7, 0.0), j(0.7, 1.0)]],
        # open 4 written in one go: down, across, then the stem lifted separately and shorter
        [[j(0.2, 0.0), j(0.08, 0.6), j(0.95, 0.58)], [j(0.68, 0.28), j(0.66, 1.0)]],
    ]


def _five(j: Jitter, lp: float) -> list[list[Stroke]]:
    corner = j(0.2, 0.0)
    belly = [j(0.16, 0.46), (j(0.55, 0.3), j(1.05, 0.5), j(0.88, 0.78)),
             (j(0.75, 1.05), j(0.3, 1.02), j(0.05, 0.86))]
    return [
        [[corner, *belly], [corner, j(0.9, -0.02)]],  # flag added last
        [[j(0.9, 0.0), corner, *belly]],  # one stroke from the top right
    ]


def _six(j: Jitter, lp: float) -> list[list[Stroke]]:
    top = 1.0 - 0.5 * lp  # top of the loop
    loop = [(j(0.08, 1.04), j(0.9, 1.06), j(0.9, 0.5 * (top + 1.0))),
            (j(0.9, top - 0.05), j(0.25, top - 0.1), j(0.1, top + 0.25))]
    return [
        [[j(0.82, 0.06), (j(0.45, -0.08), j(0.05, 0.3), j(0.08, 0.72)), *loop]],
        [[j(0.75, 0.0), j(0.12, 0.62), (j(0.05, 0.8), j(0.06, 0.92), j(0.2, 0.97)),
          (j(0.5, 1.08), j(0.95, 0.9), j(0.85, 0.5 * (top + 1.0) - 0.05)),
          (j(0.75, top - 0.05), j(0.3, top), j(0.12, top + 0.22))]],
    ]


def _seven(j: Jitter, lp: float) -> list[list[Stroke]]:
    tl, tr, foot = j(0.05, 0.03), j(0.95, 0.0), j(0.38, 1.0)
    return [
        [[tl, tr, foot]],
        [[tl, tr, foot], [j(0.3, 0.52), j(0.85, 0.5)]],  # crossbar
        [[j(0.04, 0.22), tl, tr, foot]],  # serif at the left
        [[tl, tr, (j(0.65, 0.35), j(0.48, 0.65), foot)]],  # curved stem
    ]


def _eight(j: Jitter, lp: float) -> list[list[Stroke]]:
    m = 0.4 + 0.1 * (lp - 1.0)  # waist height
    cx, cy = j(0.5, m / 2 + 0.02)
    return [
        [[j(0.85, 0.14), (j(0.7, -0.06), j(0.12, -0.05), j(0.18, 0.2)),
          (j(0.25, m), j(0.95, m + 0.1), j(0.92, 0.74)),
          (j(0.9, 1.06), j(0.08, 1.06), j(0.1, 0.74)),
          (j(0.12, m + 0.1), j(0.78, m), j(0.86, 0.14))]],
        # two stacked loops; the lower one hangs from the upper so they do not overlap
        [_ellipse(_no_jitter, cx, cy, 0.32, m / 2 + 0.02, 0, -370),
         _ellipse(_no_jitter, 0.5 + (cx - 0.5) * 0.5, cy + m / 2 + 0.01 + (1 - m) / 2, 0.45,
                  (1 - m) / 2, -90, -90 + 370)],
    ]


def _nine(j: Jitter, lp: float) -> list[list[Stroke]]:
    ry = 0.25 * lp
    bowl = _ellipse(j, 0.5, ry + 0.01, 0.4, ry, -10, -10 - 360)
    right = bowl[-1]
    return [
        [bowl, [right, j(0.88, 1.0)]],  # straight stem
        [bowl, [right, (j(0.92, 0.6), j(0.8, 1.02), j(0.3, 0.98))]],  # curved tail
        [[*bowl, j(0.62, 1.0)]],  # one stroke, stem leaning back
        # open top: from the lower left up over the top, then straight down (an arch)
        [[*_ellipse(j, 0.5, ry + 0.01, 0.4, ry, 100, 355), j(0.86, 1.0)]],
        # open bowl: over the top and round the left, not closed; the stem drawn apart
        [_ellipse(j, 0.5, ry + 0.01, 0.4, ry, -5, -295), [j(0.9, 0.06), j(0.86, 1.0)]],
    ]


_SKELETONS = (_zero, _one, _two, _three, _four, _five, _six, _seven, _eight, _nine)


def _no_jitter(x: float, y: float) -> Point:
    return (x, y)


VARIANTS = tuple(len(f(_no_jitter, 1.0)) for f in _SKELETONS)


def make_stroke_style(rng: np.random.Generator) -> StrokeStyle:
    """A random writer. Pens are mostly ballpoints (thin), some felt pens (thick)."""
    felt = rng.random() < 0.2
    return StrokeStyle(
        variants=tuple(int(rng.integers(n)) for n in VARIANTS),
        aspect=float(np.clip(rng.normal(0.68, 0.08), 0.5, 0.9)),
        roundness=float(rng.uniform(0.75, 1.15)),
        slant=float(np.clip(rng.normal(0.12, 0.12), -0.15, 0.4)),
        loop=float(rng.uniform(0.8, 1.2)),
        wobble=float(rng.uniform(0.006, 0.025)),
        jitter=float(rng.uniform(0.012, 0.04)),
        width=float(rng.uniform(0.09, 0.15) if felt else rng.uniform(0.04, 0.08)),
        overshoot=float(rng.uniform(0.0, 0.05)),
        hook=float(rng.uniform(0.0, 0.3)),
        quirk=float(rng.uniform(0.0, 0.05)),
        quirk_seed=int(rng.integers(1 << 31)),
    )


def _bezier(p0: np.ndarray, c1: np.ndarray, c2: np.ndarray, p3: np.ndarray,
            n: int = 14) -> np.ndarray:
    t = np.linspace(0, 1, n + 1)[1:, None]
    u = 1 - t
    return u**3 * p0 + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t**3 * p3


def _sample(stroke: Stroke, roundness: float) -> np.ndarray:
    """Dense polyline of a stroke; roundness scales the Bezier control arms."""
    pts = [np.asarray(stroke[0], np.float64)[None]]
    cur = pts[0][0]
    for item in stroke[1:]:
        if isinstance(item[0], tuple):
            c1, c2, end = (np.asarray(p, np.float64) for p in item)
            c1 = cur + (c1 - cur) * roundness
            c2 = end + (c2 - end) * roundness
            pts.append(_bezier(cur, c1, c2, end))
        else:
            end = np.asarray(item, np.float64)
            n = max(1, int(np.linalg.norm(end - cur) / 0.06))
            t = np.linspace(0, 1, n + 1)[1:, None]
            pts.append(cur + (end - cur) * t)
        cur = end
    return np.concatenate(pts)


def _ends(p: np.ndarray, style: StrokeStyle, rng: np.random.Generator) -> np.ndarray:
    """Overshoot at both ends; sometimes a small entry hook."""
    def tangent(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = a - b
        return d / (np.linalg.norm(d) + 1e-9)

    k = min(3, len(p) - 1)
    t0, t1 = tangent(p[0], p[k]), tangent(p[-1], p[-1 - k])
    head = p[0] + t0 * abs(rng.normal(0, style.overshoot))
    tail = p[-1] + t1 * abs(rng.normal(0, style.overshoot))
    parts = [head[None], p, tail[None]]
    if rng.random() < style.hook:
        side = np.array([-t0[1], t0[0]]) * rng.choice((-1.0, 1.0))
        parts.insert(0, (head - t0 * 0.02 + side * rng.uniform(0.03, 0.06))[None])
    return np.concatenate(parts)


def _warp(strokes: list[np.ndarray], style: StrokeStyle, rng: np.random.Generator
          ) -> list[np.ndarray]:
    """Smooth random elastic distortion: a few low-frequency waves over the plane."""
    k = 3
    freq = rng.normal(0, 3.0, (2, k, 2))
    phase = rng.uniform(0, 2 * np.pi, (2, k))
    amp = rng.normal(0, style.wobble, (2, k))

    def field(p: np.ndarray) -> np.ndarray:
        out = p.copy()
        for axis in range(2):
            out[:, axis] += (amp[axis] * np.sin(p @ freq[axis].T + phase[axis])).sum(1)
        return out

    return [field(p) for p in strokes]


def _draw(strokes: list[np.ndarray], thickness: float, rng: np.random.Generator,
          scale: float, origin: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Anti-aliased strokes at _SS x, width varying slowly along each stroke."""
    canvas = np.zeros(shape, np.uint8)
    for p in strokes:
        px = np.round((p - origin) * scale * 16).astype(np.int32)  # 4 fractional bits
        chunk = 6
        for i in range(0, len(px) - 1, chunk):
            t = thickness * rng.uniform(0.85, 1.15)
            cv2.polylines(canvas, [px[i:i + chunk + 1]], False, 255,
                          thickness=max(1, int(round(t))), lineType=cv2.LINE_AA, shift=4)
    return canvas


def stroke_glyph(digit: int, style: StrokeStyle, rng: np.random.Generator,
                 height_px: int = 32, variant: int | None = None) -> np.ndarray:
    """Alpha mask (float32 0..1, cropped to the ink, `height_px` rows) of one written digit."""
    if not 0 <= digit <= 9:
        raise ValueError(f"digit must be 0-9, not {digit}")
    v = style.variants[digit] if variant is None else variant
    sd = style.jitter
    # Skeletons ask for key points in a fixed order, so this person's offsets line up.
    own = np.random.default_rng((style.quirk_seed, digit, v))

    def j(x: float, y: float) -> Point:
        dx, dy = own.normal(0, style.quirk, 2) + rng.normal(0, sd, 2)
        return (x + dx, y + dy)

    skeleton = _SKELETONS[digit](j, style.loop * rng.uniform(0.92, 1.08))[v]
    roundness = style.roundness * rng.uniform(0.95, 1.05)
    aspect = style.aspect * rng.uniform(0.93, 1.07)
    slant = style.slant + rng.normal(0, 0.03)
    strokes = []
    for s in skeleton:
        p = _ends(_sample(s, roundness), style, rng)
        p[:, 0] = p[:, 0] * aspect + slant * (1.0 - p[:, 1])
        strokes.append(p)
    strokes = _warp(strokes, style, rng)

    allp = np.concatenate(strokes)
    lo, hi = allp.min(0), allp.max(0)
    width_frac = style.width * rng.uniform(0.9, 1.1)
    # Ink height = skeleton height + one stroke width; fit that to height_px at _SS x.
    span = max(hi[1] - lo[1], 0.3)
    scale = _SS * height_px / (span * (1 + width_frac))
    thickness = width_frac * span * scale
    pad = int(math.ceil(thickness)) + 2
    origin = lo - pad / scale
    shape = (int(math.ceil((hi[1] - lo[1]) * scale)) + 2 * pad + 1,
             int(math.ceil((hi[0] - lo[0]) * scale)) + 2 * pad + 1)
    canvas = _draw(strokes, thickness, rng, scale, origin, shape)
    ys, xs = np.nonzero(canvas)
    canvas = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = canvas.shape
    out_w = max(1, int(round(w * height_px / h)))
    small = cv2.resize(canvas, (out_w, height_px), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255


def stroke_pool(seed: int, per_digit: int, height_px: int = 32, glyphs_per_style: int = 3
                ) -> tuple[tuple[np.ndarray, ...], ...]:
    """`per_digit` glyph masks per digit 0-9, from many random writers; same seed, same pool.

    Each writer contributes `glyphs_per_style` glyphs of every digit, so the pool mixes
    per-person consistency with variety across people.
    """
    rng = np.random.default_rng(seed)
    n_styles = max(1, math.ceil(per_digit / glyphs_per_style))
    styles = [make_stroke_style(rng) for _ in range(n_styles)]
    return tuple(
        tuple(stroke_glyph(d, styles[i % n_styles], rng, height_px) for i in range(per_digit))
        for d in range(10)
    )
