"""The single description of a printed sheet's geometry.

`build_layout(LayoutSpec)` places everything in millimetres, origin at the sheet's
top-left corner, y downwards: the four ArUco fiducials, the QR code, the title, the
name boxes, every writable cell, the written-total (Summe) cells and the label boxes.
The renderer draws exactly this and the scanner reads exactly this, so the geometry
lives nowhere else. It depends only on what the QR code carries (game, variants,
sides, pairs, paper, version): never on language or names.

From layout version 2 the four fiducials' ArUco ids carry the spec as well (`marker_ids`,
`spec_from_marker_ids`), so a sheet whose QR code cannot be read still names its layout.
Version 1 sheets (ids 0-3) still build and scan.

Boxes are the *writable interior*: grid lines lie `INSET_MM` outside them.

Sheet structure (top to bottom): a header band (TL marker, title, QR, TR marker),
the grid (name row, column heads I II III, the ruleset's rows, the Summe row) and a
footer band (BL marker, legend, BR marker). Row labels sit in a column left of the grid.
Pairs mode stacks two name boxes per side (member 0 above member 1); a side of one
player in pairs mode (odd player count) simply leaves its second name box blank.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from escalero.scoring.errors import SheetNotFoundError, UnknownRulesError, UsageError
from escalero.scoring.model import TOTAL_ROW
from escalero.scoring.rulesets import ESCALERO_VARIANTS, GAMES, Ruleset, get_ruleset

from escalero.i18n import N_, Text

LAYOUT_VERSION = 2  # 2: the fiducials' ids carry the spec (1: ids 0-3)
KNOWN_VERSIONS = (1, 2)  # printed by some release; every one still builds (and scans)
PAPERS: dict[str, tuple[float, float]] = {  # portrait width, height in mm
    "a4": (210.0, 297.0),
    "a5": (148.0, 210.0),
    "letter": (215.9, 279.4),
}

MARGIN_MM = 8.0  # nothing printed closer to the paper edge (cheap printers clip)
MARKER_QUIET_MM = 2.0  # white quiet zone around each fiducial
INSET_MM = 0.5  # grid line to writable interior
LABEL_W_MM = 30.0  # row-label column
NAME_H_MM = 9.0  # one name box (pitch)
PAIR_NAME_H_MM = 7.5  # each of the two stacked name boxes of a pair
COLHEAD_H_MM = 5.0  # I II III
SUM_GAP_MM = 1.5  # space between the last row and the Summe row
SIDE_GAP_MM = 1.5  # space between two sides' blocks of columns
BAND_GAP_MM = 3.0  # header/footer band to grid
QR_CLEAR_MM = 3.0  # white around the QR symbol
# Cell pitch limits: interior >= 11.5 x 8 mm holds a handwritten 3-digit number.
MIN_PITCH_W, MIN_PITCH_H = 12.5, 9.0
MAX_PITCH_W, MAX_PITCH_H = 30.0, 15.0
LEGEND_H_MM = 12.0  # three short lines

CODE_PREFIX = "ESK"
_GAME_CODES = {"escalero": "E", "generala": "G"}
_VARIANT_CODES = {
    "strasse-25": "S25",
    "doppel-grande": "DG",
    "one-column": "1C",
    "weights-123": "W123",
}
_SERIAL_RE = re.compile(r"^[A-Z0-9-]{1,16}$")


class SheetOptionError(UsageError):
    """A sheet that cannot be made as asked (too many sides for the paper, ...)."""


class Box(NamedTuple):
    """(x_mm, y_mm, w_mm, h_mm), top-left origin."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def grow(self, d: float) -> Box:
        return Box(self.x - d, self.y - d, self.w + 2 * d, self.h + 2 * d)

    def overlaps(self, other: Box) -> bool:
        return (self.x < other.right and other.x < self.right
                and self.y < other.bottom and other.y < self.bottom)

    def inside(self, w: float, h: float) -> bool:
        return self.x >= 0 and self.y >= 0 and self.right <= w and self.bottom <= h

    def to_json(self) -> dict[str, float]:
        return {"x_mm": round(self.x, 3), "y_mm": round(self.y, 3),
                "w_mm": round(self.w, 3), "h_mm": round(self.h, 3)}


class CellBox(NamedTuple):
    """A writable cell: side, column, row id and its box."""

    side: int
    column: int
    row: str
    box: Box


class Total(NamedTuple):
    side: int
    column: int
    box: Box


class NameBox(NamedTuple):
    side: int
    box: Box


class Marker(NamedTuple):
    """ArUco DICT_4X4_50 marker: `size` is the black square's side (quiet zone outside).
    The scanner's geometry holds these too."""

    id: int
    centre: tuple[float, float]
    size: float

    @property
    def cx(self) -> float:
        return self.centre[0]

    @property
    def cy(self) -> float:
        return self.centre[1]

    @property
    def corner(self) -> int | None:
        """The page corner the id is printed in (0 top-left, clockwise); None: not ours."""
        return marker_corner(self.id)

    @property
    def corners(self) -> tuple[tuple[float, float], ...]:
        """TL, TR, BR, BL of the black square: the order cv2.aruco reports them."""
        cx, cy, s = self.centre[0], self.centre[1], self.size / 2
        return ((cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s))

    @property
    def box(self) -> Box:
        s = self.size / 2
        return Box(self.centre[0] - s, self.centre[1] - s, self.size, self.size)


@dataclass(frozen=True)
class LayoutSpec:
    """Everything the geometry depends on; exactly what the QR code carries."""

    game: str = "escalero"
    variants: tuple[str, ...] = ()
    sides: int = 2
    pairs: bool = False
    paper: str = "a4"
    version: int = LAYOUT_VERSION

    def __post_init__(self) -> None:
        # Canonical order so that equal sheets have equal specs (and equal QR codes).
        variants = (self.variants,) if isinstance(self.variants, str) else self.variants
        object.__setattr__(self, "variants", tuple(sorted(set(variants))))
        object.__setattr__(self, "paper", self.paper.lower())

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.game, self.variants)


@dataclass(frozen=True)
class Layout:
    spec: LayoutSpec
    ruleset: Ruleset
    width: float
    height: float
    orientation: str  # "portrait" or "landscape"
    markers: tuple[Marker, ...]
    qr: Box
    title: Box
    legend: Box
    cells: tuple[CellBox, ...]
    totals: tuple[Total, ...]
    names: tuple[NameBox, ...]  # pairs: two per side, member 0 first
    row_labels: tuple[tuple[str, Box], ...]  # (row id, box); row id TOTAL_ROW for Summe
    column_heads: tuple[tuple[int, int, Box], ...]  # (side, column, box)
    corner: Box  # label column above the rows (holds "Name" hints)
    pitch: tuple[float, float]  # cell pitch (w, h): grid lines lie on the grown boxes

    @property
    def sides(self) -> int:
        return self.spec.sides

    @property
    def columns(self) -> int:
        return self.ruleset.columns

    def marker(self, corner: int) -> Marker:
        """The fiducial at `corner` (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left)."""
        return self.markers[corner]

    def writable_boxes(self) -> tuple[Box, ...]:
        """Every writable box: the cells, then the written totals, then the name boxes."""
        return (tuple(c.box for c in self.cells) + tuple(t.box for t in self.totals)
                + tuple(n.box for n in self.names))

    def cell(self, side: int, column: int, row: str) -> Box:
        for c in self.cells:
            if (c.side, c.column, c.row) == (side, column, row):
                return c.box
        raise KeyError((side, column, row))

    def to_json(self) -> dict:
        spec = self.spec
        return {
            "game": spec.game,
            "variant": list(spec.variants),
            "sides": spec.sides,
            "pairs": spec.pairs,
            "paper": spec.paper,
            "version": spec.version,
            "orientation": self.orientation,
            "page": {"width_mm": self.width, "height_mm": self.height},
            "cells": [{"side": c.side, "column": c.column, "row": c.row, **c.box.to_json()}
                      for c in self.cells],
            "totals": [{"side": t.side, "column": t.column, **t.box.to_json()}
                       for t in self.totals],
            "names": [{"side": n.side, "member": self._member(i), **n.box.to_json()}
                      for i, n in enumerate(self.names)],
            "markers": [{"id": m.id, "x_mm": round(m.centre[0], 3), "y_mm": round(m.centre[1], 3),
                         "size_mm": m.size, "quiet_mm": MARKER_QUIET_MM} for m in self.markers],
            "qr": self.qr.to_json(),
        }

    def _member(self, index: int) -> int:
        return index % 2 if self.spec.pairs else 0


def _sizes(paper: str) -> tuple[float, float]:
    """(marker black side, QR symbol side) for a paper: smaller on A5."""
    return (8.0, 18.0) if paper == "a5" else (10.0, 22.0)


def _check(spec: LayoutSpec) -> Ruleset:
    if spec.version not in KNOWN_VERSIONS:
        raise SheetOptionError.worded(N_("layout version {version} is not known here (this "
                                         "program makes version {ours}); update escalero"),
                                      version=spec.version, ours=LAYOUT_VERSION)
    if spec.paper not in PAPERS:
        raise SheetOptionError.worded(N_("unknown paper {paper!r}; choose one of {choices}"),
                                      paper=spec.paper, choices=", ".join(PAPERS))
    rules = spec.ruleset
    if not rules.min_sides <= spec.sides <= rules.max_sides:
        if spec.game == "escalero":
            raise SheetOptionError.worded(
                N_("an Escalero sheet has {low}-{high} sides (players, or pairs with --pairs), "
                   "not {sides}; for more players use --pairs") if not spec.pairs else
                N_("an Escalero sheet has {low}-{high} sides (players, or pairs with --pairs), "
                   "not {sides}"), low=rules.min_sides, high=rules.max_sides, sides=spec.sides)
        raise SheetOptionError.worded(N_("a {game} sheet is for {low}-{high} players, not "
                                         "{sides}"), game=spec.game.capitalize(),
                                      low=rules.min_sides, high=rules.max_sides,
                                      sides=spec.sides)
    return rules


@functools.lru_cache(maxsize=128)
def build_layout(spec: LayoutSpec) -> Layout:
    """The sheet for `spec`: portrait if cells fit large enough, else landscape."""
    rules = _check(spec)
    pw, ph = PAPERS[spec.paper]
    for width, height, orientation in ((pw, ph, "portrait"), (ph, pw, "landscape")):
        layout = _place(spec, rules, width, height, orientation)
        if layout is not None:
            return layout
    bigger = {"a5": N_("use --paper a4"),
              "letter": N_("use --paper a4 (or fewer players per sheet)")}.get(
        spec.paper, N_("use fewer sides (--pairs)"))
    raise SheetOptionError.worded(
        N_("{sides} pairs x {columns} columns do not fit on {paper} with cells of at least "
           "{w:g} x {h:g} mm; {remedy}") if spec.pairs else
        N_("{sides} players x {columns} columns do not fit on {paper} with cells of at least "
           "{w:g} x {h:g} mm; {remedy}"), sides=spec.sides, columns=rules.columns,
        paper=spec.paper.upper(), w=MIN_PITCH_W - 2 * INSET_MM, h=MIN_PITCH_H - 2 * INSET_MM,
        remedy=Text(bigger))


def _place(spec: LayoutSpec, rules: Ruleset, width: float, height: float,
           orientation: str) -> Layout | None:
    marker_mm, qr_mm = _sizes(spec.paper)
    marker_out = marker_mm + 2 * MARKER_QUIET_MM  # marker incl. its quiet zone
    band = max(marker_out, qr_mm)

    # Fiducials in the four corners, quiet zone starting at the printer margin.
    c0, c1 = MARGIN_MM + marker_out / 2, marker_out / 2 + MARGIN_MM
    ids = marker_ids(spec)
    markers = (
        Marker(ids[0], (c0, c0), marker_mm),
        Marker(ids[1], (width - c1, c0), marker_mm),
        Marker(ids[2], (width - c1, height - c1), marker_mm),
        Marker(ids[3], (c0, height - c1), marker_mm),
    )
    qr = Box(width - MARGIN_MM - marker_out - QR_CLEAR_MM - qr_mm, MARGIN_MM, qr_mm, qr_mm)
    title_x = MARGIN_MM + marker_out + BAND_GAP_MM
    title = Box(title_x, MARGIN_MM, qr.x - QR_CLEAR_MM - title_x, band)
    footer = Box(title_x, height - MARGIN_MM - marker_out, width - 2 * title_x, marker_out)

    top = MARGIN_MM + band + BAND_GAP_MM
    bottom = footer.y - BAND_GAP_MM
    left, right = MARGIN_MM, width - MARGIN_MM

    ncols = spec.sides * rules.columns
    name_h = 2 * PAIR_NAME_H_MM if spec.pairs else NAME_H_MM
    nrows = len(rules.rows) + 1  # + Summe
    pitch_w = (right - left - LABEL_W_MM - (spec.sides - 1) * SIDE_GAP_MM) / ncols
    pitch_h = (bottom - top - name_h - COLHEAD_H_MM - SUM_GAP_MM) / nrows
    if pitch_w < MIN_PITCH_W or pitch_h < MIN_PITCH_H:
        return None
    pitch_w, pitch_h = min(pitch_w, MAX_PITCH_W), min(pitch_h, MAX_PITCH_H)

    grid_w = LABEL_W_MM + ncols * pitch_w + (spec.sides - 1) * SIDE_GAP_MM
    x0 = left + (right - left - grid_w) / 2  # centred across the page
    y_head = top + name_h
    y_rows = y_head + COLHEAD_H_MM
    y_sum = y_rows + len(rules.rows) * pitch_h + SUM_GAP_MM

    cells, totals, names, heads = _grid_boxes(spec, rules, x0, top, (y_head, y_rows, y_sum),
                                              (pitch_w, pitch_h))

    # The legend follows the grid when there is room, else it sits between the lower markers.
    grid_bottom = y_sum + pitch_h
    if bottom - grid_bottom >= LEGEND_H_MM + BAND_GAP_MM:
        legend = Box(x0, grid_bottom + BAND_GAP_MM, grid_w, LEGEND_H_MM)
    else:
        legend = footer
    return Layout(
        spec=spec, ruleset=rules, width=width, height=height, orientation=orientation,
        markers=markers, qr=qr, title=title, legend=legend,
        cells=tuple(cells), totals=tuple(totals), names=tuple(names),
        row_labels=_row_labels(rules, x0, y_rows, y_sum, pitch_h), column_heads=tuple(heads),
        corner=Box(x0, top, LABEL_W_MM, name_h + COLHEAD_H_MM),
        pitch=(pitch_w, pitch_h),
    )


def _grid_boxes(spec: LayoutSpec, rules: Ruleset, x0: float, top: float,
                rows_y: tuple[float, float, float], pitch: tuple[float, float]
                ) -> tuple[list[CellBox], list[Total], list[NameBox],
                           list[tuple[int, int, Box]]]:
    """Each side's name boxes, column heads, cells and written totals: the grid whose
    label column starts at x0, name boxes at `top`, and whose column heads, first row and
    Summe row start at `rows_y`, every cell `pitch` (w, h) apart."""
    y_head, y_rows, y_sum = rows_y
    pitch_w, pitch_h = pitch
    name_h = 2 * PAIR_NAME_H_MM if spec.pairs else NAME_H_MM

    def col_x(side: int, column: int) -> float:
        return x0 + LABEL_W_MM + side * SIDE_GAP_MM + (side * rules.columns + column) * pitch_w

    cells, totals, names, heads = [], [], [], []
    for side in range(spec.sides):
        sx = col_x(side, 0)
        side_w = rules.columns * pitch_w
        if spec.pairs:
            for member in range(2):
                y = top + member * PAIR_NAME_H_MM
                names.append(NameBox(side, Box(sx, y, side_w, PAIR_NAME_H_MM).grow(-INSET_MM)))
        else:
            names.append(NameBox(side, Box(sx, top, side_w, name_h).grow(-INSET_MM)))
        for column in range(rules.columns):
            cx = col_x(side, column)
            heads.append((side, column, Box(cx, y_head, pitch_w, COLHEAD_H_MM)))
            for i, row in enumerate(rules.rows):
                pitch_box = Box(cx, y_rows + i * pitch_h, pitch_w, pitch_h)
                cells.append(CellBox(side, column, row.id, pitch_box.grow(-INSET_MM)))
            totals.append(Total(side, column, Box(cx, y_sum, pitch_w, pitch_h).grow(-INSET_MM)))
    return cells, totals, names, heads


def _row_labels(rules: Ruleset, x0: float, y_rows: float, y_sum: float, pitch_h: float
                ) -> tuple[tuple[str, Box], ...]:
    """(row id, label box) of every row, then of the Summe row (TOTAL_ROW)."""
    return tuple(
        (row.id, Box(x0, y_rows + i * pitch_h, LABEL_W_MM, pitch_h))
        for i, row in enumerate(rules.rows)
    ) + ((TOTAL_ROW, Box(x0, y_sum, LABEL_W_MM, pitch_h)),)


# --- the fiducials' ids ----------------------------------------------------------------
# Version 1 printed ids 0-3 (the id is the corner). From version 2 each corner's id also
# carries one base-11 digit of the spec's number (`spec_number`):
#     id = 4 + 11 * corner + digit        (4-47 of DICT_4X4_50's 50)
# corners 0-2 hold the number's three digits and corner 3 a check digit (the four digits
# sum to 0 mod 11). Any three markers name the sheet (a thumb on the fourth costs nothing);
# all four must agree. The number holds the whole spec but the serial, variants included,
# so the layout is known without the QR code. A later version that moves anything must
# change these ids too (another offset, say), or its sheets would be read as version 2.

MARKER_ID_BASE = 4  # first id of the version 2 scheme (0-3: version 1)
MARKER_RADIX = 11  # one digit per marker: 4 corners x 11 digits = ids 4-47
_ID_VERSION = 2  # the layout version these ids name
_ID_PAPERS = ("a4", "a5", "letter")  # fixed order: printed numbers depend on it
_ID_VARIANT_BITS = ("strasse-25", "doppel-grande", "one-column", "weights-123")
_ID_MAX_SIDES = 8
_ID_ESCALERO = len(_ID_PAPERS) * 2 * 2 ** len(_ID_VARIANT_BITS) * _ID_MAX_SIDES  # 768
# Generala (no variants) follows Escalero's numbers: 768 + 48 = 816 of the 1331.


def spec_number(spec: LayoutSpec) -> int:
    """The spec as a number below MARKER_RADIX ** 3 (what the fiducials' ids carry)."""
    if spec.paper not in _ID_PAPERS or not 1 <= spec.sides <= _ID_MAX_SIDES:
        raise SheetOptionError(f"{spec} cannot be named by the corner marks")
    low = (_ID_PAPERS.index(spec.paper) * 2 + int(spec.pairs)) * _ID_MAX_SIDES + spec.sides - 1
    if spec.game == "generala" and not spec.variants:
        return _ID_ESCALERO + low
    unknown = [v for v in spec.variants if v not in _ID_VARIANT_BITS]
    if spec.game != "escalero" or unknown:
        raise SheetOptionError(f"{spec} cannot be named by the corner marks")
    bits = sum(1 << _ID_VARIANT_BITS.index(v) for v in spec.variants)
    return (bits * len(_ID_PAPERS) * 2) * _ID_MAX_SIDES + low


def spec_from_number(number: int) -> LayoutSpec:
    """Inverse of spec_number (a version 2 spec); ValueError for a number no spec has."""
    if not 0 <= number < _ID_ESCALERO + len(_ID_PAPERS) * 2 * _ID_MAX_SIDES:
        raise ValueError(f"no sheet has number {number}")
    game = "escalero" if number < _ID_ESCALERO else "generala"
    rest = number if game == "escalero" else number - _ID_ESCALERO
    rest, sides = divmod(rest, _ID_MAX_SIDES)
    rest, pairs = divmod(rest, 2)
    bits, paper = divmod(rest, len(_ID_PAPERS))
    variants = tuple(v for i, v in enumerate(_ID_VARIANT_BITS) if bits >> i & 1)
    return LayoutSpec(game, variants, sides + 1, bool(pairs), _ID_PAPERS[paper], _ID_VERSION)


def marker_ids(spec: LayoutSpec) -> tuple[int, int, int, int]:
    """The ArUco ids of the four fiducials (top-left, top-right, bottom-right, bottom-left)."""
    if spec.version == 1:
        return (0, 1, 2, 3)
    number = spec_number(spec)
    digits = [number // MARKER_RADIX ** k % MARKER_RADIX for k in range(3)]
    digits.append(-sum(digits) % MARKER_RADIX)
    return tuple(MARKER_ID_BASE + MARKER_RADIX * corner + d
                 for corner, d in enumerate(digits))


def marker_corner(marker_id: int) -> int | None:
    """Which corner a fiducial id is printed in (any version); None: not one of ours."""
    if 0 <= marker_id < MARKER_ID_BASE:
        return marker_id
    if MARKER_ID_BASE <= marker_id < MARKER_ID_BASE + 4 * MARKER_RADIX:
        return (marker_id - MARKER_ID_BASE) // MARKER_RADIX
    return None


def spec_from_marker_ids(ids: Iterable[int]) -> LayoutSpec | None:
    """The spec the detected fiducial ids name, or None when they cannot name one: fewer
    than three version 2 corners, a corner with two different ids, four that disagree."""
    digits: dict[int, set[int]] = {}
    for marker_id in ids:
        if MARKER_ID_BASE <= marker_id < MARKER_ID_BASE + 4 * MARKER_RADIX:
            corner, digit = divmod(marker_id - MARKER_ID_BASE, MARKER_RADIX)
            digits.setdefault(corner, set()).add(digit)
    if len(digits) < 3 or any(len(d) != 1 for d in digits.values()):
        return None
    known = {corner: next(iter(d)) for corner, d in digits.items()}
    check = sum(known.values()) % MARKER_RADIX
    if len(known) == 4 and check:
        return None
    missing = next((c for c in range(4) if c not in known), None)
    if missing is not None:
        known[missing] = -check % MARKER_RADIX
    number = sum(known[k] * MARKER_RADIX ** k for k in range(3))
    try:
        spec = spec_from_number(number)
        build_layout(spec)  # printable: a misread id can name a sheet nobody prints
    except (ValueError, UnknownRulesError, SheetOptionError):
        return None
    return spec


# --- the QR payload -------------------------------------------------------------------
# Upper case letters, digits and "/+-" only, so the QR encoder uses its alphanumeric
# mode: "ESK1/E/S25+DG/S3/P0/A4/K7Q2-001" fits a version 2 symbol (25 modules) at level M.


def encode_code(spec: LayoutSpec, serial: str) -> str:
    """The compact QR payload of a sheet: spec + serial, nothing language-dependent."""
    serial = serial.upper()
    if not _SERIAL_RE.match(serial):
        raise SheetOptionError(
            f"serial {serial!r} must be 1-16 letters, digits or '-'"
        )
    game = _GAME_CODES.get(spec.game, spec.game.upper())
    variants = "+".join(_VARIANT_CODES.get(v, v.upper()) for v in spec.variants) or "-"
    return "/".join((f"{CODE_PREFIX}{spec.version}", game, variants, f"S{spec.sides}",
                     f"P{int(spec.pairs)}", spec.paper.upper(), serial))


def decode_code(text: str) -> tuple[LayoutSpec, str]:
    """Inverse of encode_code; SheetNotFoundError for anything that is not ours."""
    fields = text.strip().upper().split("/")
    short = text.strip()[:40]
    if len(fields) != 7 or not fields[0].startswith(CODE_PREFIX):
        raise SheetNotFoundError.worded(N_("QR code {code!r} is not an Escalero sheet code; "
                                           "photograph a sheet printed with `escalero sheet`"),
                                        code=short)
    head, game, variants, sides, pairs, paper, serial = fields
    games = {v: k for k, v in _GAME_CODES.items()}
    codes = {v: k for k, v in _VARIANT_CODES.items()}
    try:
        version = int(head[len(CODE_PREFIX):])
        spec = LayoutSpec(
            game=games.get(game, game.lower()),
            variants=() if variants == "-" else tuple(
                codes.get(v, v.lower()) for v in variants.split("+")),
            sides=_prefixed_int(sides, "S"),
            pairs=bool(_prefixed_int(pairs, "P")),
            paper=paper.lower(),
            version=version,
        )
        if not _SERIAL_RE.match(serial):
            raise ValueError(serial)
        build_layout(spec)  # a sheet nobody can print (6 players on A5) is no sheet's code
    except (ValueError, UnknownRulesError, SheetOptionError) as err:
        raise SheetNotFoundError.worded(N_("QR code {code!r} looks like an Escalero sheet but "
                                           "cannot be used ({why}); print a new sheet with "
                                           "`escalero sheet`"), code=short, why=err) from None
    return spec, serial


def layout_from_code(text: str) -> tuple[Layout, str]:
    """The layout and serial of a decoded QR payload (what the scanner needs)."""
    spec, serial = decode_code(text)
    return build_layout(spec), serial


def _prefixed_int(field: str, prefix: str) -> int:
    if not field.startswith(prefix):
        raise ValueError(f"{field!r} should start with {prefix}")
    return int(field[len(prefix):])


def all_specs(papers: Iterable[str] = tuple(PAPERS)) -> list[LayoutSpec]:
    """Every spec the program can print (for tests and benchmarks)."""
    variant_sets: list[tuple[str, ...]] = [(), *((v,) for v in ESCALERO_VARIANTS),
                                           ("doppel-grande", "strasse-25"),
                                           ("doppel-grande", "one-column")]
    out = []
    for paper in papers:
        for game in GAMES:
            for variants in (variant_sets if game == "escalero" else [()]):
                rules = get_ruleset(game, variants)
                for sides in range(rules.min_sides, rules.max_sides + 1):
                    for pairs in ((False, True) if game == "escalero" else (False,)):
                        spec = LayoutSpec(game, variants, sides, pairs, paper)
                        try:
                            build_layout(spec)
                        except SheetOptionError:
                            continue
                        out.append(spec)
    return out
