"""What the scanner needs to know about a printed sheet, in millimetres.

`SheetGeometry` is a flat view of `sheets.layout.Layout`: the page size, the fiducials
(the layout's own `Marker`s), the QR box and one `Slot` per writable box (cells and
written totals). Stages below work only on this, so they can be tested with hand-made
geometries.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from escalero.scoring.model import TOTAL_ROW
from escalero.scoring.rulesets import Ruleset, get_ruleset

from escalero.i18n import pick_language, translator

if TYPE_CHECKING:  # sheets.layout loads when a geometry is first built
    from escalero.sheets.layout import Layout, LayoutSpec, Marker
    from escalero.sheets.render import PrintedLine

Box = tuple[float, float, float, float]  # x_mm, y_mm, w_mm, h_mm (writable interior)


@dataclass(frozen=True)
class Slot:
    """One writable box: a cell (`row` is a row id) or a written total (`row` == TOTAL_ROW)."""

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
    inset_mm: float = 0.5  # printed grid lines lie this far outside each writable box
    # (side, member, box in mm) of each printed name box: the review shows their ink.
    name_boxes: tuple[tuple[int, int, Box], ...] = ()
    # The dark print whose place the layout fixes (row labels, column heads): what the
    # page is registered on where the grid lines do not show (scan.anchors).
    printed_lines: tuple[PrintedLine, ...] = ()

    @property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.game, self.variants)

    @property
    def n_sides(self) -> int:
        return len(self.side_names)

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)

    def marker_at(self, corner: int | None) -> Marker | None:
        """The fiducial printed in `corner` (whatever its id: layout versions differ)."""
        return next((m for m in self.markers if m.corner == corner), None)

    def grid_bounds(self) -> Box:
        """Bounding box of all slots."""
        x0 = min(s.box[0] for s in self.slots)
        y0 = min(s.box[1] for s in self.slots)
        x1 = max(s.box[0] + s.box[2] for s in self.slots)
        y1 = max(s.box[1] + s.box[3] for s in self.slots)
        return (x0, y0, x1 - x0, y1 - y0)


def default_side_names(n_sides: int, pairs: bool, lang: str = "de"
                       ) -> tuple[tuple[str, ...], ...]:
    """Names used when the user gives none (names are written by hand, not read)."""
    word = translator(pick_language(lang)).gettext("Player")
    if pairs:
        return tuple((f"{word} {2 * i + 1}", f"{word} {2 * i + 2}") for i in range(n_sides))
    return tuple((f"{word} {i + 1}",) for i in range(n_sides))


def from_layout(layout: Layout, serial: str | None = None) -> SheetGeometry:
    """Flatten a `sheets.layout.Layout`."""
    from escalero.sheets.layout import INSET_MM
    from escalero.sheets.render import printed_lines

    spec = layout.spec
    slots = [Slot(c.side, c.column, c.row, _box(c.box)) for c in layout.cells]
    slots += [Slot(t.side, t.column, TOTAL_ROW, _box(t.box)) for t in layout.totals]
    members = default_side_names(spec.sides, spec.pairs)
    return SheetGeometry(
        game=spec.game, variants=tuple(spec.variants), page_mm=(layout.width, layout.height),
        markers=tuple(layout.markers),
        qr_box=_box(layout.qr), slots=tuple(slots),
        side_names=tuple(" & ".join(m) for m in members), side_members=members,
        serial=serial, inset_mm=INSET_MM,
        name_boxes=tuple((n.side, index % 2 if spec.pairs else 0, _box(n.box))
                         for index, n in enumerate(layout.names)),
        printed_lines=printed_lines(layout),
    )


def geometry_for(spec: LayoutSpec, serial: str | None = None) -> SheetGeometry:
    """The geometry of the sheet printed for `spec`."""
    from escalero.sheets.layout import build_layout

    return from_layout(build_layout(spec), serial)


@dataclass(frozen=True)
class PageFrame:
    """Where the markers and the QR code sit on one kind of printed page.

    Its markers' ids are their corners (0-3): the printed ids also name the layout.
    """

    page_mm: tuple[float, float]
    markers: tuple[Marker, ...]
    qr_box: Box


@functools.cache
def page_frames() -> tuple[PageFrame, ...]:
    """Every distinct (paper, orientation) frame the sheet printer makes.

    Markers and QR code depend only on the paper and its orientation, so the QR code
    can be looked for exactly where it must be before the layout is known.
    """
    from escalero.sheets.layout import all_specs, build_layout

    frames: dict[PageFrame, None] = {}
    for spec in all_specs():
        frames.setdefault(page_frame(build_layout(spec)))
    return tuple(frames)


def page_frame(layout: Layout) -> PageFrame:
    """The page frame a layout is printed on; its markers carry their corner as id (the
    scanner matches markers by corner: the printed ids also name the layout)."""
    from escalero.sheets.layout import Marker

    markers = tuple(Marker(corner, m.centre, m.size) for corner, m in enumerate(layout.markers))
    return PageFrame((layout.width, layout.height), markers, _box(layout.qr))


def _box(value: Any) -> Box:
    return (float(value[0]), float(value[1]), float(value[2]), float(value[3]))
