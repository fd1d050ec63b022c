"""Stage 1: photo bytes -> BGR image, upright (EXIF applied), at a bounded working size.

Decoding goes through Pillow so JPEG, PNG, WebP and HEIC (pillow-heif) share one
path. Every decoding failure becomes a one-line PhotoError.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
from escalero.scoring.errors import PhotoError
from PIL import Image, ImageOps, UnidentifiedImageError

# A 60 MP photo is already larger than any phone camera's default; more is a
# decompression bomb or a scan at absurd resolution.
MAX_PIXELS = 60_000_000
# Photos larger than this on the long side are shrunk on load (JPEG draft mode
# makes that nearly free); 4,600 px still leaves >10 px/mm on an A4 sheet that
# fills the frame.
WORK_MAX_SIDE = 4600

# A sheet needs >= 3 px/mm over ~200 mm: anything under 300 px cannot hold one.
MIN_SIDE = 300

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


def _open_source(source: str | Path | bytes) -> tuple[io.BytesIO | Path, str]:
    if isinstance(source, bytes | bytearray | memoryview):
        return io.BytesIO(bytes(source)), "photo"
    path = Path(source)
    if not path.exists():
        raise PhotoError(f"{path}: no such file; give the path of a photo (JPEG, PNG, WebP, HEIC)")
    if path.is_dir():
        raise PhotoError(f"{path}: is a directory; give a photo file")
    return path, path.name


def load_photo(source: str | Path | bytes, max_side: int = WORK_MAX_SIDE) -> np.ndarray:
    """Decode `source` (path or bytes) into an upright BGR uint8 image.

    Raises PhotoError for anything that is not a readable photo.
    """
    _register_heif()
    fp, name = _open_source(source)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(fp)
            width, height = img.size
            if width * height > MAX_PIXELS:
                raise PhotoError(
                    f"{name}: {width}x{height} is too large ({width * height / 1e6:.0f} MP, "
                    f"limit {MAX_PIXELS / 1e6:.0f} MP); send a smaller photo"
                )
            if max(width, height) > max_side and img.format == "JPEG":
                # Decode at 1/2, 1/4 ... directly: far faster than decode-then-resize.
                scale = max_side / max(width, height)
                img.draft("RGB", (int(width * scale) + 1, int(height * scale) + 1))
            img.load()
            img = ImageOps.exif_transpose(img)
            if img.mode != "RGB":
                img = _to_rgb(img)
    except PhotoError:
        raise
    except UnidentifiedImageError:
        raise PhotoError(
            f"{name}: not an image (or a format that cannot be read); "
            "send a JPEG, PNG, WebP or HEIC photo"
        ) from None
    except PermissionError:
        raise PhotoError(f"{name}: no permission to read this file; check its access "
                         "rights") from None
    except Image.DecompressionBombError:
        raise PhotoError(f"{name}: image too large; send a smaller photo") from None
    except (OSError, ValueError, SyntaxError, EOFError) as err:
        raise PhotoError(f"{name}: the image is damaged or truncated ({_short(err)}); "
                         "send the photo again") from None
    if min(img.size) < MIN_SIDE:
        raise PhotoError(f"{name}: {img.width}x{img.height} px is too small to show a score "
                         "sheet; send the camera's photo, not a thumbnail")
    if max(img.size) > max_side:
        scale = max_side / max(img.size)
        img = img.resize((round(img.width * scale), round(img.height * scale)),
                         Image.Resampling.BILINEAR, reducing_gap=2.0)
    rgb = np.asarray(img, dtype=np.uint8)
    return np.ascontiguousarray(rgb[:, :, ::-1])


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
