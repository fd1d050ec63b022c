"""Crops of the flat sheet for the review: each unsure cell's handwriting and each name
box, as small JPEGs the page enlarges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from escalero.web.jpeg import encode_jpeg

CROP_MARGIN_MM = 2.0  # a little of the neighbourhood shows ink that strays over the line
CROP_HEIGHT_PX = 96  # review crops are small JPEGs the page enlarges


def name_crops(page: Any, geometry: Any) -> dict[str, str]:
    """"side/member" -> a small JPEG of that name box: the scanner does not read names,
    so the page shows what was written there beside the name field."""
    return {f"{side}/{member}": encode_jpeg(cut_mm(page, box, margin_mm=0.5),
                                            max_side=6 * CROP_HEIGHT_PX)
            for side, member, box in geometry.name_boxes}


def review_crops(page: Any, cells: Sequence[Any], review: Sequence[Mapping[str, Any]]
                 ) -> dict[str, str]:
    """"side/column/row" -> a small JPEG of that cell's handwriting, for every cell the
    review asks about: the player compares the ink with the reading, enlarged."""
    boxes = {(c.side, c.column, c.row): c.box_mm for c in cells}
    out: dict[str, str] = {}
    for item in review:
        key = (item["side"], item["column"], item["row"])
        if key in boxes:
            out["/".join(map(str, key))] = encode_jpeg(cut_mm(page, boxes[key]),
                                                       max_side=4 * CROP_HEIGHT_PX)
    return out


def cut_mm(page: Any, box_mm: Sequence[float], margin_mm: float = CROP_MARGIN_MM) -> Any:
    """The part of the flat sheet inside box_mm (x, y, w, h) plus a margin, scaled to
    CROP_HEIGHT_PX high."""
    import cv2
    from escalero.scan.rectify import PX_PER_MM  # the flat sheet's resolution

    x, y, w, h = (v * PX_PER_MM for v in box_mm)
    m = margin_mm * PX_PER_MM
    height, width = page.shape[:2]
    x0, y0 = max(0, int(x - m)), max(0, int(y - m))
    x1, y1 = min(width, int(x + w + m)), min(height, int(y + h + m))
    crop = page[y0:y1, x0:x1]
    scale = CROP_HEIGHT_PX / max(1, crop.shape[0])
    return cv2.resize(crop, (max(1, round(crop.shape[1] * scale)), CROP_HEIGHT_PX),
                      interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
