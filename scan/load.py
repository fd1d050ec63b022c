"""Stage 1: photo bytes -> BGR image, upright (EXIF applied), at a bounded working size.

Pillow reads every photo's header (format, size, EXIF orientation) and decodes PNG, WebP,
HEIC (pillow-heif) and unusual JPEGs. A plain JPEG (colour or grey, complete, within the
working size) is decoded by OpenCV instead: the same pixels in under half the time, with
no RGB -> BGR copy. Every decoding failure becomes a one-line PhotoError.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import cv2
import numpy as np
from escalero.scoring.errors import PhotoError
from PIL import Image, ImageOps, UnidentifiedImageError

from escalero.i18n import N_

# Limits on the photo, not tuned values (set by hand: 6ffcd46, b23fb72). A 60 MP photo is
# already larger than any phone camera's default; more is a decompression bomb or a scan at
# absurd resolution.
MAX_PIXELS = 60_000_000
# Photos larger than this on the long side are shrunk on load (JPEG draft mode
# makes that nearly free); 4,600 px still leaves >10 px/mm on an A4 sheet that
# fills the frame.
WORK_MAX_SIDE = 4600

# A sheet needs >= 3 px/mm over ~200 mm: anything under 300 px cannot hold one.
MIN_SIDE = 300
NO_PERMISSION = N_("{name}: no permission to read this file; check its access rights")

_heif_registered = False


def _register_heif() -> None:
    global _heif_registered
    if not _heif_registered:
        try:
            import pillow_heif

            pillow_heif.register_heif_opener()
        except ImportError:  # HEIC then reads as "not an image"; everything else works
            pass
        _heif_registered = True


def _read_source(source: str | Path | bytes) -> tuple[bytes, str]:
    """The photo's bytes and a name for messages."""
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source), "photo"
    path = Path(source)
    if not path.exists():
        raise PhotoError.worded(N_("{path}: no such file; give the path of a photo (JPEG, PNG, "
                                   "WebP, HEIC)"), path=path)
    if path.is_dir():
        raise PhotoError.worded(N_("{path}: is a directory; give a photo file"), path=path)
    try:
        return path.read_bytes(), path.name
    except PermissionError:
        raise PhotoError.worded(NO_PERMISSION, name=path.name) from None


def load_photo(source: str | Path | bytes, max_side: int = WORK_MAX_SIDE) -> np.ndarray:
    """Decode `source` (path or bytes) into an upright BGR uint8 image.

    Raises PhotoError for anything that is not a readable photo.
    """
    _register_heif()
    data, name = _read_source(source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img: Image.Image = Image.open(io.BytesIO(data))
            _check_pixels(img, name)
            fast = _decode_plain_jpeg(img, data, max_side)
            if fast is None:
                img = _decode_with_pillow(img, max_side)
    except PhotoError:
        raise
    except UnidentifiedImageError:
        raise PhotoError.worded(N_("{name}: not an image (or a format that cannot be read); "
                                   "send a JPEG, PNG, WebP or HEIC photo"), name=name) from None
    except PermissionError:
        raise PhotoError.worded(NO_PERMISSION, name=name) from None
    except Image.DecompressionBombError:
        raise PhotoError.worded(N_("{name}: image too large; send a smaller photo"),
                                name=name) from None
    except (OSError, ValueError, SyntaxError, EOFError) as err:
        raise PhotoError.worded(N_("{name}: the image is damaged or truncated ({why}); send "
                                   "the photo again"), name=name, why=_short(err)) from None
    height, width = fast.shape[:2] if fast is not None else (img.height, img.width)
    if min(width, height) < MIN_SIDE:
        raise PhotoError.worded(N_("{name}: {width}x{height} px is too small to show a score "
                                   "sheet; send the camera's photo, not a thumbnail"),
                                name=name, width=width, height=height)
    if fast is not None:
        return fast
    if max(img.size) > max_side:
        scale = max_side / max(img.size)
        img = img.resize((round(img.width * scale), round(img.height * scale)),
                         Image.Resampling.BILINEAR, reducing_gap=2.0)
    rgb = np.asarray(img, dtype=np.uint8)
    return np.ascontiguousarray(rgb[:, :, ::-1])


def _check_pixels(img: Image.Image, name: str) -> None:
    width, height = img.size
    if width * height > MAX_PIXELS:
        raise PhotoError.worded(N_("{name}: {width}x{height} is too large ({mp} MP, limit "
                                   "{limit} MP); send a smaller photo"), name=name, width=width,
                                height=height, mp=f"{width * height / 1e6:.0f}",
                                limit=f"{MAX_PIXELS / 1e6:.0f}")


def _decode_with_pillow(img: Image.Image, max_side: int) -> Image.Image:
    """Decode with Pillow, upright, in RGB."""
    width, height = img.size
    if max(width, height) > max_side and img.format == "JPEG":
        # Decode at 1/2, 1/4 ... directly: far faster than decode-then-resize.
        scale = max_side / max(width, height)
        img.draft("RGB", (int(width * scale) + 1, int(height * scale) + 1))
    img.load()
    img = ImageOps.exif_transpose(img)
    return img if img.mode == "RGB" else _to_rgb(img)


# EXIF orientation -> the OpenCV steps that show the picture upright (as exif_transpose).
_ORIENT: dict[int, tuple[str, ...]] = {
    2: ("flip_lr",), 3: ("rot180",), 4: ("flip_ud",), 5: ("transpose",), 6: ("rot_cw",),
    7: ("transpose", "rot180"), 8: ("rot_ccw",),
}


def _decode_plain_jpeg(img: Image.Image, data: bytes, max_side: int) -> np.ndarray | None:
    """An upright BGR image decoded by OpenCV, for a complete colour or grey JPEG no
    larger than `max_side` (None otherwise: Pillow decodes the rest, and reports what is
    damaged). Decoded the same as by Pillow (both use libjpeg-turbo's defaults)."""
    if (img.format != "JPEG" or img.mode not in ("RGB", "L") or max(img.size) > max_side
            or not data.rstrip(b"\0").endswith(b"\xff\xd9")):  # EOI: not truncated
        return None
    out = cv2.imdecode(np.frombuffer(data, np.uint8),
                       cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if out is None or out.shape[1::-1] != img.size:
        return None
    for step in _ORIENT.get(int(img.getexif().get(0x0112, 1) or 1), ()):
        out = _orient_step(out, step)
    return np.ascontiguousarray(out)


def _orient_step(image: np.ndarray, step: str) -> np.ndarray:
    if step == "transpose":
        return cv2.transpose(image)
    if step.startswith("flip"):
        return cv2.flip(image, 1 if step == "flip_lr" else 0)
    code = {"rot180": cv2.ROTATE_180, "rot_cw": cv2.ROTATE_90_CLOCKWISE,
            "rot_ccw": cv2.ROTATE_90_COUNTERCLOCKWISE}[step]
    return cv2.rotate(image, code)


def _to_rgb(img: Image.Image) -> Image.Image:
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        # Transparent areas become white paper, not black.
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img, dtype=np.float64)
        top = max(float(arr.max()), 1.0)
        return Image.fromarray((arr * (255.0 / top)).astype(np.uint8)).convert("RGB")
    return img.convert("RGB")


def _short(err: BaseException) -> str:
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text[:80]
