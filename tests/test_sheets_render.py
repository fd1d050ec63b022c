"""Rendered sheets: pages, fiducials where the layout says, QR decodes to the layout."""

from __future__ import annotations

import cv2
import numpy as np
import pypdfium2 as pdfium
import pytest
from escalero.sheets.layout import (
    INSET_MM,
    LayoutSpec,
    build_layout,
    decode_code,
    spec_from_marker_ids,
)
from escalero.sheets.render import SheetText, marker_bits, page_geometry, render_pdf

DPI = 150
PX = DPI / 25.4  # pixels per mm

SPECS = [
    LayoutSpec(sides=2),
    LayoutSpec(sides=3, variants=("strasse-25", "doppel-grande")),
    LayoutSpec(sides=2, pairs=True),
    LayoutSpec(sides=6),
    LayoutSpec(sides=4, variants=("one-column",), paper="letter"),
    LayoutSpec(game="generala", sides=8),
    LayoutSpec(sides=2, paper="a5"),
]


def pages(pdf: bytes, dpi: int = DPI) -> list[np.ndarray]:
    doc = pdfium.PdfDocument(pdf)
    out = []
    for page in doc:
        rgb = np.asarray(page.render(scale=dpi / 72).to_pil().convert("RGB"))
        out.append(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    return out


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert ids is not None, "no markers found"
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.game}-{s.sides}-{s.paper}")
def test_markers_and_qr_where_the_layout_says(spec):
    layout = build_layout(spec)
    text = SheetText(names=tuple(("Anna", "Bert")[: 2 if spec.pairs else 1]
                                 for _ in range(spec.sides)))
    (image,) = pages(render_pdf(layout, ["K7Q2-001"], text))
    assert np.allclose(image.shape[:2], (layout.height * PX, layout.width * PX), atol=1.5)

    found = detect_markers(image)
    assert sorted(found) == sorted(m.id for m in layout.markers)
    assert spec_from_marker_ids(found) == spec  # the printed ids name the layout
    for marker in layout.markers:
        expected = np.array(marker.corners) * PX
        assert np.abs(found[marker.id] - expected).max() < 1.0 * PX  # within 1 mm

    payload, points, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decode_code(payload) == (spec, "K7Q2-001")
    qr = layout.qr
    centre = points.reshape(4, 2).mean(axis=0) / PX
    assert np.allclose(centre, qr.centre, atol=1.0)


@pytest.mark.parametrize("spec", SPECS[:4], ids=lambda s: f"{s.sides}-{s.pairs}")
def test_writable_boxes_are_blank_and_grid_is_dropout_red(spec):
    layout = build_layout(spec)
    (image,) = pages(render_pdf(layout, ["X-1"], SheetText(lang="es")))
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    for item in (*layout.cells, *layout.totals):
        b = item.box.grow(-0.2)  # anti-aliasing of the line just outside
        crop = image[int(b.y * PX) + 1:int(b.bottom * PX), int(b.x * PX) + 1:int(b.right * PX)]
        assert crop.min() >= 250, (item, crop.min())
    # Pixels on the grid line are red (high saturation, red hue), never black.
    line_px = []
    for cell in layout.cells[:30]:
        frame = cell.box.grow(INSET_MM)
        y = int(round(frame.y * PX))
        for x in range(int(frame.x * PX) + 3, int(frame.right * PX) - 3):
            for dy in (-1, 0, 1):
                line_px.append(hsv[y + dy, x])
    line_px = np.array(line_px)
    darkest = line_px[line_px[:, 2].argsort()][: len(line_px) // 4]
    hue = darkest[:, 0].astype(int)
    assert np.all((hue <= 10) | (hue >= 170))
    assert darkest[:, 1].mean() > 60  # saturated: removable by colour
    assert darkest[:, 2].min() > 150  # light: not black ink


def test_pages_and_serials_of_a_block():
    layout = build_layout(LayoutSpec(sides=2))
    serials = [f"AB-{i}" for i in range(1, 6)]
    pdf = render_pdf(layout, serials, back="start-poker", players=("Anna", "Bert"))
    doc = pdfium.PdfDocument(pdf)
    assert len(doc) == 10
    text = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    for k, serial in enumerate(serials):
        assert serial in text[2 * k]  # serial printed in text on its own page
        assert "START-POKER" in text[2 * k + 1] and "Anna" in text[2 * k + 1]
    image = pages(pdf, dpi=120)[6]  # sheet 4
    payload, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decode_code(payload)[1] == "AB-4"


def test_two_up_places_two_sheets_with_their_own_codes():
    layout = build_layout(LayoutSpec(sides=2, paper="a5"))
    page_w, page_h, offsets = page_geometry(layout, two_up=True)
    assert (page_w, page_h) == (297.0, 210.0)
    (image,) = pages(render_pdf(layout, ["S-1", "S-2"], two_up=True))
    assert np.allclose(image.shape[:2], (page_h * PX, page_w * PX), atol=1.5)
    for (dx, dy), serial in zip(offsets, ["S-1", "S-2"], strict=True):
        x0, y0 = int(dx * PX), int(dy * PX)
        half = image[y0:y0 + int(layout.height * PX), x0:x0 + int(layout.width * PX)]
        found = detect_markers(half)
        assert sorted(found) == sorted(m.id for m in layout.markers)
        for marker in layout.markers:
            assert np.abs(found[marker.id] - np.array(marker.corners) * PX).max() < PX
        payload, _, _ = cv2.QRCodeDetector().detectAndDecode(half)
        assert decode_code(payload) == (layout.spec, serial)


def test_marker_bits_are_the_dictionary_patterns():
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for marker_id in range(50):
        bits = marker_bits(marker_id)
        assert bits.shape == (6, 6) and bits[0].all() and bits[:, 0].all()
        expected = dictionary.generateImageMarker(marker_id, 6, borderBits=1) < 128
        assert np.array_equal(bits, expected)
    assert not np.array_equal(marker_bits(0), marker_bits(1))


@pytest.mark.parametrize("spec", [SPECS[0], SPECS[3], SPECS[6]], ids=lambda s: s.paper)
def test_survives_a_rough_phone_photo(spec):
    """Perspective, blur, dim light, noise and JPEG at ~150 dpi: markers found, and the QR
    decodes from the marker-rectified crop of its box."""
    rng = np.random.default_rng(7)
    layout = build_layout(spec)
    (image,) = pages(render_pdf(layout, ["PH-1"]))
    h, w = image.shape[:2]
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    for _ in range(3):
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = (src + rng.uniform(-0.08, 0.08, (4, 2)) * [w, h] + [0.1 * w, 0.1 * h])
        warp = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        photo = cv2.warpPerspective(image, warp, (int(1.2 * w), int(1.2 * h)),
                                    borderValue=(90, 110, 120))
        photo = cv2.GaussianBlur(photo, (0, 0), 1.2) * rng.uniform(0.7, 1.0)
        photo = np.clip(photo + rng.normal(0, 6, photo.shape), 0, 255).astype(np.uint8)
        photo = cv2.imdecode(cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 70])[1], 1)

        corners, ids, _ = detector.detectMarkers(photo)
        found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
        assert sorted(found) == sorted(m.id for m in layout.markers)
        px = 8.0
        photo_pts = np.float32([found[m.id][k] for m in layout.markers for k in range(4)])
        sheet_pts = np.float32([np.array(m.corners[k]) * px for m in layout.markers
                                for k in range(4)])
        hom, _ = cv2.findHomography(photo_pts, sheet_pts)
        flat = cv2.warpPerspective(photo, hom, (int(layout.width * px), int(layout.height * px)))
        box = layout.qr.grow(2.5)
        crop = flat[int(box.y * px):int(box.bottom * px), int(box.x * px):int(box.right * px)]
        payload, _, _ = cv2.QRCodeDetector().detectAndDecode(crop)
        assert decode_code(payload) == (spec, "PH-1")
