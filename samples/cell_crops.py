"""Synthetic cell crops as the scanner cuts them from a phone photo, with their truth.

A crop follows the cell reading contract (docs/ARCHITECTURE.md): the writable box grown by
1.5 mm each side at 10 px/mm, BGR. Around the handwriting it imitates a photo: light-red
grid lines near the border, sometimes a neighbour's ink, uneven light and colour cast, a
camera of lower resolution (resampled back up), blur, noise, JPEG and a rectification that
is a few pixels off. Used to train and to measure the digit model.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache

import cv2
import numpy as np
from escalero.samples.handwriting import REAL_PENS, Writer, render_entry, render_ring
from escalero.scoring.rulesets import ESCALERO_VARIANTS, get_ruleset

MARGIN_PX = 15  # scan.rectify.CELL_MARGIN_MM (1.5 mm) at scan.rectify.PX_PER_MM (10 px/mm)
# Bump when the cells drawn for the same seed change (a training cache keys on it).
CELLS_VERSION = 4  # 2: grid lines as dark in the red channel as photos show them;
# 3: a dark grid's bar may reach 3 mm into the box; 4: stroke writers' 1s with a long upstroke
Entry = int | str | None


@dataclass(frozen=True)
class CellVariety:
    """What real sheets show beyond the photo generator's own cells, for training the
    reader (drawn only when asked for: without it the cells of a seed stay the same).

    Each field is the share of cells (or writers) that get it, except `offset_mm`."""

    real_pen: float = 0.0  # writers holding one of handwriting.REAL_PENS
    dark_grid: float = 0.0  # grids printed dark (black, grey, green, blue), up to 0.6 mm
    band: float = 0.0  # of those, a thick printed bar along one edge (a row's divider)
    offset_mm: float = 1.0  # the box placed up to this far off (a second shift)
    offset: float = 0.0  # cells placed up to offset_mm off
    touching: float = 0.0  # numbers of 2-3 digits squeezed with touching digits
    neighbour: float = 0.0  # a neighbour's number written close (0.5-2 mm past the box)
    zero_strike: float = 0.0  # strikes written as a 0 or a slashed 0
    ring: float = 0.0  # numbers ringed, boxed or triangled; as many cells get a neighbour's
    # ring reaching in
    continental: float = 0.0  # writers whose 1s have a long upstroke and 7s a crossbar
    # (Writer.continental), in every glyph source
    long_upstroke: float = 0.0  # of those, writers whose 1's upstroke is long and steep
    # (Writer.long_upstroke): the 1 nearly an inverted V

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name != "offset_mm" and not 0.0 <= getattr(self, f.name) <= 1.0:
                raise ValueError(f"CellVariety.{f.name} is a share in [0, 1]")
        if not 0.0 <= self.offset_mm <= 3.0:
            raise ValueError("CellVariety.offset_mm must be 0-3 mm")

    def key(self) -> str:
        """A short text for a training cache's key."""
        return "v" + "-".join(f"{getattr(self, f.name)}" for f in fields(self))


# The variety the reader is trained on for real hands (tools/train_digits.py --real).
REAL_VARIETY = CellVariety(real_pen=0.35, dark_grid=0.3, band=0.35, offset_mm=2.0,
                           offset=0.35, touching=0.25, neighbour=0.25, zero_strike=0.3,
                           ring=0.15)
# How real hands fill a cell, without REAL_VARIETY's printing and placement (dark grids,
# bars, boxes placed off): the Austrian 1 and 7 in every source, a neighbour's number
# close, squeezed digits, a 0 as a strike, a few real pens and rings
# (tools/train_digits.py --hands). REAL_VARIETY, all at once, cost the bench certainty.
HANDS_VARIETY = CellVariety(real_pen=0.1, touching=0.15, neighbour=0.2, zero_strike=0.2,
                            ring=0.05, continental=0.35)
# Only the Austrian 1 and 7, half of the 1s with a long, steep upstroke
# (tools/train_digits.py --ones): the team reads the real golf cards' such 1s as 11 with
# up to half their mass (docs/digit-model.md, Retrain).
ONES_VARIETY = CellVariety(continental=0.4, long_upstroke=0.5)


def scaled(variety: CellVariety, share: float) -> CellVariety:
    """The variety with each share (not offset_mm) times `share` (tools/train_digits.py
    --hands-share): a lighter dose of it."""
    return replace(variety, **{f.name: getattr(variety, f.name) * share
                               for f in fields(variety) if f.name != "offset_mm"})


def real_pen(writer: Writer, rng: np.random.Generator) -> Writer:
    """The writer with one of handwriting.REAL_PENS: markers write thicker, a light pencil
    thinner."""
    pen, ink, opacity = REAL_PENS[int(rng.integers(len(REAL_PENS)))]
    weight = {"marker": 1.35, "pencil": 0.85}.get(pen.split("-")[0], 1.0)
    return replace(writer, pen=pen, ink_bgr=ink, opacity=opacity,
                   stroke=float(writer.stroke * weight * rng.uniform(0.9, 1.1)))


@dataclass(frozen=True)
class CellSample:
    image: np.ndarray  # BGR uint8 crop
    entry: Entry  # the truth: None (empty), "x" (struck) or the number written
    allowed: tuple[int, ...] | None  # the row's values; None for a written total


@lru_cache(maxsize=1)
def row_value_sets() -> tuple[tuple[int, ...], ...]:
    """Allowed values of every row of every game and variant (from scoring.rulesets)."""
    sets = {r.allowed for r in get_ruleset("generala").rows}
    for v in ((),) + tuple((v,) for v in ESCALERO_VARIANTS):
        sets |= {r.allowed for r in get_ruleset("escalero", v).rows}
    return tuple(sorted(sets))


def random_entry(rng: np.random.Generator) -> tuple[Entry, tuple[int, ...] | None]:
    """A plausible cell: (entry, allowed values of its row)."""
    u = rng.random()
    if u < 0.2:  # a written total: any number
        return int(rng.integers(0, 300 if rng.random() < 0.7 else 1000)), None
    allowed = row_value_sets()[int(rng.integers(len(row_value_sets())))]
    if u < 0.33:
        return None, allowed
    if u < 0.48:
        return "x", allowed
    if u < 0.52:  # an invalid value (7 in the nines): must not be read as certain
        return int(rng.integers(1, 100)), allowed
    return int(rng.choice(allowed)), allowed


# training_entry's mixture: empty, struck, a value of a random row, a uniform 1-3 digit number
TRAIN_EMPTY, TRAIN_STRUCK, TRAIN_ROW_VALUE = 0.13, 0.15, 0.27


def training_entry(rng: np.random.Generator) -> Entry:
    """Entries for training: row values, struck, empty and uniform 1-3 digit numbers."""
    u = rng.random()
    if u < TRAIN_EMPTY:
        return None
    if u < TRAIN_EMPTY + TRAIN_STRUCK:
        return "x"
    if u < TRAIN_EMPTY + TRAIN_STRUCK + TRAIN_ROW_VALUE:
        sets = row_value_sets()
        return int(rng.choice(sets[int(rng.integers(len(sets)))]))
    n = int(rng.integers(1, 4))
    return int(rng.integers(10 ** (n - 1) if n > 1 else 1, 10**n))


def training_entry_share(entry: Entry) -> float:
    """How often training_entry draws `entry`: the prior the digit model learned."""
    if entry is None:
        return TRAIN_EMPTY
    if entry == "x":
        return TRAIN_STRUCK
    if not isinstance(entry, int) or not 1 <= entry <= 999:
        return 0.0
    sets = row_value_sets()
    in_rows = sum(1.0 / len(s) for s in sets if entry in s) / len(sets)
    uniform = 1.0 - TRAIN_EMPTY - TRAIN_STRUCK - TRAIN_ROW_VALUE
    digits = len(str(entry))
    return TRAIN_ROW_VALUE * in_rows + uniform / 3 / (9 * 10 ** (digits - 1))


def random_box(rng: np.random.Generator) -> tuple[int, int]:
    """A writable box in px: sheets/layout.py makes them 11.5-29 x 8-14 mm."""
    h = rng.uniform(8.0, 14.0)
    w = rng.uniform(max(11.5, 0.9 * h), 29.0)
    return round(w * 10), round(h * 10)


def narrow_box(rng: np.random.Generator) -> tuple[int, int]:
    """A narrow writable box in px, as on four- and six-side sheets (12.3 x 14 and
    12.5 x 11.4 mm): two-digit numbers fill it, and spill over its lines."""
    return round(rng.uniform(11.5, 13.5) * 10), round(rng.uniform(10.5, 14.0) * 10)


def _paper(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    colour = np.clip(rng.uniform(205, 250) + rng.normal(0, 6, 3), 0, 255).astype(np.uint8)
    page = np.empty(shape + (3,), np.uint8)
    page[:] = colour
    return page


def _beside(rng: np.random.Generator, bw: int, bh: int, gap_x: int, gap_y: int
            ) -> tuple[int, int]:
    """Where a neighbouring cell's box lies: right, left, below or above, past a gap."""
    return [(bw + gap_x, 0), (-bw - gap_x, 0), (0, bh + gap_y), (0, -bh - gap_y)][
        int(rng.integers(4))]


def _dark_grid(page: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator,
               band: float) -> None:
    """A grid printed dark, as on a bought block or a golf card: black, grey, green or blue
    lines 0.1-0.6 mm wide, a little askew, sometimes a thick bar along one edge."""
    x, y, w, h = box
    base = [(40, 40, 40), (90, 90, 90), (60, 120, 40), (140, 90, 40)][int(rng.integers(4))]
    colour = tuple(int(np.clip(c + rng.normal(0, 15), 0, 255)) for c in base)
    ph, pw = page.shape[:2]
    for side in range(4):
        off = rng.uniform(-2, 10)
        t = int(rng.integers(1, 7))
        tilt = rng.normal(0, 0.012)
        if side < 2:
            px = x - off if side == 0 else x + w + off
            p, q = (px - tilt * ph / 2, 0), (px + tilt * ph / 2, ph)
        else:
            py = y - off if side == 2 else y + h + off
            p, q = (0, py - tilt * pw / 2), (pw, py + tilt * pw / 2)
        cv2.line(page, (round(p[0]), round(p[1])), (round(q[0]), round(q[1])), colour, t,
                 cv2.LINE_AA)
    if rng.random() < band:  # a row's divider; a box placed by hand may overlap it by 3 mm
        depth = int(rng.integers(8, 45))
        bar = [(60, 130, 70), (40, 120, 90), (60, 60, 60), (150, 110, 60)][int(rng.integers(4))]
        reach = int(rng.integers(-30, 8) if rng.random() < 0.5 else rng.integers(-4, 8))
        if rng.random() < 0.5:
            page[max(y + 4, y + h + reach):][:depth] = bar
        else:
            top = min(y + h - 4, y - reach)
            page[max(0, top - depth):top] = bar


def _grid(page: np.ndarray, box: tuple[int, int, int, int], rng: np.random.Generator) -> None:
    """Light-red lines just outside the writable box (the dropout colour).

    Their red is darker than the print's: a photo keeps a thin line's darkness but loses
    much of its hue (JPEG stores colour at half resolution), so in generated photos the
    lines show in the red channel at 10-25% of the paper's brightness, not the print's 8%.
    """
    x, y, w, h = box
    colour = (int(rng.uniform(110, 200)), int(rng.uniform(110, 200)), int(rng.uniform(140, 235)))
    for side in range(4):
        off = int(round(rng.uniform(-2, 8)))  # line position relative to the box edge
        t = int(rng.integers(1, 4))
        if side == 0:
            p, q = (x - off, 0), (x - off, page.shape[0])
        elif side == 1:
            p, q = (x + w + off, 0), (x + w + off, page.shape[0])
        elif side == 2:
            p, q = (0, y - off), (page.shape[1], y - off)
        else:
            p, q = (0, y + h + off), (page.shape[1], y + h + off)
        cv2.line(page, p, q, colour, t, cv2.LINE_AA)


def _light(page: np.ndarray, rng: np.random.Generator, harsh: bool) -> np.ndarray:
    """A linear fall-off of light and a colour cast (white balance)."""
    h, w = page.shape[:2]
    ang = rng.uniform(0, 2 * np.pi)
    ramp = np.cos(ang) * np.array([[0.0, 1.0], [0.0, 1.0]]) + \
        np.sin(ang) * np.array([[0.0, 0.0], [1.0, 1.0]])
    ramp = (ramp - ramp.min()) / (np.ptp(ramp) + 1e-6)
    depth = rng.uniform(0, 0.55 if harsh else 0.3)
    gain = cv2.resize((1.0 - depth * ramp).astype(np.float32), (w, h),
                      interpolation=cv2.INTER_LINEAR)
    cast = rng.uniform(0.82, 1.05, 3) if harsh else rng.uniform(0.9, 1.03, 3)
    out = page.astype(np.float32) * gain[:, :, None] * cast.astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def _fade_one_end(before: np.ndarray, after: np.ndarray, ink_box: tuple[int, int, int, int],
                  rng: np.random.Generator) -> np.ndarray:
    """Make the first (or last) digit of a number faint: a pencil pressed lightly, a thin 1.

    Such a number must not read as its strong half alone ("40" as a written 0 = struck).
    """
    x0, _y0, x1, _y1 = ink_box
    split = x0 + (x1 - x0) * rng.uniform(0.3, 0.55)
    keep = rng.uniform(0.2, 0.6)  # share of the ink left on the faint side
    cols = np.arange(after.shape[1], dtype=np.float32)
    ramp = np.clip((cols - split) / 4.0 + 0.5, 0.0, 1.0)  # 0 left of split, 1 right of it
    if rng.random() < 0.3:  # the last digit faint instead
        ramp = 1.0 - ramp
    weight = keep + (1.0 - keep) * ramp
    ink = after.astype(np.float32) - before.astype(np.float32)
    return np.clip(before + ink * weight[None, :, None], 0, 255).astype(np.uint8)


def synth_cell(rng: np.random.Generator, writer: Writer, entry: Entry,
               harsh: bool = False, box_size: tuple[int, int] | None = None,
               allowed: tuple[int, ...] | None = None, spill: float = 0.0,
               faint: float = 0.0, variety: CellVariety | None = None) -> CellSample:
    """Render `entry` the way `writer` would and photograph it (mild or harsh conditions).

    With probability `spill` the writing is large and off-centre, over the grid lines and
    out of the crop, and neighbours' ink reaches in more often (seen in generated photos).
    `variety` adds what real sheets show (CellVariety).
    """
    spilling = spill > 0 and rng.random() < spill
    if spilling:
        writer = replace(writer, height=float(rng.uniform(0.7, 1.0)),
                         offset=(float(rng.normal(0, 0.08)), float(rng.uniform(-0.25, 0.25))))
    bw, bh = box_size or random_box(rng)
    pad = MARGIN_PX + 40
    page = _paper(rng, (bh + 2 * pad, bw + 2 * pad))
    box = (pad, pad, bw, bh)
    if variety is not None and rng.random() < variety.dark_grid:
        _dark_grid(page, box, rng, variety.band)
    else:
        _grid(page, box, rng)
    if rng.random() < (0.5 if spilling else 0.15):  # a neighbour's ink may reach in
        dx, dy = _beside(rng, bw, bh, 20, 10)
        render_entry(page, (pad + dx, pad + dy, bw, bh), int(rng.integers(1, 100)), writer, rng)
    page = _write(page, box, entry, writer, rng, faint, variety)
    small, scale = _camera(page, rng, harsh)
    crop = _rectified(small, scale, pad, (bw, bh), rng, harsh, variety)
    return CellSample(image=crop, entry=entry, allowed=allowed)


def _write(page: np.ndarray, box: tuple[int, int, int, int], entry: Entry, writer: Writer,
           rng: np.random.Generator, faint: float, variety: CellVariety | None) -> np.ndarray:
    """`entry` written into `box` of `page` (in place, or a faded copy), with what the
    variety adds: a neighbour close by, touching digits, a 0 for a strike."""
    pad, _, bw, bh = box
    if variety is not None and rng.random() < variety.neighbour:  # a neighbour close by
        gap = int(rng.integers(5, 21))
        dx, dy = _beside(rng, bw, bh, gap, gap)
        render_entry(page, (pad + dx, pad + dy, bw, bh), int(rng.integers(1, 300)),
                     replace(writer, height=float(rng.uniform(0.6, 0.95))), rng)
    if variety is not None and isinstance(entry, int) and entry >= 10 \
            and rng.random() < variety.touching:  # squeezed, the digits touch
        writer = replace(writer, spacing=float(rng.uniform(-0.3, -0.08)),
                         overflow=float(rng.uniform(0.7, 0.9)))
    if variety is not None and rng.random() < variety.ring:  # a neighbour's ring reaches in
        dx, dy = _beside(rng, bw, bh, 20, 6)
        x0, y0 = pad + dx + bw // 4, pad + dy + bh // 5
        render_ring(page, (x0, y0, x0 + bw // 2, y0 + 3 * bh // 5), writer, rng)
    ring = variety is not None and isinstance(entry, int) and rng.random() < variety.ring
    if ring:  # a number ringed, boxed or triangled, as golf cards mark scores
        writer = replace(writer, height=writer.height * float(rng.uniform(0.6, 0.85)))
    if entry == "x" and variety is not None and rng.random() < variety.zero_strike:
        render_entry(page, box, 0, writer, rng)  # a 0 for "nothing here"...
        if rng.random() < 0.4:  # ...or a 0 struck through
            render_entry(page, box, "x", replace(writer, strike="slash"), rng)
    elif entry is not None:
        before = page.copy() if faint > 0 else None
        ink_box = render_entry(page, box, entry, writer, rng)
        if ring and ink_box is not None:
            shape = ("circle", "circle", "circle", "square", "triangle")[int(rng.integers(5))]
            for _ in range(2 if rng.random() < 0.15 else 1):  # a double ring: an eagle
                render_ring(page, ink_box, writer, rng, shape)
        if (before is not None and ink_box is not None and isinstance(entry, int)
                and entry >= 10 and rng.random() < faint):
            page = _fade_one_end(before, page, ink_box, rng)
    return page


def _camera(page: np.ndarray, rng: np.random.Generator, harsh: bool
            ) -> tuple[np.ndarray, float]:
    """The page photographed: fewer pixels per mm than the crop (returned: the scale),
    uneven light, blur, noise, JPEG."""
    scale = rng.uniform(1.0, 3.6 if harsh else 2.4)
    small = cv2.resize(page, None, fx=1 / scale, fy=1 / scale, interpolation=cv2.INTER_AREA)
    small = _light(small, rng, harsh)
    if harsh and rng.random() < 0.35:  # a hand's shadow or a dim room: little contrast left
        small = (small * rng.uniform(0.35, 0.75)).astype(np.uint8)
    sigma = rng.uniform(0, 1.6 if harsh else 0.9)
    if sigma > 0.3:
        small = cv2.GaussianBlur(small, (0, 0), sigma)
    cv2.setRNGSeed(int(rng.integers(1 << 30)))  # cv2.randn is fast; keep it reproducible
    noise = cv2.randn(np.empty(small.shape, np.float32), 0.0,  # type: ignore[call-overload]
                      rng.uniform(1, 12 if harsh else 5))  # (cv2 stubs: no Scalar)
    small = np.clip(small + noise, 0, 255).astype(np.uint8)
    quality = int(rng.integers(25, 80) if harsh else rng.integers(45, 95))
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return (decoded if decoded is not None else small), scale


def _rectified(small: np.ndarray, scale: float, pad: int, box_size: tuple[int, int],
               rng: np.random.Generator, harsh: bool, variety: CellVariety | None
               ) -> np.ndarray:
    """The rectification back to 10 px/mm, a little off in position, scale and angle (with
    the variety's placement error, up to offset_mm)."""
    bw, bh = box_size
    shift = 10.0 if harsh else 5.0
    if variety is not None and rng.random() < variety.offset:  # placement error
        shift = variety.offset_mm * 10.0
    cw, ch = bw + 2 * MARGIN_PX, bh + 2 * MARGIN_PX
    ang = np.deg2rad(rng.normal(0, 1.5 if harsh else 0.8))
    s = rng.uniform(0.96, 1.04)
    cx, cy = cw / 2, ch / 2
    # crop (u, v) -> page (x, y): rotate/scale about the crop centre, then place.
    a, b = s * np.cos(ang), s * np.sin(ang)
    ox = pad - MARGIN_PX + cx + rng.uniform(-shift, shift)
    oy = pad - MARGIN_PX + cy + rng.uniform(-shift, shift)
    m = np.array([[a, -b, ox - a * cx + b * cy], [b, a, oy - b * cx - a * cy]]) / scale
    return cv2.warpAffine(small, m, (cw, ch), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
