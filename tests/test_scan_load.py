"""scan.load: formats, EXIF orientation, size limits, damaged files."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from escalero.scan.load import MAX_PIXELS, WORK_MAX_SIDE, load_photo
from escalero.scoring.errors import PhotoError
from PIL import Image, ImageOps


def _picture(w: int = 600, h: int = 400) -> Image.Image:
    """Left half red, right half blue: orientation and channel order are visible."""
    arr = np.zeros((h, w, 3), np.uint8)
    arr[:, : w // 2] = (255, 0, 0)
    arr[:, w // 2:] = (0, 0, 255)
    return Image.fromarray(arr)


def _bytes(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_formats_decode_to_bgr(fmt: str) -> None:
    out = load_photo(_bytes(_picture(), fmt, **({"quality": 95} if fmt != "PNG" else {})))
    assert out.shape == (400, 600, 3) and out.dtype == np.uint8
    left, right = out[200, 50], out[200, 550]
    assert left[2] > 200 and left[0] < 60  # red on the left (BGR)
    assert right[0] > 200 and right[2] < 60


def test_heic() -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    out = load_photo(_bytes(_picture(), "HEIF", quality=95))
    assert out.shape[:2] == (400, 600)
    assert out[200, 50, 2] > 180 and out[200, 550, 0] > 180


def test_exif_orientation_applied(tmp_path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: rotate 90 degrees clockwise to view
    path = tmp_path / "rotated.jpg"
    path.write_bytes(_bytes(_picture(), "JPEG", quality=95, exif=exif.tobytes()))
    out = load_photo(path)
    assert out.shape[:2] == (600, 400)
    assert out[50, 200, 2] > 200  # the red half is now on top


def test_rgba_and_grey() -> None:
    rgba = _picture().convert("RGBA")
    rgba.putalpha(0)  # fully transparent: white paper, not black
    assert load_photo(_bytes(rgba, "PNG")).min() > 250
    grey = load_photo(_bytes(_picture().convert("L"), "PNG"))
    assert grey.shape == (400, 600, 3)


def test_large_photo_shrunk_to_working_size() -> None:
    img = Image.new("RGB", (6000, 4500), (200, 200, 200))
    out = load_photo(_bytes(img, "JPEG", quality=70))
    assert max(out.shape[:2]) <= WORK_MAX_SIDE
    assert out.shape[1] / out.shape[0] == pytest.approx(6000 / 4500, rel=0.01)


def _png_header_only(w: int, h: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_decompression_bomb_refused_before_decoding() -> None:
    side = int(MAX_PIXELS ** 0.5) + 100
    with pytest.raises(PhotoError, match="too large"):
        load_photo(_png_header_only(side, side))


@pytest.mark.parametrize("data, words", [
    (b"this is not an image at all", "not an image"),
    (b"", "not an image"),
    (b"%PDF-1.4\n1 0 obj\n", "not an image"),
])
def test_not_an_image(data: bytes, words: str) -> None:
    with pytest.raises(PhotoError, match=words) as err:
        load_photo(data)
    assert "\n" not in str(err.value)


def test_truncated_and_corrupt() -> None:
    full = _bytes(Image.fromarray(
        np.random.default_rng(0).integers(0, 255, (300, 400, 3), np.uint8)), "JPEG")
    with pytest.raises(PhotoError, match="damaged or truncated"):
        load_photo(full[: len(full) // 2])
    png = _bytes(_picture(), "PNG")
    corrupt = png[:60] + bytes(b ^ 0xFF for b in png[60:120]) + png[120:]
    with pytest.raises(PhotoError):
        load_photo(corrupt)


def test_missing_file_and_directory(tmp_path) -> None:
    with pytest.raises(PhotoError, match="no such file"):
        load_photo(tmp_path / "nope.jpg")
    with pytest.raises(PhotoError, match="directory"):
        load_photo(tmp_path)


def test_thumbnail_is_refused() -> None:
    with pytest.raises(PhotoError, match="too small"):
        load_photo(_bytes(_picture(120, 80), "PNG"))


def _pillow_bgr(data: bytes) -> np.ndarray:
    """What Pillow alone makes of a photo: upright, RGB, as BGR."""
    img = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
    return np.asarray(img)[:, :, ::-1]


def _quadrants(w: int = 640, h: int = 480) -> Image.Image:
    """Four colours and a gradient: any flip, turn or channel swap shows."""
    arr = np.zeros((h, w, 3), np.uint8)
    arr[: h // 2, : w // 2] = (250, 30, 30)
    arr[: h // 2, w // 2:] = (30, 250, 30)
    arr[h // 2:, : w // 2] = (30, 30, 250)
    arr[h // 2:, w // 2:] = np.linspace(0, 255, w - w // 2, dtype=np.uint8)[None, :, None]
    return Image.fromarray(arr)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_as_pillow_turns_it(orientation: int) -> None:
    """JPEGs are decoded by OpenCV: the picture is turned exactly as Pillow turns it."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = _bytes(_quadrants(), "JPEG", quality=90, exif=exif.tobytes())
    np.testing.assert_array_equal(load_photo(data), _pillow_bgr(data))


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_jpeg_pixels_as_pillow_decodes_them(mode: str) -> None:
    noise = np.random.default_rng(1).integers(0, 255, (480, 640, 3), np.uint8)
    data = _bytes(Image.fromarray(noise).convert(mode), "JPEG", quality=85)
    out = load_photo(data)
    assert out.shape == (480, 640, 3)
    np.testing.assert_array_equal(out, _pillow_bgr(data))
