"""Debug pictures: what each stage saw, drawn over the photo and over the flat sheet."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from escalero.scan.cells import CellResult
from escalero.scan.geometry import SheetGeometry
from escalero.scan.imaging import shrink
from escalero.scan.rectify import PX_PER_MM

if TYPE_CHECKING:
    from escalero.scan.grid import PlacementSettings
    from escalero.scan.pipeline import ScanResult

GREEN, ORANGE, RED, BLUE, MAGENTA = (40, 160, 40), (0, 140, 255), (0, 0, 230), (200, 90, 0), \
    (200, 0, 200)


def _label(value: object) -> str:
    return "-" if value is None else ("x" if value == "x" else str(value))


def colour_for(c: CellResult) -> tuple[int, int, int]:
    if c.certain:
        return GREEN
    return ORANGE if c.confidence >= 0.5 else RED


def draw_sheet(page: np.ndarray, geom: SheetGeometry, cells: Sequence[CellResult]
               ) -> np.ndarray:
    """The flat sheet with each cell's box and reading (green certain, orange/red flagged)."""
    out = page.copy()
    s = PX_PER_MM
    for m in geom.markers:
        p0 = (round((m.cx - m.size / 2) * s), round((m.cy - m.size / 2) * s))
        p1 = (round((m.cx + m.size / 2) * s), round((m.cy + m.size / 2) * s))
        cv2.rectangle(out, p0, p1, BLUE, 2)
        cv2.putText(out, str(m.id), (p1[0] + 4, p1[1]), cv2.FONT_HERSHEY_SIMPLEX, 1.0, BLUE, 2)
    if geom.qr_box is not None:
        x, y, w, h = geom.qr_box
        cv2.rectangle(out, (round(x * s), round(y * s)), (round((x + w) * s), round((y + h) * s)),
                      BLUE, 2)
    for c in cells:
        x, y, w, h = c.box_mm
        colour = colour_for(c)
        p0, p1 = (round(x * s), round(y * s)), (round((x + w) * s), round((y + h) * s))
        cv2.rectangle(out, p0, p1, colour, 2 if c.certain else 3)
        text = _label(c.value) + ("" if c.certain else "?")
        cv2.putText(out, text, (p0[0] + 3, p0[1] + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    colour, 2, cv2.LINE_AA)
        cv2.putText(out, f"{c.confidence:.2f}", (p0[0] + 3, p1[1] - 4),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    return out


def _drawable(image: np.ndarray, long_side: int) -> tuple[np.ndarray, float]:
    """A copy of the photo, shrunk to `long_side`, to draw on (never the photo itself)."""
    out, scale = shrink(image, long_side)
    return (out.copy() if out is image else out), scale


def draw_photo(image: np.ndarray, result: ScanResult, long_side: int = 1600) -> np.ndarray:
    """The photo (shrunk) with markers found, QR code, page outline and projected grid."""
    out, scale = _drawable(image, long_side)
    pl = result.placement
    for hit in pl.markers:
        pts = (hit.corners * scale).astype(np.int32)
        cv2.polylines(out, [pts], True, BLUE, 2)
        cv2.putText(out, f"id {hit.id}", tuple(pts[0] + [0, -6]), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6, BLUE, 2)
    if result.qr is not None:
        cv2.polylines(out, [(result.qr.corners * scale).astype(np.int32)], True, MAGENTA, 2)
    if pl.outline is not None:
        cv2.polylines(out, [(pl.outline * scale).astype(np.int32)], True, ORANGE, 2)
    geom = result.geometry
    pw, ph = geom.page_mm
    page = np.array([[[0, 0]], [[pw, 0]], [[pw, ph]], [[0, ph]]], np.float32)
    hom = pl.homography
    cv2.polylines(out, [(cv2.perspectiveTransform(page, hom) * scale).astype(np.int32)], True,
                  GREEN, 2)
    for c in result.cells:
        x, y, w, h = c.box_mm
        quad = np.array([[[x, y]], [[x + w, y]], [[x + w, y + h]], [[x, y + h]]], np.float32)
        pts = (cv2.perspectiveTransform(quad, hom) * scale).astype(np.int32)
        cv2.polylines(out, [pts], True, colour_for(c), 1)
    return out


def draw_placement(page: np.ndarray, cells: Sequence[CellResult],
                   settings: PlacementSettings | None = None) -> np.ndarray:
    """The flat sheet with each cell's box and how far it may be off its printed place:
    a circle of that radius at the box's centre, green when placed on its own grid lines,
    orange when placed from lines near it, red beyond the reader's window (Lage unsicher)."""
    from escalero.scan.grid import PLACEMENT

    settings = settings or PLACEMENT
    out = page.copy()
    for c in cells:
        x, y, w, h = (v * PX_PER_MM for v in c.box_mm)
        colour = GREEN if c.place_mm <= settings.one_line_mm else \
            ORANGE if c.place_mm <= settings.max_uncertain_mm else RED
        cv2.rectangle(out, (int(x), int(y)), (int(x + w), int(y + h)), colour, 1)
        centre = (int(x + w / 2), int(y + h / 2))
        cv2.circle(out, centre, max(1, int(c.place_mm * PX_PER_MM)), colour, 2)
        cv2.putText(out, f"{c.place_mm:.1f}", (int(x) + 3, int(y) + 14),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    return out


def write_debug(directory: Path, image: np.ndarray, result: ScanResult) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(directory / "placement_overlay.png"),
                draw_placement(result.rectified, result.cells))
    cv2.imwrite(str(directory / "photo_overlay.png"), draw_photo(image, result))
    cv2.imwrite(str(directory / "sheet_overlay.png"), result.overlay())
    cv2.imwrite(str(directory / "rectified.jpg"), result.rectified,
                [cv2.IMWRITE_JPEG_QUALITY, 90])


def draw_found(image: np.ndarray, found: dict[str, Any], long_side: int = 1600) -> np.ndarray:
    """The photo (shrunk) with whatever the stages found before a scan failed: markers,
    QR code, page outline and, once the sheet was placed, the grid where it was expected."""
    out, scale = _drawable(image, long_side)
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    for hit in found.get("markers", ()):
        pts = (hit.corners * scale).astype(np.int32)
        cv2.polylines(out, [pts], True, BLUE, 2)
        cv2.putText(out, f"id {hit.id}", tuple(int(v) for v in pts[0] + [0, -6]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6, BLUE, 2)
    if found.get("qr") is not None:
        cv2.polylines(out, [(found["qr"].corners * scale).astype(np.int32)], True, MAGENTA, 2)
    if found.get("outline") is not None:
        cv2.polylines(out, [(found["outline"] * scale).astype(np.int32)], True, ORANGE, 2)
    placement, geom = found.get("placement"), found.get("geometry")
    if placement is not None and geom is not None:
        for s in geom.slots:
            x, y, w, h = s.box
            quad = np.array([[[x, y]], [[x + w, y]], [[x + w, y + h]], [[x, y + h]]], np.float32)
            pts = (cv2.perspectiveTransform(quad, placement.homography) * scale).astype(np.int32)
            cv2.polylines(out, [pts], True, GREEN, 1)
    return out


def write_failure(directory: Path, image: np.ndarray, found: dict[str, Any], stage: str,
                  error: str) -> None:
    """--debug for a refused photo: what was found up to the stage that refused it."""
    directory.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(directory / "photo_overlay.png"), draw_found(image, found))
    flat, geom = found.get("rectified"), found.get("geometry")
    if flat is not None and geom is not None:  # the flat sheet with the expected grid
        out = flat.image.copy()
        s = PX_PER_MM
        for slot in geom.slots:
            x, y, w, h = slot.box
            cv2.rectangle(out, (round(x * s), round(y * s)), (round((x + w) * s),
                                                             round((y + h) * s)), GREEN, 1)
        cv2.imwrite(str(directory / "sheet_expected.jpg"), out, [cv2.IMWRITE_JPEG_QUALITY, 90])
    markers = ", ".join(f"{m.id} (corner {m.corner})" for m in found.get("markers", ())
                        ) or "none"
    qr, marked = found.get("qr"), found.get("marked")
    (directory / "failure.txt").write_text(
        f"refused at stage: {stage}\nerror: {error}\nmarkers found: {markers}\n"
        f"layout named by the markers: {marked if marked is not None else 'none'}\n"
        f"QR code: {qr.text if qr is not None else 'not read'}\n", encoding="utf-8")
