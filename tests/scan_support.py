"""Synthetic sheets and photos for the scan tests.

The real printed sheet (sheets.render) gets entries written in a plain font, then is
warped into a "photo" by a homography.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

INK_BGR = (120, 40, 20)  # blue ballpoint


def write_entry(page: np.ndarray, box: tuple[float, float, float, float], value: object,
                px_per_mm: float) -> None:
    x, y, bw, bh = (v * px_per_mm for v in box)
    thick = max(1, round(0.5 * px_per_mm))
    if value == "x":
        cv2.line(page, (round(x + bw * 0.2), round(y + bh * 0.75)),
                 (round(x + bw * 0.8), round(y + bh * 0.3)), INK_BGR, thick)
        return
    text = str(value)
    scale = bh * 0.6 / 22.0
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    org = (round(x + (bw - tw) / 2), round(y + (bh + th) / 2))
    cv2.putText(page, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, INK_BGR, thick, cv2.LINE_AA)


def photo_of(page: np.ndarray, **kw) -> np.ndarray:
    """Warp `page` into a photo (see photo_with_truth)."""
    return photo_with_truth(page, **kw)[0]


def photo_with_truth(page: np.ndarray, size: tuple[int, int] = (3000, 4000), angle: float = 0.0,
                     scale: float = 0.85, tilt: float = 0.0, blur: float = 0.0,
                     noise: float = 3.0, seed: int = 0,
                     background: tuple[int, int, int] = (70, 90, 110)
                     ) -> tuple[np.ndarray, np.ndarray]:
    """A photo of `size` (w, h) of `page`, rotated by `angle` degrees with `tilt` perspective,
    and the true page-px -> photo-px homography."""
    rng = np.random.default_rng(seed)
    pw, ph = page.shape[1], page.shape[0]
    w, h = size
    fit = scale * min(w / pw, h / ph) if abs(angle) % 180 < 45 or abs(angle) % 180 > 135 \
        else scale * min(w / ph, h / pw)
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    centred = (src - [pw / 2, ph / 2]) * fit
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    dst = centred @ rot.T
    dst[:2] *= 1.0 - tilt  # far edge (top of the page) shorter: perspective
    dst = (dst + [w / 2, h / 2]).astype(np.float32)
    hom = cv2.getPerspectiveTransform(src, dst)
    photo = np.empty((h, w, 3), np.uint8)
    photo[:] = background
    cv2.warpPerspective(page, hom, (w, h), dst=photo, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)
    if blur > 0:
        photo = cv2.GaussianBlur(photo, (0, 0), blur)
    if noise > 0:
        grain = rng.normal(0, noise, (h, w, 1)).astype(np.float32)
        photo = np.clip(photo + grain, 0, 255).astype(np.uint8)
    return photo, hom


def encode_jpeg(img: np.ndarray, quality: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buf.tobytes()


def render_sheet(spec, serial: str = "T-1", px_per_mm: float = 8.0) -> np.ndarray:
    """The real printed sheet (sheets.render PDF, rasterised with pypdfium2), BGR."""
    import pypdfium2
    from escalero.sheets.layout import build_layout
    from escalero.sheets.render import render_pdf

    pdf = pypdfium2.PdfDocument(render_pdf(build_layout(spec), [serial]))
    bitmap = pdf[0].render(scale=px_per_mm * 25.4 / 72).to_pil()
    return np.ascontiguousarray(np.asarray(bitmap.convert("RGB"))[:, :, ::-1])


@dataclass(frozen=True)
class InkReading:
    kind: str
    value: object
    confidence: float
    alternatives: tuple = ()
    certain: bool = False
    why: str = ""  # the recognizer's reason for its verdict (CellReading.why)


class InkRecognizer:
    """Test stand-in: "empty" when the writable box holds no ink, else the row's first value.

    It tells which cells carry ink, so it checks the geometry (crops land on the right
    cells) without depending on a trained model.
    """

    capabilities: frozenset = frozenset()

    def read(self, crops):
        out = []
        for c in crops:
            x, y, w, h = c.box_px
            inner = c.image[y + h // 6:y + h - h // 6, x + w // 8:x + w - w // 8]
            ink = (inner[:, :, 2].astype(int) < 120).mean()
            if ink < 0.01:
                out.append(InkReading("empty", None, 0.99, (), True))
            else:
                value = c.allowed[0] if c.allowed else 1
                out.append(InkReading("value", value, 0.6, (("struck", 0.3),), False))
        return out


def written_sheet(spec, entries: dict, serial: str = "T-1", px_per_mm: float = 6.0
                  ) -> np.ndarray:
    """The printed sheet for `spec` with `entries` {(side, column, row): value} written in."""
    from escalero.scan.geometry import geometry_for

    geom = geometry_for(spec, serial)
    page = render_sheet(spec, serial, px_per_mm)
    for (side, col, row), value in entries.items():
        slot = next(s for s in geom.slots if (s.side, s.column, s.row) == (side, col, row))
        write_entry(page, slot.box, value, px_per_mm)
    return page


def cover(page: np.ndarray, box_mm: tuple[float, float, float, float], px_per_mm: float,
          grow_mm: float = 2.0) -> None:
    """Paint paper white over a box (a thumb over a marker, a torn-off QR code)."""
    x, y, w, h = box_mm
    p0 = (max(0, round((x - grow_mm) * px_per_mm)), max(0, round((y - grow_mm) * px_per_mm)))
    p1 = (round((x + w + grow_mm) * px_per_mm), round((y + h + grow_mm) * px_per_mm))
    page[p0[1]:p1[1], p0[0]:p1[0]] = 255


def paste_code(page: np.ndarray, spec, text: str, px_per_mm: float) -> None:
    """Paste another QR code (`text`, drawn by the renderer's own QR generator) over the
    printed one of the sheet for `spec`: a forged or borrowed code."""
    from escalero.sheets.layout import QR_CLEAR_MM, build_layout
    from escalero.sheets.render import qr_modules

    box = build_layout(spec).qr
    cover(page, box, px_per_mm, grow_mm=QR_CLEAR_MM / 2)
    modules = qr_modules(text)
    n = len(modules)
    for r, row in enumerate(modules):
        for c, dark in enumerate(row):
            if dark:
                x0, x1 = (round((box.x + k * box.w / n) * px_per_mm) for k in (c, c + 1))
                y0, y1 = (round((box.y + k * box.h / n) * px_per_mm) for k in (r, r + 1))
                page[y0:y1, x0:x1] = 0
