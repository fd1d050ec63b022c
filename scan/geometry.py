"""What the scanner needs to know about a printed sheet, in millimetres.

`SheetGeometry` is a flat view of `sheets.layout.Layout`: the page size, the
fiducials, the QR box and one `Slot` per writable box (cells and written totals).
Stages below work only on this, so they can be tested with hand-made geometries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.rulesets import Ruleset, get_ruleset

Box = tuple[float, float, float, float]  # x_mm, y_mm, w_mm, h_mm (writable interior)

TOTAL_ROW = "total"  # row id of a written column total (same as scoring.validate)


@dataclass(frozen=True)
class Marker:
    """An ArUco fiducial: id, centre and side length (of the black square) in mm."""

    id: int
    cx: float
    cy: float
    size: float

    def corners(self) -> tuple[tuple[float, float], ...]:
        """Corners in ArUco order (TL, TR, BR, BL of the upright marker)."""
        h = self.size / 2
        return ((self.cx - h, self.cy - h), (self.cx + h, self.cy - h),
                (self.cx + h, self.cy + h), (self.cx - h, self.cy + h))


@dataclass(frozen=True)
class Slot:
    """One writable box: a cell (`row` is a row id) or a written total (`row` == "total")."""

    side: int
    column: int
    row: str
    box: Box

    @property
    def is_total(self) -> bool:
        return self.row == TOTAL_ROW


@dataclass(frozen=True)
class SheetGeometry:
    game: str
    variants: tuple[str, ...]
    page_mm: tuple[float, float]
    markers: tuple[Marker, ...]
    qr_box: Box | None
    slots: tuple[Slot, ...]
    side_names: tuple[str, ...]
    side_members: tuple[tuple[str, ...], ...]
    serial: str | None = None

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.game, self.variants)

    @property
    def n_sides(self) -> int:
        return len(self.side_names)

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    def grid_bounds(self) -> Box:
        """Bounding box of all slots."""
        x0 = min(s.box[0] for s in self.slots)
        y0 = min(s.box[1] for s in self.slots)
        x1 = max(s.box[0] + s.box[2] for s in self.slots)
        y1 = max(s.box[1] + s.box[3] for s in self.slots)
        return (x0, y0, x1 - x0, y1 - y0)


def default_side_names(n_sides: int, pairs: bool) -> tuple[tuple[str, ...], ...]:
    """Names used when the user gives none (names are written by hand, not read)."""
    if pairs:
        return tuple((f"Spieler {2 * i + 1}", f"Spieler {2 * i + 2}") for i in range(n_sides))
    return tuple((f"Spieler {i + 1}",) for i in range(n_sides))


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _box(value: Any) -> Box:
    return (float(value[0]), float(value[1]), float(value[2]), float(value[3]))


def from_layout(layout: Any, spec: Any, serial: str | None = None) -> SheetGeometry:
    """Flatten a `sheets.layout.Layout` built from `spec` (a LayoutSpec)."""
    game = _get(spec, "game", default="escalero")
    variants = tuple(_get(spec, "variants", "variant", default=()) or ())
    pairs = bool(_get(spec, "pairs", default=False))
    page = _get(layout, "page_mm", "page_size_mm", "page_size", "page")
    page_mm = (float(page[0]), float(page[1]))
    markers = tuple(
        Marker(int(_get(m, "id", "marker_id")),
               *(float(v) for v in _get(m, "centre_mm", "center_mm", "centre", "center")),
               float(_get(m, "size_mm", "size")))
        for m in _get(layout, "markers")
    )
    qr = _get(layout, "qr_box", "qr")
    slots: list[Slot] = []
    for c in _get(layout, "cells"):
        slots.append(Slot(int(_get(c, "side")), int(_get(c, "column")), str(_get(c, "row")),
                          _box(_get(c, "box", "box_mm"))))
    for t in _get(layout, "totals", default=()) or ():
        slots.append(Slot(int(_get(t, "side")), int(_get(t, "column")), TOTAL_ROW,
                          _box(_get(t, "box", "box_mm"))))
    n_sides = 1 + max(s.side for s in slots)
    members = default_side_names(n_sides, pairs)
    return SheetGeometry(
        game=game, variants=variants, page_mm=page_mm, markers=markers,
        qr_box=None if qr is None else _box(_get(qr, "box", "box_mm", default=qr)),
        slots=tuple(slots),
        side_names=tuple(" & ".join(m) for m in members), side_members=members,
        serial=serial,
    )
