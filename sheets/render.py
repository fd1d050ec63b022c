"""Draw a Layout as PDF pages with reportlab (vector: markers and QR stay crisp).

The parts every page of a block shares (grid, labels, legend, fiducials, names) are
drawn once into a PDF form XObject and placed on each page; only the QR code and the
serial differ per page. That keeps a 100-page block small and fast to write.
"""

from __future__ import annotations

import functools
import io
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from escalero.scoring.house import HouseRules
from escalero.scoring.model import TOTAL_ROW
from escalero.sheets import back as back_page
from escalero.sheets import texts
from escalero.sheets.layout import (
    INSET_MM,
    PAPERS,
    Box,
    Layout,
    SheetOptionError,
    build_layout,
    encode_code,
)
from escalero.sheets.style import BLACK, GRID_PT, GRID_RED, INK, MUTED, SIDE_PT
from reportlab.graphics.barcode import qrencoder
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from escalero.i18n import N_

BACKS = ("start-poker",)


@functools.cache
def marker_bits(marker_id: int) -> np.ndarray:
    """6x6 booleans (True = black) of a DICT_4X4_50 marker incl. its 1-bit black border."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    image = dictionary.generateImageMarker(marker_id, 6, borderBits=1)
    return image < 128


def qr_modules(text: str) -> list[list[bool]]:
    """QR modules (level M) of `text`, without the quiet zone."""
    code = qrencoder.QRCode(None, qrencoder.QRErrorCorrectLevel.M)
    code.addData(text)
    code.make()
    return [[bool(v) for v in row] for row in code.modules]


@dataclass(frozen=True)
class SheetText:
    """What a page prints that is not geometry: language, names (side -> members) and the
    house rules stated in the footer (None: Piatnik's)."""

    lang: str = "de"
    names: tuple[tuple[str, ...], ...] = ()
    house: HouseRules | None = None


class Pen:
    """Millimetre, top-left-origin drawing on a reportlab canvas for one sheet."""

    def __init__(self, canvas: Canvas, sheet_height: float) -> None:
        self.c = canvas
        self.h = sheet_height

    def rect(self, box: Box, *, fill: bool = False, stroke: bool = True) -> None:
        self.c.rect(box.x * mm, (self.h - box.bottom) * mm, box.w * mm, box.h * mm,
                    fill=int(fill), stroke=int(stroke))

    def line(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.c.line(x0 * mm, (self.h - y0) * mm, x1 * mm, (self.h - y1) * mm)

    def text(self, x: float, y: float, s: str, size: float, *, font: str = "Helvetica",
             align: str = "left", max_w: float | None = None) -> None:
        """Baseline at y; shrinks the font so the text fits max_w."""
        if max_w is not None:
            width = stringWidth(s, font, size) / mm
            if width > max_w:
                size *= max_w / width
        self.c.setFont(font, size)
        draw = {"left": self.c.drawString, "right": self.c.drawRightString,
                "centre": self.c.drawCentredString}[align]
        draw(x * mm, (self.h - y) * mm, s)

    def bits(self, grid: Sequence[Sequence[bool]], box: Box) -> None:
        """Fill the True cells of a boolean grid over box, merging horizontal runs."""
        n_rows, n_cols = len(grid), len(grid[0])
        cw, ch = box.w / n_cols, box.h / n_rows
        for r, row in enumerate(grid):
            c = 0
            for dark, run in itertools.groupby(bool(v) for v in row):
                n = len(list(run))
                if dark:
                    # A hair wider than the module so adjacent runs leave no white seam.
                    self.rect(Box(box.x + c * cw, box.y + r * ch, n * cw + 0.01, ch + 0.01),
                              fill=True, stroke=False)
                c += n


# Where the printed text sits, in mm (baselines are relative to their box's top or
# bottom edge; font sizes are in pt).
TITLE_BASELINE_MM = 8.5  # the game's name, below the title box's top
SUBTITLE_BASELINE_MM = 13.5
SERIAL_BASELINE_MM = 17.5  # the serial under the subtitle (the QR keeps its quiet zone)
CORNER_PAD_MM = 1.0  # the corner box's "Name" / "Kolonne" from its left edge
CORNER_TOP_BASELINE_MM = 4.0  # "Name" below the corner box's top
HEAD_BASELINE_MM = 1.3  # column heads and "Kolonne" above their box's bottom
LABEL_PAD_MM = 1.2  # row labels from their box's left and right edges
TOTAL_BASELINE_MM = 1.3  # "Summe" below its box's middle
CAP_HALF_MM_PER_PT = 0.127  # half of Helvetica's cap height: centres a line on its box
DETAIL_RAISE_MM = 0.2  # a two-line label's name sits this far above the box's middle
DETAIL_LINE_MM = 3.6  # the detail line (values, "serv.") below the name's baseline
FACE_ROOM_MM = 10.5  # room the face note ("9 | 1") takes from a row label's name
NAME_PAD_MM = 0.8  # a printed player name from its name box's left edge
NAME_BASELINE_MM = 2.6  # ...and below the box's top
LEGEND_BASELINE_MM = 4.0  # the legend's first line below its box's top
LEGEND_LINE_MM = 3.4  # and each further line


def _draw_static(pen: Pen, layout: Layout, text: SheetText) -> None:
    """Everything every page of the block shares (one PDF form XObject)."""
    _draw_markers(pen, layout)
    _draw_grid(pen, layout)
    pen.c.setFillColor(INK)  # labels in dark ink, all outside the writable boxes
    _draw_headings(pen, layout, text.lang)
    _draw_row_labels(pen, layout, text.lang)
    _draw_names(pen, layout, text)
    _draw_legend(pen, layout, text)


def _draw_markers(pen: Pen, layout: Layout) -> None:
    """Fiducials: vector squares, nothing else printed in their quiet zone."""
    pen.c.setFillColor(BLACK)
    for marker in layout.markers:
        pen.bits(marker_bits(marker.id).tolist(), marker.box)


def _draw_grid(pen: Pen, layout: Layout) -> None:
    """The grid in dropout red: a frame around every writable box, a heavier one around
    each side's cells."""
    c = pen.c
    c.setStrokeColor(GRID_RED)
    c.setLineWidth(GRID_PT)
    for box in layout.writable_boxes():
        pen.rect(box.grow(INSET_MM))
    for _, box in layout.row_labels:
        pen.rect(box)
    c.setLineWidth(SIDE_PT)
    for side in range(layout.sides):
        boxes = ([c.box for c in layout.cells if c.side == side]
                 + [t.box for t in layout.totals if t.side == side])
        top = min(b.y for b in boxes) - INSET_MM
        rows_bottom = max(x.box.bottom for x in layout.cells if x.side == side) + INSET_MM
        left = min(b.x for b in boxes) - INSET_MM
        right = max(b.right for b in boxes) + INSET_MM
        pen.rect(Box(left, top, right - left, rows_bottom - top))


def _draw_headings(pen: Pen, layout: Layout, lang: str) -> None:
    """Title and subtitle, the corner box's words and the column heads."""
    t = texts.strings(lang)
    rules = layout.ruleset
    title = layout.title
    pen.text(title.x, title.y + TITLE_BASELINE_MM, texts.title(rules.game), 20,
             font="Helvetica-Bold", max_w=title.w)
    pen.text(title.x, title.y + SUBTITLE_BASELINE_MM, texts.subtitle(layout, lang), 7.5,
             max_w=title.w)
    corner = layout.corner
    pen.text(corner.x + CORNER_PAD_MM, corner.y + CORNER_TOP_BASELINE_MM,
             t["names"] if layout.spec.pairs else t["name"], 7, font="Helvetica-Oblique")
    if rules.columns > 1:
        pen.text(corner.x + CORNER_PAD_MM, corner.bottom - HEAD_BASELINE_MM, t["column"], 7,
                 font="Helvetica-Oblique")
    heads = texts.column_heads(rules.columns)
    for _, column, box in layout.column_heads:
        if heads[column]:
            pen.text(box.centre[0], box.bottom - HEAD_BASELINE_MM, heads[column], 8,
                     font="Helvetica-Bold", align="centre")


class PrintedLine(NamedTuple):
    """A line of dark print whose place the layout fixes, whatever its words: the scanner
    registers the page on these where the light-red grid does not show (scan.anchors).
    `x` is its left edge ("left"), right edge ("right") or middle ("centre"); its capitals
    reach from `baseline - cap` to `baseline` (mm); `width`: its words' width where they
    are the same in every language (0: not known here)."""

    x: float
    baseline: float
    cap: float
    align: str
    width: float = 0.0


def _label_baseline(box: Box, size: float, detail: bool) -> float:
    """One line centred on its box, or the name above a smaller detail line."""
    return box.centre[1] + (size * CAP_HALF_MM_PER_PT if not detail else -DETAIL_RAISE_MM)


def printed_lines(layout: Layout) -> tuple[PrintedLine, ...]:
    """Where the row labels' names and face notes, "Summe" and the column heads are
    printed (as _draw_row_labels and _draw_headings draw them; a line's words may shrink
    to fit, never its left or right edge or its baseline)."""
    rules = layout.ruleset
    out = []
    for row_id, box in layout.row_labels:
        if row_id == TOTAL_ROW:
            out.append(PrintedLine(box.x + LABEL_PAD_MM, box.centre[1] + TOTAL_BASELINE_MM,
                                   9.5 * 2 * CAP_HALF_MM_PER_PT, "left"))
            continue
        _name, detail, face = texts.row_label(rules, row_id, "en")
        size = min(10.0, box.h * 0.95)
        base = _label_baseline(box, size, bool(detail))
        out.append(PrintedLine(box.x + LABEL_PAD_MM, base, size * 2 * CAP_HALF_MM_PER_PT,
                               "left"))
        if face:
            out.append(PrintedLine(box.right - LABEL_PAD_MM, base,
                                   size * 2 * CAP_HALF_MM_PER_PT, "right"))
    heads = texts.column_heads(rules.columns)
    for _, column, box in layout.column_heads:
        if heads[column]:
            out.append(PrintedLine(box.centre[0], box.bottom - HEAD_BASELINE_MM,
                                   8 * 2 * CAP_HALF_MM_PER_PT, "centre",
                                   stringWidth(heads[column], "Helvetica-Bold", 8) / mm))
    return tuple(out)


def _draw_row_labels(pen: Pen, layout: Layout, lang: str) -> None:
    """Each row's name (with its face note and detail line) and "Summe"."""
    rules = layout.ruleset
    for row_id, box in layout.row_labels:
        name, detail, face = texts.row_label(rules, row_id, lang)
        size = min(10.0, box.h * 0.95)
        if row_id == TOTAL_ROW:
            pen.text(box.x + LABEL_PAD_MM, box.centre[1] + TOTAL_BASELINE_MM, name, 9.5,
                     font="Helvetica-Bold", max_w=box.w - 2 * LABEL_PAD_MM)
            continue
        base = _label_baseline(box, size, bool(detail))
        pen.text(box.x + LABEL_PAD_MM, base, name, size, font="Helvetica-Bold",
                 max_w=box.w - (FACE_ROOM_MM if face else 2 * LABEL_PAD_MM))
        if face:
            pen.text(box.right - LABEL_PAD_MM, base, face, size, align="right")
        if detail:
            pen.c.setFillColor(MUTED)
            pen.text(box.x + LABEL_PAD_MM, base + DETAIL_LINE_MM, detail, 7.5,
                     max_w=box.w - 2 * LABEL_PAD_MM)
            pen.c.setFillColor(INK)


def _draw_names(pen: Pen, layout: Layout, text: SheetText) -> None:
    """Names: small, top-left inside the name box (the scanner never reads name boxes)."""
    members_per_side = 2 if layout.spec.pairs else 1
    for i, (side, box) in enumerate(layout.names):
        members = text.names[side] if side < len(text.names) else ()
        member = i % members_per_side
        if member < len(members) and members[member]:
            pen.text(box.x + NAME_PAD_MM, box.y + NAME_BASELINE_MM, members[member], 7,
                     max_w=box.w - 2 * NAME_PAD_MM)


def _draw_legend(pen: Pen, layout: Layout, text: SheetText) -> None:
    legend = layout.legend
    pen.c.setFillColor(MUTED)
    for k, line in enumerate(texts.legend(layout.ruleset, text.lang, text.house)):
        pen.text(legend.centre[0], legend.y + LEGEND_BASELINE_MM + k * LEGEND_LINE_MM, line, 7,
                 align="centre", max_w=legend.w)


def _draw_page_part(pen: Pen, layout: Layout, serial: str, lang: str) -> None:
    """What differs per page: the QR code and the serial in text."""
    pen.c.setFillColor(BLACK)
    pen.bits(qr_modules(encode_code(layout.spec, serial)), layout.qr)
    pen.c.setFillColor(MUTED)
    title = layout.title
    pen.text(title.x, title.y + SERIAL_BASELINE_MM, f"{texts.strings(lang)['serial']} {serial}",
             7)


def page_geometry(layout: Layout, two_up: bool = False,
                  ) -> tuple[float, float, tuple[tuple[float, float], ...]]:
    """(page width, page height, top-left offset of each sheet on the page) in mm."""
    if not two_up:
        return layout.width, layout.height, ((0.0, 0.0),)
    if layout.spec.paper != "a5":
        raise SheetOptionError.worded(N_("--two-up prints two A5 sheets on one A4 page; use "
                                         "--paper a5"))
    a4w, a4h = PAPERS["a4"]
    if layout.orientation == "portrait":  # side by side on A4 landscape
        return a4h, a4w, ((0.0, 0.0), (a4h - layout.width, 0.0))
    return a4w, a4h, ((0.0, 0.0), (0.0, a4h - layout.height))  # stacked on A4 portrait


def render_pdf(
    layout: Layout,
    serials: Sequence[str],
    text: SheetText = SheetText(),
    *,
    two_up: bool = False,
    back: str | None = None,
    players: Sequence[str] = (),
) -> bytes:
    """A block: one page per serial (two sheets per page with two_up), optional backs."""
    if back is not None and back not in BACKS:
        raise SheetOptionError.worded(N_("unknown back {back!r}; choose one of {choices}"),
                                      back=back, choices=", ".join(BACKS))
    sheet_w, sheet_h = layout.width, layout.height
    page_w, page_h, offsets = page_geometry(layout, two_up)
    per_page = len(offsets)

    buf = io.BytesIO()
    canvas = Canvas(buf, pagesize=(page_w * mm, page_h * mm), pageCompression=1)
    canvas.setTitle(f"{texts.title(layout.ruleset.game)} {texts.strings(text.lang)['sheet']}")
    canvas.setCreator("escalero sheet")
    canvas.beginForm("sheet")
    _draw_static(Pen(canvas, sheet_h), layout, text)
    canvas.endForm()
    if back:
        canvas.beginForm("back")
        back_page.draw_start_poker(Pen(canvas, sheet_h), sheet_w, players, text.lang)
        canvas.endForm()

    for start in range(0, len(serials), per_page):
        chunk = serials[start:start + per_page]
        for (dx, dy), serial in zip(offsets, chunk, strict=False):
            canvas.saveState()
            canvas.translate(dx * mm, (page_h - dy - sheet_h) * mm)
            canvas.doForm("sheet")
            _draw_page_part(Pen(canvas, sheet_h), layout, serial, text.lang)
            canvas.restoreState()
        if two_up:
            _cut_line(canvas, page_w, page_h, offsets[1])
        canvas.showPage()
        if back:
            for dx, dy in offsets[:len(chunk)]:
                canvas.saveState()
                canvas.translate(dx * mm, (page_h - dy - sheet_h) * mm)
                canvas.doForm("back")
                canvas.restoreState()
            if two_up:
                _cut_line(canvas, page_w, page_h, offsets[1])
            canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _cut_line(canvas: Canvas, page_w: float, page_h: float, offset: tuple[float, float]) -> None:
    """Dashed line halfway between the two sheets of a two-up page."""
    canvas.saveState()
    canvas.setStrokeColor(MUTED)
    canvas.setLineWidth(0.5)
    canvas.setDash(4, 3)
    if offset[0]:
        canvas.line(page_w / 2 * mm, 0, page_w / 2 * mm, page_h * mm)
    else:
        canvas.line(0, page_h / 2 * mm, page_w * mm, page_h / 2 * mm)
    canvas.restoreState()


def write_pdf(path: str | Path, layout: Layout, serials: Sequence[str],
              text: SheetText = SheetText(), **kw) -> None:
    Path(path).write_bytes(render_pdf(layout, serials, text, **kw))


__all__ = ["SheetText", "build_layout", "marker_bits", "qr_modules", "render_pdf", "write_pdf"]
