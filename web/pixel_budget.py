"""What decoding a photo costs, read from its header, and the budget of decoding memory
the scans in flight share."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import threading
from collections.abc import Iterator

# One upload may decode up to 50 MP (a 48 MP phone HEIC). What decoding costs is read from
# the header before a pixel is decoded (`decode_cost`): a JPEG ~6 bytes a pixel at the
# 1/2, 1/4 or 1/8 size it decodes at, an RGB or grey PNG ~8, anything Pillow must convert
# first (transparency, 16 bits, a palette, CMYK) ~24 (a 49 MP 16-bit RGBA PNG peaks at
# 1.2 GB in scan.load), plus ~250 MB for the scan's own images. Scans in flight together
# hold at most SCAN_MEMORY; further uploads wait their turn (a costlier one runs alone).
REQUEST_PIXELS = 50_000_000
SCAN_MEMORY = 1_500_000_000
SCAN_BASE_BYTES = 250_000_000


class PixelBudget:
    """A counting semaphore over decoding memory (bytes): big photos wait, small ones pass;
    one over the whole budget waits until it can run alone."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._used = 0
        self._free = threading.Condition()

    @contextlib.contextmanager
    def hold(self, pixels: int) -> Iterator[None]:
        pixels = min(pixels, self.total)
        with self._free:
            self._free.wait_for(lambda: self._used + pixels <= self.total)
            self._used += pixels
        try:
            yield
        finally:
            with self._free:
                self._used -= pixels
                self._free.notify_all()


MEMORY = PixelBudget(SCAN_MEMORY)


@dataclasses.dataclass(frozen=True)
class DecodeCost:
    """What decoding a photo costs, from its header: its size, the pixels decoded, the
    bytes of memory that takes (`decode_cost`), and the working image's short side."""

    width: int
    height: int
    pixels: int
    memory: int
    short_side: int


def decode_cost(data: bytes) -> DecodeCost | None:
    """The cost of decoding `data`, from the header alone (no pixel is decoded).

    A JPEG decodes at 1/2, 1/4 or 1/8 size when it is larger than the working size
    (scan.load uses Pillow's draft mode), so its cost is the reduced size; other formats
    decode at full size, and those Pillow converts first cost three times a plain one.
    None when the header is unreadable: scan.load then names the problem.
    """
    from escalero.scan.load import WORK_MAX_SIDE
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            fmt, mode = img.format, img.mode
            transparent = "transparency" in img.info
    except Exception:  # noqa: BLE001 - any header problem is reported by the real decoder
        return None
    if fmt == "JPEG":
        scale = 1
        while scale < 8 and max(width, height) // (scale * 2) >= WORK_MAX_SIDE:
            scale *= 2
        pixels = (width // scale) * (height // scale)
        per_pixel = 6 if mode in ("RGB", "L") else 24
        decoded = (width // scale, height // scale)
    else:
        pixels = width * height
        per_pixel = 8 if mode in ("RGB", "L") and not transparent else 24
        decoded = (width, height)
    shrink = min(1.0, WORK_MAX_SIDE / max(1, *decoded))
    return DecodeCost(width, height, pixels, SCAN_BASE_BYTES + per_pixel * pixels,
                      int(min(decoded) * shrink))


def decoded_pixels(data: bytes) -> int:
    """Pixels the scanner will decode, from the header alone (0 when it is unreadable)."""
    cost = decode_cost(data)
    return cost.pixels if cost else 0


def release_memory() -> None:
    """Hand freed memory back to the system (glibc keeps a decoded photo's freed pages in
    its per-thread arenas otherwise, so the server would stay at its peak)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass
